//! Fault suite, names (RELIABILITY.md rule 14): every name from user-data that becomes a file
//! name (apt source keys and `filename`s and their keys' names, rsyslog `filename`s and
//! `config_filename`, yum and zypper repository ids) is one path component. `..`, a `/`, `.`,
//! an empty name, a control character or a name over 255 bytes is refused by key, nothing is
//! written for that item, and the module's other items still apply. The absolute `filename`s
//! cloud-init documents for apt and rsyslog stay, resolved inside the target, without `.` or
//! `..` components.

use crate::common;
use common::chroot::Machine;
use serde_json::{json, Value};

const OS_RELEASE: &str = "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n";

/// An armored user ID packet standing for a key.
fn armored() -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(b"\xb4\x05hello");
    format!("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body}\n-----END PGP PUBLIC KEY BLOCK-----\n")
}

fn module(name: &str, stage: &str, config: Value) -> Value {
    json!({"name": name, "stage": stage, "frequency": "once-per-instance", "config": config})
}

/// A target of the distribution `os_release` names where `stage` ran `modules` once.
fn boot(name: &str, os_release: &str, stage: &str, modules: Value) -> Machine {
    let m = Machine::new(name, &[]);
    m.write("/etc/os-release", os_release, 0o644);
    m.boot_modules(modules);
    let args: &[&str] = match stage {
        "init" => &["init"],
        s => &["modules", "--mode", s],
    };
    common::assert_no_panic(&m.ember("boot-1", args));
    m
}

/// Every regular file the modules left in the target's /etc (and anything at its top), as
/// `/path`, sorted.
fn files(m: &Machine) -> Vec<String> {
    let t = &m.target;
    let mut out: Vec<String> = common::walk(t)
        .into_iter()
        .filter(|(_, meta)| meta.is_file())
        .map(|(p, _)| format!("/{}", p.strip_prefix(t).unwrap().display()))
        .filter(|p| p != "/etc/os-release" && !p.starts_with("/var/"))
        .collect();
    out.sort();
    out
}

/// `severity key` of the `bad-value` diagnostics of `stage` (`ember init` records in
/// `config`), sorted.
fn refused(m: &Machine, stage: &str) -> Vec<String> {
    let mut keys: Vec<String> = m
        .diags(stage)
        .into_iter()
        .filter(|(_, code, _)| code == "bad-value")
        .map(|(sev, _, key)| format!("{sev} {key}"))
        .collect();
    keys.sort();
    keys
}

/// `error key` for each of `keys`, as status.json shows a key (printable and bounded), sorted.
fn errors_at(keys: &[&str]) -> Vec<String> {
    let shown = ember::redact::printable;
    let mut want: Vec<String> = keys.iter().map(|k| format!("error {}", shown(k))).collect();
    want.sort();
    want
}

/// The hostile names every module below is given: a climb, a `/`, `..`, `.`, the empty name,
/// control characters (a line break, a NUL, a tab, a DEL) and 300 bytes.
fn hostile() -> Vec<(&'static str, String)> {
    vec![
        ("climb", "../../cron.d/job".into()),
        ("slash", "sub/dir".into()),
        ("dotdot", "..".into()),
        ("dot", ".".into()),
        ("newline", "a\nb".into()),
        ("nul", "a\u{0}b".into()),
        ("tab", "a\tb".into()),
        ("del", "a\u{7f}b".into()),
        ("long", "l".repeat(300)),
    ]
}

/// Expected: each hostile apt `filename` (and `../../cron.d/…` as a source's key, with no
/// `filename`; with a key of its own; and as an absolute name with `..`) is refused with a
/// `bad-value` error naming `apt.sources.<key>.filename` (or the source's key), no list and
/// no key file is written for it, nothing reaches /etc/cron.d; the usable sources are written,
/// the absolute one too, and a name of 255 bytes with `.list` is still one name.
#[test]
fn apt_source_names_that_are_not_one_path_component_write_nothing() {
    let fits = "f".repeat(250); // 250 + ".list" = 255 bytes
    let src = |f: &str| json!({"source": "deb http://x.example/ bookworm main", "filename": f});
    let mut sources = serde_json::Map::new();
    for (k, name) in hostile() {
        sources.insert(k.into(), src(&name));
    }
    sources.insert(
        "good".into(),
        json!({"source": "deb http://good.example/ bookworm main"}),
    );
    sources.insert(
        "../../cron.d/bykey".into(),
        json!({"source": "* * * * * root true"}),
    );
    let keyed = json!({"source": "deb [signed-by=$KEY_FILE] http://k.example/ bookworm main",
                       "filename": "../../cron.d/keyed", "key": armored()});
    sources.insert("keyed".into(), keyed);
    sources.insert("fits".into(), src(&fits));
    sources.insert("absolute".into(), src("/etc/apt/sources.list.d/abs.list"));
    sources.insert(
        "absdotdot".into(),
        src("/etc/apt/sources.list.d/../../cron.d/abs"),
    );
    let apt = json!({"preserve_sources_list": true, "sources": sources});
    let m = boot(
        "names-apt",
        OS_RELEASE,
        "config",
        json!([module("apt_configure", "config", json!({"apt": apt}))]),
    );
    assert_eq!(
        files(&m),
        [
            "/etc/apt/sources.list.d/abs.list".to_string(),
            format!("/etc/apt/sources.list.d/{fits}.list"),
            "/etc/apt/sources.list.d/good.list".into(),
        ]
    );
    let mut keys: Vec<String> = hostile()
        .iter()
        .map(|(k, _)| format!("apt.sources.{k}.filename"))
        .collect();
    keys.extend([
        "apt.sources.../../cron.d/bykey".into(),
        "apt.sources.keyed.filename".into(),
    ]);
    keys.push("apt.sources.absdotdot.filename".into());
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(refused(&m, "config"), errors_at(&keys));
}

/// Expected: each hostile rsyslog `configs[i].filename`, and a `config_filename` of
/// `../x`, is refused with a `bad-value` error naming it; nothing is written for it, nothing
/// lands outside /etc/rsyslog.d but the absolute name given, and the usable configs are
/// written.
#[test]
fn rsyslog_file_names_that_are_not_one_path_component_write_nothing() {
    let mut configs: Vec<Value> = hostile()
        .into_iter()
        .map(|(_, f)| json!({"filename": f, "content": "* * * * * root true"}))
        .collect();
    configs.push(json!({"filename": "ok.conf", "content": "*.* @@192.0.2.1"}));
    configs.push(json!({"filename": "/etc/rsyslog.d/abs.conf", "content": "*.* @@192.0.2.2"}));
    configs.push(json!({"filename": "/etc/rsyslog.d/../x.conf", "content": "x"}));
    let n = configs.len();
    let m = boot(
        "names-rsyslog",
        OS_RELEASE,
        "init",
        json!([module(
            "rsyslog",
            "init",
            json!({"rsyslog": {"configs": configs}})
        )]),
    );
    assert_eq!(
        files(&m),
        ["/etc/rsyslog.d/abs.conf", "/etc/rsyslog.d/ok.conf"]
    );
    let mut keys: Vec<String> = (0..hostile().len())
        .map(|i| format!("rsyslog.configs.{i}.filename"))
        .collect();
    keys.push(format!("rsyslog.configs.{}.filename", n - 1));
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(refused(&m, "config"), errors_at(&keys));

    let cfg = json!({"rsyslog": {"config_filename": "../x", "configs": ["*.* @@192.0.2.3"]}});
    let m = boot(
        "names-rsyslog-default",
        OS_RELEASE,
        "init",
        json!([module("rsyslog", "init", cfg)]),
    );
    assert_eq!(files(&m), Vec::<String>::new());
    assert_eq!(
        refused(&m, "config"),
        errors_at(&["rsyslog.config_filename"])
    );
}

/// Expected: each hostile yum repository id (the `yum_repos` key) and zypper `id` is refused
/// with a `bad-value` error naming it, nothing is written for it, and the usable repository
/// is written.
#[test]
fn repository_ids_that_are_not_one_path_component_write_nothing() {
    let repo = json!({"baseurl": "http://r.example/"});
    let mut yum = serde_json::Map::new();
    for (_, id) in hostile() {
        yum.insert(id, repo.clone());
    }
    yum.insert("fine".into(), repo.clone());
    let m = boot(
        "names-yum",
        "ID=fedora\nVERSION_ID=40\n",
        "config",
        json!([module("yum_add_repo", "config", json!({"yum_repos": yum}))]),
    );
    assert_eq!(files(&m), ["/etc/yum.repos.d/fine.repo"]);
    let keys: Vec<String> = hostile()
        .iter()
        .map(|(_, id)| format!("yum_repos.{id}"))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(refused(&m, "config"), errors_at(&keys));

    let mut repos: Vec<Value> = hostile()
        .into_iter()
        .map(|(_, id)| json!({"id": id, "baseurl": "http://z.example/"}))
        .collect();
    repos.push(json!({"id": "zfine", "baseurl": "http://z.example/"}));
    let m = boot(
        "names-zypper",
        "ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n",
        "config",
        json!([module(
            "zypper_add_repo",
            "config",
            json!({"zypper": {"repos": repos}})
        )]),
    );
    assert_eq!(files(&m), ["/etc/zypp/repos.d/zfine.repo"]);
    let keys: Vec<String> = (0..hostile().len())
        .map(|i| format!("zypper.repos.{i}.id"))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(refused(&m, "config"), errors_at(&keys));
}

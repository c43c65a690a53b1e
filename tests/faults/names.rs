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

/// Every regular file the modules left in the target, but ember's state under /var and what
/// the test put there, as `/path`, sorted.
fn files(m: &Machine) -> Vec<String> {
    let t = &m.target;
    let mut out: Vec<String> = common::walk(t)
        .into_iter()
        .filter(|(_, meta)| meta.is_file())
        .map(|(p, _)| format!("/{}", p.strip_prefix(t).unwrap().display()))
        .filter(|p| p != "/etc/os-release" && !p.starts_with("/var/") && p != "/bin/busybox")
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

/// Files to attach: (name, what ember's reader names the part: its `safe_filename`).
const ATTACHED: &[(&str, &str)] = &[
    ("plain.sh", "plain.sh"),
    ("quo\"te.sh", "quo_te.sh"),
    ("semi;colon=x.sh", "semi_colon_x.sh"),
    ("line\r\nX-Injected: yes.sh", "line__X-Injected__yes.sh"),
    ("new\nline.sh", "new_line.sh"),
    ("back\\slash.sh", "back_slash.sh"),
    ("naïve ü.sh", "na_ve__.sh"),
    ("per%cent'apos*star.sh", "per_cent_apos_star.sh"),
    ("tab\there.sh", "tab_here.sh"),
];

/// Python's `email` package (policy `default`) on `mime`: the defects, and each part's file
/// name, type, header names and text, as JSON.
fn python_reads(mime: &[u8]) -> Value {
    use std::io::Write;
    let script = "import sys, json, email, email.policy\n\
        m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.default)\n\
        parts = [{'filename': p.get_filename(), 'type': p.get_content_type(),\n\
                  'headers': list(p.keys()), 'defects': [str(d) for d in p.defects],\n\
                  'text': (p.get_payload(decode=True) or b'').decode('utf-8', 'replace')} for p in m.iter_parts()]\n\
        print(json.dumps({'multipart': m.is_multipart(), 'headers': list(m.keys()),\n\
                          'defects': [str(d) for d in m.defects], 'parts': parts}))\n";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(mime).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 could not read the message");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// ember's own reader (the local stage's `userdata::process`) on `mime`: each script part's
/// file name and text.
fn ember_reads(mime: &[u8]) -> Vec<(String, String)> {
    use ember::fetch::{FetchError, UrlReader};
    struct NoUrls;
    impl UrlReader for NoUrls {
        fn read(&self, url: &str, _: u64) -> Result<Vec<u8>, FetchError> {
            Err(FetchError::NotFound { url: url.into() })
        }
    }
    let limits = ember::limits::Limits::default();
    let parse = |text: &str| ember::yaml::parse(text, &limits);
    let instance_data = json!({});
    let ctx = ember::userdata::Context {
        limits: &limits,
        urls: &NoUrls,
        parse_yaml: &parse,
        instance_data: &instance_data,
        once_cache: &ember::userdata::NoOnceCache,
    };
    let out = ember::userdata::process(mime, "user-data", &ctx);
    assert!(out.diags.is_empty(), "{:?}", out.diags);
    out.scripts
        .iter()
        .map(|p| {
            let text = String::from_utf8(p.payload.expose().clone()).unwrap();
            (p.filename.clone(), text)
        })
        .collect()
}

/// Expected: `ember devel make-mime -a` of files named with a quote, CR LF and a header, a
/// line break, `;` and `=`, a backslash, non-ASCII, `%`, `'`, `*` and a tab makes a message
/// Python's `email` package reads as one part per file, each with exactly its four headers,
/// its text, and its file name back byte for byte (RFC 2231 `filename*` where a quoted string
/// cannot hold it); ember's reader finds the same parts in order, named by `safe_filename`.
/// A type after the last colon (a file name may hold colons, a type cannot) that is not an
/// RFC 2045 token (a line break and more, `;`, a `/`, a space, non-ASCII, empty) is refused
/// naming the attachment, `--force` or not, and nothing is printed.
#[test]
fn make_mime_file_names_and_types_stay_parameters() {
    if !common::have("python3") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ember-names-mime-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut args = vec!["devel".to_string(), "make-mime".into()];
    for (i, (name, _)) in ATTACHED.iter().enumerate() {
        std::fs::write(dir.join(name), format!("#!/bin/sh\necho part {i}\n")).unwrap();
        args.extend(["-a".into(), format!("{name}:x-shellscript")]);
    }
    let make = |args: &[String]| {
        common::run(
            std::process::Command::new(common::EMBER)
                .current_dir(&dir)
                .args(args),
        )
    };
    let out = make(&args);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let mime = out.stdout;

    let py = python_reads(&mime);
    assert_eq!(
        (&py["multipart"], &py["defects"]),
        (&json!(true), &json!([]))
    );
    assert_eq!(py["headers"], json!(["Content-Type", "MIME-Version"]));
    let parts = py["parts"].as_array().unwrap();
    assert_eq!(parts.len(), ATTACHED.len(), "{py}");
    for (i, (p, (name, _))) in parts.iter().zip(ATTACHED).enumerate() {
        assert_eq!(p["filename"], json!(name), "part {i}: {p}");
        assert_eq!(p["type"], "text/x-shellscript", "part {i}: {p}");
        assert_eq!(p["text"], json!(format!("#!/bin/sh\necho part {i}\n")));
        assert_eq!(p["defects"], json!([]), "part {i}: {p}");
        let headers = json!([
            "Content-Type",
            "MIME-Version",
            "Content-Transfer-Encoding",
            "Content-Disposition"
        ]);
        assert_eq!(p["headers"], headers, "part {i}: {p}");
    }

    let ember_parts = ember_reads(&mime);
    let want: Vec<(String, String)> = ATTACHED
        .iter()
        .enumerate()
        .map(|(i, (_, safe))| (safe.to_string(), format!("#!/bin/sh\necho part {i}\n")))
        .collect();
    assert_eq!(ember_parts, want);

    for bad in [
        "x-shellscript\r\nX-Injected",
        "x-shellscript\n\n#!/bin/sh",
        "x-shellscript; charset=latin1",
        "text/x-shellscript",
        "x shellscript",
        "x-shellscrïpt",
        "",
    ] {
        for force in [false, true] {
            let mut args: Vec<String> = ["devel", "make-mime", "-a", "plain.sh:x-shellscript"]
                .map(String::from)
                .into();
            args.extend(["-a".into(), format!("plain.sh:{bad}")]);
            if force {
                args.push("--force".into());
            }
            let out = make(&args);
            let err = common::stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{bad:?} {force}: {err}");
            assert!(out.stdout.is_empty(), "{bad:?} {force}");
            assert!(
                err.contains("-a/--attach") && err.contains("attachment 2"),
                "{bad:?}: {err}"
            );
            assert!(!err.contains("Injected"), "the type is not quoted: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Expected: a NoCloud `cloud-name` that is not one name with `cloud-id-` before it (a climb
/// out of /run/cloud-init, a `/`, a line break, 300 bytes) writes no `cloud-id-…` file and
/// no link, with an error naming meta-data's `cloud-name`; the instance is still provisioned
/// (its hostname written). A plain cloud-name still gets its file and link.
#[test]
fn cloud_names_from_metadata_that_are_not_one_name_write_no_cloud_id_file() {
    let hostile = [
        "x/../../../escaped-cloud",
        "x/y",
        "line\nbreak",
        &"c".repeat(300),
    ];
    for (i, name) in hostile.iter().enumerate() {
        let m = common::Machine::new(&format!("names-cloud-{i}"));
        let md = format!(
            "instance-id: i-cloud\nlocal-hostname: host-{i}\ncloud-name: {}\n",
            serde_json::to_string(name).unwrap()
        );
        m.seed_files(
            &m.target,
            "var/lib/cloud/seed/nocloud",
            &[("meta-data", &md), ("user-data", "#cloud-config\n{}\n")],
        );
        let out = m.initrd("all");
        common::assert_no_panic(&out);
        for (p, _) in common::walk(&m.dir) {
            let p = p.to_string_lossy().into_owned();
            assert!(
                !p.contains("cloud-id-") && !p.contains("escaped"),
                "{name:?}: {p}"
            );
        }
        assert!(!m.run.join("cloud-init/cloud-id").exists(), "{name:?}");
        let keys: Vec<Value> = m
            .diags()
            .into_iter()
            .filter(|d| d["code"] == "bad-value")
            .map(|d| d["key"].clone())
            .collect();
        assert_eq!(keys, [json!("cloud-name")], "{name:?}");
        assert_eq!(m.target_file("etc/hostname"), format!("host-{i}\n"));
    }
    let m = common::Machine::new("names-cloud-plain");
    let md = "instance-id: i-cloud\ncloud-name: my-Cloud\n";
    let seed = [("meta-data", md), ("user-data", "#cloud-config\n{}\n")];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &seed);
    common::assert_no_panic(&m.initrd("all"));
    assert_eq!(m.run_file("cloud-init/cloud-id-my-cloud"), "my-cloud\n");
    let link = std::fs::read_link(m.run.join("cloud-init/cloud-id")).unwrap();
    assert_eq!(link, m.run.join("cloud-init/cloud-id-my-cloud"));
}

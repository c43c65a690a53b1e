//! Fault suite, config values (RELIABILITY.md rule 14, "a value stays a value"): values
//! written into a config language (apt.conf, a .repo file's INI, sudoers) that carry the
//! language's own syntax, a quote and a line break above all. Each is escaped so the
//! language's reader gets it back whole, or refused by an error naming its key, never its
//! value; the rest of the module still applies. The real readers judge where installed
//! (`apt-config`); a missing one prints SKIP, and fails under CI.

use crate::common;
use crate::common::target::Accounts;
use common::chroot::Machine;
use common::text;
use serde_json::json;
use std::process::Command;

const PROXY_FILE: &str = "/etc/apt/apt.conf.d/90cloud-init-aptproxy";
/// A proxy that closes its string and adds a command apt runs as root before each update.
const HOSTILE_PROXY: &str =
    "http://p:3128/\";\nAPT::Update::Pre-Invoke { \"touch /pwned\"; };\nX \"";
/// The same with a carriage return and no `"`, which apt's reader also takes as a line end.
const HOSTILE_CR: &str = "http://q/\rAPT::Update::Pre-Invoke:: \"touch /pwned\";";

/// The runner writes the target's files as root (owners, modes); these modules run no
/// command, so no busybox is needed. Not root: SKIP, a failure under CI.
fn as_root() -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "under CI: run as root");
    common::skip("the runner writes as root: run the fault suite as root");
    false
}

/// The status' messages hold none of `values`' distinctive parts.
fn no_value_in_status(m: &Machine, marks: &[&str]) {
    let status = m.status().to_string();
    for mark in marks {
        assert!(!status.contains(mark), "status shows the value: {status}");
    }
}

/// What `file` (of the target) adds to apt's configuration as `apt-config dump` shows it:
/// `(name, value)`, the host's own settings (a dump over an empty file) and the nodes above
/// the values taken out. None when
/// apt-config is missing (SKIP, or a failure under CI).
fn apt_config(m: &Machine, file: &str) -> Option<Vec<(String, String)>> {
    if !common::have("apt-config") {
        return None;
    }
    let dump = |path: &std::path::Path| -> Vec<(String, String)> {
        let out = Command::new("apt-config")
            .args(["dump", "--format", "%f\x1f%v%n", "-c"])
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success(), "apt-config: {}", text(&out));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('\x1f'))
            .filter(|(k, _)| *k != "CommandLine::AsString")
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let mut host = dump(std::path::Path::new("/dev/null"));
    let mut added = Vec::new();
    for entry in dump(&m.target.join(file.trim_start_matches('/'))) {
        match host.iter().position(|h| *h == entry) {
            Some(i) => {
                host.remove(i);
            }
            None => added.push(entry),
        }
    }
    // A node holding others (`Acquire::ftp` of `Acquire::ftp::Proxy`) is dumped too.
    let parent = |k: &str| added.iter().any(|(o, _)| o.starts_with(&format!("{k}::")));
    let nodes: Vec<bool> = added
        .iter()
        .map(|(k, v)| v.is_empty() && parent(k))
        .collect();
    let mut node = nodes.into_iter();
    added.retain(|_| !node.next().unwrap_or(false));
    Some(added)
}

/// Expected: `apt.proxy` holding `";` and a line break that would add
/// `APT::Update::Pre-Invoke`, and `apt.https_proxy` holding a carriage return, are each an
/// error naming the key (never the value); the proxy file holds the good `ftp_proxy` only,
/// apt's own reader finds one Proxy directive and no Pre-Invoke, and `apt.conf` is still
/// written.
#[test]
fn apt_proxies_with_quotes_and_line_breaks_add_no_apt_directive() {
    if !as_root() {
        return;
    }
    let m = Machine::new("values-apt", &[]);
    let apt = json!({
        "proxy": HOSTILE_PROXY,
        "https_proxy": HOSTILE_CR,
        "ftp_proxy": "ftp://f.example/",
        "conf": "APT::Get::Assume-Yes \"true\";\n",
    });
    let diags = m.config_stage(&[("apt_configure", json!({"apt": apt}))]);
    let refused: Vec<_> = diags
        .iter()
        .filter(|(s, c, _)| s == "error" && c == "bad-value")
        .map(|(_, _, k)| k.as_str())
        .collect();
    assert_eq!(refused, ["apt.proxy", "apt.https_proxy"], "{diags:?}");
    no_value_in_status(&m, &["Pre-Invoke", "pwned", "p:3128"]);
    let text = m.read(PROXY_FILE);
    assert_eq!(text, "Acquire::ftp::Proxy \"ftp://f.example/\";\n");
    assert!(!text.contains("Pre-Invoke") && !text.contains('\r'));
    assert_eq!(
        m.read("/etc/apt/apt.conf.d/94cloud-init-config"),
        "APT::Get::Assume-Yes \"true\";\n",
        "the rest of the module applies"
    );
    let Some(dump) = apt_config(&m, PROXY_FILE) else {
        return;
    };
    let proxies: Vec<_> = dump
        .iter()
        .filter(|(k, _)| k.ends_with("::Proxy"))
        .collect();
    assert_eq!(proxies.len(), 1, "{dump:?}");
    assert!(
        !dump.iter().any(|(k, _)| k.contains("Pre-Invoke")),
        "{dump:?}"
    );
}

/// A section as configparser reads it: its name and `(option, value)`s.
type Section = (String, Vec<(String, String)>);

/// Python's configparser (what yum reads a .repo with) over `text`; None when python3 is
/// missing (SKIP, or a failure under CI).
fn configparser(text: &str) -> Option<Vec<Section>> {
    if !common::have("python3") {
        return None;
    }
    let script = "import configparser, json, sys\n\
                  p = configparser.RawConfigParser()\n\
                  p.read_string(sys.stdin.buffer.read().decode())\n\
                  print(json.dumps([[s, list(p.items(s))] for s in p.sections()]))\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "configparser: {}", text_of(&out));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn text_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Expected: a yum repository whose `baseurl` hides a section and an option behind a
/// carriage return, and one whose `name` holds a NUL, are each skipped with an error naming
/// the option (`yum_repos.<id>.<option>`); the good repository beside them is written and
/// Python's configparser reads one section holding exactly its options, a list on
/// continuation lines and `#`, `;`, `[`, `$` kept mid-value.
#[test]
fn yum_repo_values_with_line_breaks_add_no_section_or_option() {
    if !as_root() {
        return;
    }
    let m = Machine::new("values-yum", &[]);
    m.write(
        "/etc/os-release",
        "NAME=Fedora\nID=fedora\nVERSION_ID=40\n",
        0o644,
    );
    let repos = json!({
        "cr": {"baseurl": "http://cr.example/\r[pwned]\rbaseurl=http://evil.example/\rgpgcheck=0"},
        "nul": {"baseurl": "http://nul.example/", "name": "a\u{0}b"},
        "good": {"baseurl": ["http://a.example/$basearch", "http://b.example/#x;y[z]"],
                 "gpgcheck": true, "name": "Good; [one] #1"},
    });
    let diags = m.config_stage(&[("yum_add_repo", json!({"yum_repos": repos}))]);
    let refused: Vec<_> = diags
        .iter()
        .filter(|(s, c, _)| s == "error" && c == "bad-value")
        .map(|(_, _, k)| k.as_str())
        .collect();
    assert_eq!(
        refused,
        ["yum_repos.cr.baseurl", "yum_repos.nul.name"],
        "{diags:?}"
    );
    no_value_in_status(&m, &["pwned", "evil.example"]);
    assert!(!m.exists("/etc/yum.repos.d/cr.repo") && !m.exists("/etc/yum.repos.d/nul.repo"));
    let text = m.read("/etc/yum.repos.d/good.repo");
    assert!(!text.contains('\r') && !text.contains("pwned"), "{text}");
    let Some(read) = configparser(&text) else {
        return;
    };
    let opts = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        read,
        [(
            "good".to_string(),
            opts(&[
                (
                    "baseurl",
                    "http://a.example/$basearch\nhttp://b.example/#x;y[z]"
                ),
                ("gpgcheck", "1"),
                ("name", "Good; [one] #1"),
            ])
        )]
    );
}

/// Expected: zypper repositories whose values span lines (a list of two items, which
/// cloud-init writes over several lines, and a value holding `'''` and a line break) are
/// each skipped with an error naming the option; libzypp reads a .repo line by line (a `[`
/// starts a section wherever it is indented), so no written file has a second section or a
/// line that is not `key = value`, and the good repository is written.
#[test]
fn zypper_repo_values_that_span_lines_add_no_section() {
    if !as_root() {
        return;
    }
    let m = Machine::new("values-zypper", &[]);
    m.write(
        "/etc/os-release",
        "ID=\"opensuse-leap\"\nVERSION_ID=\"15.5\"\n",
        0o644,
    );
    let repos = json!([
        {"id": "list", "baseurl": ["http://a.example/", "[pwned]"]},
        {"id": "triple", "baseurl": "http://t.example/", "name": "a'''\n[pwned]\nbaseurl = x"},
        {"id": "cr", "baseurl": "http://c.example/\r[pwned]"},
        {"id": "good", "baseurl": "http://g.example/", "name": "Good, \"one\""},
    ]);
    let diags = m.config_stage(&[("zypper_add_repo", json!({"zypper": {"repos": repos}}))]);
    let refused: Vec<_> = diags
        .iter()
        .filter(|(s, c, _)| s == "error" && c == "bad-value")
        .map(|(_, _, k)| k.as_str())
        .collect();
    assert_eq!(
        refused,
        [
            "zypper.repos.0.baseurl",
            "zypper.repos.1.name",
            "zypper.repos.2.baseurl"
        ],
        "{diags:?}"
    );
    no_value_in_status(&m, &["pwned"]);
    for id in ["list", "triple", "cr"] {
        assert!(!m.exists(&format!("/etc/zypp/repos.d/{id}.repo")), "{id}");
    }
    let text = m.read("/etc/zypp/repos.d/good.repo");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    assert_eq!(lines[0], "[good]", "{text}");
    for l in &lines[1..] {
        assert!(!l.starts_with('[') && l.contains(" = "), "{l:?} in {text}");
    }
}

/// Expected: ann's sudo rules, one ending in `\` (which would join the next line, bob's rule,
/// to it) and one hiding a rule for mallory behind a carriage return, are refused with an
/// error naming `users.0.sudo`; bob's rule is written alone, and `visudo -c` (where
/// installed) finds the file valid.
#[test]
fn sudo_rules_with_line_breaks_or_continuations_grant_nothing_more() {
    let m = common::Machine::new("values-sudo");
    let t = &m.target;
    Accounts::root()
        .shell("/bin/sh")
        .shadow()
        .gshadow()
        .write(t);
    let ud = "#cloud-config\nusers:\n\
              - name: ann\n  sudo: ['ALL=(ALL) /bin/ls \\', \"ALL=(ALL) /bin/df\\rmallory ALL=(ALL) NOPASSWD:ALL\"]\n\
              - name: bob\n  sudo: 'ALL=(ALL) /bin/true'\n";
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", "instance-id: i-sudo\n"), ("user-data", ud)],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    let refused: Vec<String> = m
        .diags()
        .into_iter()
        .filter(|d| d["code"] == "bad-value")
        .map(|d| d["key"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(refused, ["users.0.sudo"]);
    let status = m.status().to_string();
    assert!(
        !status.contains("mallory") && !status.contains("/bin/ls"),
        "{status}"
    );
    let rules = m.target_file("etc/sudoers.d/90-cloud-init-users");
    assert!(
        !rules.contains('\r') && !rules.contains("mallory"),
        "{rules:?}"
    );
    assert!(!rules.contains("ann "), "{rules:?}");
    assert!(rules.contains("\nbob ALL=(ALL) /bin/true\n"), "{rules:?}");
    if !common::have("visudo") {
        return;
    }
    let file = t.join("etc/sudoers.d/90-cloud-init-users");
    let out = common::run(Command::new("visudo").arg("-c").arg("-f").arg(&file));
    assert!(out.status.success(), "visudo: {}", text(&out));
}

/// The values of the writers' tables that each language cannot refuse: what they hold of
/// its syntax (quotes, comment and section characters, escapes, `$`, backquotes).
const SYNTAX: &[&str] = &[
    "plain", "a#b", "a;b", "[s]", "{x}", "a\\b", "$x", "`id`", "a//b", "%41", "it's", "ü", "",
];

/// Expected: every value apt.conf's writer accepts comes back whole from `apt-config dump`,
/// as the one directive it was written as; quotes and line breaks are refused.
#[test]
fn apt_conf_values_read_back_whole_by_apt_config() {
    use ember::conf_lang::apt_conf;
    let m = Machine::new("values-apt-table", &[]);
    let mut text = String::new();
    for (i, v) in SYNTAX.iter().enumerate() {
        text.push_str(&format!("Ember::V{i} {};\n", apt_conf::quoted(v).unwrap()));
    }
    for bad in ["a\"b", "a\nb", "a\rb", "a\0b"] {
        assert!(apt_conf::quoted(bad).is_err(), "{bad:?}");
    }
    m.write("/t.conf", &text, 0o644);
    let Some(dump) = apt_config(&m, "/t.conf") else {
        return;
    };
    assert_eq!(dump.len(), SYNTAX.len(), "{dump:?}");
    for (i, v) in SYNTAX.iter().enumerate() {
        let got = dump.iter().find(|(k, _)| *k == format!("Ember::V{i}"));
        assert_eq!(got.map(|(_, g)| g.as_str()), Some(*v), "{v:?}");
    }
}

/// Expected: Ruby reads every string literal the writer makes (quotes, `#{…}`, line breaks,
/// NUL, escapes) back as the value, byte for byte, running nothing.
#[test]
fn ruby_string_literals_read_back_whole_by_ruby() {
    use ember::conf_lang::ruby;
    if !common::have("ruby") {
        return;
    }
    let mut values: Vec<&str> = SYNTAX.to_vec();
    values.extend([
        "a\"b",
        "#{`touch /pwned`}",
        "#@x #$y",
        "a\nb\r\0\u{1b}\u{7f}",
        "\\\"",
    ]);
    let script: String = values
        .iter()
        .map(|v| format!("STDOUT.write({}, \"\\x1f\")\n", ruby::string(v)))
        .collect();
    let out = common::run(Command::new("ruby").args(["-e", &script]));
    assert!(out.status.success(), "ruby: {}", text(&out));
    let got = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = got.split('\x1f').collect();
    assert_eq!(&got[..values.len()], &values[..]);
}

//! Fault suite, config values (RELIABILITY.md rule 14, "a value stays a value"): values
//! written into a config language (apt.conf, a .repo file's INI, sudoers) that carry the
//! language's own syntax, a quote and a line break above all. Each is escaped so the
//! language's reader gets it back whole, or refused by an error naming its key, never its
//! value; the rest of the module still applies. The real readers judge where installed
//! (`apt-config`); a missing one prints SKIP, and fails under CI.

use crate::common;
use common::chroot::Machine;
use common::text;
use serde_json::{json, Value};
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

/// Runs the config stage over `modules` (name, config) and returns its diagnostics as
/// `(severity, code, key)`.
fn config(m: &Machine, modules: &[(&str, Value)]) -> Vec<(String, String, String)> {
    let calls: Vec<Value> = modules
        .iter()
        .map(|(name, cfg)| {
            json!({"name": name, "stage": "config", "frequency": "once-per-instance",
                   "config": cfg})
        })
        .collect();
    m.boot_modules(Value::Array(calls));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", text(&out));
    common::assert_no_panic(&out);
    m.diags("config")
}

/// The status' messages hold none of `values`' distinctive parts.
fn no_value_in_status(m: &Machine, marks: &[&str]) {
    let status = m.status().to_string();
    for mark in marks {
        assert!(!status.contains(mark), "status shows the value: {status}");
    }
}

/// `apt-config dump` over `file` (of the target), as `(name, value)`; None when apt-config
/// is missing (SKIP, or a failure under CI).
fn apt_config(m: &Machine, file: &str) -> Option<Vec<(String, String)>> {
    if !common::have("apt-config") {
        return None;
    }
    let path = m.target.join(file.trim_start_matches('/'));
    let out = Command::new("apt-config")
        .env("APT_CONFIG", "/dev/null")
        .args(["dump", "--no-empty", "--format", "%f\x1f%v%n", "-c"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "apt-config: {}", text(&out));
    let dump = String::from_utf8(out.stdout).unwrap();
    Some(
        dump.lines()
            .filter_map(|l| l.split_once('\x1f'))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
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
    let diags = config(&m, &[("apt_configure", json!({"apt": apt}))]);
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

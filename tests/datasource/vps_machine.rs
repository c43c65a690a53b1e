//! What the VPS clouds' tests share: a Debian-like target with networkd and a default user
//! `admin`, short deadlines, NICs in the host tree, and the networkd files ember rendered.
#![allow(dead_code)] // each cloud's tests use a subset, and each cloud is a feature

use crate::common::target::Accounts;
use crate::common::Machine;

pub const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

/// A machine with DMI `fields`, the target, the NICs `(name, mac)` and `ember.metadata-url=`.
pub fn machine(name: &str, dmi: &[(&str, &str)], nics: &[(&str, &str)], url: &str) -> Machine {
    let m = Machine::new(name);
    for (field, value) in dmi {
        m.dmi(field, value);
    }
    target(&m);
    for (nic_name, mac) in nics {
        nic(&m, nic_name, mac);
    }
    m.cmdline(&format!("ro ember.metadata-url={url}"));
    m
}

pub fn nic(m: &Machine, name: &str, mac: &str) {
    for (file, value) in [("address", mac), ("type", "1")] {
        let path = format!("sys/class/net/{name}/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
}

/// A Debian-like target with networkd, a default user `admin` and short deadlines.
pub fn target(m: &Machine) {
    let t = &m.target;
    m.write(t, NETWORKD, b"");
    Accounts::root().user("admin").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

/// Every networkd file ember wrote, each under a `== name` line.
pub fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    let body = |p: &std::path::PathBuf| std::fs::read_to_string(p).unwrap();
    let name = |p: &std::path::PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
    names
        .iter()
        .map(|p| format!("== {}\n{}", name(p), body(p)))
        .collect()
}

/// The codes of every diagnostic.
pub fn codes(m: &Machine) -> Vec<String> {
    let diags = m.diags();
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

//! The canonical seeds, shared with the QEMU cases (tests/fixtures/seeds/) and the demo
//! (examples/nocloud-seed), through `ember-initrd all` on an ISO9660 `cidata` volume: what
//! the QEMU cases check on the VM's disk, checked here without a VM.

use crate::common;
use common::{have, Machine};
use std::path::{Path, PathBuf};

fn seed_dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A seed folder's files as `(name, content)`.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// A first boot from the seed at `rel`; `None` when xorriso is missing (SKIP printed).
fn boot(name: &str, rel: &str) -> Option<Machine> {
    if !have("xorriso") {
        return None;
    }
    let m = Machine::new(name);
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    let owned = files(&seed_dir(rel));
    let seed: Vec<(&str, &str)> = owned
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    m.iso_seed("sr0", "cidata", &seed);
    let out = m.initrd("all");
    assert!(out.status.code().is_some(), "{}", common::stderr(&out));
    Some(m)
}

#[test]
fn basic_seed_provisions_what_the_qemu_cases_check() {
    let Some(m) = boot("seed-basic", "tests/fixtures/seeds/basic") else {
        return;
    };
    let st = m.status();
    assert_eq!(st["instance_id"], "iid-qemu-basic");
    assert_eq!(
        m.diags().iter().filter(|d| d["level"] == "error").count(),
        0,
        "{st}"
    );
    assert_eq!(m.target_file("etc/hostname"), "ember-qemu\n");
    let written = m.target.join("etc/ember-test/written");
    assert_eq!(
        m.target_file("etc/ember-test/written"),
        "written by ember\n"
    );
    assert_eq!(Machine::mode(&written), 0o640);
    let passwd = m.target_file("etc/passwd");
    assert!(passwd.lines().any(|l| l.starts_with("tester:")), "{passwd}");
}

#[test]
fn broken_seed_reports_the_line_and_still_sets_the_hostname() {
    let Some(m) = boot("seed-broken", "tests/fixtures/seeds/broken") else {
        return;
    };
    let yaml = m
        .diag_with_code("yaml-syntax")
        .expect("the YAML error is recorded");
    assert!(yaml["line"].as_u64().is_some(), "{yaml}");
    assert_eq!(m.target_file("etc/hostname"), "ember-broken\n");
    assert!(!m.target.join("etc/never").exists());
}

#[test]
fn second_seed_is_a_new_instance() {
    let Some(m) = boot("seed-second", "tests/fixtures/seeds/second") else {
        return;
    };
    assert_eq!(m.status()["instance_id"], "iid-qemu-second");
    assert_eq!(m.target_file("etc/hostname"), "ember-second\n");
}

#[test]
fn the_demo_seed_provisions() {
    let Some(m) = boot("seed-demo", "examples/nocloud-seed") else {
        return;
    };
    let st = m.status();
    assert_eq!(st["instance_id"], "iid-example-01");
    assert_eq!(
        m.diags().iter().filter(|d| d["level"] == "error").count(),
        0,
        "{st}"
    );
}

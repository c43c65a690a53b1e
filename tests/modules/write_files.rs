//! `write_files` through the real `ember-initrd all` on a NoCloud seed in the target: the
//! encodings, modes and owners (against the target's own passwd and group), append, defer, a
//! planted symlink out of the root, an unknown owner, and content never in any output.

use crate::common;
use base64::Engine as _;
use common::{stderr, stdout, Machine};
use std::io::Write;
use std::os::unix::fs::{symlink, MetadataExt};

const META: &str = "instance-id: iid-wf01\nlocal-hostname: wf\n";

fn b64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn user_data() -> String {
    format!(
        "#cloud-config
write_files:
  - path: /etc/plain.conf
    content: |
      plain PLAIN-SECRET
  - path: /etc/b64.bin
    encoding: b64
    content: {b64}
    permissions: '0600'
    owner: alice:staff
  - path: /opt/app/run.sh
    encoding: gzip
    content: !!binary |
      {gz}
    permissions: '0755'
    owner: alice
  - path: /etc/gzb64.txt
    encoding: gz+b64
    content: {gzb64}
    permissions: 0640
    owner: root:staff
  - path: /etc/ids.conf
    content: ids IDS-SECRET
    permissions: 0o440
    owner: '1001:50'
  - path: /etc/motd
    append: true
    content: |
      APPENDED-SECRET
  - path: /etc/later.conf
    defer: true
    content: DEFERRED-SECRET
    owner: app:app
    permissions: '0600'
  - path: /etc/evil/payload
    content: EVIL-SECRET
  - path: /etc/ghost.conf
    owner: ghost:ghost
    content: GHOST-SECRET
  - path: /proc/sys/kernel/core_pattern
    content: PROC-SECRET
",
        b64 = b64(b"b64 B64-SECRET\n"),
        gz = b64(&gz(b"#!/bin/sh\necho GZ-SECRET\n")),
        gzb64 = b64(&gz(b"gz+b64 GZB64-SECRET\n")),
    )
}

const SECRETS: [&str; 10] = [
    "PROC-SECRET",
    "PLAIN-SECRET",
    "B64-SECRET",
    "GZ-SECRET",
    "GZB64-SECRET",
    "IDS-SECRET",
    "APPENDED-SECRET",
    "DEFERRED-SECRET",
    "EVIL-SECRET",
    "GHOST-SECRET",
];

fn machine() -> (Machine, std::path::PathBuf) {
    let m = Machine::new("write-files");
    m.write(
        &m.target,
        "etc/passwd",
        b"root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n",
    );
    m.write(
        &m.target,
        "etc/group",
        b"root:x:0:\nalice:x:1000:\nstaff:x:50:alice\n",
    );
    m.write(&m.target, "etc/motd", b"welcome\n");
    std::fs::create_dir_all(m.target.join("proc")).unwrap();
    // A directory on the host, outside the target, that an absolute link in the image names.
    let outside = m.dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    symlink(&outside, m.target.join("etc/evil")).unwrap();
    let ud = user_data();
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", META), ("user-data", &ud)],
    );
    (m, outside)
}

fn owner(m: &Machine, rel: &str) -> (u32, u32, u32) {
    let meta = std::fs::symlink_metadata(m.target.join(rel)).unwrap();
    (meta.uid(), meta.gid(), meta.mode() & 0o7777)
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[test]
fn files_modes_owners_defer_and_refusals() {
    let (m, outside) = machine();
    let out = m.initrd("all");
    if !is_root() {
        common::skip("write_files owners need root to chown; run the tests as root");
        return;
    }
    assert_eq!(m.target_file("etc/plain.conf"), "plain PLAIN-SECRET\n");
    assert_eq!(m.target_file("etc/b64.bin"), "b64 B64-SECRET\n");
    assert_eq!(
        m.target_file("opt/app/run.sh"),
        "#!/bin/sh\necho GZ-SECRET\n"
    );
    assert_eq!(m.target_file("etc/gzb64.txt"), "gz+b64 GZB64-SECRET\n");
    assert_eq!(m.target_file("etc/ids.conf"), "ids IDS-SECRET");
    assert_eq!(m.target_file("etc/motd"), "welcome\nAPPENDED-SECRET\n");
    assert_eq!(owner(&m, "etc/plain.conf"), (0, 0, 0o644));
    assert_eq!(owner(&m, "etc/b64.bin"), (1000, 50, 0o600));
    assert_eq!(owner(&m, "opt/app/run.sh"), (1000, 1000, 0o755));
    assert_eq!(owner(&m, "etc/gzb64.txt"), (0, 50, 0o640));
    assert_eq!(owner(&m, "etc/ids.conf"), (1001, 50, 0o440));

    // Deferred: not written, left decoded for the runner in a 0600 file.
    assert!(!m.target.join("etc/later.conf").exists());
    let deferred = "var/lib/ember/deferred/write_files.json";
    assert_eq!(Machine::mode(&m.target.join(deferred)), 0o600);
    let json: serde_json::Value = serde_json::from_str(&m.target_file(deferred)).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{"path": "/etc/later.conf", "content_b64": b64(b"DEFERRED-SECRET"),
            "permissions": 0o600, "owner": "app:app", "append": false}])
    );

    // The planted link: an error for that item, nothing outside the target.
    let evil = m.diag_with_code("write-failed").expect("write-failed diag");
    assert_eq!(evil["key"], "write_files.7.path");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert!(!m.target.join("etc/evil/payload").exists());
    // The unknown owner: an error for that item only.
    let ghost = m
        .diag_with_code("owner-unknown")
        .expect("owner-unknown diag");
    assert_eq!(ghost["key"], "write_files.8.owner");
    assert!(!m.target.join("etc/ghost.conf").exists());
    // The target's /proc: refused.
    let proc = m
        .diag_with_code("write-refused")
        .expect("write-refused diag");
    assert_eq!(proc["key"], "write_files.9.path");
    assert!(!m.target.join("proc/sys").exists());
    let errors: Vec<_> = m
        .diags()
        .into_iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");

    // No content anywhere it could be read by others or logged.
    let status = m.run_file("ember/status.json");
    for secret in SECRETS {
        for (what, text) in [
            ("stdout", stdout(&out)),
            ("stderr", stderr(&out)),
            ("status", status.clone()),
        ] {
            assert!(!text.contains(secret), "{secret} in {what}");
        }
    }
}

#[test]
fn rerun_after_a_failed_item_keeps_the_target_the_same() {
    let (m, _) = machine();
    m.initrd("all");
    let first = Machine::tree(&m.target);
    let motd = m.target_file("etc/motd");
    // The module had errors, so it is not marked done and runs again on the next boot.
    m.initrd("all");
    assert_eq!(m.target_file("etc/motd"), motd, "appended twice");
    let second = Machine::tree(&m.target);
    let changed: Vec<_> = second.iter().filter(|e| !first.contains(e)).collect();
    assert!(
        changed.iter().all(|(p, _)| p.starts_with("var/lib/")),
        "{changed:?}"
    );
}

/// Issue 21, items 1 and 2, through a whole boot: cloud-init's first documented write_files
/// example ends its base64 in `...` (Python's `b64decode` drops what is outside the alphabet,
/// so cloud-init writes the file: so does ember, with a warning); a `!!binary` with stray
/// characters is decoded as PyYAML does; and a value that cannot be read as its tag says fails
/// its top-level key only (PyYAML refuses the whole document): the hostname is provisioned.
#[test]
fn documented_examples_decode_as_cloud_init_and_a_bad_value_fails_its_key() {
    let m = Machine::new("write-files-doc");
    let ud = "#cloud-config
hostname: doc-example
write_files:
  - encoding: b64
    content: CiMgVGhpcyBmaWxlIGNvbnRyb2xzIHRoZSBzdGF0ZSBvZiBTRUxpbnV4...
    owner: root:root
    path: /etc/sysconfig/selinux
    permissions: '0644'
  - path: /etc/stray.txt
    content: !!binary |
      aGVs*bG8K
bootcmd:
  - !!int not-a-number
";
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", META), ("user-data", ud)],
    );
    m.initrd("all");
    assert_eq!(
        m.target_file("etc/sysconfig/selinux"),
        "\n# This file controls the state of SELinux"
    );
    assert_eq!(m.target_file("etc/stray.txt"), "hello\n");
    assert_eq!(m.target_file("etc/hostname").trim(), "doc-example");
    let dropped = m.diag_with_code("base64-invalid").expect("a warning");
    assert_eq!(dropped["severity"], "warning");
    assert_eq!(dropped["key"], "write_files.0.content");
    let bad = m.diag_with_code("yaml-type").expect("the bad value named");
    assert_eq!(bad["severity"], "error");
    assert_eq!(bad["line"], 13);
    let msg = bad["message"].as_str().unwrap();
    assert!(
        msg.starts_with("bootcmd.0: ") && msg.ends_with("bootcmd is left out"),
        "{msg}"
    );
    assert!(!msg.contains("not-a-number"));
}

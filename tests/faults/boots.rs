//! Fault suite, later boots (RELIABILITY.md rule 10): the datasource is gone on the next
//! boot of a provisioned machine, once an EC2 metadata service that no longer answers, once
//! a NoCloud seed disk that was removed. The cached instance must stay: same instance id,
//! not a first boot, its config handed on again, and no per-instance work redone (users,
//! host keys, files: not one of them rewritten, checked by inode and mtime).

use crate::common;
use crate::common::emulator;
use common::faults::{self, aws_dmi, changed, cloud_target, snapshot};
use common::{have, stderr, Machine};
use emulator::ec2;

/// A new boot: /run is a fresh tmpfs.
fn reboot(m: &Machine) {
    std::fs::remove_dir_all(&m.run).unwrap();
}

/// A later boot may replace ember's and cloud-init's state files with the same content
/// (cloud-init too rewrites `user-data.txt` on every boot), and so touch their directories;
/// only the boot records (`data/`, per-boot semaphores) may differ. Anything else, changed at all, was redone.
fn redone(path: &str, before: Option<&faults::Version>, after: Option<&faults::Version>) -> bool {
    let state = path.starts_with("var/lib/ember") || path.starts_with("var/lib/cloud");
    let is_dir = |v: Option<&faults::Version>| v.is_some_and(|v| v.mode & 0o170000 == 0o040000);
    let same_content =
        matches!((before, after), (Some(b), Some(a)) if b.content == a.content && b.mode == a.mode);
    // Per-boot semaphores record this boot's per-boot modules; per-instance ones must stay.
    let boot_record = path.contains("/data/") || path.ends_with(".boot");
    !(state && (is_dir(after) || same_content || boot_record))
}

/// The cached instance `id` was handed on; nothing per-instance in `before` was redone.
fn assert_cached_instance_kept(
    m: &Machine,
    id: &str,
    before: &std::collections::BTreeMap<String, faults::Version>,
) {
    let st = m.status();
    assert_eq!(st["instance_id"], id, "{st}");
    assert_eq!(st["first_boot"], false);
    assert!(
        m.diag_with_code("cached-instance").is_some(),
        "{:#?}",
        m.diags()
    );
    let handoff = m.json("ember/handoff.json");
    assert_eq!(handoff["first_boot"], false);
    assert_eq!(handoff["instance_id"], id);
    assert_eq!(
        m.target_file("var/lib/ember/data/instance-id"),
        format!("{id}\n")
    );
    let after = snapshot(&m.target);
    let rewritten: Vec<_> = changed(before, &after)
        .into_iter()
        .filter(|p| redone(p, before.get(p), after.get(p)))
        .collect();
    assert!(
        rewritten.is_empty(),
        "rewritten on a later boot: {rewritten:#?}"
    );
}

/// Expected: EC2's metadata service does not answer on the second boot (the port is closed).
/// The boot records the failure (exit 1), keeps instance i-1234567890abcdef0, hands its
/// config on with `first_boot: false`, and rewrites none of the first boot's files (the
/// user-data's file, the default user, host keys, hostname, network config).
#[test]
fn ec2_unreachable_on_a_later_boot_keeps_the_instance() {
    let server = ec2::start();
    let m = Machine::new("later-ec2");
    aws_dmi(&m);
    cloud_target(&m, "");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["first_boot"], true);
    assert!(m.target.join("etc/ec2-secret").exists());
    let before = snapshot(&m.target);

    reboot(&m);
    let closed = faults::closed_port();
    m.cmdline(&format!(
        "ro ember.metadata-url=http://127.0.0.1:{closed} ember.metadata-timeout=2"
    ));
    let out = m.initrd("all");
    assert_eq!(
        out.status.code(),
        Some(0),
        "the failure is a warning: {}",
        stderr(&out)
    );
    assert_cached_instance_kept(&m, ec2::INSTANCE_ID, &before);
}

/// Expected: the `cidata` CD of the first boot is gone on the second. The same as above:
/// the failure is said, instance i-seed-disk kept and handed on, nothing rewritten.
#[test]
fn nocloud_seed_disk_removed_on_a_later_boot_keeps_the_instance() {
    if !have("xorriso") {
        return;
    }
    let m = Machine::new("later-seed");
    let ud = "#cloud-config\nusers: [{name: ann, ssh_authorized_keys: [ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey ann]}]\nwrite_files: [{path: /etc/first-boot.conf, content: once}]\nruncmd: [ls]\n";
    m.write(&m.target, "etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n");
    m.write(&m.target, "etc/group", b"root:x:0:\n");
    m.iso_seed(
        "sr0",
        "cidata",
        &[
            (
                "meta-data",
                "instance-id: i-seed-disk\nlocal-hostname: seeded\n",
            ),
            ("user-data", ud),
        ],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.target_file("etc/first-boot.conf"), "once");
    assert!(m.target_file("etc/passwd").contains("\nann:"));
    let before = snapshot(&m.target);

    reboot(&m);
    std::fs::remove_file(m.host.join("dev/sr0")).unwrap();
    std::fs::remove_dir_all(m.host.join("sys/class/block/sr0")).unwrap();
    m.cmdline("ro ds=nocloud");
    let out = m.initrd("all");
    assert_eq!(
        out.status.code(),
        Some(0),
        "the failure is a warning: {}",
        stderr(&out)
    );
    assert_cached_instance_kept(&m, "i-seed-disk", &before);
    let runcmd = m.handoff_module("runcmd");
    assert_eq!(runcmd["config"]["runcmd"][0], "ls", "the cached config");
}

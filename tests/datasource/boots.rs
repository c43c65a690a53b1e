//! State across boots: first boot by instance id, "no news" on a later boot, untrusted ids,
//! symlinks planted in the image, and the removable-seed policy.

use crate::common;
use common::{have, stderr, Machine};

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";

fn seed(m: &Machine, id: &str) {
    let meta = format!("instance-id: {id}\n");
    m.seed_files(
        &m.target,
        SEED_DIR,
        &[
            ("meta-data", &meta),
            ("user-data", "#cloud-config\nruncmd: [ls]\n"),
        ],
    );
}

/// A new boot: /run is a fresh tmpfs.
fn reboot(m: &Machine) {
    std::fs::remove_dir_all(&m.run).unwrap();
}

#[test]
fn same_id_is_not_first_boot_new_id_is() {
    let m = Machine::new("boots");
    seed(&m, "i-first");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(m.status()["first_boot"], true);

    reboot(&m);
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(m.status()["first_boot"], false);
    assert_eq!(m.json("ember/handoff.json")["first_boot"], false);

    reboot(&m);
    seed(&m, "i-second");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(m.status()["first_boot"], true);
    assert_eq!(
        m.target_file("var/lib/ember/data/previous-instance-id"),
        "i-first\n"
    );
    assert_eq!(
        m.target_file("var/lib/cloud/data/previous-instance-id"),
        "i-first\n"
    );
    assert_eq!(
        m.target_file("var/lib/ember/data/instance-id"),
        "i-second\n"
    );
}

#[test]
fn unreachable_datasource_later_is_no_news() {
    let m = Machine::new("nonews");
    m.seed_files(
        &m.host,
        "seed",
        &[
            ("meta-data", "instance-id: i-cached\n"),
            ("user-data", "#cloud-config\nruncmd: [ls]\n"),
        ],
    );
    m.cmdline("ro ds=nocloud;s=/seed/");
    assert_eq!(m.initrd("all").status.code(), Some(0));

    // Next boot the seed is gone: the cached instance stays, nothing is re-created.
    reboot(&m);
    std::fs::remove_dir_all(m.host.join("seed")).unwrap();
    let out = m.initrd("all");
    assert_eq!(
        out.status.code(),
        Some(0),
        "the failed fetch is a warning (None stands in): {}",
        stderr(&out)
    );
    let st = m.status();
    assert_eq!(st["instance_id"], "i-cached");
    assert_eq!(st["first_boot"], false);
    assert!(m.diag_with_code("cached-instance").is_some());
    assert!(m.diag_with_code("seed-unreachable").is_some());
    assert_eq!(
        m.target_file("var/lib/ember/data/instance-id"),
        "i-cached\n"
    );
    assert_eq!(m.json("ember/handoff.json")["first_boot"], false);
    let runcmd = m.handoff_module("runcmd");
    assert_eq!(
        runcmd["config"]["runcmd"][0], "ls",
        "the cached config is handed on"
    );
}

#[test]
fn hostile_instance_ids_stay_under_the_state_dir() {
    let m = Machine::new("hostile");
    seed(&m, "'../../../../etc/evil'");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    let enc = "%2E.%2F..%2F..%2F..%2Fetc%2Fevil";
    assert!(m
        .target
        .join("var/lib/ember/instances")
        .join(enc)
        .join("instance.json")
        .exists());
    assert!(m.target.join("var/lib/cloud/instances").join(enc).exists());
    assert!(!m.target.join("etc/evil").exists() && !m.dir.join("etc").exists());

    for (label, id) in [("newline", "\"a\\nb\""), ("nul", "\"a\\0b\"")] {
        let m = Machine::new(label);
        seed(&m, id);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(1), "{label}");
        let d = m.diag_with_code("instance-id-invalid").expect(label);
        assert_eq!(d["key"], "instance-id");
        assert!(!m.target.join("var/lib/ember/data/instance-id").exists());
    }
    let m = Machine::new("long");
    seed(&m, &"x".repeat(4096));
    assert_eq!(m.initrd("all").status.code(), Some(1));
    assert!(m.diag_with_code("instance-id-invalid").is_some());
}

#[test]
fn symlinks_planted_in_the_image_cannot_redirect_writes() {
    let m = Machine::new("symlinks");
    seed(&m, "i-links");
    let outside = m.dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(m.target.join("var/lib")).unwrap();
    // /var/lib/ember points out of the root; /var/lib/cloud/data is a relative escape.
    std::os::unix::fs::symlink(&outside, m.target.join("var/lib/ember")).unwrap();
    std::fs::create_dir_all(m.target.join("var/lib/cloud")).unwrap();
    std::os::unix::fs::symlink("../../../../..", m.target.join("var/lib/cloud/data")).unwrap();
    let out = m.initrd("all");
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "wrote outside: {}",
        stderr(&out)
    );
    assert!(
        !m.dir.join("instance-id").exists()
            && !m.dir.parent().unwrap().join("instance-id").exists()
    );
    // The relative escape is clamped at the root, as RESOLVE_IN_ROOT does.
    assert_eq!(m.target_file("instance-id"), "i-links\n");
    // The absolute link dangles inside the root: those writes are refused and recorded.
    assert_eq!(out.status.code(), Some(1));
    let d = m.diags().into_iter().find(|d| {
        d["message"]
            .as_str()
            .unwrap()
            .contains("/var/lib/ember/data/instance-id")
    });
    assert!(d.is_some(), "{}", stderr(&out));
}

#[test]
fn removable_seed_policy_first_boot_only() {
    if !have("xorriso") {
        return;
    }
    let m = Machine::new("removable");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-ember.cfg",
        b"ember:\n  removable_seeds: first-boot\n",
    );
    let seed = |id: &str| {
        let meta = format!("instance-id: {id}\n");
        m.iso_seed("sr0", "cidata", &[("meta-data", &meta), ("user-data", "")]);
    };
    seed("i-one");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(m.status()["instance_id"], "i-one");

    // Someone inserts a CD with a new instance id: refused, the machine stays i-one.
    reboot(&m);
    seed("i-attacker");
    m.initrd("all");
    assert!(m.diag_with_code("removable-seed-refused").is_some());
    assert_eq!(m.status()["instance_id"], "i-one");
    assert_eq!(m.target_file("var/lib/ember/data/instance-id"), "i-one\n");
}

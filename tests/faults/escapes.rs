//! Fault suite, escapes (RELIABILITY.md rule 8): an image whose user's `~/.ssh` is a link to
//! root's, and user names and homes that would land at the target's root. ember refuses each
//! by name, writes nothing through them, and provisions the rest.

use crate::common;
use common::Machine;
use std::os::unix::fs::{symlink, MetadataExt};

const ROOT_KEYS: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRootOwnKey root@image\n";
const HOSTILE_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerKey x@y";

fn machine(name: &str, user_data: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    m.write(
        t,
        "etc/passwd",
        b"root:x:0:0:root:/root:/bin/sh\nann:x:1000:1000::/home/ann:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\ncid:x:1002:1002::/home/cid:/bin/sh\n",
    );
    m.write(
        t,
        "etc/group",
        b"root:x:0:\nann:x:1000:\nbob:x:1001:\ncid:x:1002:\n",
    );
    m.write(t, "etc/shadow", b"root:*:19000:0:99999:7:::\n");
    m.write(t, "etc/gshadow", b"root:*::\n");
    m.write(t, "root/.ssh/authorized_keys", ROOT_KEYS.as_bytes());
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-escapes\n"),
            ("user-data", user_data),
        ],
    );
    m
}

fn errors_with_code(m: &Machine, code: &str) -> Vec<String> {
    m.diags()
        .into_iter()
        .filter(|d| d["code"] == code)
        .map(|d| format!("{} {}", d["key"], d["message"]))
        .collect()
}

/// Expected: ann's `~/.ssh` links to `/root/.ssh`, bob's `authorized_keys` links to root's
/// file, cid's home itself links to `/root`: each user's keys are refused with an error
/// naming the link, root's authorized_keys stays byte for byte and root-owned, and a user
/// with a plain home still gets the key.
#[test]
fn authorized_keys_through_a_link_in_a_home_are_refused() {
    let user = |n: &str| format!("  - {{name: {n}, ssh_authorized_keys: ['{HOSTILE_KEY}']}}\n");
    let ud = format!(
        "#cloud-config\nusers:\n{}{}{}{}",
        user("ann"),
        user("bob"),
        user("cid"),
        user("dan")
    );
    let m = machine("esc-links", &ud);
    let t = &m.target;
    std::fs::create_dir_all(t.join("home/ann")).unwrap();
    symlink("/root/.ssh", t.join("home/ann/.ssh")).unwrap();
    std::fs::create_dir_all(t.join("home/bob/.ssh")).unwrap();
    symlink(
        "/root/.ssh/authorized_keys",
        t.join("home/bob/.ssh/authorized_keys"),
    )
    .unwrap();
    std::fs::create_dir_all(t.join("home")).unwrap();
    symlink("/root", t.join("home/cid")).unwrap();

    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    let root_keys = t.join("root/.ssh/authorized_keys");
    assert_eq!(std::fs::read_to_string(&root_keys).unwrap(), ROOT_KEYS);
    let meta = std::fs::metadata(&root_keys).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (0, 0), "root's keys given away");
    assert_eq!(std::fs::metadata(t.join("root/.ssh")).unwrap().uid(), 0);
    let refused = errors_with_code(&m, "ssh-authkeys-link");
    assert_eq!(refused.len(), 3, "{refused:#?}");
    for (who, link) in [
        ("ann", "/home/ann/.ssh"),
        ("bob", "/home/bob/.ssh/authorized_keys"),
        ("cid", "/home/cid"),
    ] {
        assert!(
            refused.iter().any(|r| r.contains(link) && r.contains(who)),
            "{who}: {refused:#?}"
        );
    }
    assert!(m
        .target_file("home/dan/.ssh/authorized_keys")
        .contains("AttackerKey"));
}

/// Expected: user names `..` and `.`, and others useradd refuses, are errors naming the
/// key; a homedir with `..` is refused; nothing is made at the target's root, and the valid
/// user beside them is created.
#[test]
fn user_names_and_homes_that_escape_are_refused() {
    let ud = format!(
        "#cloud-config\nusers:\n  - {{name: '..', ssh_authorized_keys: ['{HOSTILE_KEY}']}}\n  - {{name: '.', ssh_authorized_keys: ['{HOSTILE_KEY}']}}\n  - {{name: '-rf'}}\n  - {{name: '12345'}}\n  - {{name: {long}}}\n  - {{name: eve, homedir: /home/eve/../.., ssh_authorized_keys: ['{HOSTILE_KEY}']}}\n  - {{name: fay}}\n",
        long = "a".repeat(33)
    );
    let m = machine("esc-names", &ud);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    let t = &m.target;
    assert!(!t.join(".ssh").exists(), "a .ssh at the target's root");
    assert_eq!(std::fs::metadata(t).unwrap().uid(), 0);
    let names: Vec<String> = errors_with_code(&m, "invalid-name");
    for i in 0..5 {
        let key = format!("\"users.{i}.name\"");
        assert!(
            names.iter().any(|n| n.starts_with(&key)),
            "{key}: {names:#?}"
        );
    }
    let homes = errors_with_code(&m, "bad-value");
    assert!(
        homes.iter().any(|h| h.contains("users.5.homedir")),
        "{homes:#?}"
    );
    let passwd = m.target_file("etc/passwd");
    assert!(!passwd
        .lines()
        .any(|l| l.starts_with("..:") || l.starts_with(".:")));
    assert!(passwd.contains("\nfay:"), "{passwd}");
    assert!(!passwd.contains(":/home/eve/../..:"), "{passwd}");
}

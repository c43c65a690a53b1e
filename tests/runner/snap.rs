//! The snap module and the snap entries of package_update_upgrade_install on an Ubuntu (and
//! a Debian) target, with a recording fake `snap` and `apt-get`.

use super::repos::{d, machine, module};
use crate::common;
use common::chroot::cannot_chroot;
use common::text;
use serde_json::json;

const APT: &str = "apt-get --option=Dpkg::Options::=--force-confold \
                   --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";
const UBUNTU: &str = "NAME=Ubuntu\nID=ubuntu\nID_LIKE=debian\n";

#[test]
fn assertions_then_commands_in_key_order() {
    if cannot_chroot() {
        return;
    }
    let m = machine("snap", UBUNTU);
    // `snap install bad` fails; the others succeed; ack records the file it was given.
    m.fake(
        "/usr/bin/snap",
        "[ \"$1\" = ack ] && cat \"$2\" >> /tools.log && echo >> /tools.log\n\
         [ \"$2\" = bad ] && exit 1\nexit 0",
    );
    let cfg = json!({"snap": {
        "assertions": ["type: account-key\nbody-a", "type: system-user\nbody-b"],
        "commands": {"10": "echo ten > /ten", "2": ["install", "bad"],
                     "0": ["snap", "install", "hello"], "1": "snap install vlc",
                     "3": [null, "sh", "-c", "echo three > /three"]}}});
    m.boot_modules(json!([module("snap", "config", "once-per-instance", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let ack = "/var/lib/cloud/instances/i-1/snapd.assertions";
    assert_eq!(
        m.lines("/tools.log"),
        [
            "snap wait system seed.loaded".to_string(),
            format!("snap ack {ack}"),
            "type: account-key".into(),
            "body-a".into(),
            "type: system-user".into(),
            "body-b".into(),
            "snap install hello".into(),
            "snap install vlc".into(),
            "snap install bad".into(),
        ]
    );
    assert_eq!(m.mode(ack), 0o600);
    assert_eq!(m.read("/three"), "three\n");
    assert_eq!(m.read("/ten"), "ten\n");
    assert_eq!(
        m.diags("config"),
        [
            d("error", "command-failed", "snap.commands"),
            d("warning", "bad-value", "snap.commands.10"),
        ]
    );
    // At most once per instance, and snapd's seeding is waited for once per machine.
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log").len(), 9);
    assert!(m.exists("/var/lib/ember/sem/snap_seeded.once"));

    // A failed ack stops the module before the commands.
    let m = machine("snap-ack", UBUNTU);
    m.fake("/usr/bin/snap", "[ \"$1\" = ack ] && exit 1\nexit 0");
    let cfg = json!({"snap": {"assertions": {"00": "a"}, "commands": ["snap install x"]}});
    m.boot_modules(json!([module("snap", "config", "once-per-instance", cfg)]));
    m.ember("boot-1", &["modules", "--mode", "config"]);
    assert_eq!(
        m.lines("/tools.log"),
        [
            "snap wait system seed.loaded",
            "snap ack /var/lib/cloud/instances/i-1/snapd.assertions"
        ]
    );
    assert_eq!(
        m.diags("config"),
        [d("error", "command-failed", "snap.assertions")]
    );
}

#[test]
fn package_snaps_after_apt_and_refresh_on_ubuntu() {
    if cannot_chroot() {
        return;
    }
    let cfg = json!({"package_upgrade": true, "packages": ["pwgen", ["libfoo", "1.2"],
        {"snap": ["certbot", ["juju", "--edge"], ["lxd", "--channel=5.15/stable"]],
         "apt": ["mg"]}]});
    let cases = [
        // Ubuntu refreshes snaps on upgrade, unless held forever; Debian does not.
        (UBUNTU, "", true),
        (
            UBUNTU,
            "[ \"$1\" = get ] && echo '{\"refresh\": {\"hold\": \"forever\"}}'\nexit 0",
            false,
        ),
        ("ID=debian\n", "", false),
    ];
    for (os, tail, refresh) in cases {
        let m = machine("pkgsnap", os);
        m.fake("/usr/bin/apt-get", "");
        m.fake("/usr/bin/snap", tail);
        m.boot_modules(json!([module(
            "package_update_upgrade_install",
            "final",
            "once-per-instance",
            cfg.clone()
        )]));
        let out = m.ember("boot-1", &["modules", "--mode", "final"]);
        assert!(out.status.success(), "{}", text(&out));
        let mut want = vec![format!("{APT} update"), format!("{APT} dist-upgrade")];
        if os == UBUNTU {
            want.push("snap get system -d".into());
        }
        if refresh {
            want.push("snap refresh".into());
        }
        want.extend([
            format!("{APT} install pwgen libfoo=1.2 mg"),
            "snap install certbot".into(),
            "snap install juju --edge".into(),
            "snap install lxd --channel=5.15/stable".into(),
        ]);
        assert_eq!(m.lines("/tools.log"), want, "{os} {tail}");
        assert_eq!(m.diags("final"), [], "{os}");
        assert!(!m.exists("/var/lib/ember/snap-system.json"));
    }

    // No snap in the target: an error naming the snaps, after apt-get did its part.
    let m = machine("pkgnosnap", UBUNTU);
    m.fake("/usr/bin/apt-get", "");
    let cfg = json!({"packages": ["vim", {"snap": ["hello"]}]});
    m.boot_modules(json!([module(
        "package_update_upgrade_install",
        "final",
        "once-per-instance",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [format!("{APT} update"), format!("{APT} install vim")]
    );
    assert_eq!(
        m.diags("final"),
        [d("error", "tool-missing", "packages.1.snap")]
    );
}

//! Fault suite, stale or corrupt state (RELIABILITY.md rules 10 and 11): the record of what
//! the network step rendered (`/var/lib/ember/network-rendered.json`) lists files and MACs
//! that ember removes on a new instance and on `ember clean --configs network`. A record that
//! lists files ember never wrote (/etc/shadow, /etc, /home, a symlink, a directory, a file
//! without ember's header) or MACs that are not whole MACs (empty, a prefix) must remove
//! nothing but ember's own files and udev lines, and say what it left alone, never its content.

use crate::common;
use common::{stderr, Machine};
use serde_json::json;

const RECORD: &str = "var/lib/ember/network-rendered.json";
const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";
const RULES: &str = "etc/udev/rules.d/70-persistent-net.rules";
const NIC_MAC: &str = "52:54:00:aa:bb:01";
/// Text in the files ember must not touch: it must never reach status, stderr or a log.
const SECRET: &str = "s3cret-content-9f2";
/// The first line of every networkd file ember writes.
const NETWORKD_HEADER: &str = "# Written by ember from the instance's network configuration.\n";
const NETPLAN_HEADER: &str = "\
# Written by ember from the instance's network configuration; ember may write it
# again. To keep local changes, disable its network configuration with
# `network: {config: disabled}` in /etc/cloud/cloud.cfg.d/.
";

/// A machine with one NIC, networkd in the target and a NoCloud seed for `instance`.
fn machine(name: &str, instance: &str) -> Machine {
    let m = Machine::new(name);
    for (file, value) in [
        ("address", NIC_MAC),
        ("type", "1"),
        ("carrier", "1"),
        ("operstate", "up"),
    ] {
        let path = format!("sys/class/net/eth0/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    m.write(&m.host, "sys/class/net/eth0/uevent", b"INTERFACE=eth0\n");
    m.write(&m.target, NETWORKD, b"");
    seed(&m, instance);
    m
}

fn seed(m: &Machine, instance: &str) {
    let meta = format!("instance-id: {instance}\n");
    let files = [
        ("meta-data", meta.as_str()),
        ("user-data", "#cloud-config\n{}\n"),
    ];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
}

fn boot(m: &Machine) {
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// What the corrupt record lists that is not ember's, each planted in the target.
const NOT_EMBERS: &[&str] = &[
    "/etc/shadow",
    "/etc",
    "/home",
    // A symlink where ember's renderer writes, to a file that is not ember's.
    "/etc/systemd/network/10-cloud-init-link.network",
    // A directory where ember's renderer writes, and a FIFO (opening it would hang).
    "/etc/systemd/network/10-cloud-init-dir.network",
    "/etc/systemd/network/10-cloud-init-fifo.network",
    // A regular file at ember's path, but without ember's header (an admin's own).
    "/etc/systemd/network/10-cloud-init-admin.network",
    // Ember's header, but not a path ember's renderers write.
    "/etc/systemd/network/99-admin.network",
    "/etc/systemd/network/../../root/notes",
    "etc/network/interfaces",
];
/// Files ember wrote for an earlier instance (each renderer's header), which must go.
const EMBERS: &[&str] = &[
    "/etc/netplan/50-cloud-init.yaml",
    "/etc/systemd/network/10-cloud-init-old.network",
];

/// Plants the files of `NOT_EMBERS` and `EMBERS`, the udev rules, and a record listing them
/// all with MACs that are not whole MACs beside one that is gone.
fn corrupt(m: &Machine) {
    let t = &m.target;
    m.write(
        t,
        "etc/shadow",
        format!("root:{SECRET}:19000::::::\n").as_bytes(),
    );
    m.write(t, "etc/passwd", b"root:x:0:0::/root:/bin/sh\n");
    m.write(t, "home/user/.profile", SECRET.as_bytes());
    m.write(
        t,
        "root/notes",
        format!("{NETWORKD_HEADER}{SECRET}\n").as_bytes(),
    );
    m.write(
        t,
        "etc/network/interfaces",
        format!("{NETWORKD_HEADER}{SECRET}\n").as_bytes(),
    );
    let net = t.join("etc/systemd/network");
    std::fs::create_dir_all(&net).unwrap();
    std::os::unix::fs::symlink("../../passwd", net.join("10-cloud-init-link.network")).unwrap();
    let dir = "etc/systemd/network/10-cloud-init-dir.network/inside";
    m.write(t, dir, format!("{NETWORKD_HEADER}{SECRET}\n").as_bytes());
    let fifo = net.join("10-cloud-init-fifo.network");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    let admin = format!("[Match]\nName=eth1\n# {SECRET}\n{NETWORKD_HEADER}");
    m.write(
        t,
        "etc/systemd/network/10-cloud-init-admin.network",
        admin.as_bytes(),
    );
    let other = format!("{NETWORKD_HEADER}# {SECRET}\n");
    m.write(t, "etc/systemd/network/99-admin.network", other.as_bytes());
    m.write(
        t,
        "etc/netplan/50-cloud-init.yaml",
        format!("{NETPLAN_HEADER}network: {{}}\n").as_bytes(),
    );
    let old = format!("{NETWORKD_HEADER}\n[Match]\nName=eth7\n");
    m.write(
        t,
        "etc/systemd/network/10-cloud-init-old.network",
        old.as_bytes(),
    );
    m.write(t, RULES, udev_rules().as_bytes());
    let files: Vec<&str> = NOT_EMBERS.iter().chain(EMBERS).copied().collect();
    let record = json!({
        "instance_id": "i-1",
        // The NIC's own MAC stays; the others are gone: empty, a prefix, a MAC missing a
        // digit, and one whole MAC whose rule must go.
        "macs": ["", "52:54:00", "52:54:00:aa:bb:0", "zz:54:00:aa:bb:02", NIC_MAC, "52:54:00:ff:ff:ff"],
        "renderer": "networkd",
        "files": files,
    });
    m.write(t, RECORD, record.to_string().as_bytes());
}

fn udev_rules() -> String {
    [
        "# 52:54:00:ff:ff:ff was eth9 once (a comment naming a gone MAC stays)",
        "SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:aa:bb:01\", NAME=\"eth0\"",
        "SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:aa:bb:0a\", NAME=\"eth5\"",
        "SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:ff:ff:fe\", NAME=\"eth8\"",
        "SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:FF:FF:FF\", NAME=\"eth9\"",
        "",
    ]
    .join("\n")
}

/// Everything not ember's is where it was, with its content; ember's own files are gone.
fn assert_only_embers_removed(m: &Machine) {
    let t = &m.target;
    assert!(t.join("etc/shadow").is_file(), "/etc/shadow was removed");
    assert!(m.target_file("etc/shadow").contains(SECRET));
    assert!(t.join("etc/os-release").is_file(), "/etc was emptied");
    assert!(t.join("home/user/.profile").is_file(), "/home was emptied");
    assert!(
        t.join("root/notes").is_file(),
        "a path outside the renderers' was removed"
    );
    assert!(
        t.join("etc/network/interfaces").is_file(),
        "a relative path was removed"
    );
    let link = t.join("etc/systemd/network/10-cloud-init-link.network");
    assert!(link.symlink_metadata().is_ok(), "the symlink was removed");
    assert!(
        t.join("etc/passwd").is_file(),
        "the symlink's target was removed"
    );
    assert!(t
        .join("etc/systemd/network/10-cloud-init-dir.network/inside")
        .is_file());
    assert!(t
        .join("etc/systemd/network/10-cloud-init-fifo.network")
        .exists());
    assert!(t
        .join("etc/systemd/network/10-cloud-init-admin.network")
        .is_file());
    assert!(t.join("etc/systemd/network/99-admin.network").is_file());
    for f in EMBERS {
        assert!(!t.join(&f[1..]).exists(), "ember's own {f} stayed");
    }
}

/// Each path left alone is named, the record too, and no content.
fn assert_refusals_named(text: &str) {
    assert!(!text.contains(SECRET), "content leaked: {text}");
    assert!(
        text.contains("network-rendered.json"),
        "the record is not named: {text}"
    );
    for path in NOT_EMBERS {
        assert!(text.contains(path), "{path} is not named: {text}");
    }
}

#[test]
fn new_instance_removes_only_embers_files_and_whole_gone_macs() {
    let m = machine("stale-boot", "i-1");
    boot(&m);
    let ours = "etc/systemd/network/10-cloud-init-eth0.network";
    assert!(m.target_file(ours).starts_with(NETWORKD_HEADER));
    corrupt(&m);

    seed(&m, "i-2");
    boot(&m);
    assert_eq!(m.status()["instance_id"], "i-2");
    assert_only_embers_removed(&m);
    assert!(
        m.target.join(ours).is_file(),
        "this instance's file is missing"
    );
    // Only the whole gone MAC's rule went, matched without regard to case.
    let want: String = udev_rules()
        .lines()
        .filter(|l| !l.contains("FF:FF:FF"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(m.target_file(RULES), want);

    let refused: Vec<_> = m
        .diags()
        .into_iter()
        .filter(|d| d["code"] == "network-record-refused")
        .collect();
    let text = serde_json::to_string(&refused).unwrap();
    assert_refusals_named(&text);
    for bad in ["52:54:00:aa:bb:0", "zz:54:00:aa:bb:02"] {
        assert!(
            !text.contains(bad),
            "a MAC from the record was shown: {text}"
        );
    }
    assert!(
        text.contains("macs"),
        "the bad MACs are not reported: {text}"
    );
    let status = m.run_file("ember/status.json");
    assert!(!status.contains(SECRET));
    // A later boot of the same instance reads the record ember wrote, and is quiet.
    boot(&m);
    assert!(m.diag_with_code("network-record-refused").is_none());
}

#[test]
fn clean_removes_only_embers_files_and_exits_1_naming_the_rest() {
    let m = machine("stale-clean", "i-1");
    boot(&m);
    corrupt(&m);
    let target = m.target.display().to_string();
    let out = m.ember(&["--target", &target, "clean", "--configs", "network"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_only_embers_removed(&m);
    assert_refusals_named(&err);
    // The record itself is state, and clean takes it as before.
    assert!(!m.target.join(RECORD).exists());
}

#[test]
fn clean_of_a_sound_record_removes_every_renderers_files() {
    // ENI first (its interfaces file and its udev rules), then networkd for a new instance:
    // every file one renderer wrote carries ember's header and goes.
    let m = machine("stale-eni", "i-1");
    std::fs::remove_file(m.target.join(NETWORKD)).unwrap();
    m.write(&m.target, "sbin/ifup", b"");
    m.write(
        &m.target,
        "etc/network/interfaces",
        b"source interfaces.d/*\n",
    );
    let net = "version: 2\nethernets:\n  lan:\n    match: {macaddress: \"52:54:00:aa:bb:01\"}\n    set-name: lan\n    dhcp4: true\n";
    m.write(
        &m.target,
        "var/lib/cloud/seed/nocloud/network-config",
        net.as_bytes(),
    );
    boot(&m);
    let eni = "etc/network/interfaces.d/50-cloud-init";
    assert!(m.target_file(RULES).contains(NIC_MAC));
    assert!(m.target.join(eni).is_file());

    std::fs::remove_file(m.target.join("sbin/ifup")).unwrap();
    m.write(&m.target, NETWORKD, b"");
    seed(&m, "i-2");
    boot(&m);
    assert!(!m.target.join(eni).exists(), "the ENI file stayed");
    assert!(
        !m.target.join(RULES).exists(),
        "the udev rules ember wrote stayed"
    );
    assert!(m.diag_with_code("network-record-refused").is_none());

    let target = m.target.display().to_string();
    let out = m.ember(&["--target", &target, "clean", "--configs", "network"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!m
        .target
        .join("etc/systemd/network/10-cloud-init-lan.network")
        .exists());
    assert!(m.target.join("etc/network/interfaces").is_file());
}

#[test]
fn a_record_that_cannot_be_read_removes_nothing_and_is_reported() {
    let m = machine("stale-unreadable", "i-1");
    boot(&m);
    let ours = "etc/systemd/network/10-cloud-init-eth0.network";
    let unreadable =
        format!("{{\"files\": [\"/etc/shadow\"], \"macs\": [1], \"x\": \"{SECRET}\"}}");
    m.write(&m.target, "etc/shadow", b"root:*:19000::::::\n");
    m.write(&m.target, RECORD, unreadable.as_bytes());
    seed(&m, "i-2");
    boot(&m);
    assert!(m.target.join("etc/shadow").is_file());
    let d = m
        .diag_with_code("network-record-refused")
        .expect("the record is reported");
    assert_eq!(d["file"], "/var/lib/ember/network-rendered.json", "{d}");
    assert!(!m.run_file("ember/status.json").contains(SECRET));
    // The record is ember's again: this instance's files are listed.
    assert!(m.target_file(RECORD).contains(ours));

    m.write(&m.target, RECORD, b"{\"files\": ");
    let target = m.target.display().to_string();
    let out = m.ember(&["--target", &target, "clean", "--configs", "network"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("network-rendered.json"), "{err}");
    assert!(
        m.target.join(ours).is_file(),
        "a file went without a record"
    );
    assert!(m.target.join("etc/shadow").is_file());
}

//! Network hotplug against a target root: a boot by `ember-initrd all` (NoCloud seed, a
//! networkd target, one NIC), then the NIC replaced while the system runs and the udev rule's
//! command (`ember devel hotplug-hook -s net handle -d DEVPATH -u add`) run as udev would:
//! with hotplug in force the new NIC gets its network file and the old one's goes; without,
//! nothing changes. Bad udev arguments are usage errors.

use crate::common;
use common::{stderr, Machine};
use std::process::{Command, Output};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

fn nic(m: &Machine, name: &str, mac: &str) {
    let files = [
        ("address", mac.to_string()),
        ("type", "1".into()),
        ("carrier", "1".into()),
        ("operstate", "up".into()),
        ("uevent", format!("INTERFACE={name}")),
    ];
    for (file, value) in files {
        let path = format!("sys/class/net/{name}/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
}

/// A booted machine whose user-data says `updates.network.when: WHEN`.
fn booted(name: &str, when: &str) -> Machine {
    let m = Machine::new(name);
    m.write(&m.target, NETWORKD, b"");
    nic(&m, "eth0", "52:54:00:aa:bb:01");
    let user_data = format!("#cloud-config\nupdates:\n  network:\n    when: {when}\n");
    let files = [
        ("meta-data", "instance-id: i-1\n"),
        ("user-data", &user_data),
    ];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The runner's final stage is over (the hook waits for it).
    m.write(&m.run, "cloud-init/result.json", b"{}");
    m
}

/// The udev rule's command, with the machine's directories.
fn hook(m: &Machine, args: &[&str]) -> Output {
    common::run(
        Command::new(common::EMBER)
            .env("EMBER_INITRD", common::EMBER_INITRD)
            .arg("--target")
            .arg(&m.target)
            .arg("--run")
            .arg(&m.run)
            .arg("--host")
            .arg(&m.host)
            .args(["devel", "hotplug-hook"])
            .args(args),
    )
}

/// eth0 goes, eth1 comes, as a NIC swapped on a running machine.
fn replace_nic(m: &Machine) {
    std::fs::remove_dir_all(m.host.join("sys/class/net/eth0")).unwrap();
    nic(m, "eth1", "52:54:00:aa:bb:02");
}

const ADD_ETH1: &[&str] = &[
    "-s",
    "net",
    "handle",
    "-d",
    "/devices/pci0000:00/0000:00:05.0/virtio2/net/eth1",
    "-u",
    "add",
];

#[test]
fn a_new_nic_is_rendered_when_hotplug_is_in_force() {
    let m = booted("hotplug-on", "[boot-new-instance, hotplug]");
    let old = "etc/systemd/network/10-cloud-init-eth0.network";
    assert!(m.target_file(old).contains("52:54:00:aa:bb:01"));
    replace_nic(&m);
    let out = hook(&m, ADD_ETH1);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let new = m.target_file("etc/systemd/network/10-cloud-init-eth1.network");
    assert!(new.contains("MACAddress=52:54:00:aa:bb:02"), "{new}");
    assert!(!m.target.join(old).exists(), "the gone NIC's file stayed");
    // Recorded apart from the boot's stages, without errors.
    let hotplug = &m.status()["stages"]["hotplug"];
    assert_eq!(hotplug["errors"], serde_json::json!([]), "{hotplug}");
}

#[test]
fn an_event_before_the_boot_is_finished_is_left_to_the_boot() {
    let m = booted("hotplug-early", "[hotplug]");
    std::fs::remove_file(m.run.join("cloud-init/result.json")).unwrap();
    replace_nic(&m);
    let out = hook(&m, ADD_ETH1);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        common::stdout(&out).contains("not finished"),
        "{}",
        common::stdout(&out)
    );
    assert!(!m
        .target
        .join("etc/systemd/network/10-cloud-init-eth1.network")
        .exists());
}

#[test]
fn without_hotplug_an_event_changes_nothing() {
    let m = booted("hotplug-off", "[boot-new-instance]");
    let old = "etc/systemd/network/10-cloud-init-eth0.network";
    replace_nic(&m);
    let out = hook(&m, ADD_ETH1);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        common::stdout(&out).contains("not enabled"),
        "{}",
        common::stdout(&out)
    );
    assert!(m.target.join(old).exists());
    assert!(!m
        .target
        .join("etc/systemd/network/10-cloud-init-eth1.network")
        .exists());
}

#[test]
fn bad_udev_arguments_are_usage_errors() {
    let m = booted("hotplug-usage", "[hotplug]");
    for args in [
        &[
            "-s",
            "net",
            "handle",
            "-d",
            "/sys/class/net/eth1",
            "-u",
            "add",
        ][..],
        &[
            "-s",
            "net",
            "handle",
            "-d",
            "/devices/virtual/net/eth1",
            "-u",
            "change",
        ],
        &[
            "-s",
            "block",
            "handle",
            "-d",
            "/devices/virtual/net/eth1",
            "-u",
            "add",
        ],
        &["-s", "net", "query"],
    ] {
        let out = hook(&m, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

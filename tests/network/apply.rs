//! The local stage's network step: renderer choice by the target's stack, cloud-init's
//! fallback matched by MAC, once per instance and NIC set, and the cleanup of the previous
//! instance's files and of udev rules for MACs that are gone.

use crate::common;
use common::Machine;

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";
const NETPLAN: &str = "usr/sbin/netplan";
const FALLBACK_FILE: &str = "etc/systemd/network/10-cloud-init-eth0.network";

/// A machine with one NIC (`eth0`, this MAC, carrier up) and a NoCloud seed directory.
fn machine(name: &str, instance: &str, mac: &str) -> Machine {
    let m = Machine::new(name);
    nic(&m, "eth0", mac);
    seed(&m, instance, None);
    m
}

fn nic(m: &Machine, name: &str, mac: &str) {
    let dir = format!("sys/class/net/{name}");
    for (file, value) in [
        ("address", mac),
        ("type", "1"),
        ("carrier", "1"),
        ("operstate", "up"),
    ] {
        m.write(
            &m.host,
            &format!("{dir}/{file}"),
            format!("{value}\n").as_bytes(),
        );
    }
    m.write(
        &m.host,
        &format!("{dir}/uevent"),
        format!("INTERFACE={name}\n").as_bytes(),
    );
}

fn seed(m: &Machine, instance: &str, network: Option<&str>) {
    seed_with_user_data(m, instance, network, "#cloud-config\n{}\n");
}

fn seed_with_user_data(m: &Machine, instance: &str, network: Option<&str>, user_data: &str) {
    let meta = format!("instance-id: {instance}\n");
    let mut files = vec![("meta-data", meta.as_str()), ("user-data", user_data)];
    if let Some(n) = network {
        files.push(("network-config", n));
    }
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
}

fn run(m: &Machine) {
    let out = m.initrd("all");
    assert!(out.status.code() == Some(0), "{}", common::stderr(&out));
}

#[test]
fn fallback_is_dhcp_on_the_first_nic_matched_by_mac_never_named() {
    let m = machine("net-fallback", "i-1", "52:54:00:AA:BB:01");
    m.write(&m.target, NETWORKD, b"");
    run(&m);
    let file = m.target_file(FALLBACK_FILE);
    assert!(file.contains("MACAddress=52:54:00:aa:bb:01"), "{file}");
    assert!(
        !file.contains("Name=eth0"),
        "an initramfs name leaked: {file}"
    );
    assert!(
        file.contains("DHCP=ipv4"),
        "DHCPv4 only, IPv6 from RAs: {file}"
    );
}

#[test]
fn same_instance_and_nics_keep_the_rendered_files() {
    let m = machine("net-same", "i-1", "52:54:00:aa:bb:01");
    m.write(&m.target, NETWORKD, b"");
    run(&m);
    // An admin's edit survives the next boot of the same instance.
    m.write(&m.target, FALLBACK_FILE, b"# edited\n");
    run(&m);
    assert_eq!(m.target_file(FALLBACK_FILE), "# edited\n");
}

#[test]
fn update_on_every_boot_renders_again_and_unknown_events_are_named() {
    let m = machine("net-every-boot", "i-1", "52:54:00:aa:bb:01");
    m.write(&m.target, NETWORKD, b"");
    let user_data =
        "#cloud-config\nupdates:\n  network:\n    when: [boot-new-instance, boot, sometimes]\n";
    seed_with_user_data(&m, "i-1", None, user_data);
    run(&m);
    m.write(&m.target, FALLBACK_FILE, b"# edited\n");
    run(&m);
    assert!(m.target_file(FALLBACK_FILE).contains("DHCP=ipv4"));
    let diag = m
        .diag_with_code("unsupported-update-event")
        .expect("the unknown event is named");
    assert!(diag.to_string().contains("updates.network.when"), "{diag}");
}

#[test]
fn new_instance_forgets_the_previous_files_and_gone_macs_udev_rules() {
    let m = machine("net-new", "i-1", "52:54:00:aa:bb:01");
    m.write(&m.target, NETWORKD, b"");
    let rules = "# kept comment\n\
        SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:aa:bb:01\", NAME=\"eth0\"\n\
        SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:ff:ff:ff\", NAME=\"eth9\"\n";
    m.write(
        &m.target,
        "etc/udev/rules.d/70-persistent-net.rules",
        rules.as_bytes(),
    );
    m.write(
        &m.target,
        "etc/systemd/network/99-admin.network",
        b"[Match]\n",
    );
    let net = "version: 2\nethernets:\n  lan:\n    match: {macaddress: \"52:54:00:aa:bb:01\"}\n    dhcp4: true\n";
    seed(&m, "i-1", Some(net));
    run(&m);
    let first = "etc/systemd/network/10-cloud-init-lan.network";
    assert!(m.target.join(first).exists());

    // Another instance, on a machine whose NIC has another MAC: the old file goes, the
    // fallback for the new NIC comes, the old MAC's rule goes, the rest stays.
    std::fs::remove_dir_all(m.host.join("sys/class/net/eth0")).unwrap();
    nic(&m, "eth0", "52:54:00:aa:bb:02");
    std::fs::remove_file(m.target.join("var/lib/cloud/seed/nocloud/network-config")).unwrap();
    seed(&m, "i-2", None);
    run(&m);
    assert!(
        !m.target.join(first).exists(),
        "the previous instance's file stayed"
    );
    assert!(m.target_file(FALLBACK_FILE).contains("52:54:00:aa:bb:02"));
    let rules_now = m.target_file("etc/udev/rules.d/70-persistent-net.rules");
    assert!(!rules_now.contains("bb:01"), "{rules_now}");
    assert!(
        rules_now.contains("# kept comment") && rules_now.contains("ff:ff:ff"),
        "{rules_now}"
    );
    assert!(m
        .target
        .join("etc/systemd/network/99-admin.network")
        .exists());
}

#[test]
fn renderer_order_follows_system_info_then_cloud_inits_default() {
    // Both stacks installed: the image's list picks networkd over netplan.
    let m = machine("net-order", "i-1", "52:54:00:aa:bb:01");
    m.write(&m.target, NETWORKD, b"");
    m.write(&m.target, NETPLAN, b"");
    let cfg = "system_info:\n  network:\n    renderers: [sysconfig, bogus, networkd, netplan]\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    run(&m);
    assert!(m.target.join(FALLBACK_FILE).exists());
    assert!(!m.target.join("etc/netplan/50-cloud-init.yaml").exists());
    let warned = m
        .diag_with_code("network-renderer")
        .expect("the unknown name is reported");
    assert!(warned.to_string().contains("bogus"), "{warned}");

    // Without a list, cloud-init's order puts netplan before networkd.
    let m = machine("net-default", "i-1", "52:54:00:aa:bb:01");
    m.write(&m.target, NETWORKD, b"");
    m.write(&m.target, NETPLAN, b"");
    run(&m);
    let netplan = m.target_file("etc/netplan/50-cloud-init.yaml");
    assert!(netplan.contains("52:54:00:aa:bb:01"), "{netplan}");
    assert_eq!(
        Machine::mode(&m.target.join("etc/netplan/50-cloud-init.yaml")) & 0o777,
        0o600
    );
    assert!(!m.target.join(FALLBACK_FILE).exists());
}

#[test]
fn disabled_or_no_stack_writes_nothing() {
    let m = machine("net-disabled", "i-1", "52:54:00:aa:bb:01");
    m.write(&m.target, NETWORKD, b"");
    m.cmdline("ro network-config=disabled");
    run(&m);
    assert!(!m.target.join("etc/systemd/network").exists());

    // No stack: the fallback is silently not wanted, a given config is reported.
    let m = machine("net-nostack", "i-1", "52:54:00:aa:bb:01");
    run(&m);
    assert!(m.diag_with_code("network-no-renderer").is_none());
    let net = "version: 2\nethernets:\n  lan:\n    dhcp4: true\n";
    seed(&m, "i-2", Some(net));
    run(&m);
    assert!(m.diag_with_code("network-no-renderer").is_some());
    assert!(!m
        .target
        .join("var/lib/ember/network-rendered.json")
        .exists());
}

//! Fault suite, network names and graphs (RELIABILITY.md rule 8): interface ids and
//! `set-name`s become file names and lines in every renderer's files. Ids like `..` or with
//! `/`, a line break that would open a section, and bonds, bridges and vlans that hold each
//! other in a cycle are refused by the model, naming the key (and the devices), so nothing is
//! written anywhere; as with any invalid network config, nothing is rendered and the boot goes
//! on.

use crate::common;
use common::{stderr, Machine};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";
const NIC_MAC: &str = "52:54:00:aa:bb:01";

fn machine(name: &str, network_config: &str) -> Machine {
    let m = Machine::new(name);
    for (file, value) in [("address", NIC_MAC), ("type", "1"), ("carrier", "1")] {
        let path = format!("sys/class/net/eth0/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    m.write(&m.host, "sys/class/net/eth0/uevent", b"INTERFACE=eth0\n");
    m.write(&m.target, NETWORKD, b"");
    let files = [
        ("meta-data", "instance-id: i-netmodel\n"),
        ("user-data", "#cloud-config\n{}\n"),
        ("network-config", network_config),
    ];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    m
}

/// Every file under the target's /etc, relative to the target.
fn etc_files(m: &Machine) -> Vec<String> {
    Machine::tree(&m.target.join("etc"))
        .into_iter()
        .map(|(rel, _)| rel)
        .collect()
}

fn error_keys(m: &Machine) -> Vec<(String, String)> {
    m.diags()
        .into_iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            let key = d["key"].as_str().unwrap_or_default().to_string();
            (key, d["message"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// Expected: ids `..`, `../../etc/cron.d/x` and one with a line break and `[Match]`, and a
/// `set-name` of `../../../root/x`, are each an error at their key; no file is written outside
/// /etc/systemd/network and none holds an injected section (an invalid config renders nothing).
#[test]
fn hostile_interface_names_are_refused_and_nothing_escapes() {
    let config = format!(
        "version: 2
ethernets:
  '..': {{dhcp4: true}}
  '../../cron.d/evil': {{dhcp4: true}}
  \"x\\n[Match]\\nName=*\": {{dhcp4: true}}
  nic: {{match: {{macaddress: '{NIC_MAC}'}}, set-name: '../../../root/x', dhcp4: true}}
"
    );
    let m = machine("net-names", &config);
    let out = m.initrd("all");
    common::assert_no_panic(&out);
    let errors = error_keys(&m);
    for key in [
        "ethernets...",
        "ethernets.../../cron.d/evil",
        "ethernets.nic.set-name",
    ] {
        assert!(
            errors.iter().any(|(k, _)| k.ends_with(key)),
            "{key}: {errors:#?}\n{}",
            stderr(&out)
        );
    }
    assert!(
        errors
            .iter()
            .any(|(_, msg)| msg.contains("control character")),
        "{errors:#?}"
    );
    for rel in etc_files(&m) {
        assert!(
            rel.starts_with("systemd/network/")
                || !rel.contains("network") && !rel.contains("cron"),
            "{rel}"
        );
    }
    assert!(!m.target.join("root/x").exists() && !m.target.join("etc/cron.d").exists());
    assert!(
        !m.target.join("etc/systemd/network").exists(),
        "{:#?}",
        etc_files(&m)
    );
}

/// Expected: bond0 holding bond1 holding bond0, and a bridge whose port is a vlan on that
/// bridge, are errors naming the devices of each cycle; nothing is rendered.
#[test]
fn cycles_in_the_device_graph_are_named_in_v1_and_v2() {
    let v2 = "version: 2
ethernets:
  eth0: {}
bonds:
  bond0: {interfaces: [bond1]}
  bond1: {interfaces: [bond0]}
bridges:
  br0: {interfaces: [eth0, vlan10]}
vlans:
  vlan10: {id: 10, link: br0}
";
    let v1 = "version: 1
config:
  - {type: physical, name: eth0}
  - {type: bond, name: bond0, bond_interfaces: [bond1]}
  - {type: bond, name: bond1, bond_interfaces: [bond0]}
";
    for (name, config, cycles) in [
        (
            "net-cycle-v2",
            v2,
            &["bond0 -> bond1 -> bond0", "br0 -> vlan10 -> br0"][..],
        ),
        ("net-cycle-v1", v1, &["bond0 -> bond1 -> bond0"][..]),
    ] {
        let m = machine(name, config);
        common::assert_no_panic(&m.initrd("all"));
        let errors = error_keys(&m);
        for cycle in cycles {
            assert!(
                errors.iter().any(|(_, msg)| msg.contains(cycle)),
                "{name} {cycle}: {errors:#?}"
            );
        }
        let files = etc_files(&m);
        assert!(
            !files.iter().any(|f| f.starts_with("systemd/")),
            "{files:#?}"
        );
    }
}

//! Fault suite, network names and graphs (RELIABILITY.md rule 8): interface ids and
//! `set-name`s become file names and lines in every renderer's files. Ids like `..` or with
//! `/`, a line break that would open a section, and bonds, bridges and vlans that hold each
//! other in a cycle are refused by the model, naming the key (and the devices), so nothing of
//! them is written anywhere. As cloud-init skips an invalid entry, the rest of the config is
//! rendered; a config with nothing usable left gives the fallback network, never none, and
//! the boot goes on.

use crate::common;
use common::{stderr, Machine};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";
const NIC_MAC: &str = "52:54:00:aa:bb:01";
const FALLBACK_FILE: &str = "etc/systemd/network/10-cloud-init-eth0.network";

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

/// The key and message of each problem of the network config (errors, and the warnings of
/// skipped entries).
fn error_keys(m: &Machine) -> Vec<(String, String)> {
    m.diags()
        .into_iter()
        .filter(|d| d["severity"] == "error" || d["code"] == "network-config-invalid")
        .map(|d| {
            let key = d["key"].as_str().unwrap_or_default().to_string();
            (key, d["message"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// Expected: ids `..`, `../../etc/cron.d/x` and one with a line break and `[Match]`, and a
/// `set-name` of `../../../root/x`, are each a problem at their key; no file is written outside
/// /etc/systemd/network and none holds an injected section: with every device skipped, only
/// the fallback network is rendered.
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
            rel.starts_with("systemd/network") || !rel.contains("network") && !rel.contains("cron"),
            "{rel}"
        );
    }
    assert!(!m.target.join("root/x").exists() && !m.target.join("etc/cron.d").exists());
    let network: Vec<String> = etc_files(&m)
        .into_iter()
        .filter(|f| f.starts_with("systemd/network/"))
        .collect();
    assert_eq!(network, ["systemd/network/10-cloud-init-eth0.network"]);
    let file = m.target_file(FALLBACK_FILE);
    assert!(
        file.contains("DHCP=ipv4") && !file.contains("[Match]\nName=*"),
        "{file}"
    );
}

/// Expected: bond0 holding bond1 holding bond0, and a bridge whose port is a vlan on that
/// bridge, are problems naming the devices of each cycle; none of them is rendered (eth0,
/// which is in no cycle, is).
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
            !files
                .iter()
                .any(|f| f.contains("bond") || f.contains("br0") || f.contains("vlan")),
            "{files:#?}"
        );
        assert!(
            files.contains(&"systemd/network/10-cloud-init-eth0.network".to_string()),
            "{files:#?}"
        );
    }
}

/// Expected: a v1 config whose every entry is invalid (a physical without `name`, a vlan
/// without `vlan_id`) renders the fallback network (DHCP on the NIC, matched by MAC), with a
/// warning naming each missing key and one saying the fallback was used; a config with one
/// invalid entry renders the rest and no fallback.
#[test]
fn a_wholly_invalid_config_gives_the_fallback_and_a_partly_invalid_one_the_rest() {
    let bad = "version: 1
config:
  - {type: physical, subnets: [{type: dhcp}]}
  - {type: vlan, name: eth0.9, vlan_link: eth0}
";
    let m = machine("net-wholly-bad", bad);
    let out = m.initrd("all");
    common::assert_no_panic(&out);
    let problems = error_keys(&m);
    for key in ["config.0.name", "config.1.vlan_id"] {
        assert!(
            problems.iter().any(|(k, _)| k.ends_with(key)),
            "{key}: {problems:#?}"
        );
    }
    let file = m.target_file(FALLBACK_FILE);
    assert!(file.contains(&format!("MACAddress={NIC_MAC}")), "{file}");
    assert!(file.contains("DHCP=ipv4"), "{file}");
    assert!(
        m.diags().iter().any(|d| d["message"]
            .as_str()
            .unwrap_or("")
            .contains("fallback network")),
        "{:#?}",
        m.diags()
    );

    let partly = "version: 1
config:
  - {type: physical, name: eth0, subnets: [{type: static, address: 10.4.0.2/24, gateway: 10.4.0.999}]}
  - {type: vlan, name: eth0.9, vlan_link: eth0}
";
    let m = machine("net-partly-bad", partly);
    common::assert_no_panic(&m.initrd("all"));
    let file = m.target_file(FALLBACK_FILE);
    assert!(file.contains("Address=10.4.0.2/24"), "{file}");
    assert!(
        !file.contains("Gateway") && file.contains("DHCP=no"),
        "{file}"
    );
    let files = etc_files(&m);
    assert!(!files.iter().any(|f| f.contains("eth0.9")), "{files:#?}");
    let keys: Vec<String> = error_keys(&m).into_iter().map(|(k, _)| k).collect();
    assert!(
        keys.iter()
            .any(|k| k.ends_with("config.0.subnets.0.gateway")),
        "{keys:?}"
    );
    assert!(
        keys.iter().any(|k| k.ends_with("config.1.vlan_id")),
        "{keys:?}"
    );
}

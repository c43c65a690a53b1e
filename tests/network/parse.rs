//! Network configs as users write them (the shapes of cloud-init's and netplan's documented
//! examples, with values of our own) parsed into the model; errors with key and line; and the
//! local stage recording the model, or the errors, next to the chosen config.

use crate::common;
use common::Machine;
use ember::error::Diag;
use ember::limits::Limits;
use ember::network::model::{Ipv6Auto, Kind};
use ember::network::{parse, parse_network_data, Input, Network};
use ember::reason::Reason;
use serde_json::json;
use std::collections::BTreeMap;

fn parsed(text: &str) -> Network {
    match ember::network_text("network-config", text, &Limits::default()) {
        Ok(p) => {
            assert!(p.warnings.is_empty(), "{:#?}", p.warnings);
            p.model
        }
        Err(d) => panic!("{d:#?}"),
    }
}

/// The model of a config with invalid entries, which are skipped, and each problem as shown
/// (not the lines saying what was skipped).
fn skipping(text: &str) -> (Network, Vec<String>) {
    let p = ember::network_text("network-config", text, &Limits::default())
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let problems = p
        .warnings
        .iter()
        .filter(|d| d.code == Reason::NetworkConfigInvalid && !d.message.contains("skipped for"))
        .map(Diag::to_string)
        .collect();
    (p.model, problems)
}

fn ids(net: &Network) -> Vec<&str> {
    net.interfaces.iter().map(|i| i.id.as_str()).collect()
}

/// v1: two NICs bonded, a vlan on the bond, a bridge over a third NIC, DNS and a route.
const V1_LAYERED: &str = r#"
network:
  version: 1
  config:
    - type: physical
      name: nic0
      mac_address: "0c:c4:7a:10:00:01"
    - type: physical
      name: nic1
      mac_address: "0c:c4:7a:10:00:02"
    - type: physical
      name: nic2
      mac_address: "0c:c4:7a:10:00:03"
      mtu: 9000
    - type: bond
      name: bond0
      bond_interfaces: [nic0, nic1]
      params:
        bond-mode: 802.3ad
        bond-miimon: 100
        bond-lacp-rate: fast
        bond-xmit-hash-policy: layer3+4
      subnets:
        - type: static
          address: 172.30.1.10/24
          gateway: 172.30.1.1
          dns_nameservers: [172.30.1.53]
    - type: vlan
      name: bond0.318
      vlan_link: bond0
      vlan_id: 318
      subnets:
        - type: static
          address: 172.31.18.10
          netmask: 255.255.255.0
          routes:
            - network: 172.40.0.0
              netmask: 255.255.0.0
              gateway: 172.31.18.1
    - type: bridge
      name: br-data
      bridge_interfaces: [nic2]
      params:
        bridge_stp: "off"
        bridge_fd: 0
      subnets:
        - type: dhcp4
        - type: ipv6_slaac
    - type: nameserver
      address: [172.30.1.53, 172.30.1.54]
      search: [infra.example.net]
    - type: route
      destination: 192.168.250.0/24
      gateway: 172.30.1.254
      metric: 50
"#;

#[test]
fn v1_layered_devices() {
    let net = parsed(V1_LAYERED);
    assert_eq!(
        ids(&net),
        ["nic0", "nic1", "nic2", "bond0", "bond0.318", "br-data"]
    );
    let Kind::Bond { members, params } = &net.interface("bond0").unwrap().kind else {
        panic!()
    };
    assert_eq!(members, &["nic0", "nic1"]);
    assert_eq!(params.mode.as_deref(), Some("802.3ad"));
    let vlan = net.interface("bond0.318").unwrap();
    assert_eq!(vlan.addresses[0].prefix, 24);
    assert_eq!(vlan.routes[0].to.to_string(), "172.40.0.0/16");
    let br = net.interface("br-data").unwrap();
    assert!(br.dhcp4);
    assert_eq!(br.ipv6, Some(Ipv6Auto::Slaac));
    assert_eq!(net.dns.nameservers.len(), 2);
    assert_eq!(net.routes[0].metric, Some(50));
    assert_eq!(net.interface("nic2").unwrap().device_name(), Some("nic2"));
}

/// v2: a MAAS-style host: bonded NICs matched by MAC, vlans on the bond, bridges on those.
const V2_HOST: &str = r#"network:
  version: 2
  ethernets:
    port1:
      match: {macaddress: "3c:ec:ef:20:00:01"}
      set-name: port1
      mtu: 9000
    port2:
      match: {macaddress: "3c:ec:ef:20:00:02"}
      set-name: port2
      mtu: 9000
    oob:
      match: {driver: igb, name: "eno*"}
      dhcp4: true
      dhcp4-overrides: {route-metric: 500, use-dns: false}
      optional: true
  bonds:
    bond0:
      interfaces: [port1, port2]
      mtu: 9000
      parameters:
        mode: 802.3ad
        lacp-rate: fast
        mii-monitor-interval: 100
        transmit-hash-policy: layer3+4
  vlans:
    bond0.110: {id: 110, link: bond0}
    bond0.120: {id: 120, link: bond0}
  bridges:
    br-mgmt:
      interfaces: [bond0.110]
      addresses: [10.110.0.21/24]
      routes:
        - to: default
          via: 10.110.0.1
      nameservers:
        addresses: [10.110.0.2, 10.110.0.3]
        search: [mgmt.example.org]
      parameters: {stp: false, forward-delay: 0}
    br-stor:
      interfaces: [bond0.120]
      addresses: ["10.120.0.21/24", "fd12:120::21/64"]
      mtu: 9000
"#;

#[test]
fn v2_bonds_vlans_and_bridges() {
    let net = parsed(V2_HOST);
    assert_eq!(
        ids(&net),
        [
            "oob",
            "port1",
            "port2",
            "bond0",
            "br-mgmt",
            "br-stor",
            "bond0.110",
            "bond0.120"
        ]
    );
    let mgmt = net.interface("br-mgmt").unwrap();
    assert!(mgmt.routes[0].to.is_default());
    assert_eq!(mgmt.dns.search, ["mgmt.example.org"]);
    let oob = net.interface("oob").unwrap();
    assert_eq!(oob.dhcp4_overrides.route_metric, Some(500));
    assert_eq!(oob.device_name(), None);
    // What the netplan renderer writes through.
    assert_eq!(
        net.netplan.as_ref().unwrap()["bonds"]["bond0"]["parameters"]["mode"],
        "802.3ad"
    );
}

#[test]
fn v2_errors_carry_key_and_line() {
    // The same host with four mistakes: no prefix, a vlan over a missing link, a bond member
    // that is not defined, and an MTU that is not a number. Each device with one is skipped
    // (and what is built on it); the rest is used.
    let text = V2_HOST
        .replace("addresses: [10.110.0.21/24]", "addresses: [10.110.0.21]")
        .replace("{id: 120, link: bond0}", "{id: 120, link: bond9}")
        .replace("[port1, port2]", "[port1, port3]")
        .replace("port2\n      mtu: 9000", "port2\n      mtu: jumbo");
    let (net, problems) = skipping(&text);
    assert_eq!(
        problems,
        [
            "network-config: line 11: network.ethernets.port2.mtu: expected a number",
            "network-config: line 32: network.bridges.br-mgmt.addresses.0: has no prefix length",
            "network-config: line 19: network.bonds.bond0.interfaces.1: names an interface that is not defined (or was skipped)",
            "network-config: line 28: network.vlans.bond0.120.link: names an interface that is not defined (or was skipped)",
            "network-config: line 41: network.bridges.br-stor.interfaces.0: names an interface that is not defined (or was skipped)",
            "network-config: line 27: network.vlans.bond0.110.link: names an interface that is not defined (or was skipped)",
        ]
    );
    assert_eq!(ids(&net), ["oob", "port1"]);
}

#[test]
fn v1_errors_carry_key_and_line() {
    let text = V1_LAYERED
        .replace("\"0c:c4:7a:10:00:02\"", "\"0c:c4:7a:10:00\"")
        .replace("vlan_link: bond0", "vlan_link: bond1")
        .replace(
            "bond_interfaces: [nic0, nic1]",
            "bond_interfaces: [nic0, nic4]",
        );
    let (net, problems) = skipping(&text);
    assert_eq!(
        problems,
        [
            "network-config: line 10: network.config.1.mac_address: not a MAC address (six or twenty hex bytes, colon-separated)",
            "network-config: line 17: network.config.3.bond_interfaces.1: names an interface that is not defined (or was skipped)",
            "network-config: line 30: network.config.4.vlan_link: names an interface that is not defined (or was skipped)",
        ]
    );
    assert_eq!(ids(&net), ["nic0", "nic2", "br-data"]);
}

#[test]
fn openstack_network_data() {
    let data = json!({
        "links": [
            {"id": "tap3a1", "type": "ovs", "ethernet_mac_address": "fa:16:3e:5b:00:01", "mtu": 1450},
            {"id": "tap3a2", "type": "ovs", "ethernet_mac_address": "fa:16:3e:5b:00:02", "mtu": 1450}
        ],
        "networks": [
            {"id": "network0", "type": "ipv4_dhcp", "link": "tap3a1", "network_id": "1b7c"},
            {"id": "network1", "type": "ipv4", "link": "tap3a2", "ip_address": "192.168.77.14",
             "netmask": "255.255.255.192",
             "routes": [{"network": "10.77.0.0", "netmask": "255.255.0.0", "gateway": "192.168.77.1"}]}
        ],
        "services": [{"type": "dns", "address": "192.168.77.2"}]
    });
    let macs = BTreeMap::from([("fa:16:3e:5b:00:01".to_string(), "ens3".to_string())]);
    let p = parse_network_data("config-2: network_data.json", &data, &macs).unwrap();
    assert_eq!(ids(&p.model), ["ens3", "tap3a2"]);
    assert!(p.model.interfaces[0].dhcp4);
    assert_eq!(p.model.interfaces[1].addresses[0].prefix, 26);
    assert_eq!(p.warnings.len(), 1, "tap3a2's MAC is not on the host");
}

#[test]
fn dracut_command_line() {
    let params = ember::cmdline::split(
        "root=/dev/vda1 ip=10.9.8.7::10.9.8.1:255.255.255.0:node7:ens3:none nameserver=10.9.8.2",
    );
    let p = parse("kernel command line", Input::Cmdline(&params)).unwrap();
    let ens3 = p.model.interface("ens3").unwrap();
    assert_eq!(ens3.addresses[0].ip.to_string(), "10.9.8.7");
    assert_eq!(ens3.gateway4.unwrap().to_string(), "10.9.8.1");
    assert_eq!(p.model.dns.nameservers[0].to_string(), "10.9.8.2");
}

const META: &str = "instance-id: iid-net01\nlocal-hostname: netbox\n";
const SEED: &str = "var/lib/cloud/seed/nocloud";

#[test]
fn the_local_stage_records_the_model() {
    let m = Machine::new("net-model");
    m.seed_files(
        &m.target,
        SEED,
        &[
            ("meta-data", META),
            ("user-data", ""),
            ("network-config", V1_LAYERED),
        ],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let net = m.json("ember/network-config.json");
    assert_eq!(net["source"], format!("/{SEED}: network-config"));
    assert_eq!(net["config"]["network"]["version"], 1);
    assert_eq!(net["model"]["format"], "v1");
    assert_eq!(net["model"]["interfaces"][3]["kind"]["type"], "bond");
    let model: Network = serde_json::from_value(net["model"].clone()).unwrap();
    assert_eq!(model, parsed(V1_LAYERED));
}

#[test]
fn a_bad_network_config_is_recorded_with_file_and_line_and_the_boot_goes_on() {
    let m = Machine::new("net-bad");
    let bad = "version: 2\nethernets:\n  eth0:\n    addresses:\n      - 10.0.0.5\n";
    m.seed_files(
        &m.target,
        SEED,
        &[
            ("meta-data", META),
            ("user-data", "#cloud-config\nhostname: still\n"),
            ("network-config", bad),
        ],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "errors were recorded");
    let d = m
        .diags()
        .into_iter()
        .find(|d| d["key"] == "ethernets.eth0.addresses.0")
        .expect("a diagnostic");
    assert_eq!(d["code"], "network-config-invalid");
    assert_eq!(d["file"], format!("/{SEED}: network-config"));
    assert_eq!(d["line"], 5);
    let net = m.json("ember/network-config.json");
    assert!(net.get("model").is_none());
    assert_eq!(net["config"]["version"], 2, "the config is still recorded");
    assert_eq!(
        m.status()["instance_id"],
        "iid-net01",
        "the rest of the boot went on"
    );
    assert_eq!(m.target_file("etc/hostname").trim(), "still");
}

/// Issue 37 (found by QEMU boot-faults' dns cell): a `nameserver=` alone configures no
/// interface, so the fallback network is rendered; before, it was taken for the command
/// line's network config and the booted system had none.
#[test]
fn a_nameserver_alone_on_the_command_line_leaves_the_fallback() {
    let m = Machine::new("net-ns-only");
    m.cmdline("root=/dev/vda1 nameserver=10.0.2.3 rd.route=10.9.0.0/16:10.0.2.1");
    for (file, value) in [
        ("address", "52:54:00:12:34:56"),
        ("type", "1"),
        ("carrier", "1"),
        ("operstate", "up"),
        ("uevent", "INTERFACE=eth0"),
    ] {
        let path = format!("sys/class/net/eth0/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    m.seed_files(&m.target, SEED, &[("meta-data", META), ("user-data", "")]);
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let net = m.json("ember/network-config.json");
    assert_eq!(net["source"], "fallback", "{net}");
    let dir = m.target.join("etc/systemd/network");
    let rendered: String = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        rendered.contains("DHCP="),
        "no fallback DHCP in\n{rendered}"
    );
}

#[test]
fn ip_on_the_command_line_is_used_where_cloud_init_would_fall_back() {
    let m = Machine::new("net-ip");
    m.cmdline("root=/dev/vda1 ip=ens3:dhcp nameserver=10.0.2.3");
    m.seed_files(&m.target, SEED, &[("meta-data", META), ("user-data", "")]);
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let net = m.json("ember/network-config.json");
    assert_eq!(net["source"], "kernel command line");
    assert_eq!(
        net["config"],
        json!(["ip=ens3:dhcp", "nameserver=10.0.2.3"])
    );
    assert_eq!(net["model"]["interfaces"][0]["dhcp4"], true);
    // The network stage renders what the command line says (it parses it again), not the
    // fallback.
    let dir = m.target.join("etc/systemd/network");
    let rendered: String = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    for want in ["Name=ens3", "DHCP=ipv4", "DNS=10.0.2.3"] {
        assert!(rendered.contains(want), "{want} missing in\n{rendered}");
    }
    // A network-config on the seed wins over ip=, and config: disabled disables.
    let m = Machine::new("net-disabled");
    m.cmdline("root=/dev/vda1 ip=dhcp");
    m.seed_files(
        &m.target,
        SEED,
        &[
            ("meta-data", META),
            ("user-data", ""),
            ("network-config", "network: {config: disabled}\n"),
        ],
    );
    m.initrd("all");
    let net = m.json("ember/network-config.json");
    assert_eq!(
        net["disabled"],
        format!("/{SEED}: network-config: config: disabled")
    );
}

use super::{error_at, warned};
use crate::error::Diag;
use crate::model::*;
use crate::{parse_network_data, Parsed};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::IpAddr;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn run(v: &Value, macs: &[(&str, &str)]) -> Result<Parsed, Vec<Diag>> {
    let macs: BTreeMap<String, String> = macs
        .iter()
        .map(|(m, n)| (m.to_string(), n.to_string()))
        .collect();
    parse_network_data("network_data.json", v, &macs)
}

/// A config drive's network_data.json with a bond of two NICs, a vlan on it, DHCP on a third
/// NIC, and every network type.
fn sample() -> Value {
    json!({
        "links": [
            {"id": "tap-a", "type": "phy", "ethernet_mac_address": "FA:16:3E:00:00:01", "mtu": 9000},
            {"id": "tap-b", "type": "ovs", "ethernet_mac_address": "fa:16:3e:00:00:02", "vif_id": "x"},
            {"id": "bond-x", "type": "bond", "bond_links": ["tap-a", "tap-b"], "bond_mode": "802.3ad",
             "bond_miimon": 100, "bond_xmit_hash_policy": "layer3+4", "ethernet_mac_address": "fa:16:3e:00:00:0b"},
            {"id": "vlan-x", "type": "vlan", "vlan_link": "bond-x", "vlan_id": 602,
             "vlan_mac_address": "fa:16:3e:00:00:0c"},
            {"id": "tap-c", "type": "vif", "ethernet_mac_address": "fa:16:3e:00:00:03", "mtu": null},
            {"id": "tap-d", "type": "tap", "ethernet_mac_address": "fa:16:3e:00:00:04", "name": "data0"}
        ],
        "networks": [
            {"id": "n0", "type": "ipv4", "link": "vlan-x", "ip_address": "10.60.2.5",
             "netmask": "255.255.255.0",
             "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.60.2.1"}],
             "services": [{"type": "dns", "address": "10.60.2.2"}], "network_id": "uuid"},
            {"id": "n1", "type": "ipv6", "link": "vlan-x", "ip_address": "2001:db8:60::5",
             "netmask": "ffff:ffff:ffff:ffff::"},
            {"id": "n2", "type": "ipv4_dhcp", "link": "tap-c"},
            {"id": "n3", "type": "ipv6_dhcpv6-stateful", "link": "tap-c"},
            {"id": "n4", "type": "ipv6_slaac", "link": "tap-d"},
            {"id": "n5", "type": "ipv6_dhcp", "link": "bond-x"}
        ],
        "services": [{"type": "dns", "address": "192.0.2.53"}, {"type": "dns", "address": "2001:db8::53"}]
    })
}

#[test]
fn links_networks_and_services() {
    let p = run(
        &sample(),
        &[("fa:16:3e:00:00:01", "ens3"), ("fa:16:3e:00:00:02", "ens4")],
    )
    .unwrap();
    // tap-c's MAC is on no interface of the host.
    assert_eq!(warned(&p.warnings), ["links.4.ethernet_mac_address"]);
    let net = &p.model;
    assert_eq!(net.format, Format::OpenStack);
    let ids: Vec<_> = net.interfaces.iter().map(|i| i.id.as_str()).collect();
    // NICs named by the host's interface with their MAC, by `name`, else by link id.
    assert_eq!(
        ids,
        ["ens3", "ens4", "bond0", "bond0.602", "tap-c", "data0"]
    );
    let ens3 = net.interface("ens3").unwrap();
    assert_eq!(ens3.mtu, Some(9000));
    let Kind::Physical { matching, set_name } = &ens3.kind else {
        panic!()
    };
    assert_eq!(matching.macaddress.as_deref(), Some("fa:16:3e:00:00:01"));
    assert_eq!((matching.name.as_deref(), set_name), (Some("ens3"), &None));
    let bond = net.interface("bond0").unwrap();
    assert_eq!(bond.mac_address.as_deref(), Some("fa:16:3e:00:00:0b"));
    let Kind::Bond { members, params } = &bond.kind else {
        panic!()
    };
    assert_eq!(members, &["ens3", "ens4"]);
    assert_eq!(params.mode.as_deref(), Some("802.3ad"));
    assert_eq!(params.mii_monitor_interval_ms, Some(100));
    assert_eq!(params.transmit_hash_policy.as_deref(), Some("layer3+4"));
    assert_eq!(
        (bond.ipv6, bond.accept_ra),
        (Some(Ipv6Auto::Dhcp6), Some(true))
    );
    let vlan = net.interface("bond0.602").unwrap();
    assert_eq!(
        vlan.kind,
        Kind::Vlan {
            id: 602,
            link: "bond0".into()
        }
    );
    assert_eq!(vlan.mac_address.as_deref(), Some("fa:16:3e:00:00:0c"));
    let addrs: Vec<_> = vlan.addresses.iter().map(|a| (a.ip, a.prefix)).collect();
    assert_eq!(addrs, [(ip("10.60.2.5"), 24), (ip("2001:db8:60::5"), 64)]);
    assert_eq!(
        vlan.accept_ra,
        Some(false),
        "a static IPv6 network turns RA off"
    );
    assert!(vlan.routes[0].to.is_default());
    assert_eq!(vlan.routes[0].via, Some(ip("10.60.2.1")));
    assert_eq!(vlan.dns.nameservers, [ip("10.60.2.2")]);
    let c = net.interface("tap-c").unwrap();
    assert!(c.dhcp4);
    assert_eq!(
        (c.ipv6, c.accept_ra),
        (Some(Ipv6Auto::Dhcp6Stateful), Some(true))
    );
    assert_eq!(c.mtu, None);
    let d = net.interface("data0").unwrap();
    assert_eq!(d.device_name(), Some("data0"));
    assert_eq!(d.ipv6, Some(Ipv6Auto::Slaac));
    assert_eq!(net.dns.nameservers, [ip("192.0.2.53"), ip("2001:db8::53")]);
}

#[test]
fn unknown_macs_and_types_are_warnings() {
    let v = json!({
        "links": [
            {"id": "l0", "type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:01"},
            {"id": "l1", "type": "macvtap", "ethernet_mac_address": "fa:16:3e:00:00:02"}
        ],
        "services": [{"type": "ntp", "address": "192.0.2.123"}]
    });
    // Without the host's interfaces, a NIC is matched by MAC and named after its link.
    let p = run(&v, &[]).unwrap();
    assert_eq!(warned(&p.warnings), ["links.1.type", "services.0.type"]);
    assert_eq!(p.model.interfaces[0].id, "l0");
    assert_eq!(p.model.interfaces[0].device_name(), None);
    // With them, a MAC no interface has is worth saying.
    let p = run(&v, &[("fa:16:3e:00:00:09", "ens9")]).unwrap();
    assert_eq!(
        warned(&p.warnings)[..2],
        ["links.0.ethernet_mac_address", "links.1.type"]
    );
}

#[test]
fn errors_name_the_key() {
    let v = json!({
        "links": [
            {"id": "l0", "type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:0"},
            {"id": "l1", "type": "phy"},
            {"type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:02"},
            {"id": "b0", "type": "bond", "bond_links": ["l1", "nope"]},
            {"id": "v0", "type": "vlan", "vlan_link": "gone", "vlan_id": 5},
            {"id": "v1", "type": "vlan", "vlan_link": "l1", "vlan_id": 5000},
            {"id": "l2", "type": "phy", "name": "eth2", "mtu": "huge"}
        ],
        "networks": [
            {"type": "ipv4", "link": "l1", "ip_address": "10.0.0.5"},
            {"type": "ipv4", "link": "zz", "ip_address": "10.0.0.5", "netmask": "255.255.255.0"},
            {"type": "ipv5", "link": "l1"},
            {"type": "ipv4", "link": "l1", "ip_address": "10.0.0.5/24",
             "routes": [{"netmask": "0.0.0.0", "gateway": "10.0.0.1"}]},
            {"link": "l1"}
        ]
    });
    let d = run(&v, &[]).unwrap_err();
    let at = |key: &str| error_at(&d, key);
    assert!(at("links.0.ethernet_mac_address").message.contains("MAC"));
    assert!(at("links.1")
        .message
        .contains("`ethernet_mac_address` or a `name`"));
    assert!(at("links.2").message.contains("missing `id`"));
    assert!(at("links.3.bond_links.1").message.contains("not defined"));
    assert!(at("links.4.vlan_link").message.contains("not defined"));
    at("links.5.vlan_id");
    assert_eq!(at("links.6.mtu").message, "expected a number");
    assert!(at("networks.0.ip_address").message.contains("netmask"));
    let skipped = d
        .iter()
        .find(|d| d.key.as_deref() == Some("networks.1.link"));
    assert!(skipped.is_some_and(|d| !d.is_error()), "{d:?}");
    assert_eq!(at("networks.2.type").message, "unknown network type");
    assert!(at("networks.3.routes.0").message.contains("`network`"));
    assert!(at("networks.4").message.contains("missing `type`"));
    assert!(d
        .iter()
        .all(|d| d.line.is_none() && d.file.as_deref() == Some("network_data.json")));
    let d = run(&json!([1]), &[]).unwrap_err();
    assert_eq!(d[0].message, "expected a mapping");
}

#[test]
fn a_reference_problem_skips_the_link_that_has_it() {
    // Links are built NICs and bonds first, vlans next, but keep their order: each reference
    // must be blamed on its own link, not on the first.
    let v = json!({
        "links": [
            {"id": "l0", "type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:01"},
            {"id": "l1", "type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:02"},
            {"id": "v0", "type": "vlan", "vlan_link": "l0", "vlan_id": 5},
            {"id": "b0", "type": "bond", "bond_links": ["l1"]},
            {"id": "b1", "type": "bond", "bond_links": ["l1"]},
            {"id": "v1", "type": "vlan", "vlan_link": "b1", "vlan_id": 7}
        ]
    });
    let p = run(&v, &[]).unwrap();
    assert_eq!(
        warned(&p.warnings),
        [
            "links.4.bond_links.0",
            "links.4",
            "links.5.vlan_link",
            "links.5"
        ]
    );
    assert!(p.warnings[1].message.contains("skipped"));
    let ids: Vec<&str> = p.model.interfaces.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["l0", "l1", "l0.5", "bond0"]);
}

#[test]
fn a_network_on_an_undefined_link_is_skipped_with_a_warning() {
    let v = json!({
        "links": [{"id": "l0", "type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:01"}],
        "networks": [
            {"id": "net-a", "type": "ipv4_dhcp", "link": "l0"},
            {"id": "net-b", "type": "ipv4", "link": "l9", "ip_address": "10.0.0.5/24"}
        ]
    });
    let p = run(&v, &[]).unwrap();
    assert_eq!(warned(&p.warnings), ["networks.1.link"]);
    let msg = &p.warnings[0].message;
    assert!(msg.contains("`net-b`") && msg.contains("`l9`"), "{msg}");
    assert!(p.model.interfaces[0].dhcp4);
    assert!(p.model.interfaces[0].addresses.is_empty());
}

#[test]
fn a_bond_keeps_its_name_and_a_network_its_gateway_route_metric_and_route_resolvers() {
    let v = json!({
        "links": [
            {"id": "l0", "type": "phy", "ethernet_mac_address": "fa:16:3e:00:00:01"},
            {"id": "b0", "type": "bond", "name": "bond-wan", "bond_links": ["l0"]},
            {"id": "v0", "type": "vlan", "vlan_link": "b0", "vlan_id": 7}
        ],
        "networks": [
            {"id": "n0", "type": "ipv6", "link": "v0", "ip_address": "2001:db8::5/64",
             "gateway": "fe80::1",
             "routes": [{"network": "2001:db8:1::", "netmask": "ffff:ffff:ffff:ffff::",
                         "gateway": "2001:db8::1", "metric": 50,
                         "services": [{"type": "dns", "address": "2001:db8::53"}]}]},
            {"id": "n1", "type": "ipv4", "link": "l0", "ip_address": "192.0.2.5",
             "netmask": "255.0.255.0"}
        ]
    });
    let p = run(&v, &[]).unwrap();
    let ids: Vec<_> = p.model.interfaces.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["l0", "bond-wan", "bond-wan.7"]);
    let vlan = p.model.interface("bond-wan.7").unwrap();
    assert_eq!(vlan.gateway6, Some("fe80::1".parse().unwrap()));
    assert_eq!(vlan.routes[0].metric, Some(50));
    assert_eq!(vlan.dns.nameservers, [ip("2001:db8::53")]);
    // A bad netmask skips that network alone.
    assert!(p.model.interface("l0").unwrap().addresses.is_empty());
    assert!(warned(&p.warnings).contains(&"networks.1"));
}

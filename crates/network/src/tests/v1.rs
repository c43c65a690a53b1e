use super::{bad, error_at, ok, refused, warned};
use crate::model::*;
use std::net::IpAddr;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn physical_devices_and_every_subnet_type() {
    let p = ok(r#"
version: 1
config:
  - type: physical
    name: eth0
    mac_address: "52:54:00:12:34:AA"
    mtu: 1450
    accept-ra: "true"
    wakeonlan: true
    keep_configuration: true
    subnets:
      - type: dhcp
        metric: 50
      - type: static
        address: 192.168.10.5/24
        gateway: 192.168.10.1
        dns_nameservers: [192.168.10.2]
        dns_search: [lab.example]
        control: auto
      - type: static
        address: 192.168.11.5
        netmask: 255.255.254.0
      - type: static6
        address: "2001:db8:10::5/64"
        gateway: "2001:db8:10::1"
      - type: static
        address: 172.16.0.5
        prefix: 16
  - type: physical
    name: eth1
    params: {driver: virtio_net}
    subnets:
      - {type: dhcp6, metric: 70}
  - type: physical
    name: eth2
    subnets: [{type: ipv6_slaac}]
  - type: physical
    name: eth3
    subnets: [{type: ipv6_dhcpv6-stateless}, {type: dhcp4}]
  - type: physical
    name: eth4
    mtu: null
    subnets: [{type: ipv6_dhcpv6-stateful}]
  - type: physical
    name: eth5
    subnets: [{type: manual}]
"#);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let net = &p.model;
    assert_eq!(net.format, Format::V1);
    let eth0 = net.interface("eth0").unwrap();
    // A physical device with a MAC is matched by it and renamed to its name.
    let Kind::Physical { matching, set_name } = &eth0.kind else {
        panic!()
    };
    assert_eq!(matching.macaddress.as_deref(), Some("52:54:00:12:34:aa"));
    assert_eq!(set_name.as_deref(), Some("eth0"));
    assert_eq!(eth0.mac_address, None, "the MAC matches; it is not set");
    assert_eq!(eth0.mtu, Some(1450));
    assert_eq!(eth0.accept_ra, Some(true));
    assert!(eth0.wakeonlan && eth0.keep_configuration && eth0.dhcp4);
    assert_eq!(eth0.dhcp4_overrides.route_metric, Some(50));
    let addrs: Vec<_> = eth0.addresses.iter().map(|a| (a.ip, a.prefix)).collect();
    assert_eq!(
        addrs,
        [
            (ip("192.168.10.5"), 24),
            (ip("192.168.11.5"), 23),
            (ip("2001:db8:10::5"), 64),
            (ip("172.16.0.5"), 16)
        ]
    );
    assert_eq!(eth0.gateway4, Some("192.168.10.1".parse().unwrap()));
    assert_eq!(eth0.gateway6, Some("2001:db8:10::1".parse().unwrap()));
    assert_eq!(eth0.dns.nameservers, [ip("192.168.10.2")]);
    assert_eq!(eth0.dns.search, ["lab.example"]);
    let eth1 = net.interface("eth1").unwrap();
    assert_eq!(eth1.ipv6, Some(Ipv6Auto::Dhcp6));
    assert_eq!(eth1.dhcp6_overrides.route_metric, Some(70));
    assert!(
        matches!(&eth1.kind, Kind::Physical { matching, set_name: None } if matching.driver == ["virtio_net"])
    );
    assert_eq!(eth1.device_name(), None, "matched by driver only");
    assert_eq!(net.interface("eth2").unwrap().ipv6, Some(Ipv6Auto::Slaac));
    let eth3 = net.interface("eth3").unwrap();
    assert_eq!(eth3.ipv6, Some(Ipv6Auto::Dhcp6Stateless));
    assert!(eth3.dhcp4);
    assert_eq!(
        net.interface("eth4").unwrap().ipv6,
        Some(Ipv6Auto::Dhcp6Stateful)
    );
    assert_eq!(net.interface("eth4").unwrap().mtu, None);
    let eth5 = net.interface("eth5").unwrap();
    assert!(!eth5.has_addressing());
    assert_eq!(eth5.device_name(), Some("eth5"));
}

#[test]
fn bonds_bridges_vlans_in_both_param_spellings() {
    let p = ok(r#"
network:
  version: 1
  config:
    - {type: physical, name: ens3, mac_address: "52:54:00:00:00:03"}
    - {type: physical, name: ens4, mac_address: "52:54:00:00:00:04"}
    - {type: physical, name: ens5}
    - type: bond
      name: bond0
      mac_address: "52:54:00:00:00:b0"
      bond_interfaces: [ens3, ens4]
      mtu: 9000
      params:
        bond-mode: active-backup
        bond-miimon: 100
        bond_xmit_hash_policy: layer2
        bond-lacp-rate: slow
        bond-updelay: 10
        bond-downdelay: 20
        bond-primary: ens3
        bond-num-grat-arp: 2
        bond-arp-ip-target: "10.0.0.1 10.0.0.2"
        bond-slaves: none
        min_links: 1
      subnets: [{type: static, address: 10.0.0.10/24}]
    - type: bridge
      name: br0
      bridge_interfaces: [ens5]
      params:
        bridge_ageing: 250
        bridge_bridgeprio: 22
        bridge_fd: 1
        bridge_hello: 1
        bridge_maxage: 10
        bridge_stp: "off"
        bridge_hw: "52:54:00:00:00:be"
        bridge_pathcost: ["ens5 40"]
        bridge_portprio: ["ens5 20"]
        bridge_maxwait: 0
        bridge_gcint: "2"
        bridge_waitport: 5 ens5
        bridge_ports: [ens5]
      subnets: [{type: dhcp4}]
    - type: vlan
      name: bond0.200
      vlan_link: bond0
      vlan_id: 200
      mtu: 1500
      subnets:
        - type: static
          address: 10.200.0.2/24
          routes:
            - {gateway: 10.200.0.1, network: 10.201.0.0, netmask: 255.255.0.0, metric: 3}
            - {gateway: 10.200.0.1, destination: 10.202.0.0/16}
"#);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let net = &p.model;
    let bond = net.interface("bond0").unwrap();
    assert_eq!(bond.mac_address.as_deref(), Some("52:54:00:00:00:b0"));
    assert_eq!(bond.mtu, Some(9000));
    let Kind::Bond { members, params: b } = &bond.kind else {
        panic!()
    };
    assert_eq!(members, &["ens3", "ens4"]);
    assert_eq!(b.mode.as_deref(), Some("active-backup"));
    assert_eq!(b.mii_monitor_interval_ms, Some(100));
    assert_eq!(b.transmit_hash_policy.as_deref(), Some("layer2"));
    assert_eq!(b.lacp_rate.as_deref(), Some("slow"));
    assert_eq!((b.up_delay_ms, b.down_delay_ms), (Some(10), Some(20)));
    assert_eq!(b.primary.as_deref(), Some("ens3"));
    assert_eq!((b.gratuitous_arp, b.min_links), (Some(2), Some(1)));
    assert_eq!(b.arp_ip_targets.len(), 2);
    let br = net.interface("br0").unwrap();
    assert_eq!(br.mac_address.as_deref(), Some("52:54:00:00:00:be"));
    let Kind::Bridge { members, params: b } = &br.kind else {
        panic!()
    };
    assert_eq!(members, &["ens5"]);
    assert_eq!(
        (b.ageing_time_ms, b.priority, b.forward_delay_ms),
        (Some(250_000), Some(22), Some(1000))
    );
    assert_eq!(
        (b.hello_time_ms, b.max_age_ms, b.stp),
        (Some(1000), Some(10_000), Some(false))
    );
    assert_eq!((b.path_cost["ens5"], b.port_priority["ens5"]), (40, 20));
    assert_eq!((b.max_wait_s, b.gc_interval_s), (Some(0), Some(2)));
    assert_eq!(b.wait_port, ["5 ens5"]);
    let vlan = net.interface("bond0.200").unwrap();
    assert_eq!(
        vlan.kind,
        Kind::Vlan {
            id: 200,
            link: "bond0".into()
        }
    );
    let r: Vec<_> = vlan
        .routes
        .iter()
        .map(|r| (r.to.to_string(), r.via, r.metric))
        .collect();
    assert_eq!(
        r,
        [
            ("10.201.0.0/16".into(), Some(ip("10.200.0.1")), Some(3)),
            ("10.202.0.0/16".into(), Some(ip("10.200.0.1")), None)
        ]
    );
}

#[test]
fn nameservers_and_global_routes() {
    let p = ok(r#"
version: 1
config:
  - {type: physical, name: eth0, subnets: [{type: dhcp}]}
  - type: nameserver
    address: [192.0.2.53, "2001:db8::53"]
    search: [corp.example, lab.example]
  - type: nameserver
    address: 198.51.100.53
    search: [eth0.example]
    interface: eth0
  - type: route
    destination: 203.0.113.0/24
    gateway: 192.0.2.1
    metric: 5
  - type: route
    network: 0.0.0.0
    netmask: 0.0.0.0
    gateway: 192.0.2.1
"#);
    let net = &p.model;
    assert_eq!(net.dns.nameservers, [ip("192.0.2.53"), ip("2001:db8::53")]);
    assert_eq!(net.dns.search, ["corp.example", "lab.example"]);
    let eth0 = net.interface("eth0").unwrap();
    assert_eq!(eth0.dns.nameservers, [ip("198.51.100.53")]);
    assert_eq!(eth0.dns.search, ["eth0.example"]);
    assert_eq!(net.routes.len(), 2);
    assert_eq!(net.routes[0].to.to_string(), "203.0.113.0/24");
    assert_eq!(net.routes[0].metric, Some(5));
    assert!(net.routes[1].to.is_default());
}

#[test]
fn warnings_for_assumed_and_ignored_things() {
    let p = ok(r#"
version: 1
config:
  - type: physical
    name: eth0
    colour: red
    subnets:
      - type: static
        address: 10.9.0.5
        pointopoint: 10.9.0.6
      - type: static
        address: 10.8.0.5/24
        gateway: 10.8.0.1
      - type: static
        address: 10.7.0.5/24
        gateway: 10.7.0.1
      - {type: dhcp6}
      - {type: ipv6_slaac}
  - {type: bond, name: bond0, bond_interfaces: [], params: {bond-use-carrier: 1}}
  - {type: loopback, name: lo}
"#);
    assert_eq!(
        warned(&p.warnings),
        [
            "config.0.colour",
            "config.0.subnets.0.pointopoint",
            "config.0.subnets.0.address",
            "config.0.subnets.2.gateway",
            "config.0.subnets.4.type",
            "config.1.params.bond-use-carrier",
            "config.2.type"
        ]
    );
    let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines[0], Some(6));
    let eth0 = p.model.interface("eth0").unwrap();
    // cloud-init's default prefix for an address with no netmask.
    assert_eq!(eth0.addresses[0].prefix, 24);
    assert_eq!(eth0.gateway4, Some("10.8.0.1".parse().unwrap()));
    assert_eq!(eth0.ipv6, Some(Ipv6Auto::Dhcp6));
    assert!(p.model.interface("lo").is_none());
}

#[test]
fn errors_name_the_entry_key_and_line() {
    let d = bad(r#"version: 1
config:
  - type: physical
    name: eth0
    mac_address: "52:54:00:12:34"
    mtu: jumbo
    subnets:
      - type: static
        address: 10.0.0.5/40
      - type: static
      - type: dhcp9
      - address: 10.0.0.7/24
      - type: static
        address: 10.0.0.8
        netmask: 255.0.255.0
  - type: bond
    name: bond0
    bond_interfaces: [eth0, eth8]
  - type: bridge
    name: br0
    params: {bridge_stp: sometimes, bridge_pathcost: ["eth0"]}
  - {type: vlan, name: vlan5, vlan_link: eth9, vlan_id: 5}
  - {type: vlan, name: vlan6, vlan_link: eth0, vlan_id: 5000}
  - {type: vlan, name: vlan7, vlan_id: 7}
  - {type: physical, name: averyveryverylongname}
  - {type: physical}
  - {type: nameserver, address: [not-an-ip]}
  - {type: route, gateway: 10.0.0.1}
  - {type: route, destination: "2001:db8::/32", gateway: 10.0.0.1}
  - {type: tunnel, name: tun0}
  - {name: eth1}
  - {type: bond, name: bond1, bond_interfaces: [], params: {bond-mode: round-robin}}
  - {type: nameserver, address: 10.0.0.53, interface: eth4}
"#);
    let at = |key: &str| error_at(&d, key);
    assert!(at("config.0.mac_address").message.contains("MAC"));
    assert_eq!(at("config.0.mac_address").line, Some(5));
    assert_eq!(at("config.0.mtu").line, Some(6));
    assert!(at("config.0.subnets.0.address")
        .message
        .contains("out of range"));
    assert_eq!(at("config.0.subnets.0.address").line, Some(9));
    assert!(at("config.0.subnets.1.address")
        .message
        .contains("needs an `address`"));
    assert_eq!(at("config.0.subnets.1.address").line, Some(10));
    assert_eq!(at("config.0.subnets.2.type").message, "unknown subnet type");
    assert!(at("config.0.subnets.3.type")
        .message
        .contains("needs a `type`"));
    assert!(at("config.0.subnets.4.netmask")
        .message
        .contains("contiguous"));
    assert_eq!(at("config.1.bond_interfaces.1").line, Some(18));
    assert!(at("config.1.bond_interfaces.1")
        .message
        .contains("not defined"));
    assert!(at("config.2.bridge_interfaces").message.contains("missing"));
    at("config.2.params.bridge_stp");
    at("config.2.params.bridge_pathcost.0");
    assert!(at("config.3.vlan_link").message.contains("not defined"));
    at("config.4.vlan_id");
    assert!(at("config.5.vlan_link").message.contains("vlan_link"));
    assert!(at("config.6.name").message.contains("15 characters"));
    assert!(at("config.7.name").message.contains("needs a `name`"));
    at("config.8.address.0");
    assert!(at("config.9.destination").message.contains("destination"));
    assert!(at("config.10.gateway").message.contains("family"));
    assert_eq!(at("config.11.type").message, "unknown type");
    assert!(at("config.12.type").message.contains("needs a `type`"));
    at("config.13.params.bond-mode");
    assert!(at("config.14.interface").message.contains("not defined"));
    // Every entry was skipped, each named: nothing usable is left.
    assert!(d
        .iter()
        .any(|d| d.is_error() && d.message.contains("no usable interface")));
    let e = refused("version: 1\n");
    assert!(error_at(&e, "config").message.contains("missing"));
    let e = refused("version: 1\nconfig: {type: physical}\n");
    assert_eq!(error_at(&e, "config").message, "expected a list");
}

/// Expected: ARP monitoring on an 802.3ad bond (by name and by the kernel's number 6,
/// balance-alb) is dropped with a warning at each ARP key, in either spelling; an
/// active-backup bond keeps it.
#[test]
fn arp_monitoring_is_dropped_where_the_bond_mode_cannot_use_it() {
    let p = ok(r#"version: 1
config:
  - {type: physical, name: eth0}
  - {type: physical, name: eth1}
  - {type: physical, name: eth2}
  - type: bond
    name: bond0
    bond_interfaces: [eth0]
    params: {bond-mode: 802.3ad, bond-arp-interval: 100, bond_arp_ip_target: 10.0.0.1, bond-arp_validate: all, bond-miimon: 100}
  - type: bond
    name: bond1
    bond_interfaces: [eth1]
    params: {bond-mode: 6, bond-arp-all-targets: any}
  - type: bond
    name: bond2
    bond_interfaces: [eth2]
    params: {bond-mode: active-backup, bond-arp-interval: 100, bond-arp-ip-target: 10.0.0.1}
"#);
    let params = |id: &str| match &p.model.interface(id).unwrap().kind {
        Kind::Bond { params, .. } => params.clone(),
        k => panic!("{k:?}"),
    };
    let b0 = params("bond0");
    assert_eq!(b0.arp_interval_ms, None);
    assert!(b0.arp_ip_targets.is_empty() && b0.arp_validate.is_none());
    assert_eq!(b0.mii_monitor_interval_ms, Some(100));
    assert_eq!(params("bond1").arp_all_targets, None);
    let b2 = params("bond2");
    assert_eq!(b2.arp_interval_ms, Some(100));
    assert_eq!(b2.arp_ip_targets.len(), 1);
    let arp: Vec<&str> = p
        .warnings
        .iter()
        .filter(|d| d.message.contains("ARP monitoring"))
        .map(|d| d.key.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        arp,
        [
            "config.3.params.bond-arp-interval",
            "config.3.params.bond-arp_validate",
            "config.3.params.bond_arp_ip_target",
            "config.4.params.bond-arp-all-targets",
        ]
    );
    assert!(
        p.warnings[0].message.contains("802.3ad"),
        "{:?}",
        p.warnings
    );
}

/// Expected (cloud-init's skip of an invalid command): a physical without `name`, a vlan
/// without `vlan_id`, a route without `destination`, a nameserver without `address`, a
/// subnet route without `destination` and a vlan on a skipped NIC are each skipped with a
/// warning naming the missing key and its entry's line; a subnet gateway that is no address is
/// left out alone; everything else is kept.
#[test]
fn an_invalid_entry_is_skipped_and_the_rest_is_used() {
    let p = ok(r#"version: 1
config:
  - type: physical
    name: eth0
    subnets:
      - type: static
        address: 10.0.0.5/24
        gateway: not-an-address
        routes:
          - {gateway: 10.0.0.1}
          - {destination: 10.7.0.0/16, gateway: 10.0.0.1}
      - {type: dhcp6}
  - {type: physical, mac_address: "52:54:00:00:00:01"}
  - {type: vlan, name: eth0.5, vlan_link: eth0}
  - {type: route, gateway: 10.0.0.1}
  - {type: nameserver, search: [example.org]}
  - {type: nameserver, address: 10.0.0.53}
  - {type: physical, name: eth1, mac_address: "52:54:00:00:00:zz"}
  - {type: vlan, name: eth1.7, vlan_link: eth1, vlan_id: 7}
  - {type: route, destination: 10.8.0.0/16, gateway: 10.0.0.1}
"#);
    let net = &p.model;
    let ids: Vec<&str> = net.interfaces.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["eth0"]);
    let eth0 = &net.interfaces[0];
    assert_eq!(eth0.addresses.len(), 1);
    assert_eq!(eth0.gateway4, None);
    assert_eq!(eth0.ipv6, Some(Ipv6Auto::Dhcp6));
    assert_eq!(eth0.routes.len(), 1);
    assert_eq!(net.routes.len(), 1);
    assert_eq!(net.dns.nameservers, [ip("10.0.0.53")]);
    let at = |key: &str| {
        p.warnings
            .iter()
            .find(|d| d.key.as_deref() == Some(key))
            .unwrap_or_else(|| panic!("no warning at {key}: {:#?}", p.warnings))
    };
    assert_eq!(at("config.0.subnets.0.gateway").line, Some(8));
    assert_eq!(at("config.0.subnets.0.routes.0.destination").line, Some(10));
    assert_eq!(at("config.1.name").line, Some(13));
    assert!(at("config.1.name").message.contains("`name`"));
    assert_eq!(at("config.2.vlan_id").line, Some(14));
    assert_eq!(at("config.3.destination").line, Some(15));
    assert_eq!(at("config.4.address").line, Some(16));
    assert!(at("config.7.vlan_link").message.contains("skipped"));
    for skipped in [
        "config.1", "config.2", "config.3", "config.4", "config.6", "config.7",
    ] {
        assert!(at(skipped).message.contains("is skipped"), "{skipped}");
    }
    assert!(p.warnings.iter().all(|d| !d.is_error()));
}

/// Expected: a subnet's `control` is the interface's (a different second one is a warning);
/// an IPv4 subnet's `mtu` is the device's (over the device's own, with a warning), an IPv6
/// subnet's (static6, dhcp6, SLAAC) the IPv6 MTU; a `manual` subnet asks for no address.
#[test]
fn subnet_control_and_mtu() {
    let p = ok(r#"version: 1
config:
  - type: physical
    name: eth0
    mtu: 1500
    subnets:
      - {type: static, address: 10.0.0.2/24, mtu: 9000, control: hotplug}
      - {type: static6, address: "2001:db8::2/64", mtu: 1400, control: manual}
  - type: physical
    name: eth1
    subnets: [{type: manual, control: manual}, {type: ipv6_slaac, mtu: 1280}]
  - {type: physical, name: eth2, subnets: [{type: dhcp}]}
  - type: physical
    name: eth3
    subnets:
      - {type: static6, address: "2001:db8::3/64"}
      - {type: dhcp, mtu: 576, control: alias}
"#);
    let net = &p.model;
    let eth0 = net.interface("eth0").unwrap();
    assert_eq!((eth0.mtu, eth0.ipv6_mtu), (Some(9000), Some(1400)));
    assert_eq!(eth0.control, Some(Control::Hotplug));
    let eth1 = net.interface("eth1").unwrap();
    assert_eq!(eth1.control, Some(Control::Manual));
    assert_eq!((eth1.mtu, eth1.ipv6_mtu), (None, Some(1280)));
    assert_eq!(net.interface("eth2").unwrap().control, None);
    // A subnet's MTU is of its own family, not of the subnet before it; an unknown
    // `control` is kept (for ENI's comment) with a warning, and so is its subnet.
    let eth3 = net.interface("eth3").unwrap();
    assert_eq!((eth3.mtu, eth3.ipv6_mtu), (Some(576), None));
    assert!(eth3.dhcp4);
    assert_eq!(eth3.control, Some(Control::Other("alias".into())));
    let keys = warned(&p.warnings);
    assert_eq!(
        keys,
        [
            "config.0.subnets.0.mtu",
            "config.0.subnets.1.control",
            "config.3.subnets.1.control"
        ],
        "{:#?}",
        p.warnings
    );
    let d = bad("version: 1\nconfig:\n  - {type: physical, name: eth0, subnets: [{type: dhcp6, mtu: 1000}, {type: dhcp, control: [auto]}]}\n");
    error_at(&d, "config.0.subnets.0.mtu");
    error_at(&d, "config.0.subnets.1.control");
}

#[test]
fn a_static_subnets_metric_is_its_familys_and_its_routes() {
    let p = ok(r#"
version: 1
config:
  - type: physical
    name: eth0
    subnets:
      - type: static
        address: 10.0.0.5/24
        gateway: 10.0.0.1
        metric: 100
        routes:
          - {network: 10.1.0.0/16, gateway: 10.0.0.2}
          - {network: 10.2.0.0/16, gateway: 10.0.0.2, metric: 7}
      - type: static6
        address: "2001:db8::5/64"
        metric: 300
      - type: static
        address: 10.3.0.5/24
        metric: 200
      - type: dhcp6
        metric: 400
"#);
    assert_eq!(warned(&p.warnings), ["config.0.subnets.2.metric"]);
    let eth0 = p.model.interface("eth0").unwrap();
    // The later subnet's wins (with the warning); DHCP's metric is its override's.
    assert_eq!((eth0.metric4, eth0.metric6), (Some(200), Some(300)));
    assert_eq!(eth0.dhcp6_overrides.route_metric, Some(400));
    let metrics: Vec<_> = eth0.routes.iter().map(|r| r.metric).collect();
    assert_eq!(metrics, [Some(100), Some(7)]);
}

#[test]
fn a_bridge_waitport_is_seconds_then_ports() {
    let d = bad("version: 1
config:
  - {type: physical, name: eth0}
  - type: bridge
    name: br0
    bridge_interfaces: [eth0]
    params: {bridge_waitport: [3 eth0, soon eth0]}
");
    error_at(&d, "config.1.params.bridge_waitport.1");
}

use super::{bad, error_at, ok, refused, warned};
use crate::model::*;
use serde_json::json;
use std::net::IpAddr;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn ethernets_with_every_common_key() {
    let p = ok(r#"
network:
  version: 2
  renderer: networkd
  ethernets:
    lan:
      match:
        macaddress: "52:54:00:AA:bb:01"
        driver: [virtio_net, "e1000*"]
      set-name: lan0
      wakeonlan: true
      optional: yes
      critical: true
      mtu: 9000
      macaddress: 52:54:00:aa:bb:02
      dhcp4: true
      dhcp6: true
      dhcp4-overrides: {use-dns: false, use-routes: false, route-metric: 200, use-domains: route,
                        send-hostname: false, hostname: box, use-ntp: no, use-mtu: true, use-hostname: false}
      dhcp6-overrides: {use-dns: false}
      accept-ra: false
      link-local: [ipv4]
      addresses:
        - 10.1.0.5/24
        - "2001:db8::5/64"
        - 10.1.0.6/24: {label: "lan0:1", lifetime: 0}
      gateway4: 10.1.0.1
      gateway6: "2001:db8::1"
      nameservers:
        addresses: [10.1.0.2, "2001:db8::2"]
        search: [example.internal]
    switchports:
      match: {name: "enp2*"}
    eth9: {}
"#);
    let net = &p.model;
    assert_eq!(net.format, Format::V2);
    assert_eq!(net.renderer.as_deref(), Some("networkd"));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let lan = net.interface("lan").unwrap();
    let Kind::Physical { matching, set_name } = &lan.kind else {
        panic!("{lan:?}")
    };
    assert_eq!(matching.macaddress.as_deref(), Some("52:54:00:aa:bb:01"));
    assert_eq!(matching.driver, ["virtio_net", "e1000*"]);
    assert_eq!(set_name.as_deref(), Some("lan0"));
    assert_eq!(lan.device_name(), Some("lan0"));
    assert!(lan.wakeonlan && lan.optional && lan.keep_configuration && lan.dhcp4);
    assert_eq!(lan.ipv6, Some(Ipv6Auto::Dhcp6));
    assert_eq!(lan.mtu, Some(9000));
    assert_eq!(lan.mac_address.as_deref(), Some("52:54:00:aa:bb:02"));
    let o = &lan.dhcp4_overrides;
    assert_eq!(
        (o.use_dns, o.use_routes, o.route_metric),
        (Some(false), Some(false), Some(200))
    );
    assert_eq!(o.use_domains.as_deref(), Some("route"));
    assert_eq!(
        (o.send_hostname, o.use_ntp, o.use_mtu),
        (Some(false), Some(false), Some(true))
    );
    assert_eq!(
        (o.hostname.as_deref(), o.use_hostname),
        (Some("box"), Some(false))
    );
    assert_eq!(lan.dhcp6_overrides.use_dns, Some(false));
    assert_eq!(lan.accept_ra, Some(false));
    assert_eq!(
        lan.link_local,
        Some(LinkLocal {
            ipv4: true,
            ipv6: false
        })
    );
    let addrs: Vec<_> = lan.addresses.iter().map(|a| (a.ip, a.prefix)).collect();
    assert_eq!(
        addrs,
        [
            (ip("10.1.0.5"), 24),
            (ip("2001:db8::5"), 64),
            (ip("10.1.0.6"), 24)
        ]
    );
    assert_eq!(lan.addresses[2].label.as_deref(), Some("lan0:1"));
    assert_eq!(lan.addresses[2].lifetime.as_deref(), Some("0"));
    assert_eq!(lan.gateway4, Some("10.1.0.1".parse().unwrap()));
    assert_eq!(lan.gateway6, Some("2001:db8::1".parse().unwrap()));
    assert_eq!(lan.dns.nameservers, [ip("10.1.0.2"), ip("2001:db8::2")]);
    assert_eq!(lan.dns.search, ["example.internal"]);
    let sw = net.interface("switchports").unwrap();
    assert_eq!(sw.device_name(), None, "a glob names no one device");
    assert_eq!(net.interface("eth9").unwrap().device_name(), Some("eth9"));
    // The v2 original is kept as given, without the wrapper, for the netplan renderer.
    let orig = net.netplan.as_ref().unwrap();
    assert_eq!(orig["ethernets"]["lan"]["set-name"], "lan0");
    assert_eq!(orig["version"], 2);
}

#[test]
fn routes_and_routing_policy() {
    let p = ok(r#"
version: 2
ethernets:
  eth0:
    addresses: [192.168.5.10/24, "fd00::10/64"]
    routes:
      - to: default
        via: 192.168.5.1
        metric: 100
        on-link: true
      - to: default
        via: "fd00::1"
      - to: 10.20.0.0/16
        via: 192.168.5.254
        table: 76
        from: 192.168.5.10
        scope: global
        type: unicast
        mtu: 1400
      - to: 198.51.100.7
        type: blackhole
    routing-policy:
      - from: 192.168.5.0/24
        table: 76
        priority: 10
        mark: 3
        type-of-service: 8
      - to: 10.99.0.1
        table: 77
"#);
    let eth0 = p.model.interface("eth0").unwrap();
    let r = &eth0.routes;
    assert_eq!(r.len(), 4);
    assert!(r[0].to.is_default() && r[0].to.ip.is_ipv4() && r[0].on_link);
    assert_eq!(
        (r[0].via, r[0].metric),
        (Some(ip("192.168.5.1")), Some(100))
    );
    assert!(r[1].to.is_default() && r[1].to.ip.is_ipv6());
    assert_eq!(r[2].to.to_string(), "10.20.0.0/16");
    assert_eq!((r[2].table, r[2].mtu), (Some(76), Some(1400)));
    assert_eq!(r[2].from, Some(ip("192.168.5.10")));
    assert_eq!(
        (r[2].scope.as_deref(), r[2].kind.as_deref()),
        (Some("global"), Some("unicast"))
    );
    assert_eq!(
        r[3].to.to_string(),
        "198.51.100.7/32",
        "a bare address is a host route"
    );
    assert_eq!(r[3].kind.as_deref(), Some("blackhole"));
    let rules = &eth0.rules;
    assert_eq!(rules[0].from.unwrap().to_string(), "192.168.5.0/24");
    assert_eq!(
        (
            rules[0].table,
            rules[0].priority,
            rules[0].mark,
            rules[0].type_of_service
        ),
        (Some(76), Some(10), Some(3), Some(8))
    );
    assert_eq!(rules[1].to.unwrap().to_string(), "10.99.0.1/32");
}

#[test]
fn bonds_bridges_and_vlans() {
    let p = ok(r#"
version: 2
ethernets:
  eno1: {}
  eno2: {}
  eno3: {}
bonds:
  bond0:
    interfaces: [eno1, eno2]
    macaddress: "0a:00:00:00:00:01"
    parameters:
      mode: balance-xor
      lacp-rate: fast
      mii-monitor-interval: 100
      min-links: 1
      transmit-hash-policy: layer3+4
      ad-select: bandwidth
      all-slaves-active: false
      arp-interval: 2s
      arp-ip-targets: [10.0.0.1, 10.0.0.2]
      arp-validate: all
      arp-all-targets: any
      up-delay: 200ms
      down-delay: 200
      fail-over-mac-policy: active
      gratuitious-arp: 5
      packets-per-slave: 2
      primary-reselect-policy: better
      resend-igmp: 3
      learn-packet-interval: 4
      primary: eno1
bridges:
  br0:
    interfaces: [bond0]
    dhcp4: true
    parameters:
      ageing-time: 300
      priority: 4096
      forward-delay: 15
      hello-time: 2
      max-age: 20
      stp: false
      path-cost: {bond0: 50}
      port-priority: {bond0: 32}
  br1:
    interfaces: []
vlans:
  vlan100:
    id: 100
    link: eno3
    addresses: [10.100.0.2/24]
  br0.7:
    id: 7
    link: br0
"#);
    let net = &p.model;
    let ids: Vec<_> = net.interfaces.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(
        ids,
        ["eno1", "eno2", "eno3", "bond0", "br0", "br1", "br0.7", "vlan100"]
    );
    let bond = net.interface("bond0").unwrap();
    assert_eq!(bond.mac_address.as_deref(), Some("0a:00:00:00:00:01"));
    let Kind::Bond { members, params: b } = &bond.kind else {
        panic!()
    };
    assert_eq!(members, &["eno1", "eno2"]);
    assert_eq!(b.mode.as_deref(), Some("balance-xor"));
    assert_eq!(b.lacp_rate.as_deref(), Some("fast"));
    assert_eq!(b.mii_monitor_interval_ms, Some(100));
    assert_eq!((b.min_links, b.all_members_active), (Some(1), Some(false)));
    assert_eq!(b.transmit_hash_policy.as_deref(), Some("layer3+4"));
    assert_eq!(b.ad_select.as_deref(), Some("bandwidth"));
    assert_eq!(b.arp_interval_ms, Some(2000));
    assert_eq!(b.arp_ip_targets.len(), 2);
    assert_eq!(b.arp_validate.as_deref(), Some("all"));
    assert_eq!(b.arp_all_targets.as_deref(), Some("any"));
    assert_eq!((b.up_delay_ms, b.down_delay_ms), (Some(200), Some(200)));
    assert_eq!(b.fail_over_mac_policy.as_deref(), Some("active"));
    assert_eq!((b.gratuitous_arp, b.packets_per_member), (Some(5), Some(2)));
    assert_eq!(b.primary_reselect_policy.as_deref(), Some("better"));
    assert_eq!(
        (b.resend_igmp, b.learn_packet_interval_ms),
        (Some(3), Some(4000))
    );
    assert_eq!(b.primary.as_deref(), Some("eno1"));
    let br = net.interface("br0").unwrap();
    let Kind::Bridge { members, params: b } = &br.kind else {
        panic!()
    };
    assert_eq!(members, &["bond0"]);
    assert!(br.dhcp4);
    assert_eq!((b.ageing_time_ms, b.priority), (Some(300_000), Some(4096)));
    assert_eq!(
        (b.forward_delay_ms, b.hello_time_ms, b.max_age_ms),
        (Some(15_000), Some(2000), Some(20_000))
    );
    assert_eq!(b.stp, Some(false));
    assert_eq!(b.path_cost["bond0"], 50);
    assert_eq!(b.port_priority["bond0"], 32);
    assert!(
        matches!(&net.interface("br1").unwrap().kind, Kind::Bridge { members, .. } if members.is_empty())
    );
    let v = net.interface("vlan100").unwrap();
    assert_eq!(
        v.kind,
        Kind::Vlan {
            id: 100,
            link: "eno3".into()
        }
    );
    assert_eq!(v.device_name(), Some("vlan100"));
    assert_eq!(
        net.interface("br0.7").unwrap().kind,
        Kind::Vlan {
            id: 7,
            link: "br0".into()
        }
    );
}

#[test]
fn bond_modes_by_number_and_yaml_forms() {
    let p = ok("version: 2\nethernets: {a: {}, b: {}}\nbonds:\n  bond0:\n    interfaces: [a, b]\n    parameters: {mode: 1}\n    dhcp4: \"yes\"\n    mtu: \"1500\"\n");
    let bond = p.model.interface("bond0").unwrap();
    assert!(
        matches!(&bond.kind, Kind::Bond { params, .. } if params.mode.as_deref() == Some("active-backup"))
    );
    assert!(bond.dhcp4);
    assert_eq!(bond.mtu, Some(1500));
}

#[test]
fn unknown_keys_and_unsupported_types_are_warnings() {
    let p = ok(r#"
version: 2
ethernets:
  eth0:
    dhcp4: true
    ipv6-privacy: true
    match: {name: eth0, path: "pci-*"}
    nameservers: {addresses: [10.0.0.2], options: [rotate]}
wifis:
  wlan0: {access-points: {home: {password: x}}}
colour: blue
"#);
    assert_eq!(
        warned(&p.warnings),
        [
            "colour",
            "wifis",
            "ethernets.eth0.match.path",
            "ethernets.eth0.ipv6-privacy",
            "ethernets.eth0.nameservers.options"
        ]
    );
    // The unknown keys stay in the original, which the netplan renderer writes through.
    let orig = p.model.netplan.unwrap();
    assert_eq!(orig["ethernets"]["eth0"]["ipv6-privacy"], true);
    assert!(orig["wifis"].is_object());
    // Warnings never quote values (the wifi password is one).
    assert!(!format!("{:?}", p.warnings).contains("password: x"));
}

#[test]
fn bad_values_name_key_and_line() {
    let d = bad(r#"version: 2
ethernets:
  eth0:
    match: {macaddress: "52:54:00:zz:00:01"}
    addresses:
      - 10.0.0.4/24
      - 10.0.0.5
      - 10.0.0.6/33
      - 10.0.0.300/24
      - "2001:db8::1/129"
    mtu: big
    macaddress: 52-54-00-00-00-01
    gateway4: "2001:db8::1"
    gateway6: 10.0.0.1
    dhcp4: maybe
    nameservers: {addresses: [10.0.0.2, dns.example]}
    link-local: [ipx]
"#);
    let at = |key: &str| error_at(&d, key);
    let e = at("ethernets.eth0.addresses.1");
    assert_eq!(e.line, Some(7));
    assert_eq!(e.file.as_deref(), Some("network-config"));
    assert_eq!(
        e.to_string(),
        "network-config: line 7: ethernets.eth0.addresses.1: has no prefix length"
    );
    assert!(at("ethernets.eth0.addresses.2")
        .message
        .contains("out of range"));
    assert_eq!(at("ethernets.eth0.addresses.2").line, Some(8));
    assert_eq!(
        at("ethernets.eth0.addresses.3").message,
        "not an IP address"
    );
    assert!(at("ethernets.eth0.addresses.4")
        .message
        .contains("0 to 128"));
    assert_eq!(at("ethernets.eth0.mtu").line, Some(11));
    assert_eq!(at("ethernets.eth0.mtu").message, "expected a number");
    assert!(at("ethernets.eth0.macaddress").message.contains("MAC"));
    assert!(at("ethernets.eth0.match.macaddress")
        .message
        .contains("MAC"));
    assert_eq!(at("ethernets.eth0.gateway4").message, "not an IPv4 address");
    assert_eq!(at("ethernets.eth0.gateway6").message, "not an IPv6 address");
    assert_eq!(at("ethernets.eth0.dhcp4").line, Some(15));
    assert_eq!(at("ethernets.eth0.nameservers.addresses.1").line, Some(16));
    at("ethernets.eth0.link-local.0");
    // No message quotes a value.
    for diag in &d {
        for value in ["10.0.0.5", "big", "maybe", "dns.example", "zz", "ipx"] {
            assert!(!diag.message.contains(value), "{diag}");
        }
    }
}

#[test]
fn bad_references_are_errors() {
    let d = bad(r#"version: 2
ethernets:
  eth0: {}
  eth1: {}
bonds:
  bond0:
    interfaces: [eth0, eth7]
    parameters: {primary: eth5}
  bond1:
    interfaces: [eth0, bond1]
  bond2: {parameters: {mode: fastest}}
bridges:
  br0:
    interfaces: [missing]
    parameters: {path-cost: {nothere: 5}}
  br1: {parameters: {port-priority: {eth1: 64}}}
vlans:
  v1: {id: 1, link: nope}
  v2: {id: 4095, link: eth1}
  v3: {link: eth1}
  v4: {id: 4}
  eth1: {id: 5, link: eth0}
"#);
    let at = |key: &str| error_at(&d, key);
    assert_eq!(at("bonds.bond0.interfaces.1").line, Some(7));
    assert!(at("bonds.bond0.interfaces.1")
        .message
        .contains("not defined"));
    at("bonds.bond0.parameters.primary");
    assert!(at("bonds.bond2.parameters.mode")
        .message
        .contains("expected one of"));
    assert!(at("bonds.bond1.interfaces.0")
        .message
        .contains("already a member"));
    assert!(at("bonds.bond1.interfaces.1").message.contains("itself"));
    at("bridges.br0.interfaces.0");
    at("bridges.br0.parameters.path-cost.nothere");
    assert!(at("bridges.br1.parameters.port-priority.eth1")
        .message
        .contains("0 to 63"));
    assert_eq!(at("vlans.v1.link").line, Some(18));
    at("vlans.v2.id");
    assert!(at("vlans.v3.id").message.contains("needs `id`"));
    assert_eq!(at("vlans.v3.id").line, Some(20));
    assert!(at("vlans.v4.link").message.contains("needs `link`"));
    assert!(at("vlans.eth1").message.contains("defined twice"));
}

#[test]
fn netplan_rules_on_routes_and_names() {
    let d = bad(r#"version: 2
ethernets:
  eth0:
    set-name: lan
    routes:
      - via: 10.0.0.1
      - to: 10.1.0.0/16
        via: "fd00::1"
      - to: 10.2.0.0/16
        metric: -1
        scope: galaxy
      - 10.3.0.0/16
    routing-policy:
      - table: 5
"#);
    let at = |key: &str| error_at(&d, key);
    assert!(at("ethernets.eth0.set-name")
        .message
        .contains("needs a match"));
    assert!(at("ethernets.eth0.routes.0.to").message.contains("`to`"));
    assert!(at("ethernets.eth0.routes.1.via").message.contains("family"));
    at("ethernets.eth0.routes.2.metric");
    at("ethernets.eth0.routes.2.scope");
    assert_eq!(at("ethernets.eth0.routes.3").message, "expected a mapping");
    assert!(at("ethernets.eth0.routing-policy.0")
        .message
        .contains("`from` or `to`"));
}

#[test]
fn shapes_and_versions() {
    // Bare and wrapped forms give the same model.
    let bare = ok("version: 2\nethernets: {eth0: {dhcp4: true}}\n").model;
    let wrapped = ok("network:\n  version: 2\n  ethernets: {eth0: {dhcp4: true}}\n").model;
    assert_eq!(bare, wrapped);
    let e = bad("network:\n  ethernets: {}\n");
    assert!(error_at(&e, "network.version").message.contains("missing"));
    let e = bad("version: 3\n");
    assert_eq!(error_at(&e, "version").line, Some(1));
    let e = bad("- version: 2\n");
    assert_eq!(e[0].message, "expected a mapping");
    let e = bad("version: 2\nethernets: [eth0]\n");
    error_at(&e, "ethernets");
    let e = bad("version: 2\nethernets:\n  eth0: [\n");
    assert_eq!(e[0].code, "yaml-syntax");
    // An error inside the wrapper names the full key path and its line.
    let e = bad("network:\n  version: 2\n  ethernets:\n    eth0:\n      mtu: x\n");
    assert_eq!(error_at(&e, "network.ethernets.eth0.mtu").line, Some(5));
}

#[test]
fn the_model_serializes() {
    let p = ok("version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.5/24]\n    routes: [{to: default, via: 10.0.0.1}]\n");
    let v = serde_json::to_value(&p.model).unwrap();
    assert_eq!(v["format"], "v2");
    assert_eq!(v["interfaces"][0]["kind"], json!({"type": "physical"}));
    assert_eq!(
        v["interfaces"][0]["addresses"][0],
        json!({"ip": "10.0.0.5", "prefix": 24})
    );
    assert_eq!(
        v["interfaces"][0]["routes"][0]["to"],
        json!({"ip": "0.0.0.0", "prefix": 0})
    );
}

#[test]
fn bad_parameters_and_overrides() {
    let d = bad(r#"version: 2
ethernets:
  a: {}
  b:
    dhcp4-overrides: {use-domains: sometimes, route-metric: -5}
    addresses:
      - 10.0.0.5/24: {lifetime: 5, colour: red}
      - {10.0.0.6/24: {}, 10.0.0.7/24: {}}
bonds:
  bond0:
    interfaces: a
    parameters: {mii-monitor-interval: soon, lacp-rate: medium, arp-ip-targets: ["fd00::1"]}
bridges:
  br0:
    interfaces: [b]
    parameters: {forward-delay: 5 fortnights, stp: perhaps}
"#);
    let at = |key: &str| error_at(&d, key);
    at("ethernets.b.dhcp4-overrides.use-domains");
    at("ethernets.b.dhcp4-overrides.route-metric");
    assert!(at("ethernets.b.addresses.0.10.0.0.5/24.lifetime")
        .message
        .contains("forever or 0"));
    assert!(at("ethernets.b.addresses.1")
        .message
        .contains("one address"));
    assert_eq!(at("bonds.bond0.interfaces").message, "expected a list");
    assert!(at("bonds.bond0.parameters.mii-monitor-interval")
        .message
        .contains("duration"));
    at("bonds.bond0.parameters.lacp-rate");
    assert_eq!(
        at("bonds.bond0.parameters.arp-ip-targets.0").message,
        "not an IPv4 address"
    );
    at("bridges.br0.parameters.forward-delay");
    at("bridges.br0.parameters.stp");
    assert!(warned(&d).contains(&"ethernets.b.addresses.0.10.0.0.5/24.colour"));
}

/// Expected: a balance-tlb bond's ARP parameters are dropped with a warning naming each key.
#[test]
fn arp_monitoring_is_dropped_on_a_balance_tlb_bond() {
    let p = ok(r#"version: 2
ethernets: {eth0: {}}
bonds:
  bond0:
    interfaces: [eth0]
    parameters: {mode: balance-tlb, arp-interval: 2s, arp-ip-targets: [10.0.0.1], arp-validate: all, mii-monitor-interval: 100}
"#);
    let Kind::Bond { params: b, .. } = &p.model.interface("bond0").unwrap().kind else {
        panic!()
    };
    assert_eq!((b.arp_interval_ms, b.arp_validate.as_deref()), (None, None));
    assert!(b.arp_ip_targets.is_empty());
    assert_eq!(b.mii_monitor_interval_ms, Some(100));
    let keys = warned(&p.warnings);
    for k in ["arp-interval", "arp-ip-targets", "arp-validate"] {
        assert!(
            keys.contains(&format!("bonds.bond0.parameters.{k}").as_str()),
            "{keys:?}"
        );
    }
}

/// Expected: netplan gets the v2 input without the ARP parameters the model dropped.
#[test]
fn dropped_arp_parameters_leave_the_passthrough_too() {
    let p = ok("version: 2
ethernets: {eth0: {}}
bonds:
  bond0: {interfaces: [eth0], parameters: {mode: 802.3ad, arp-interval: 100, lacp-rate: fast}}
");
    let given = &p.model.netplan.as_ref().unwrap()["bonds"]["bond0"]["parameters"];
    assert_eq!(given, &json!({"mode": "802.3ad", "lacp-rate": "fast"}));
}

/// Expected: a vlan without `id`, a device whose `gateway4` is no address and one with a
/// route without `to` are skipped with warnings at their keys, as is a vlan on a skipped
/// device; the rest is kept, and netplan gets the input without the skipped devices. With
/// nothing usable left, the config is refused.
#[test]
fn an_invalid_device_is_skipped_and_left_out_of_the_passthrough() {
    let p = ok("version: 2
ethernets:
  eth0: {dhcp4: true}
  eth1: {addresses: [10.1.0.2/24], gateway4: nowhere}
  eth2: {routes: [{via: 10.2.0.1}]}
vlans:
  vlan5: {link: eth0}
  vlan6: {id: 6, link: eth1}
  vlan7: {id: 7, link: eth0}
");
    let ids: Vec<&str> = p.model.interfaces.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["eth0", "vlan7"]);
    let keys = warned(&p.warnings);
    for k in [
        "ethernets.eth1.gateway4",
        "ethernets.eth1",
        "ethernets.eth2.routes.0.to",
        "vlans.vlan5.id",
        "vlans.vlan5",
        "vlans.vlan6.link",
    ] {
        assert!(keys.contains(&k), "{k}: {keys:?}");
    }
    let v2 = p.model.netplan.as_ref().unwrap();
    assert_eq!(v2["ethernets"], json!({"eth0": {"dhcp4": true}}));
    assert_eq!(v2["vlans"], json!({"vlan7": {"id": 7, "link": "eth0"}}));
    let d = refused("version: 2\nethernets: {eth0: {mtu: huge}}\n");
    assert!(d
        .iter()
        .any(|d| d.is_error() && d.message.contains("no usable")));
}

/// Expected: v2 `ipv6-mtu` is the model's IPv6 MTU, at least IPv6's minimum of 1280.
#[test]
fn ipv6_mtu() {
    let p = ok("version: 2\nethernets: {eth0: {dhcp6: true, ipv6-mtu: 1400}}\n");
    assert_eq!(p.model.interface("eth0").unwrap().ipv6_mtu, Some(1400));
    assert!(p.warnings.is_empty(), "{:#?}", p.warnings);
    let d = bad("version: 2\nethernets: {eth0: {ipv6-mtu: 1000}}\n");
    error_at(&d, "ethernets.eth0.ipv6-mtu");
}

/// netplan's `activation-mode: manual` is v1's `control: manual` (what the renderers write
/// for it, read back); `off` is a warning, another word an error.
#[test]
fn activation_mode() {
    let p = ok("version: 2\nethernets:\n  eth0: {activation-mode: manual}\n  eth1: {activation-mode: \"off\"}\n");
    assert_eq!(
        p.model.interface("eth0").unwrap().control,
        Some(Control::Manual)
    );
    assert_eq!(p.model.interface("eth1").unwrap().control, None);
    assert_eq!(warned(&p.warnings), ["ethernets.eth1.activation-mode"]);
    let d = bad("version: 2\nethernets:\n  eth0: {activation-mode: later}\n");
    error_at(&d, "ethernets.eth0.activation-mode");
}

#[test]
fn an_mtu_of_zero_is_left_out_and_the_device_kept() {
    let p = ok("
version: 2
ethernets:
  eno1: {match: {macaddress: '08:94:ef:51:ae:e0'}, mtu: 0}
  eno2: {mtu: 100}
");
    assert_eq!(warned(&p.warnings), ["ethernets.eno1.mtu"]);
    assert_eq!(p.model.interface("eno1").unwrap().mtu, None);
    assert_eq!(p.model.interface("eno2").unwrap().mtu, Some(100));
    let orig = p.model.netplan.unwrap();
    assert_eq!(orig["ethernets"]["eno1"].get("mtu"), None);
    assert_eq!(orig["ethernets"]["eno2"]["mtu"], json!(100));
}

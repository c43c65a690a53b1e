use super::error_at;
use crate::cmdline::{present, ALL};
use crate::error::Diag;
use crate::model::*;
use crate::{parse, Input, Network};
use ember_core::cmdline::split;
use std::net::IpAddr;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn run(line: &str) -> Result<Network, Vec<Diag>> {
    let params = split(line);
    parse("kernel command line", Input::Cmdline(&params)).map(|p| {
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        p.model
    })
}

#[test]
fn autoconf_on_every_nic() {
    let cases: &[(&str, bool, Option<Ipv6Auto>)] = &[
        ("ip=dhcp", true, None),
        ("ip=on", true, None),
        ("ip=any", true, None),
        ("ip=single-dhcp", true, None),
        ("ip=dhcp6", false, Some(Ipv6Auto::Dhcp6)),
        ("ip=either6", false, Some(Ipv6Auto::Dhcp6)),
        ("ip=auto6", false, Some(Ipv6Auto::Slaac)),
        ("ip=link6", false, None),
    ];
    for (line, dhcp4, ipv6) in cases {
        let net = run(line).unwrap();
        assert_eq!(net.format, Format::Cmdline);
        let iface = net.interface(ALL).unwrap_or_else(|| panic!("{line}"));
        assert_eq!((iface.dhcp4, iface.ipv6), (*dhcp4, *ipv6), "{line}");
        assert!(
            matches!(&iface.kind, Kind::Physical { matching, .. } if matching.name.as_deref() == Some("*"))
        );
        assert_eq!(iface.device_name(), None);
    }
    let ll = run("ip=link6").unwrap().interfaces[0].link_local;
    assert_eq!(
        ll,
        Some(LinkLocal {
            ipv4: false,
            ipv6: true
        })
    );
}

#[test]
fn one_interface_with_mtu_and_mac() {
    let net = run("ro ip=ens3:dhcp:1400:52:54:00:aa:bb:cc ip=ens4:auto6 quiet").unwrap();
    let ens3 = net.interface("ens3").unwrap();
    assert!(ens3.dhcp4);
    assert_eq!(ens3.mtu, Some(1400));
    assert_eq!(ens3.mac_address.as_deref(), Some("52:54:00:aa:bb:cc"));
    assert_eq!(ens3.device_name(), Some("ens3"));
    assert_eq!(net.interface("ens4").unwrap().ipv6, Some(Ipv6Auto::Slaac));
}

#[test]
fn static_forms() {
    let net = run(concat!(
        "ip=192.168.7.20::192.168.7.1:255.255.255.0:node1:ens3:none ",
        "ip=[2001:db8:7::20]::[2001:db8:7::1]:64::ens3:none ",
        "ip=10.1.1.5/16:::::ens4:off:10.1.0.53:10.1.0.54 ",
        "ip=10.2.1.5::10.2.0.1:16::ens5:none:9000:52:54:00:00:00:05 ",
        "ip=10.3.1.5::10.3.0.1:255.255.0.0::ens6:dhcp ",
        "nameserver=192.0.2.53 nameserver=[2001:db8::53] rd.peerdns=0 ",
        "ifname=lan0:52:54:00:00:00:99 ip=lan0:dhcp ",
        "rd.route=10.50.0.0/16:192.168.7.254:ens3 rd.route=[2001:db8:50::/48]:[2001:db8:7::fe] ",
    ))
    .unwrap();
    let ens3 = net.interface("ens3").unwrap();
    let addrs: Vec<_> = ens3.addresses.iter().map(|a| (a.ip, a.prefix)).collect();
    assert_eq!(
        addrs,
        [(ip("192.168.7.20"), 24), (ip("2001:db8:7::20"), 64)]
    );
    assert_eq!(ens3.gateway4, Some("192.168.7.1".parse().unwrap()));
    assert_eq!(ens3.gateway6, Some("2001:db8:7::1".parse().unwrap()));
    assert!(!ens3.dhcp4);
    assert_eq!(ens3.routes[0].to.to_string(), "10.50.0.0/16");
    assert_eq!(ens3.routes[0].via, Some(ip("192.168.7.254")));
    let ens4 = net.interface("ens4").unwrap();
    assert_eq!(
        (ens4.addresses[0].ip, ens4.addresses[0].prefix),
        (ip("10.1.1.5"), 16)
    );
    assert_eq!(ens4.dns.nameservers, [ip("10.1.0.53"), ip("10.1.0.54")]);
    let ens5 = net.interface("ens5").unwrap();
    assert_eq!(ens5.mtu, Some(9000));
    assert_eq!(ens5.mac_address.as_deref(), Some("52:54:00:00:00:05"));
    let ens6 = net.interface("ens6").unwrap();
    assert!(ens6.dhcp4 && !ens6.addresses.is_empty());
    assert_eq!(ens6.dhcp4_overrides.use_dns, Some(false), "rd.peerdns=0");
    let lan0 = net.interface("lan0").unwrap();
    assert!(lan0.dhcp4);
    let Kind::Physical { matching, set_name } = &lan0.kind else {
        panic!()
    };
    assert_eq!(matching.macaddress.as_deref(), Some("52:54:00:00:00:99"));
    assert_eq!(set_name.as_deref(), Some("lan0"));
    assert_eq!(net.dns.nameservers, [ip("192.0.2.53"), ip("2001:db8::53")]);
    assert_eq!(net.routes[0].to.to_string(), "2001:db8:50::/48");
    assert!(present(&split("ro ip=dhcp")));
    // Alone, the forms that only add to an ip= configure no interface (issue 37).
    assert!(!present(&split(
        "nameserver=1.1.1.1 rd.route=10.0.0.0/8:192.0.2.1 ifname=a:52:54:00:00:00:01"
    )));
    assert!(!present(&split("ro quiet network-config=disabled")));
    assert!(run("ro quiet").unwrap().interfaces.is_empty());
}

#[test]
fn bad_parameters_name_the_parameter() {
    let d = run(concat!(
        "ip=dhcp9 ip=ens3:sometimes ip=192.168.7.20::192.168.7.1::::none ",
        "ip=192.168.7.20::gw:24::ens3:none ip=192.168.7.20:::24 ip=ens4:dhcp:big ",
        "ip=ens5:dhcp:1500:nomac ip=10.0.0.5/8:::::ens6:none:10.0.0.1:10.0.0.2:10.0.0.3 ",
        "nameserver=dns.example ifname=lan0 rd.route=10.0.0.0/8 rd.route=10.0.0.0/8:[fd00::1] ",
        "rd.route=10.9.0.0/16:10.0.0.1:ens9 ip=ens7:ibft",
    ))
    .unwrap_err();
    let at = |key: &str| error_at(&d, key);
    assert!(at("ip.0")
        .message
        .contains("unknown autoconfiguration method"));
    assert!(at("ip.1")
        .message
        .contains("unknown autoconfiguration method"));
    assert!(at("ip.2").message.contains("netmask"));
    assert!(at("ip.3").message.contains("gateway"));
    assert!(at("ip.4").message.contains("at least 7"));
    assert!(at("ip.5").message.contains("MTU"));
    assert!(at("ip.6").message.contains("MAC"));
    assert!(at("ip.7").message.contains("two nameserver"));
    at("nameserver.0");
    at("ifname.0");
    at("rd.route.0");
    assert!(at("rd.route.1").message.contains("family"));
    assert!(at("rd.route.2").message.contains("no ip="));
    let ibft = d.iter().find(|d| d.key.as_deref() == Some("ip.8")).unwrap();
    assert!(!ibft.is_error(), "ibft is a warning");
    assert!(d
        .iter()
        .all(|d| d.file.as_deref() == Some("kernel command line")));
    for diag in &d {
        assert!(!diag.message.contains("dns.example") && !diag.message.contains("sometimes"));
    }
}

//! The /proc readers, the decisions on them, and the sysctl plan, on tables as the kernel
//! writes them.

use super::*;

const IF_INET6: &str = "\
fd0000770000000050540000ff120001 05 40 00 00   ec0
fe800000000000005054fffeff120001 05 40 20 80   ec0
fd0000770000000050540000ff120002 05 40 00 40   ec1
00000000000000000000000000000001 01 80 10 80   lo
";

const IPV6_ROUTE: &str = "\
fd000077000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00440001      ec0
fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001      ec0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe8000000000000000000000000000aa 00000400 00000001 00000000 00450003      ec0
";

fn v6(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}

#[test]
fn kernel_tables_parse_and_bad_lines_are_skipped() {
    let addrs = parse_if_inet6(IF_INET6);
    assert_eq!(addrs.len(), 4);
    assert_eq!(addrs[0].addr, v6("fd00:77::5054:0:ff12:1"));
    assert_eq!(
        (addrs[0].index, addrs[0].prefix, addrs[0].scope),
        (5, 64, 0)
    );
    assert_eq!(addrs[1].scope, 0x20);
    let routes = parse_ipv6_route(IPV6_ROUTE);
    assert_eq!(routes.len(), 3);
    assert_eq!(routes[2].gateway, v6("fe80::aa"));
    assert_eq!((routes[2].prefix, routes[2].metric), (0, 1024));
    for bad in [
        "",
        "zz",
        "fd00 05 40 00 00 ec0",
        "fd0000770000000050540000ff12000105 40 00 00 ec0",
        "fd0000770000000050540000ff120001 05 ff 00 00 ec0",
        "fd0000770000000050540000ff120001 05 40 00 123456789 ec0",
        "fd0000770000000050540000ff120001 05 40 00 00",
        "gd0000770000000050540000ff120001 05 40 00 00 ec0",
    ] {
        assert!(parse_if_inet6(bad).is_empty(), "{bad}");
        assert!(parse_ipv6_route(bad).is_empty(), "{bad}");
    }
}

fn state(nic: &str) -> State {
    State {
        addresses: parse_if_inet6(IF_INET6)
            .into_iter()
            .filter(|a| a.nic == nic)
            .collect(),
        routes: parse_ipv6_route(IPV6_ROUTE)
            .into_iter()
            .filter(|r| r.nic == nic)
            .collect(),
    }
}

#[test]
fn done_means_a_settled_global_address_and_a_default_router() {
    let s = state("ec0");
    let found = s.found().unwrap();
    assert_eq!(found.address, v6("fd00:77::5054:0:ff12:1"));
    assert_eq!((found.prefix, found.router), (64, v6("fe80::aa")));
    // Without the default route: not done, and no router seen.
    let mut no_router = s.clone();
    no_router.routes.retain(|r| r.prefix != 0);
    assert_eq!(no_router.found(), None);
    assert!(!no_router.has_router());
    // Only a link-local address, or a global one still tentative: not done either.
    let mut link_only = s.clone();
    link_only.addresses.retain(|a| a.scope != 0);
    assert_eq!(link_only.found(), None);
    assert!(link_only.has_router());
    // …but at the end of the wait a router with the link-local address will do (EC2 gives
    // addresses by DHCPv6 only); without a router it will not.
    let ll = link_only
        .found_link_local()
        .expect("the link-local fallback");
    assert!(ll.address.segments()[0] == 0xfe80, "{ll:?}");
    assert_eq!(no_router.found_link_local(), None);
    let mut tentative = state("ec1");
    tentative.routes = s.routes.clone();
    assert_eq!(tentative.found(), None);
}

#[test]
fn teardown_takes_only_what_appeared_from_advertisements() {
    let now = state("ec0");
    let before = State {
        addresses: now
            .addresses
            .iter()
            .filter(|a| a.scope != 0)
            .cloned()
            .collect(),
        routes: Vec::new(),
    };
    let (addresses, routes) = now.added_since(&before);
    assert_eq!(addresses.len(), 1);
    assert_eq!(addresses[0].addr, v6("fd00:77::5054:0:ff12:1"));
    // The RA prefix route and the default route; not the kernel's fe80::/64.
    let dests: Vec<_> = routes.iter().map(|r| (r.dest, r.prefix)).collect();
    assert_eq!(dests, [(v6("fd00:77::"), 64), (Ipv6Addr::UNSPECIFIED, 0)]);
    // What was there before is someone else's.
    assert_eq!(now.added_since(&now), (Vec::new(), Vec::new()));
}

#[test]
fn sysctls_change_only_where_needed() {
    assert_eq!(wanted("0", "1", "1", "0"), [None, None, None]);
    assert_eq!(
        wanted("1", "0", "0", "0"),
        [Some("0"), Some("1"), Some("1")]
    );
    // A forwarding link takes advertisements only with accept_ra=2.
    assert_eq!(wanted("0", "1", "1", "1"), [None, Some("2"), None]);
    assert_eq!(wanted("0", "2", "1", "1"), [None, None, None]);
    assert_eq!(wanted("0", "2", "1", "0"), [None, None, None]);
}

#[test]
fn sysctls_are_set_and_put_back() {
    let dir = std::env::temp_dir().join(format!("ember-slaac-{}", std::process::id()));
    let conf = dir.join("sys/net/ipv6/conf/ec0");
    std::fs::create_dir_all(&conf).unwrap();
    for (f, v) in [
        ("disable_ipv6", "1"),
        ("accept_ra", "0"),
        ("autoconf", "1"),
        ("forwarding", "0"),
    ] {
        std::fs::write(conf.join(f), format!("{v}\n")).unwrap();
    }
    let read = |f: &str| std::fs::read_to_string(conf.join(f)).unwrap();
    let mut six = Applied6::start(&dir, "ec0").unwrap();
    assert_eq!(
        (read("disable_ipv6"), read("accept_ra")),
        ("0".into(), "1".into())
    );
    assert_eq!(read("autoconf"), "1\n", "untouched");
    assert!(six.restore().is_empty());
    assert_eq!(
        (read("disable_ipv6"), read("accept_ra")),
        ("1".into(), "0".into())
    );
    // No such link (or no IPv6 in the kernel): a clear errno, nothing written.
    assert_eq!(Applied6::start(&dir, "ec9").unwrap_err(), Errno::NOENT);
    std::fs::remove_dir_all(&dir).unwrap();
}

//! Golden tests of the NetworkManager renderer. Each folder under `tests/golden/nm/` is a
//! case: its `network-config.yaml` is parsed with `network::parse` and rendered, and every file
//! the renderer returns must be there at its path (`etc/NetworkManager/…`) with the same
//! content; a missing file, an extra one or another content fails. The renderer's warnings
//! are in `warnings.txt` (absent: none).
//!
//! `EMBER_BLESS=1 cargo test --test network render_nm` rewrites the expected files from what the
//! renderer gives now; review the diff before committing it.
//!
//! The inputs were also converted by Debian's cloud-init 22.4 (`cloud-init devel net-convert
//! -O network-manager`). Differences kept on purpose:
//! - ember's own header comment; `autoconnect-priority=120` and the `conf.d` snippet, which
//!   cloud-init writes from 23.1 on;
//! - `miimon`, `lacp_rate` and the other bond options 22.4 drops; the bridge's times and MAC,
//!   `[bridge-port]` priority and path cost; a vlan's, bond's or bridge's MTU and MAC in
//!   `[ethernet]`; v2's `macaddress` as `cloned-mac-address`;
//! - `[ipv4] method=disabled` when there is IPv6 but no IPv4 (as 23.x), and for an interface
//!   with no addressing `[ipv6] method=ignore` too (22.4 leaves both to NetworkManager, which
//!   then runs DHCP on a bond or vlan parent); link-local methods from v2 `link-local`;
//! - static IPv6 is `method=manual` (22.4 writes auto with may-fail=true), stateful DHCPv6
//!   `method=dhcp` (as 23.x); `may-fail=true` when both families are automatic (as 23.x) or
//!   the interface is optional;
//! - IPv6 routes and resolvers in `[ipv6]` (22.4 puts routes in the section of the subnet
//!   they came with); route metrics and `route<n>_options`; `routing-rule<n>`; routes tied to
//!   no interface go with the interface whose subnet holds their gateway (22.4 drops them);
//! - the global resolvers and search domains go to each addressed interface without its own
//!   (22.4 drops them); v2 nameservers of an interface without static addresses are kept;
//! - DHCP overrides: `ignore-auto-dns`, `ignore-auto-routes`, `route-metric`,
//!   `dhcp-send-hostname`, `dhcp-hostname`;
//! - `interface-name` is the matched name, not the v2 id; a NIC matched by driver or name
//!   pattern gets `[match]` (22.4 writes `interface-name=<id>`).

use crate::golden::case_dirs;

use case_dirs::{golden, model, model_with};
use ember::network::render::{nm, Rendered};

#[test]
fn golden_cases() {
    assert!(golden("nm", nm::render) >= 7);
}

fn rendered(text: &str) -> Rendered {
    nm::render(&model(text))
}

fn profile<'a>(out: &'a Rendered, name: &str) -> &'a str {
    let path = format!("{}/cloud-init-{name}.nmconnection", nm::DIR);
    let f = out.files.iter().find(|f| f.path == path).expect(name);
    &f.content
}

const BOND: &str = r#"version: 2
ethernets:
  eth0: {}
  eth1: {}
bonds:
  bond0:
    interfaces: [eth0, eth1]
    parameters: {mode: active-backup, primary: eth1}
    dhcp4: true
"#;

#[test]
fn profiles_are_private_and_the_same_for_the_same_config() {
    let out = rendered(BOND);
    let files: Vec<(&str, u32)> = out
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.mode))
        .collect();
    let dir = nm::DIR;
    assert_eq!(
        files,
        [
            (
                format!("{dir}/cloud-init-eth0.nmconnection").as_str(),
                0o600
            ),
            (&format!("{dir}/cloud-init-eth1.nmconnection"), 0o600),
            (&format!("{dir}/cloud-init-bond0.nmconnection"), 0o600),
            (nm::CONF, 0o600),
        ]
    );
    assert_eq!(out.files, rendered(BOND).files);
    // Members point at the bond's UUID, the one cloud-init gives a connection named bond0.
    let bond_uuid = "54317911-f840-516b-a10d-82cb4c1f075c";
    assert!(profile(&out, "bond0").contains(&format!("uuid={bond_uuid}\n")));
    for m in ["eth0", "eth1"] {
        let p = profile(&out, m);
        assert!(
            p.contains(&format!("slave-type=bond\nmaster={bond_uuid}\n")),
            "{p}"
        );
        assert!(!p.contains("[ipv4]"), "{p}");
    }
    assert!(profile(&out, "bond0").contains("[bond]\nmode=active-backup\nprimary=eth1\n"));
}

#[test]
fn values_that_would_start_a_line_or_a_list_item_are_left_out() {
    // The parser refuses these names and control characters; the renderer must stand alone.
    let text = r#"version: 2
ethernets:
  eth0:
    dhcp4: true
    dhcp4-overrides: {hostname: "h-HOST"}
    nameservers: {search: ["a.example;b.example", "c.example"]}
  eth9: {dhcp4: true}
"#;
    let swaps = [("-HOST", "\n[ipv6]"), ("eth9", "../../../etc/x")];
    let out = nm::render(&model_with(text, &swaps));
    assert_eq!(out.files.len(), 2, "the profile of ../ is left out");
    let p = profile(&out, "eth0");
    assert!(p.contains("dns-search=c.example;\n"), "{p}");
    assert!(!p.contains("dhcp-hostname") && !p.contains("[ipv6]"), "{p}");
    assert_eq!(out.warnings.len(), 3, "{:#?}", out.warnings);
}

#[test]
fn a_route_tied_to_no_interface_goes_where_its_gateway_is() {
    let out = rendered(
        r#"version: 1
config:
  - {type: physical, name: eth0, subnets: [{type: static, address: 10.8.0.2/24}]}
  - {type: physical, name: eth1, subnets: [{type: dhcp}]}
  - {type: route, destination: 10.9.0.0/16, gateway: 10.8.0.1}
  - {type: route, destination: 10.10.0.0/16, gateway: 172.16.0.1}
"#,
    );
    assert!(profile(&out, "eth0").contains("route1=10.9.0.0/16,10.8.0.1\n"));
    assert!(!profile(&out, "eth1").contains("route1"));
    let w: Vec<String> = out.warnings.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        w,
        ["routes.1: no interface has an address whose subnet holds its gateway; left out"]
    );
}

#[test]
fn an_infiniband_port_is_an_infiniband_profile() {
    let text = "version: 1\nconfig:\n  - type: infiniband\n    name: ib0\n    \
                mac_address: a0:00:02:20:fe:80:00:00:00:00:00:00:ec:0d:9a:03:00:15:e2:c1\n    \
                mtu: 4092\n    subnets: [{type: dhcp}]\n";
    let out = rendered(text);
    let p = profile(&out, "ib0");
    assert!(p.contains("type=infiniband\n"), "{p}");
    assert!(
        p.contains("[infiniband]\ntransport-mode=datagram\nmtu=4092\nmac-address=A0:00:02:"),
        "{p}"
    );
    assert!(!p.contains("[ethernet]"), "{p}");
}

#[test]
fn a_bond_without_subnets_has_both_families_disabled() {
    let text = "version: 2\nethernets: {eth0: {}}\nbonds: {bond0: {interfaces: [eth0]}}\n\
                vlans: {bond0.5: {id: 5, link: bond0, dhcp4: true}}\n";
    let out = rendered(text);
    let p = profile(&out, "bond0");
    assert!(
        p.contains("[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=disabled\n"),
        "{p}"
    );
}

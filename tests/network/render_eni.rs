//! Golden tests of the ENI renderer. Each folder under `tests/golden/eni/` is a case: its
//! `network-config.yaml` is parsed with `network::parse` and rendered, and every file the
//! renderer returns must be there at its path (`etc/network/interfaces.d/50-cloud-init`) with
//! the same content; a missing file, an extra one or another content fails. The renderer's
//! warnings are in `warnings.txt` (absent: none).
//!
//! `EMBER_BLESS=1 cargo test --test network render_eni` rewrites the expected files from what the
//! renderer gives now; review the diff before committing it.
//!
//! The inputs were also converted by Debian's cloud-init 22.4 (`cloud-init devel net-convert
//! -O eni -D debian`). Differences kept on purpose:
//! - ember's own header comment, on the udev rules too (what ember removes must carry it);
//! - no `dns {…}` lines (22.4 writes a Python dict for v2 and per-interface nameservers) and
//!   v2 nameservers are not repeated on `lo`;
//! - a route goes in the stanza that brings up its gateway's subnet (else the first of its
//!   family), not in the first stanza; a route tied to no interface goes with the interface
//!   whose subnet holds its gateway (22.4 puts them after the last stanza);
//! - `accept_ra` goes on the first inet6 stanza and `dhcp 0|1` on every `inet6 auto` stanza
//!   (22.4 writes both only on an interface's first stanza);
//! - `bridge_fd 0`, a bridge's MAC as `hwaddress` (also when v1 gave `bridge_hw`),
//!   `bridge_ports none` for a bridge without ports, v2's `macaddress` of a NIC as
//!   `hwaddress`: 22.4 drops them;
//! - routes are added by iproute2's `ip route` (net-tools' `route` is not in Debian 12), on
//!   their device, with table, on-link, source, scope, MTU and type, which `route` cannot say;
//! - bond options named `bond-*` whichever spelling the input used;
//! - a NIC matched by driver or name pattern only is left out with a warning.

use crate::golden::case_dirs;

use case_dirs::{golden, model, model_with};
use ember::network::render::{eni, Rendered};

#[test]
fn golden_cases() {
    assert!(golden("eni", eni::render) >= 7);
}

fn rendered(text: &str) -> Rendered {
    eni::render(&model(text))
}

/// The comment that opens ember's udev rules (and its ENI file).
const RULES_HEADER: &str = "\
# Written by ember from this instance's network configuration; it is written again for
# every new instance, so change the configuration rather than this file.
";

fn content<'a>(out: &'a Rendered, path: &str) -> &'a str {
    let f = out.files.iter().find(|f| f.path == path).expect(path);
    &f.content
}

fn warned(out: &Rendered) -> Vec<String> {
    out.warnings.iter().map(|d| d.to_string()).collect()
}

#[test]
fn two_files_both_world_readable() {
    let out = rendered("version: 2\nethernets: {eth0: {dhcp4: true}}\n");
    let files: Vec<(&str, u32)> = out
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.mode))
        .collect();
    assert_eq!(files, [(eni::PATH, 0o644), (eni::RULES, 0o644)]);
    assert!(content(&out, eni::PATH).ends_with("auto eth0\niface eth0 inet dhcp\n"));
    assert_eq!(
        content(&out, eni::RULES),
        RULES_HEADER,
        "written without rules, replacing old rules"
    );
}

#[test]
fn nics_are_named_by_id_when_matched_by_mac_and_left_out_otherwise() {
    // The parser refuses a name the kernel would not take; the renderer must too.
    let text = r#"version: 2
ethernets:
  uplink:
    match: {macaddress: "52:54:00:0d:00:01", driver: virtio_net}
    dhcp4: true
  fast:
    match: {driver: mlx5_core}
    dhcp4: true
  a-long:
    dhcp4: true
"#;
    let out = eni::render(&model_with(
        text,
        &[("a-long", "a-name-too-long-for-linux")],
    ));
    let eni = content(&out, eni::PATH);
    assert!(
        eni.contains("auto uplink\niface uplink inet dhcp\n"),
        "{eni}"
    );
    assert!(!eni.contains("fast") && !eni.contains("a-name"), "{eni}");
    assert_eq!(
        content(&out, eni::RULES),
        format!(
            "{RULES_HEADER}SUBSYSTEM==\"net\", ACTION==\"add\", DRIVERS==\"virtio_net\", \
             ATTR{{address}}==\"52:54:00:0d:00:01\", NAME=\"uplink\"\n"
        )
    );
    assert_eq!(
        warned(&out),
        [
            "a-name-too-long-for-linux.name: not a valid interface name; left out",
            "fast.match: matched by driver or name pattern only: ENI needs the device's name; \
             left out"
        ]
    );
}

#[test]
fn values_that_would_start_a_line_are_left_out() {
    // A newline in a value would give ifupdown a command to run as root.
    // The parser refuses control characters anywhere; the renderer must stand without it.
    let text = r#"version: 2
ethernets:
  eth0: {}
  eth1: {}
  eth2: {dhcp4: true}
bonds:
  bond0:
    interfaces: [eth0, eth1]
    parameters: {transmit-hash-policy: "layer2-POLICY"}
    addresses: [10.1.0.2/24]
    nameservers: {search: ["ok.example", "x.example-DOMAIN"]}
"#;
    let swaps = [
        ("eth2", "eth2\npost-up touch /pwned-by-name"),
        ("-POLICY", "\npost-up touch /pwned-by-policy"),
        ("-DOMAIN", "\npre-up touch /pwned-by-domain"),
    ];
    let out = eni::render(&model_with(text, &swaps));
    let eni = content(&out, eni::PATH);
    assert!(!eni.contains("pwned"), "{eni}");
    assert!(eni.contains("    dns-search ok.example\n"), "{eni}");
    assert_eq!(out.warnings.len(), 3, "{:#?}", warned(&out));
}

#[test]
fn bridges_without_ports_and_routes_without_gateways() {
    let out = rendered(
        r#"version: 2
bridges:
  br0:
    addresses: [10.3.0.1/24]
    routes: [{to: 10.4.0.0/16}]
"#,
    );
    let eni = content(&out, eni::PATH);
    assert!(eni.contains("    bridge_ports none\n"), "{eni}");
    assert!(
        eni.contains("    post-up ip route add 10.4.0.0/16 dev br0 || true\n"),
        "{eni}"
    );
}

/// Expected: every route form is an `ip route` (`ip -6 route`) add and its del: defaults,
/// metrics, tables, source, scope, MTU, on-link, a type without next hop (no device), on a
/// bond and on a vlan; a type iproute2 does not know (from a model read back) is left out
/// with a warning. No line uses net-tools' `route`.
#[test]
fn every_route_form_is_an_ip_route_command() {
    let text = r#"version: 2
ethernets:
  eth0: {}
  eth1: {}
bonds:
  bond0:
    interfaces: [eth0]
    addresses: [10.5.0.2/24, "2001:db8:5::2/64"]
    routes:
      - {to: default, via: 10.5.0.1, metric: 100}
      - {to: "::/0", via: "fe80::1", on-link: true, table: 7}
      - {to: 10.6.0.0/16, via: 10.5.0.1, from: 10.5.0.2, scope: global, mtu: 1400}
      - {to: 10.66.0.0/16, type: blackhole}
vlans:
  vlan9:
    id: 9
    link: eth1
    addresses: [10.9.0.2/24]
    routes: [{to: 10.99.0.1/32, via: 10.9.0.1, metric: 5}, {to: 10.98.0.0/16, type: PLACEHOLDER}]
"#;
    let out = eni::render(&model_with(
        &text.replace("PLACEHOLDER", "unreachable"),
        &[],
    ));
    let eni = content(&out, eni::PATH);
    for args in [
        "ip route add default via 10.5.0.1 dev bond0 metric 100",
        "ip -6 route add default via fe80::1 dev bond0 onlink table 7",
        "ip route add 10.6.0.0/16 via 10.5.0.1 dev bond0 src 10.5.0.2 scope global mtu 1400",
        "ip route add blackhole 10.66.0.0/16 ||",
        "ip route add 10.99.0.1/32 via 10.9.0.1 dev vlan9 metric 5",
        "ip route add unreachable 10.98.0.0/16 ||",
    ] {
        assert!(
            eni.contains(&format!("    post-up {args}")),
            "{args}\n{eni}"
        );
        let del = args.replace(" add ", " del ");
        assert!(eni.contains(&format!("    pre-down {del}")), "{del}\n{eni}");
    }
    assert!(
        !eni.contains(" route add -") && !eni.contains("up route "),
        "{eni}"
    );
    assert!(out.warnings.is_empty(), "{:?}", warned(&out));
    let swapped = model_with(
        &text.replace("PLACEHOLDER", "unreachable"),
        &[("unreachable", "bogus; reboot")],
    );
    let out = eni::render(&swapped);
    let eni = content(&out, eni::PATH);
    assert!(
        !eni.contains("10.98.0.0") && !eni.contains("reboot"),
        "{eni}"
    );
    assert_eq!(warned(&out).len(), 1, "{:?}", warned(&out));
}

/// ifupdown takes one `mtu` per stanza, and in an inet6 stanza it is the IPv6 MTU: an
/// IPv6-only interface with both keeps the IPv6 one and says the device's is left out.
#[test]
fn an_inet6_stanza_has_one_mtu() {
    let out = rendered(
        "version: 1\nconfig:\n  - type: physical\n    name: eth0\n    mtu: 9000\n    subnets:\n      - {type: static6, address: \"2001:db8::2/64\", mtu: 1400}\n",
    );
    let eni = content(&out, eni::PATH);
    let mtus: Vec<&str> = eni
        .lines()
        .filter(|l| l.trim().starts_with("mtu "))
        .collect();
    assert_eq!(mtus, ["    mtu 1400"], "{eni}");
    let w = warned(&out);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("eth0.mtu") && w[0].contains("IPv6 MTU"),
        "{w:?}"
    );
}

#[test]
fn a_gateway_goes_with_the_address_whose_subnet_holds_it() {
    // ifup adds the default route right after that stanza's address: on the first stanza,
    // 192.168.1.1 would not be reachable yet.
    let text = "version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      \
                - {type: static, address: 192.168.2.2/24}\n      \
                - {type: static, address: 192.168.1.2/24, gateway: 192.168.1.1}\n";
    let eni = rendered(text).files.remove(0).content;
    let at = |s: &str| eni.find(s).unwrap_or_else(|| panic!("{s}: {eni}"));
    assert!(
        at("gateway 192.168.1.1") > at("address 192.168.1.2/24"),
        "{eni}"
    );
}

#[test]
fn a_manual_subnet_brings_its_interface_up() {
    let text =
        "version: 1\nconfig:\n  - {type: physical, name: eth1, subnets: [{type: manual}]}\n  \
                - {type: physical, name: eth2}\n";
    let eni = rendered(text).files.remove(0).content;
    assert!(eni.contains("auto eth1\niface eth1 inet manual\n"), "{eni}");
    // No subnet at all: brought up by what uses it, as cloud-init writes it.
    assert!(!eni.contains("auto eth2"), "{eni}");
}

#[test]
fn a_static_metric_goes_with_the_gateway_else_on_the_familys_first_stanza() {
    let out = rendered(
        "version: 1
config:
  - type: physical
    name: eth0
    subnets:
      - {type: static, address: 10.0.0.5/24}
      - {type: static, address: 10.1.0.5/24, gateway: 10.1.0.1, metric: 100}
      - {type: static6, address: '2001:db8::5/64', metric: 300}
",
    );
    let eni = content(&out, eni::PATH);
    assert!(
        eni.contains("iface eth0 inet static\n    address 10.0.0.5/24\n\n"),
        "{eni}"
    );
    assert!(
        eni.contains("address 10.1.0.5/24\n    gateway 10.1.0.1\n    metric 100\n"),
        "{eni}"
    );
    assert!(
        eni.contains("address 2001:db8::5/64\n    metric 300\n"),
        "{eni}"
    );
}

#[test]
fn bridge_utils_knobs_are_written_one_line_each() {
    let out = rendered(
        "version: 1
config:
  - {type: physical, name: eth0}
  - type: bridge
    name: br0
    bridge_interfaces: [eth0]
    params: {bridge_gcint: 4, bridge_maxwait: 0, bridge_waitport: [3 eth0, '5']}
",
    );
    let eni = content(&out, eni::PATH);
    for line in [
        "bridge_gcint 4",
        "bridge_maxwait 0",
        "bridge_waitport 3 eth0",
        "bridge_waitport 5",
    ] {
        assert!(eni.contains(&format!("    {line}\n")), "{line}: {eni}");
    }
    assert!(warned(&out).is_empty(), "{:?}", warned(&out));
}

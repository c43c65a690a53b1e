//! The checks every format shares: names the kernel and the file system take, no cycles.

use super::{bad, error_at, ok, shown};

#[test]
fn hostile_ids_and_set_names_are_refused_by_key() {
    let cases = [
        ("ethernets: {'..': {dhcp4: true}}", "network.ethernets..."),
        ("ethernets: {'a/b': {dhcp4: true}}", "network.ethernets.a/b"),
        ("ethernets: {'a b': {dhcp4: true}}", "network.ethernets.a b"),
        (
            "ethernets: {e0: {match: {macaddress: '52:54:00:12:34:56'}, set-name: '../../x'}}",
            "network.ethernets.e0.set-name",
        ),
        (
            "ethernets: {e0: {match: {macaddress: '52:54:00:12:34:56'}, set-name: sixteen-chars-xx}}",
            "network.ethernets.e0.set-name",
        ),
        (
            "ethernets: {e0: {match: {name: \"x\\n[Match]\"}}}",
            "network.ethernets.e0.match.name",
        ),
        ("bonds: {'bond:0': {interfaces: []}}", "network.bonds.bond:0"),
    ];
    for (devices, key) in cases {
        let d = bad(&format!("network:\n  version: 2\n  {devices}\n"));
        error_at(&d, key);
    }
    // A matched NIC's id is only a label: long and with `:` it is fine, as in netplan.
    ok("network:\n  version: 2\n  ethernets:\n    primary:nic-of-the-host:\n      match: {macaddress: '52:54:00:12:34:56'}\n      dhcp4: true\n");
}

#[test]
fn a_line_break_in_any_value_is_refused_where_it_is() {
    let d = bad("version: 2\nethernets:\n  eth0:\n    nameservers:\n      search: [\"a.example\\n[Network]\\nDNS=6.6.6.6\"]\n");
    error_at(&d, "ethernets.eth0.nameservers.search.0");
    let d = bad("version: 1\nconfig:\n  - type: physical\n    name: \"eth0\\nauto evil\"\n");
    assert!(shown(&d).contains("control character"), "{}", shown(&d));
}

#[test]
fn cycles_among_bonds_bridges_and_vlans_are_named() {
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
    let d = bad(v2);
    let msgs = shown(&d);
    assert!(msgs.contains("bond0 -> bond1 -> bond0"), "{msgs}");
    assert!(msgs.contains("br0 -> vlan10 -> br0"), "{msgs}");
    let v1 = "version: 1
config:
  - {type: bond, name: bond0, bond_interfaces: [br0]}
  - {type: bridge, name: br0, bridge_interfaces: [bond0]}
";
    let msgs = shown(&bad(v1));
    assert!(msgs.contains("bond0 -> br0 -> bond0"), "{msgs}");
    // A plain stack is no cycle: a vlan on a bond on two NICs, in a bridge.
    ok("version: 2
ethernets: {eth0: {}, eth1: {}}
bonds: {bond0: {interfaces: [eth0, eth1]}}
vlans: {vlan5: {id: 5, link: bond0}}
bridges: {br0: {interfaces: [vlan5]}}
");
}

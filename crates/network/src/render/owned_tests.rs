use super::*;
use crate::stack::Stack;

#[test]
fn every_file_every_renderer_writes_is_its_own() {
    let yaml = "version: 2
ethernets:
  nic0: {match: {macaddress: \"52:54:00:00:00:01\"}, set-name: nic0, wakeonlan: true}
  nic1: {match: {macaddress: \"52:54:00:00:00:02\"}, set-name: nic1}
bonds:
  bond0: {interfaces: [nic0, nic1], parameters: {mode: active-backup}}
vlans:
  bond0.7: {id: 7, link: bond0, addresses: [10.0.0.2/24]}
bridges:
  br0: {interfaces: [], dhcp4: true}
";
    let net = crate::tests::from_text("network-config", yaml)
        .unwrap()
        .model;
    for stack in [
        Stack::Eni,
        Stack::Netplan,
        Stack::NetworkManager,
        Stack::Networkd,
    ] {
        let files = stack.render(&net).files;
        assert!(!files.is_empty(), "{stack:?}");
        for f in files {
            let header = header_for(&f.path);
            let header = header.unwrap_or_else(|| panic!("{stack:?}: {} is not its own", f.path));
            assert!(f.content.starts_with(header), "{stack:?}: {}", f.path);
        }
    }
}

#[test]
fn only_the_renderers_paths_are_theirs() {
    let theirs = [
        "/etc/systemd/network/10-cloud-init-eth0.network",
        "/etc/systemd/network/10-cloud-init-bond0.7.netdev",
        "/etc/systemd/network/10-cloud-init-eth0.link",
        "/etc/netplan/50-cloud-init.yaml",
        "/etc/network/interfaces.d/50-cloud-init",
        "/etc/udev/rules.d/70-persistent-net.rules",
        "/etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection",
        "/etc/NetworkManager/conf.d/30-cloud-init-ip6-addr-gen-mode.conf",
    ];
    for p in theirs {
        assert!(header_for(p).is_some(), "{p}");
    }
    let not = [
        "",
        "/",
        "/etc",
        "/etc/shadow",
        "/home",
        "etc/netplan/50-cloud-init.yaml",
        "/etc/netplan//50-cloud-init.yaml",
        "/etc/netplan/50-cloud-init.yaml/",
        "/etc/netplan/../netplan/50-cloud-init.yaml",
        "/etc/systemd/network/10-cloud-init-.network",
        "/etc/systemd/network/10-cloud-init-eth0.conf",
        "/etc/systemd/network/99-admin.network",
        "/etc/systemd/network/../../shadow",
        "/etc/systemd/network/sub/10-cloud-init-eth0.network",
        "/etc/systemd/network/10-cloud-init-a\nb.network",
        "/etc/NetworkManager/system-connections/admin.nmconnection",
        "/etc/network/interfaces",
        "/etc/udev/rules.d/99-local.rules",
    ];
    for p in not {
        assert!(header_for(p).is_none(), "{p:?}");
    }
}

#[test]
fn a_mac_is_six_whole_octets() {
    for good in ["52:54:00:aa:bb:01", "52:54:00:AA:BB:01"] {
        assert!(is_mac(good), "{good}");
    }
    for bad in [
        "",
        "52:54:00",
        "52:54:00:aa:bb:0",
        "52:54:00:aa:bb:012",
        "52:54:00:aa:bb:0:1",
        "zz:54:00:aa:bb:01",
        "52-54-00-aa-bb-01",
        "52:54:00:aa:bb:01:",
    ] {
        assert!(!is_mac(bad), "{bad:?}");
    }
}

#[test]
fn udev_rules_go_by_their_whole_address() {
    let rules = "# 52:54:00:aa:bb:01 was eth0\n\
        SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:aa:bb:01\", NAME=\"eth0\"\n\
        SUBSYSTEM==\"net\", ATTR{address} == \"52:54:00:AA:BB:01\", NAME=\"eth0b\"\n\
        SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:aa:bb:010\", NAME=\"eth1\"\n\
        SUBSYSTEM==\"net\", ATTR{address}==\"52:54:00:aa:bb:02\", NAME=\"52:54:00:aa:bb:01\"\n\
        SUBSYSTEM==\"net\", ATTRS{address}==\"52:54:00:aa:bb:01\", NAME=\"eth3\"\n\
        no newline at the end ATTR{address}==\"52:54:00:aa:bb:01\"";
    let kept = drop_udev_rules(rules, &["52:54:00:aa:bb:01"]);
    let want: Vec<&str> = rules
        .lines()
        .filter(|l| {
            l.contains("eth1") || l.starts_with('#') || l.contains("bb:02") || l.contains("ATTRS")
        })
        .collect();
    assert_eq!(kept, format!("{}\n", want.join("\n")));
    assert_eq!(drop_udev_rules(rules, &[]), rules);
}

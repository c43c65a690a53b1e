//! OpenStack's network_data.json (`tests/unittests/sources/helpers/test_openstack.py`,
//! `TestConvertNetJson`: what `convert_net_json` makes of links, networks and services), checked
//! on each renderer's output. The host's interfaces are given as net-convert's `--mac`.

use super::{Row, ROW};

/// `test_phy_types`: a link of each type cloud-init knows as a NIC, named by the host's
/// interface with its MAC, with DHCP and a global resolver.
macro_rules! phy_type {
    ($ty:literal) => {
        Row {
            upstream: concat!(
                "test_openstack.py::TestConvertNetJson::test_phy_types[",
                $ty,
                "]"
            ),
            input: concat!(
                r#"{"links": [{"ethernet_mac_address": "fa:16:3e:9c:bf:3d", "id": "tapcd9f6d46-4a",
                    "mtu": null, "type": ""#,
                $ty,
                r#"", "vif_id": "cd9f6d46-4a3a-43ab-a466-994af9db96fc"}],
                "networks": [{"id": "network0", "link": "tapcd9f6d46-4a",
                    "network_id": "99e88329-f20d-4741-9593-25bf07847b16", "type": "ipv4_dhcp"}],
                "services": [{"address": "8.8.8.8", "type": "dns"}]}"#
            ),
            json: true,
            macs: &["eth0,fa:16:3e:9c:bf:3d"],
            eni: &[
                "auto eth0",
                "iface eth0 inet dhcp",
                "iface lo inet loopback | dns-nameservers 8.8.8.8",
            ],
            netplan: &[
                "ethernets/eth0/dhcp4 = true",
                "ethernets/eth0/match/macaddress = fa:16:3e:9c:bf:3d",
            ],
            networkd: &[
                "eth0.network [Match] MACAddress=fa:16:3e:9c:bf:3d",
                "eth0.network [Network] DHCP=ipv4",
            ],
            nm: &[
                "eth0 [ethernet] mac-address=FA:16:3E:9C:BF:3D",
                "eth0 [ipv4] method=auto",
            ],
            ..ROW
        }
    };
}

/// The bond tests' links: two NICs named by `name`, an 802.3ad bond of them (named `$bond`)
/// and a vlan on it, then `$networks`.
macro_rules! bonded {
    ($bond:literal, $networks:expr, $services:literal) => {
        concat!(
            r#"{"links": [
              {"id": "ens1f0np0", "name": "ens1f0np0", "type": "phy",
               "ethernet_mac_address": "fa:16:3e:00:00:00", "mtu": 9000},
              {"id": "ens1f1np1", "name": "ens1f1np1", "type": "phy",
               "ethernet_mac_address": "fa:16:3e:00:00:01", "mtu": 9000},
              {"id": "bond0", "name": ""#,
            $bond,
            r#"", "type": "bond", "bond_links": ["ens1f0np0", "ens1f1np1"], "mtu": 9000,
               "ethernet_mac_address": "fa:16:3e:00:00:00", "bond_mode": "802.3ad",
               "bond_xmit_hash_policy": "layer3+4", "bond_miimon": 100},
              {"id": "bond0.123", "name": "bond0.123", "type": "vlan", "vlan_link": "bond0",
               "vlan_id": 123, "vlan_mac_address": "fa:16:3e:00:00:00"}],
             "networks": "#,
            $networks,
            r#", "services": "#,
            $services,
            "}"
        )
    };
}

/// The bond tests' one IPv4 network on the vlan, default route via .1.
macro_rules! public_v4 {
    () => {
        r#"{"id": "publicnet-ipv4", "type": "ipv4", "link": "bond0.123",
            "ip_address": "198.51.100.5", "netmask": "255.255.255.0",
            "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "198.51.100.1"}],
            "network_id": "00000000-0000-0000-0000-000000000000"}"#
    };
}

const HOST: &[&str] = &["ens1f0np0,fa:16:3e:00:00:00", "ens1f1np1,fa:16:3e:00:00:01"];

pub const ROWS: &[Row] = &[
    phy_type!("bridge"),
    phy_type!("ethernet"),
    phy_type!("hw_veb"),
    phy_type!("hyperv"),
    phy_type!("ovs"),
    phy_type!("phy"),
    phy_type!("tap"),
    phy_type!("vhostuser"),
    phy_type!("vif"),
    Row {
        upstream: "test_openstack.py::TestConvertNetJson::test_subnet_dns",
        input: r#"{"links": [{"ethernet_mac_address": "fa:16:3e:9c:bf:3d", "id": "tapcd9f6d46-4a",
            "mtu": null, "type": "phy"}],
          "networks": [{"id": "network0", "link": "tapcd9f6d46-4a", "type": "ipv4",
            "network_id": "99e88329-f20d-4741-9593-25bf07847b16",
            "ip_address": "192.168.123.5", "netmask": "255.255.255.0",
            "services": [{"type": "dns", "address": "192.168.123.1"}]}]}"#,
        json: true,
        macs: &["eth0,fa:16:3e:9c:bf:3d"],
        eni: &["iface eth0 inet static | address 192.168.123.5/24 \
                && dns-nameservers 192.168.123.1"],
        netplan: &[
            "ethernets/eth0/addresses = [192.168.123.5/24]",
            "ethernets/eth0/nameservers/addresses = [192.168.123.1]",
        ],
        networkd: &["eth0.network [Network] DNS=192.168.123.1"],
        nm: &["eth0 [ipv4] method=manual && address1=192.168.123.5/24 && dns=192.168.123.1;"],
        ..ROW
    },
    Row {
        upstream: "test_openstack.py::TestConvertNetJson::test_bond_mac",
        input: bonded!(
            "bond0",
            concat!("[", public_v4!(), "]"),
            r#"[{"type": "dns", "address": "1.1.1.1"}]"#
        ),
        json: true,
        macs: HOST,
        eni: &[
            "iface ens1f0np0 inet manual | bond-master bond0 && mtu 9000",
            "iface bond0 inet manual | bond-mode 802.3ad && bond-miimon 100 \
             && bond-xmit-hash-policy layer3+4 && hwaddress fa:16:3e:00:00:00 && mtu 9000",
            "iface bond0.123 inet static | address 198.51.100.5/24 && vlan-raw-device bond0 \
             && vlan_id 123 && hwaddress fa:16:3e:00:00:00",
            "iface bond0.123 | post-up ip route add default via 198.51.100.1 dev bond0.123 || true",
        ],
        netplan: &[
            "bonds/bond0/interfaces = [ens1f0np0, ens1f1np1]",
            "bonds/bond0/macaddress = fa:16:3e:00:00:00",
            "bonds/bond0/mtu = 9000",
            "bonds/bond0/parameters = {mode: 802.3ad, mii-monitor-interval: 100, \
             transmit-hash-policy: layer3+4}",
            "vlans/bond0.123 = {id: 123, link: bond0, macaddress: fa:16:3e:00:00:00, \
             addresses: [198.51.100.5/24]}",
            "vlans/bond0.123/nameservers/addresses = [1.1.1.1]",
        ],
        networkd: &[
            "bond0.netdev [NetDev] MACAddress=fa:16:3e:00:00:00",
            "bond0.netdev [Bond] Mode=802.3ad",
            "bond0.123.netdev [VLAN] Id=123",
            "bond0.123.network [Address] Address=198.51.100.5/24",
        ],
        nm: &[
            "bond0 [bond] mode=802.3ad && miimon=100 && xmit_hash_policy=layer3+4",
            "bond0.123 [vlan] id=123",
            "bond0.123 [ipv4] method=manual && address1=198.51.100.5/24 \
             && route1=0.0.0.0/0,198.51.100.1 && dns=1.1.1.1;",
        ],
        ..ROW
    },
    Row {
        upstream: "test_openstack.py::TestConvertNetJson::test_bond_name",
        input: bonded!(
            "bond-wan",
            concat!("[", public_v4!(), "]"),
            r#"[{"type": "dns", "address": "1.1.1.1"}]"#
        ),
        json: true,
        macs: HOST,
        eni: &[
            "auto bond-wan",
            "iface ens1f0np0 inet manual | bond-master bond-wan",
            "iface bond-wan.123 inet static | vlan-raw-device bond-wan && vlan_id 123",
        ],
        netplan: &[
            "bonds/bond-wan/interfaces = [ens1f0np0, ens1f1np1]",
            "vlans/bond-wan.123/link = bond-wan",
        ],
        networkd: &[
            "bond-wan.netdev [NetDev] Name=bond-wan",
            "bond-wan.network [Network] VLAN=bond-wan.123",
        ],
        nm: &[
            "bond-wan [connection] type=bond",
            "bond-wan.123 [connection] type=vlan",
        ],
        ..ROW
    },
    Row {
        upstream: "test_openstack.py::TestConvertNetJson::test_bond_ipv6_accept_ra_false",
        input: bonded!(
            "bond0",
            concat!(
                "[",
                public_v4!(),
                r#", {"id": "publicnet-ipv6", "type": "ipv6", "link": "bond0.123",
                "ip_address": "2001:db8::5/56", "gateway": "fe80::1", "routes": [],
                "network_id": "00000000-0000-0000-0000-000000000001"}]"#
            ),
            r#"[{"type": "dns", "address": "1.1.1.1"}]"#
        ),
        json: true,
        macs: HOST,
        eni: &[
            "iface bond0.123 inet6 static | address 2001:db8::5/56 && gateway fe80::1 \
                && accept_ra 0",
        ],
        netplan: &[
            "vlans/bond0.123/accept-ra = false",
            "vlans/bond0.123/addresses = [198.51.100.5/24, 2001:db8::5/56]",
            "vlans/bond0.123/routes = {to: default, via: 'fe80::1'}",
        ],
        networkd: &[
            "bond0.123.network [Network] IPv6AcceptRA=no",
            "bond0.123.network [Route] Gateway=fe80::1",
        ],
        nm: &["bond0.123 [ipv6] method=manual && address1=2001:db8::5/56 && gateway=fe80::1"],
        ..ROW
    },
    Row {
        upstream: "test_openstack.py::TestConvertNetJson::test_dns_servers",
        input: bonded!(
            "bond0",
            r#"[{"id": "publicnet-ipv4", "type": "ipv4", "link": "bond0.123",
                "ip_address": "198.51.100.5", "netmask": "255.255.255.0",
                "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "198.51.100.1",
                  "services": [{"type": "dns", "address": "1.1.1.1"},
                               {"type": "dns", "address": "8.8.8.8"}]}],
                "network_id": "00000000-0000-0000-0000-000000000000"}]"#,
            "[]"
        ),
        json: true,
        macs: HOST,
        eni: &["iface bond0.123 inet static | dns-nameservers 1.1.1.1 8.8.8.8"],
        netplan: &["vlans/bond0.123/nameservers/addresses = [1.1.1.1, 8.8.8.8]"],
        networkd: &["bond0.123.network [Network] DNS=1.1.1.1 && DNS=8.8.8.8"],
        nm: &["bond0.123 [ipv4] dns=1.1.1.1;8.8.8.8; && route1=0.0.0.0/0,198.51.100.1"],
        ..ROW
    },
    Row {
        // cloud-init walks the networks of each link: one on an undefined link is never read.
        upstream: "openstack.py::convert_net_json network on an undefined link",
        input: r#"{"links": [{"ethernet_mac_address": "fa:16:3e:9c:bf:3d", "id": "tap0",
            "type": "phy"}],
          "networks": [{"id": "network0", "link": "tap0", "type": "ipv4_dhcp"},
                       {"id": "network1", "link": "tap9", "type": "ipv4",
                        "ip_address": "192.0.2.5", "netmask": "255.255.255.0"}]}"#,
        json: true,
        macs: &["eth0,fa:16:3e:9c:bf:3d"],
        eni: &["iface eth0 inet dhcp", "!iface eth0 inet static"],
        netplan: &["ethernets/eth0/dhcp4 = true", "!ethernets/eth0/addresses"],
        networkd: &["eth0.network [Network] DHCP=ipv4"],
        nm: &["eth0 [ipv4] method=auto && !address1=192.0.2.5/24"],
        warns: &["network `network1` names link `tap9`, which is not defined"],
        ..ROW
    },
];

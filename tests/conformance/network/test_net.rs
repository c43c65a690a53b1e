//! `tests/unittests/test_net.py`'s renderer tests that are not NETWORK_CONFIGS examples
//! (those are in `configs.rs`): ENI routes, DHCP route metrics, and OpenStack networks with
//! a bad netmask.

use super::{Row, ROW};

/// `test_invalid_network_mask_*`: a network whose route has a netmask that is not one, and
/// (added here) a second network with DHCP on the same link, which is kept.
macro_rules! bad_mask {
    ($family:literal, $network:literal, $facts:expr) => {
        Row {
            upstream: concat!(
                "test_net.py::TestRhelSysConfigRendering::test_invalid_network_mask_",
                $family
            ),
            input: concat!(
                r#"{"services": [{"type": "dns", "address": "172.19.0.12"}],
                  "networks": ["#,
                $network,
                r#", {"id": "network0", "type": "ipv4_dhcp", "link": "tap1a81968a-79"}],
                  "links": [{"ethernet_mac_address": "fa:16:3e:ed:9a:59", "mtu": null,
                    "type": "bridge", "id": "tap1a81968a-79",
                    "vif_id": "1a81968a-797a-400f-8a80-567f997eb93f"}]}"#
            ),
            json: true,
            macs: &["eth0,fa:16:3e:ed:9a:59"],
            networkd: $facts,
            warns: &["networks.0: this network is skipped for the problem above"],
            // cloud-init refuses the whole config (ValueError).
            differs: Some("bad address or netmask fails its whole network config at boot"),
            ..ROW
        }
    };
}

/// `TestNetplanNetRendering::test_render[*_gateway46]`: a device of each type with two static
/// IPv4 subnets, each with its gateway. cloud-init writes two default routes, which netplan
/// refuses as conflicting; ember keeps the first gateway. The members are declared here, as
/// ember wants them.
macro_rules! two_gateways {
    ($case:literal, $device:literal, $path:literal) => {
        Row {
            upstream: concat!(
                "test_net.py::TestNetplanNetRendering::test_render[",
                $case,
                "_gateway46]"
            ),
            input: concat!(
                "
                version: 1
                config:
                  - {type: physical, name: eth0}
                  - {type: physical, name: eth1}
                  - {",
                $device,
                ", subnets: [{type: static, address: 192.168.23.14/27, gateway: 192.168.23.1},
                               {type: static, address: 11.0.0.11/24, gateway: 11.0.0.1}]}
                "
            ),
            netplan: &[
                concat!($path, "/addresses = [192.168.23.14/27, 11.0.0.11/24]"),
                concat!($path, "/routes = {to: default, via: 192.168.23.1}"),
                concat!("!", $path, "/routes = {via: 11.0.0.1}"),
                concat!("!", $path, "/gateway4"),
            ],
            warns: &["a second default gateway on one interface, ignored"],
            differs: Some("a second default gateway of a family on one interface is ignored"),
            ..ROW
        }
    };
}

pub const ROWS: &[Row] = &[
    Row {
        upstream: "test_net.py::TestEniRoundTrip::test_ipv6_static_routes_ip_cmd",
        input: r#"
            version: 1
            config:
              - name: eno3
                type: physical
                subnets:
                  - address: fd00::12/64
                    dns_nameservers: [fd00:2::15]
                    gateway: fd00::1
                    ipv6: true
                    type: static
                    routes:
                      - {netmask: "32", network: "fd00:12::", gateway: "fd00::2"}
                      - {network: "fd00:14::", gateway: "fd00::3"}
                      - {destination: "fe00:14::/48", gateway: "fe00::4", metric: 500}
                      - {gateway: 192.168.23.1, metric: 999, netmask: 24,
                         network: 192.168.23.0}
                      - {destination: 10.23.23.0/24, gateway: 10.23.23.2, metric: 300}
        "#,
        eni: &[
            "auto eno3",
            "iface eno3 inet6 static | address fd00::12/64 && dns-nameservers fd00:2::15 \
             && gateway fd00::1 \
             && post-up ip -6 route add fd00:12::/32 via fd00::2 dev eno3 || true \
             && post-up ip -6 route add fd00:14::/64 via fd00::3 dev eno3 || true \
             && post-up ip -6 route add fe00:14::/48 via fe00::4 dev eno3 metric 500 || true \
             && post-up ip route add 192.168.23.0/24 via 192.168.23.1 dev eno3 metric 999 || true \
             && post-up ip route add 10.23.23.0/24 via 10.23.23.2 dev eno3 metric 300 || true",
        ],
        networkd: &[
            "eno3.network [Route] Destination=fd00:12::/32 && Gateway=fd00::2",
            "eno3.network [Route] Destination=10.23.23.0/24 && Gateway=10.23.23.2 && Metric=300",
        ],
        warns: &["no prefix length or netmask: /64 assumed, as cloud-init does"],
        ..ROW
    },
    Row {
        upstream: "test_net.py::TestEniNetRendering::test_v2_route_metric_to_eni[dhcp4]",
        input: "
            version: 2
            ethernets:
              eth0: {dhcp4: true, dhcp4-overrides: {route-metric: 100}}
        ",
        eni: &["auto eth0", "iface eth0 inet dhcp | metric 100"],
        ..ROW
    },
    Row {
        upstream: "test_net.py::TestEniNetRendering::test_v2_route_metric_to_eni[dhcp6]",
        input: "
            version: 2
            ethernets:
              eth0: {dhcp6: true, dhcp6-overrides: {route-metric: 100}}
        ",
        eni: &["auto eth0", "iface eth0 inet6 dhcp | metric 100"],
        ..ROW
    },
    Row {
        upstream: "test_net.py::TestNetplanNetRendering::test_render[subnet_metric_in_dhcp]",
        input: "
            version: 1
            config:
              - type: physical
                name: eth0
                mac_address: '00:11:22:33:44:55'
                subnets: [{type: dhcp4, metric: 100}, {type: dhcp6, metric: 200}]
        ",
        netplan: &[
            "ethernets/eth0/dhcp4 = true",
            "ethernets/eth0/dhcp4-overrides/route-metric = 100",
            "ethernets/eth0/dhcp6 = true",
            "ethernets/eth0/dhcp6-overrides/route-metric = 200",
            "ethernets/eth0/match/macaddress = '00:11:22:33:44:55'",
            "ethernets/eth0/set-name = eth0",
        ],
        nm: &[
            "eth0 [ipv4] route-metric=100",
            "eth0 [ipv6] route-metric=200",
        ],
        ..ROW
    },
    Row {
        upstream: "test_net.py::TestNetplanNetRendering::test_render[gateway_with_metric]",
        input: "
            version: 1
            config:
              - type: physical
                name: eth0
                mac_address: '00:11:22:33:44:55'
                subnets:
                  - {type: static, address: 192.168.1.10/24, gateway: 192.168.1.1, metric: 100}
        ",
        netplan: &[
            "ethernets/eth0/addresses = [192.168.1.10/24]",
            "ethernets/eth0/routes = {to: default, via: 192.168.1.1, metric: 100}",
            "!ethernets/eth0/gateway4",
        ],
        // The same subnet in the other renderers: cloud-init's ENI and NetworkManager
        // renderers carry the metric as the upstream code does; its networkd drops it.
        eni: &[
            "iface eth0 inet static | address 192.168.1.10/24 && gateway 192.168.1.1 \
                && metric 100",
        ],
        nm: &["eth0 [ipv4] gateway=192.168.1.1 && route-metric=100"],
        networkd: &["eth0.network [Route] Gateway=192.168.1.1 && Metric=100"],
        differs: Some("a v1 static subnet's `metric` is its gateway route's in networkd too"),
        ..ROW
    },
    Row {
        upstream: "test_net.py::TestNetplanNetRendering::test_render[static_routes_with_metrics]",
        input: "
            version: 1
            config:
              - type: physical
                name: eth0
                mac_address: '00:11:22:33:44:55'
                subnets:
                  - type: static
                    address: 192.168.1.10/24
                    routes:
                      - {destination: 10.0.0.0/8, gateway: 192.168.1.254, metric: 100}
                      - {destination: 172.16.0.0/12, gateway: 192.168.1.254, metric: 200}
        ",
        netplan: &[
            "ethernets/eth0/addresses = [192.168.1.10/24]",
            "ethernets/eth0/routes = [{to: 10.0.0.0/8, via: 192.168.1.254, metric: 100}, \
             {to: 172.16.0.0/12, via: 192.168.1.254, metric: 200}]",
        ],
        ..ROW
    },
    two_gateways!(
        "physical",
        "type: physical, name: interface0, mac_address: '00:11:22:33:44:55'",
        "ethernets/interface0"
    ),
    two_gateways!(
        "bond",
        "type: bond, name: bond0, bond_interfaces: [eth0, eth1], params: {}",
        "bonds/bond0"
    ),
    two_gateways!(
        "bridge",
        "type: bridge, name: bridge0, bridge_interfaces: [eth0], params: {}",
        "bridges/bridge0"
    ),
    two_gateways!(
        "vlan",
        "type: vlan, name: vlan0, vlan_link: eth0, vlan_id: 101",
        "vlans/vlan0"
    ),
    bad_mask!(
        "ipv6",
        r#"{"network_id": "public-ipv6", "type": "ipv6", "netmask": "", "link": "tap1a81968a-79",
            "routes": [{"gateway": "2001:DB8::1", "netmask": "ff:ff:ff:ff::",
                        "network": "2001:DB8:1::1"}],
            "ip_address": "2001:DB8::10", "id": "network1"}"#,
        &[
            "eth0.network [Network] DHCP=ipv4",
            "eth0.network ![Address]",
            "eth0.network ![Route]"
        ]
    ),
    bad_mask!(
        "ipv4",
        r#"{"network_id": "public-ipv4", "type": "ipv4", "netmask": "", "link": "tap1a81968a-79",
            "routes": [{"gateway": "172.20.0.1", "netmask": "255.234.255.0",
                        "network": "172.19.0.0"}],
            "ip_address": "172.20.0.10", "id": "network1"}"#,
        &[
            "eth0.network [Network] DHCP=ipv4",
            "eth0.network ![Address]",
            "eth0.network ![Route]"
        ]
    ),
];

//! The netplan renderer's own tests, `tests/unittests/net/test_netplan.py`, and the netplan
//! cases of `tests/unittests/distros/test_netconfig.py` (a v1 or v2 config applied on a
//! distro that renders netplan, the YAML compared whole). The tests of netplan's Python API
//! and of calls into `netplan generate` have nothing ember writes to judge: their rows say why.

use super::{Row, ROW};

/// `test_netconfig.py`'s V1_NET_CFG: a static IPv4 address with its gateway, and DHCP.
const V1_STATIC_AND_DHCP: &str = "
    version: 1
    config:
      - name: eth0
        type: physical
        subnets:
          - {address: 192.168.1.5, broadcast: 192.168.1.0, gateway: 192.168.1.254,
             netmask: 255.255.255.0, type: static}
      - name: eth1
        type: physical
        subnets: [{control: auto, type: dhcp4}]
";

/// What netplan gets from V1_NET_CFG: the gateway as a default route, never `gateway4`.
const V1_STATIC_AND_DHCP_FACTS: &[&str] = &[
    "ethernets/eth0/addresses = [192.168.1.5/24]",
    "ethernets/eth0/routes = [{to: default, via: 192.168.1.254}]",
    "!ethernets/eth0/gateway4",
    "ethernets/eth1/dhcp4 = true",
    "!ethernets/eth1/dhcp6",
];

/// `test_netplan.py`'s SIMPLE_V2_CFG_MTU: one device with `mtu: 0`, one with a valid MTU.
const V2_MTU_ZERO: &str = "
    version: 2
    ethernets:
      eno1: {match: {macaddress: '08:94:ef:51:ae:e0'}, mtu: 0}
      eno2: {match: {macaddress: '08:94:ef:51:ae:e1'}, mtu: 100}
";

/// The MTU of 0 left out, the device kept with its match.
const V2_MTU_ZERO_FACTS: &[&str] = &[
    "ethernets/eno1/match/macaddress = '08:94:ef:51:ae:e0'",
    "!ethernets/eno1/mtu",
    "ethernets/eno2/match/macaddress = '08:94:ef:51:ae:e1'",
    "ethernets/eno2/mtu = 100",
];

/// `test_skip_netplan_generate[...]`: whether cloud-init runs `netplan generate` after
/// writing, by what the file held before.
macro_rules! generate {
    ($case:literal) => {
        Row {
            upstream: concat!(
                "test_netplan.py::TestNetplanRenderer::test_skip_netplan_generate[",
                $case,
                "]"
            ),
            unchecked: Some(
                "ember writes netplan's YAML from the initramfs, before netplan's own systemd \
                 generator reads it at boot: it runs no `netplan generate` (only `netplan \
                 apply` after a hotplug), so there is no call to make or skip",
            ),
            ..ROW
        }
    };
}

/// `test_netconfig.py`'s tests of the netplan file's mode under the
/// NETPLAN_CONFIG_ROOT_READ_ONLY feature turned off.
macro_rules! mode {
    ($test:literal) => {
        Row {
            upstream: concat!("test_netconfig.py::TestNetCfgDistroUbuntuNetplan::", $test),
            unchecked: Some(
                "the file's mode with cloud-init's NETPLAN_CONFIG_ROOT_READ_ONLY feature off; \
                 ember has no such switch and writes 0600 as that feature's default does \
                 (tests/network checks the mode)",
            ),
            ..ROW
        }
    };
}

pub const ROWS: &[Row] = &[
    generate!(""),
    generate!("{'orig_cfg': true}"),
    generate!("{'new_cfg': true}"),
    Row {
        upstream: "test_netplan.py::TestNetplanAPIWriteYAMLFile::test_no_netplan_python_api",
        unchecked: Some(
            "ember writes the YAML itself: there is no netplan Python module to try first \
             and fall back from",
        ),
        ..ROW
    },
    Row {
        upstream: "test_netplan.py::TestMaybeStripInvalidMTU::test__strip_invalid_mtu[valid_mtu_unchanged]",
        input: V2_MTU_ZERO,
        netplan: V2_MTU_ZERO_FACTS,
        networkd: &["eno1.network ![Link]", "eno2.network [Link] MTUBytes=100"],
        warns: &["ethernets.eno1.mtu: 0 is no MTU"],
        // cloud-init's default writes `mtu: 0` on, which netplan then refuses.
        differs: Some("`mtu: 0` in a v2 config is left out with a warning"),
        ..ROW
    },
    Row {
        upstream: "test_netplan.py::TestMaybeStripInvalidMTU::test__strip_invalid_mtu[invalid_mtu_redatcted]",
        input: V2_MTU_ZERO,
        netplan: V2_MTU_ZERO_FACTS,
        warns: &["ethernets.eno1.mtu: 0 is no MTU"],
        ..ROW
    },
    Row {
        upstream: "test_netconfig.py::TestNetCfgDistroUbuntuNetplan::test_apply_network_config_v1_to_netplan_ub",
        input: V1_STATIC_AND_DHCP,
        netplan: V1_STATIC_AND_DHCP_FACTS,
        ..ROW
    },
    Row {
        upstream: "test_netconfig.py::TestNetCfgDistroUbuntuNetplan::test_apply_network_config_v1_ipv6_to_netplan_ub",
        input: "
            version: 1
            config:
              - name: eth0
                type: physical
                subnets:
                  - {address: '2607:f0d0:1002:0011::2', gateway: '2607:f0d0:1002:0011::1',
                     netmask: '64', type: static6}
              - name: eth1
                type: physical
                subnets: [{control: auto, type: dhcp4}]
        ",
        // ember writes the addresses in their short form (`:11:`, not `:0011:`).
        netplan: &[
            "ethernets/eth0/addresses = ['2607:f0d0:1002:11::2/64']",
            "ethernets/eth0/routes = [{to: default, via: '2607:f0d0:1002:11::1'}]",
            "!ethernets/eth0/gateway6",
            "ethernets/eth1/dhcp4 = true",
        ],
        ..ROW
    },
    Row {
        upstream: "test_netconfig.py::TestNetCfgDistroUbuntuNetplan::test_apply_network_config_v2_passthrough_ub",
        input: "
            version: 2
            ethernets:
              eth7: {addresses: [192.168.1.5/24], gateway4: 192.168.1.254}
              eth9: {dhcp4: true}
        ",
        // A v2 config keeps its own spelling: `gateway4` stays as given.
        netplan: &[
            "ethernets/eth7/addresses = [192.168.1.5/24]",
            "ethernets/eth7/gateway4 = 192.168.1.254",
            "ethernets/eth9/dhcp4 = true",
        ],
        ..ROW
    },
    mode!("test_apply_network_config_v2_passthrough_retain_orig_perms"),
    mode!("test_apply_network_config_v2_passthrough_ub_old_behavior"),
    Row {
        upstream: "test_netconfig.py::TestNetCfgDistroUbuntuNetplan::test_apply_network_config_v2_full_passthrough_ub",
        input: "
            version: 2
            ethernets:
              eth7:
                addresses: [192.168.1.5/24]
                gateway4: 192.168.1.254
                routes: [{to: default, via: 10.0.4.1, metric: 100}]
        ",
        netplan: &[
            "ethernets/eth7/addresses = [192.168.1.5/24]",
            "ethernets/eth7/gateway4 = 192.168.1.254",
            "ethernets/eth7/routes = [{to: default, via: 10.0.4.1, metric: 100}]",
        ],
        ..ROW
    },
    Row {
        upstream: "test_netconfig.py::TestNetCfgDistroArch::test_apply_network_config_v1_with_netplan",
        input: V1_STATIC_AND_DHCP,
        netplan: V1_STATIC_AND_DHCP_FACTS,
        ..ROW
    },
];

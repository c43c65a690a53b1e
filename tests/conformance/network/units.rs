//! The renderers' own unit tests: `tests/unittests/net/test_networkd.py`,
//! `test_network_manager.py` and `test_network_state.py`. networkd booleans are written
//! `yes`/`no` where cloud-init writes `True`/`False`: the same setting to systemd.

use super::{Row, ROW};

/// `test_networkd_render_dhcp_overrides[...]`: one `dhcpN-overrides` key, its networkd line.
macro_rules! dhcp_override {
    ($v:literal, $key:literal, $value:literal, $line:literal) => {
        Row {
            upstream: concat!(
                "test_networkd.py::TestNetworkdRenderState::test_networkd_render_dhcp_overrides[",
                $v,
                "-",
                $key,
                "-",
                $value,
                "]"
            ),
            input: concat!(
                "
                version: 2
                ethernets:
                  eth0:
                    dhcp",
                $v,
                ": true
                    dhcp",
                $v,
                "-overrides: {",
                $key,
                ": ",
                $value,
                "}
                    match: {macaddress: '00:11:22:33:44:55'}
                    nameservers: {addresses: ['8.8.8.8', '2001:4860:4860::8888']}
                "
            ),
            networkd: &[
                concat!("eth0.network [DHCPv", $v, "] ", $line),
                concat!("eth0.network [Network] DHCP=ipv", $v),
                "eth0.network [Network] DNS=8.8.8.8 && DNS=2001:4860:4860::8888",
                "eth0.network [Match] MACAddress=00:11:22:33:44:55",
            ],
            netplan: &[concat!(
                "ethernets/eth0/dhcp",
                $v,
                "-overrides/",
                $key,
                " = ",
                $value
            )],
            ..ROW
        }
    };
}

/// `test_networkd_render_accept_ra[...]`: DHCP or a static address, and `accept-ra`.
macro_rules! accept_ra {
    ($name:literal, $input:literal, $line:literal) => {
        Row {
            upstream: concat!(
                "test_networkd.py::TestNetworkdRenderState::test_networkd_render_accept_ra[",
                $name,
                "]"
            ),
            input: $input,
            networkd: &[concat!("eth0.network [Network] ", $line)],
            ..ROW
        }
    };
}

/// test_network_manager.py's bond tests: two NICs in a bond without subnets (its IP methods
/// disabled), the bond's options (`$params`, v1 `params`) as the keyfile's `[bond]`.
macro_rules! nm_bond {
    ($test:literal, $params:literal, $bond:expr) => {
        Row {
            upstream: concat!(
                "test_network_manager.py::TestNetworkManagerRenderNetworkState::",
                $test
            ),
            input: concat!(
                "
                version: 1
                config:
                  - {mac_address: 'fa:16:3e:00:00:00', mtu: 9000, name: ens1f0np0, subnets: [],
                     type: physical}
                  - {mac_address: 'fa:16:3e:00:00:01', mtu: 9000, name: ens1f1np1, subnets: [],
                     type: physical}
                  - bond_interfaces: [ens1f0np0, ens1f1np1]
                    mac_address: 'fa:16:3e:00:00:00'
                    mtu: 9000
                    name: bond0
                    subnets: []
                    type: bond
                    params: ",
                $params,
                "
                  - name: bond0.123
                    type: vlan
                    vlan_id: 123
                    vlan_link: bond0
                    subnets:
                      - {address: 192.0.2.10, netmask: 255.255.255.0, type: static,
                         routes: [{gateway: 192.0.2.1, netmask: 0.0.0.0, network: 0.0.0.0}]}
                  - {address: 1.1.1.1, search: hostname1, type: nameserver}
                "
            ),
            nm: $bond,
            ..ROW
        }
    };
}

/// `test_network_state.py`'s v1 nameservers, one of them tied to `eth1`.
const NAMESERVERS_V1: &str = "
    version: 1
    config:
      - {type: nameserver, interface: eth1, address: [192.168.1.1, 8.8.8.8], search: [spam.local]}
      - {type: nameserver, address: [192.168.1.0, 4.4.4.4], search: [eggs.local]}
      - {type: physical, name: eth0, mac_address: '00:11:22:33:44:55',
         subnets: [{type: dhcp}]}
      - {type: physical, name: eth1, mac_address: '66:77:88:99:00:11',
         subnets: [{type: dhcp}]}
";

pub const ROWS: &[Row] = &[
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_with_optional",
        input: "
            version: 2
            ethernets:
              eth0: {optional: true}
              eth1: {optional: false}
        ",
        networkd: &[
            "eth0.network [Link] RequiredForOnline=no",
            "eth0.network [Network] DHCP=no",
            "eth1.network ![Link]",
            "eth1.network [Network] DHCP=no",
        ],
        netplan: &["ethernets/eth0/optional = true"],
        ..ROW
    },
    Row {
        // cloud-init's keyfile says nothing of `optional`.
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_with_optional keyfile",
        input: "
            version: 2
            ethernets:
              eth0: {optional: true, dhcp4: true}
        ",
        nm: &["eth0 [ipv4] method=auto && may-fail=true"],
        differs: Some("`optional` as NetworkManager's `may-fail=true`"),
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_with_set_name",
        input: r#"
            version: 2
            ethernets:
              eth0:
                match: {macaddress: '00:11:22:33:44:55'}
                addresses: [172.16.10.2/12, 172.16.10.3/12]
                nameservers: {search: [spam.local, eggs.local], addresses: [8.8.8.8]}
              eth1:
                match: {macaddress: '66:77:88:99:00:11'}
                set-name: "ens92"
                nameservers: {search: [foo.local, bar.local], addresses: [4.4.4.4]}
        "#,
        networkd: &[
            "eth0.network [Address] Address=172.16.10.2/12",
            "eth0.network [Address] Address=172.16.10.3/12",
            "eth0.network [Match] MACAddress=00:11:22:33:44:55",
            "eth0.network [Network] DHCP=no && DNS=8.8.8.8 && Domains=spam.local eggs.local",
            "ens92.network [Match] MACAddress=66:77:88:99:00:11 && Name=ens92",
            "ens92.network [Network] DHCP=no && DNS=4.4.4.4 && Domains=foo.local bar.local",
            "ens92.link [Link] Name=ens92",
        ],
        ..ROW
    },
    Row {
        // cloud-init also writes the v2 id as `Name=eth0`, which a NIC not yet renamed fails.
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_with_set_name Name",
        input: "
            version: 2
            ethernets:
              eth0: {match: {macaddress: '00:11:22:33:44:55'}, addresses: [172.16.10.2/12]}
        ",
        networkd: &["eth0.network [Match] MACAddress=00:11:22:33:44:55 && !Name=eth0"],
        differs: Some("a NIC is matched by MAC, not also by the v2 id as a `Name=`"),
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_dhcp_yes_with_dhcp_overrides",
        input: r#"
            version: 2
            ethernets:
              eth0:
                dhcp4: true
                dhcp4-overrides: {hostname: hal, route-metric: 1100, send-hostname: false,
                  use-dns: false, use-domains: false, use-hostname: false, use-mtu: false,
                  use-ntp: false, use-routes: false}
                dhcp6: true
                dhcp6-overrides: {use-dns: false, use-domains: false, use-hostname: false,
                  use-ntp: false}
                match: {macaddress: "00:11:22:33:44:55"}
                nameservers: {addresses: ["8.8.8.8", "2001:4860:4860::8888"]}
        "#,
        networkd: &[
            "eth0.network [DHCPv4] Hostname=hal && RouteMetric=1100 && SendHostname=no \
             && UseDNS=no && UseDomains=no && UseHostname=no && UseMTU=no && UseNTP=no \
             && UseRoutes=no",
            "eth0.network [DHCPv6] UseDNS=no && UseDomains=no && UseHostname=no && UseNTP=no",
            "eth0.network [Network] DHCP=yes && DNS=8.8.8.8 && DNS=2001:4860:4860::8888",
        ],
        ..ROW
    },
    Row {
        // cloud-init refuses `dhcp4domain` beside `use-domains` (a VMware key); ember does not
        // read `dhcp4domain` at all, and the override stands.
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_dhcp_domains_vs_overrides[4]",
        input: "
            version: 2
            ethernets:
              eth0:
                dhcp4domain: true
                dhcp4: true
                dhcp4-overrides: {use-domains: route}
        ",
        networkd: &["eth0.network [DHCPv4] UseDomains=route"],
        warns: &["eth0.dhcp4domain: unknown key, ignored"],
        differs: Some("Invalid entries:"),
        ..ROW
    },
    dhcp_override!("4", "use-dns", "false", "UseDNS=no"),
    dhcp_override!("4", "use-dns", "true", "UseDNS=yes"),
    dhcp_override!("4", "use-ntp", "false", "UseNTP=no"),
    dhcp_override!("4", "use-ntp", "true", "UseNTP=yes"),
    dhcp_override!("4", "send-hostname", "false", "SendHostname=no"),
    dhcp_override!("4", "send-hostname", "true", "SendHostname=yes"),
    dhcp_override!("4", "use-hostname", "false", "UseHostname=no"),
    dhcp_override!("4", "use-hostname", "true", "UseHostname=yes"),
    dhcp_override!("4", "hostname", "olivaw", "Hostname=olivaw"),
    dhcp_override!("4", "route-metric", "12345", "RouteMetric=12345"),
    dhcp_override!("4", "use-domains", "false", "UseDomains=no"),
    dhcp_override!("4", "use-domains", "true", "UseDomains=yes"),
    dhcp_override!("4", "use-domains", "route", "UseDomains=route"),
    dhcp_override!("4", "use-mtu", "false", "UseMTU=no"),
    dhcp_override!("4", "use-mtu", "true", "UseMTU=yes"),
    dhcp_override!("4", "use-routes", "false", "UseRoutes=no"),
    dhcp_override!("4", "use-routes", "true", "UseRoutes=yes"),
    dhcp_override!("6", "use-dns", "false", "UseDNS=no"),
    dhcp_override!("6", "use-dns", "true", "UseDNS=yes"),
    dhcp_override!("6", "use-ntp", "false", "UseNTP=no"),
    dhcp_override!("6", "use-ntp", "true", "UseNTP=yes"),
    dhcp_override!("6", "use-hostname", "false", "UseHostname=no"),
    dhcp_override!("6", "use-hostname", "true", "UseHostname=yes"),
    dhcp_override!("6", "use-domains", "false", "UseDomains=no"),
    dhcp_override!("6", "use-domains", "true", "UseDomains=yes"),
    dhcp_override!("6", "use-domains", "route", "UseDomains=route"),
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_v1_multi_subnets",
        input: "
            version: 1
            config:
              - type: physical
                name: eth0
                mac_address: 'ae:98:25:fa:36:9e'
                subnets:
                  - {type: static, address: '10.0.0.2', netmask: '255.255.255.255',
                     gateway: '10.0.0.1'}
                  - {type: static6, address: '2a01:4f8:10a:19d2::4/64',
                     gateway: '2a01:4f8:10a:19d2::2'}
              - {type: nameserver, address: ['100.100.100.100'],
                 search: ['rgrunbla.github.beta.tailscale.net']}
        ",
        networkd: &[
            "eth0.network [Address] Address=10.0.0.2/32",
            "eth0.network [Address] Address=2a01:4f8:10a:19d2::4/64",
            "eth0.network [Network] DHCP=no && DNS=100.100.100.100 \
             && Domains=rgrunbla.github.beta.tailscale.net",
            "eth0.network [Route] Gateway=10.0.0.1 && GatewayOnLink=yes",
            "eth0.network [Route] Gateway=2a01:4f8:10a:19d2::2 && !GatewayOnLink=yes",
        ],
        netplan: &[
            "ethernets/eth0/routes = {to: default, via: 10.0.0.1, on-link: true}",
            "ethernets/eth0/routes = {to: default, via: '2a01:4f8:10a:19d2::2'}",
        ],
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_v2_multi_subnets",
        input: r#"
            version: 2
            ethernets:
              eth0:
                addresses: [192.168.1.1/24, fec0::1/64]
                gateway4: 192.168.254.254
                gateway6: "fec0::ffff"
                routes: [{to: 169.254.1.1/32}, {to: "fe80::1/128"}]
        "#,
        networkd: &[
            "eth0.network [Address] Address=192.168.1.1/24",
            "eth0.network [Address] Address=fec0::1/64",
            "eth0.network [Route] Gateway=192.168.254.254 && GatewayOnLink=yes",
            "eth0.network [Route] Gateway=fec0::ffff && !GatewayOnLink=yes",
            "eth0.network [Route] Destination=169.254.1.1/32",
            "eth0.network [Route] Destination=fe80::1/128",
        ],
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_v1_multi_subnets_not_onlink",
        input: "
            version: 1
            config:
              - type: physical
                name: eth0
                mac_address: 'ae:98:25:fa:36:9e'
                subnets:
                  - {type: static, address: '10.0.0.2', netmask: '255.255.255.0',
                     gateway: '10.0.0.1'}
                  - {type: static6, address: '2a01:4f8:10a:19d2::4/64',
                     gateway: '2a01:4f8:10a:19d2::2'}
        ",
        networkd: &[
            "eth0.network [Address] Address=10.0.0.2/24",
            "eth0.network [Route] Gateway=10.0.0.1 && !GatewayOnLink=yes",
            "eth0.network [Route] Gateway=2a01:4f8:10a:19d2::2 && !GatewayOnLink=yes",
        ],
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_v2_multi_subnets_not_onlink",
        input: r#"
            version: 2
            ethernets:
              eth0:
                addresses: [192.168.1.1/24, fec0::1/64]
                gateway4: 192.168.1.254
                gateway6: "fec0::ffff"
                routes: [{to: 169.254.1.1/32}, {to: "fe80::1/128"}]
        "#,
        networkd: &[
            "eth0.network [Route] Gateway=192.168.1.254 && !GatewayOnLink=yes",
            "eth0.network [Route] Gateway=fec0::ffff && !GatewayOnLink=yes",
        ],
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_v1_multi_subnets_onlink",
        input: "
            version: 1
            config:
              - type: physical
                name: eth0
                mac_address: 'ae:98:25:fa:36:9e'
                subnets:
                  - {type: static, address: '10.0.0.2', netmask: '255.255.255.0',
                     gateway: '192.168.0.1'}
                  - {type: static6, address: '2a01:4f8:10a:19d2::4/64',
                     gateway: '2000:4f8:10a:19d2::2'}
        ",
        networkd: &[
            "eth0.network [Route] Gateway=192.168.0.1 && GatewayOnLink=yes",
            "eth0.network [Route] Gateway=2000:4f8:10a:19d2::2 && GatewayOnLink=yes",
        ],
        netplan: &[
            "ethernets/eth0/routes = {to: default, via: 192.168.0.1, on-link: true}",
            "ethernets/eth0/routes = {to: default, via: '2000:4f8:10a:19d2::2', on-link: true}",
        ],
        ..ROW
    },
    Row {
        upstream: "test_networkd.py::TestNetworkdRenderState::test_networkd_render_v2_multi_subnets_onlink",
        input: r#"
            version: 2
            ethernets:
              eth0:
                addresses: [192.168.1.1/32, fec0::1/128]
                gateway4: 192.168.254.254
                gateway6: "fec0::ffff"
                routes: [{to: 169.254.1.1/32}, {to: "fe80::1/128"}]
        "#,
        networkd: &[
            "eth0.network [Route] Gateway=192.168.254.254 && GatewayOnLink=yes",
            "eth0.network [Route] Gateway=fec0::ffff && GatewayOnLink=yes",
        ],
        ..ROW
    },
    accept_ra!("v1-4-None", "
        version: 1
        config: [{type: physical, name: eth0, mac_address: '00:11:22:33:44:55',
                  subnets: [{type: dhcp4}]}]
    ", "DHCP=ipv4 && !IPv6AcceptRA=yes && !IPv6AcceptRA=no"),
    accept_ra!("v1-6-True", "
        version: 1
        config: [{type: physical, name: eth0, mac_address: '00:11:22:33:44:55',
                  subnets: [{type: dhcp6}], accept-ra: true}]
    ", "DHCP=ipv6 && IPv6AcceptRA=yes"),
    accept_ra!("v1-10.0.0.10/24-False", "
        version: 1
        config: [{type: physical, name: eth0, mac_address: '00:11:22:33:44:55',
                  subnets: [{type: static, address: 10.0.0.10/24}], accept-ra: false}]
    ", "DHCP=no && IPv6AcceptRA=no"),
    accept_ra!("v1-2001:db8::1/64-True", "
        version: 1
        config: [{type: physical, name: eth0, mac_address: '00:11:22:33:44:55',
                  subnets: [{type: static, address: '2001:db8::1/64'}], accept-ra: true}]
    ", "DHCP=no && IPv6AcceptRA=yes"),
    accept_ra!("v2-4-False", "
        version: 2
        ethernets: {eth0: {match: {macaddress: '00:11:22:33:44:55'}, dhcp4: true,
                           accept-ra: false}}
    ", "DHCP=ipv4 && IPv6AcceptRA=no"),
    accept_ra!("v2-6-None", "
        version: 2
        ethernets: {eth0: {match: {macaddress: '00:11:22:33:44:55'}, dhcp6: true}}
    ", "DHCP=ipv6 && !IPv6AcceptRA=yes && !IPv6AcceptRA=no"),
    accept_ra!("v2-2001:db8::1/64-False", "
        version: 2
        ethernets: {eth0: {match: {macaddress: '00:11:22:33:44:55'},
                           addresses: ['2001:db8::1/64'], accept-ra: false}}
    ", "DHCP=no && IPv6AcceptRA=no"),
    accept_ra!("v2-10.0.0.10/24-True", "
        version: 2
        ethernets: {eth0: {match: {macaddress: '00:11:22:33:44:55'},
                           addresses: [10.0.0.10/24], accept-ra: true}}
    ", "DHCP=no && IPv6AcceptRA=yes"),
    Row {
        upstream: "test_network_manager.py::TestNetworkManagerRenderNetworkState::test_subnet_route_metric",
        input: "
            version: 1
            config:
              - mac_address: 'fa:16:3e:00:00:00'
                name: ens1f0np0
                type: physical
                subnets: [{type: static, address: 192.168.1.10/24, metric: 100}]
        ",
        nm: &[
            "ens1f0np0 [ethernet] mac-address=FA:16:3E:00:00:00",
            "ens1f0np0 [ipv4] method=manual && may-fail=false && address1=192.168.1.10/24 \
             && route-metric=100",
        ],
        // The other renderers, as cloud-init's: ifupdown's `metric` on the static stanza.
        eni: &["iface ens1f0np0 inet static | address 192.168.1.10/24 && metric 100"],
        ..ROW
    },
    nm_bond!(
        "test_bond_dns_baseline",
        "{bond-ad_select: bandwidth, bond-all_slaves_active: 0, bond-downdelay: 0,
                        bond-fail_over_mac: active, bond-lacp_rate: slow, bond-miimon: 100,
                        bond-min_links: 2, bond-mode: 802.3ad, bond-updelay: 0,
                        bond-xmit_hash_policy: layer3+4}",
        &[
            "bond0 [bond] mode=802.3ad && miimon=100 && xmit_hash_policy=layer3+4 \
             && downdelay=0 && updelay=0 && fail_over_mac=active && ad_select=bandwidth \
             && all_slaves_active=0 && lacp_rate=slow && min_links=2",
            "bond0 [ipv4] method=disabled",
            "bond0 [ipv6] method=disabled",
            "bond0 [ethernet] mtu=9000",
            "bond0 [connection] interface-name=bond0",
            "ens1f0np0 [connection] slave-type=bond \
             && master=54317911-f840-516b-a10d-82cb4c1f075c",
            "ens1f0np0 [ethernet] mtu=9000 && mac-address=FA:16:3E:00:00:00",
            "bond0.123 [vlan] id=123 && parent=54317911-f840-516b-a10d-82cb4c1f075c",
            "bond0.123 [ipv4] method=manual && may-fail=false && address1=192.0.2.10/24 \
             && route1=0.0.0.0/0,192.0.2.1 && dns=1.1.1.1; && dns-search=hostname1;",
        ]
    ),
    nm_bond!(
        "test_bond_balance_tlb_baseline",
        "{bond-all_slaves_active: 0, bond-downdelay: 0, bond-fail_over_mac: active,
                        bond-lp_interval: 1, bond-miimon: 100, bond-mode: balance-tlb,
                        bond-primary: ens1f0np0, bond-primary_reselect: always, bond-resend_igmp: 1,
                        bond-updelay: 0, bond-xmit_hash_policy: layer3+4}",
        &[
            "bond0 [bond] mode=balance-tlb && miimon=100 && xmit_hash_policy=layer3+4 \
             && downdelay=0 && updelay=0 && fail_over_mac=active && primary_reselect=always \
             && primary=ens1f0np0 && all_slaves_active=0 && lp_interval=1 && resend_igmp=1",
            "bond0 [ipv4] method=disabled",
            "bond0 [ipv6] method=disabled",
        ]
    ),
    nm_bond!(
        "test_bond_balance_rr_baseline",
        "{bond-all_slaves_active: 0, bond-downdelay: 0, bond-fail_over_mac: active,
                        bond-miimon: 100, bond-mode: balance-tlb, bond-packets_per_slave: 1,
                        bond-resend_igmp: 1, bond-updelay: 0}",
        &[
            "bond0 [bond] mode=balance-tlb && miimon=100 && downdelay=0 && updelay=0 \
             && fail_over_mac=active && all_slaves_active=0 && packets_per_slave=1 \
             && resend_igmp=1",
            "bond0 [ipv6] method=disabled",
        ]
    ),
    nm_bond!(
        "test_bond_active_backup_baseline",
        "{bond-all_slaves_active: 0, bond-downdelay: 0, bond-fail_over_mac: active,
                        bond-miimon: 100, bond-mode: balance-tlb, bond-num_grat_arp: 1,
                        bond-resend_igmp: 1, bond-updelay: 0}",
        &[
            "bond0 [bond] mode=balance-tlb && miimon=100 && num_grat_arp=1 && downdelay=0 \
             && updelay=0 && fail_over_mac=active && all_slaves_active=0 && resend_igmp=1",
            "bond0 [ipv4] method=disabled",
        ]
    ),
    Row {
        // cloud-init writes ARP monitoring under any mode; the kernel and libnm refuse it
        // under 802.3ad, balance-tlb and balance-alb.
        upstream: "test_network_manager.py::TestNetworkManagerRenderNetworkState::test_bond_dns_baseline ARP",
        input: "
            version: 1
            config:
              - {name: eth0, type: physical, mac_address: 'fa:16:3e:00:00:00'}
              - {name: bond0, type: bond, bond_interfaces: [eth0],
                 params: {bond-mode: 802.3ad, bond-arp_interval: 100,
                          bond-arp_ip_target: 127.0.0.1, bond-arp_validate: none},
                 subnets: [{type: dhcp}]}
        ",
        nm: &["bond0 [bond] mode=802.3ad && !arp_interval=100 && !arp_validate=none"],
        warns: &["ARP monitoring does not apply to bond mode 802.3ad"],
        differs: Some("ARP monitoring options of a bond whose mode cannot use them"),
        ..ROW
    },
    Row {
        upstream: "test_network_manager.py::TestNetworkManagerRenderNetworkState::test_bond_multiword_options_from_v2",
        input: "
            version: 2
            ethernets:
              eth0: {match: {macaddress: 'fa:16:3e:00:00:00'}}
              eth1: {match: {macaddress: 'fa:16:3e:00:00:01'}}
            bonds:
              bond0:
                interfaces: [eth0, eth1]
                parameters: {mode: active-backup, fail-over-mac-policy: active,
                             primary-reselect-policy: always, transmit-hash-policy: layer3+4}
        ",
        nm: &[
            "bond0 [bond] mode=active-backup && xmit_hash_policy=layer3+4 \
             && fail_over_mac=active && primary_reselect=always",
            "bond0 [ipv4] method=disabled",
            "bond0 [ipv6] method=disabled",
            "eth0 [connection] slave-type=bond && master=54317911-f840-516b-a10d-82cb4c1f075c",
            "eth1 [ethernet] mac-address=FA:16:3E:00:00:01",
        ],
        ..ROW
    },
    Row {
        upstream: "test_network_state.py::TestNetworkStateParseNameservers::test_v1_nameservers_valid",
        input: NAMESERVERS_V1,
        eni: &[
            "iface lo inet loopback | dns-nameservers 192.168.1.0 4.4.4.4 && dns-search eggs.local",
            "iface eth1 inet dhcp | dns-nameservers 192.168.1.1 8.8.8.8 && dns-search spam.local",
            "iface eth0 inet dhcp | !dns-nameservers 192.168.1.1 8.8.8.8",
        ],
        nm: &[
            "eth1 [ipv4] dns=192.168.1.1;8.8.8.8; && dns-search=spam.local;",
            "eth0 [ipv4] !dns=192.168.1.1;8.8.8.8;",
        ],
        ..ROW
    },
    Row {
        // cloud-init refuses the whole config (ValueError); ember skips that entry.
        upstream: "test_network_state.py::TestNetworkStateParseNameservers::test_v1_nameservers_invalid",
        input: "
            version: 1
            config:
              - {type: nameserver, interface: eth90, address: [192.168.1.1], search: [spam.local]}
              - {type: nameserver, address: [4.4.4.4], search: [eggs.local]}
              - {type: physical, name: eth1, subnets: [{type: dhcp}]}
        ",
        eni: &["iface lo inet loopback | dns-nameservers 4.4.4.4", "auto eth1"],
        warns: &["names an interface that is not defined"],
        differs: Some("nameserver on an unknown interface skips its entry"),
        ..ROW
    },
    Row {
        upstream: "test_network_state.py::TestNetworkStateParseNameservers::test_v2_nameservers",
        input: r#"
            version: 2
            ethernets:
              eth0:
                match: {macaddress: '00:11:22:33:44:55'}
                addresses: [192.168.14.10/24, 2001:1::100/64]
                nameservers: {search: [spam.local, eggs.local], addresses: [8.8.8.8]}
                routes:
                  - {to: default, via: 192.168.14.1, metric: 50}
                  - {to: default, via: '2001:1::2', metric: 100}
              eth1:
                match: {macaddress: '66:77:88:99:00:11'}
                set-name: "ens92"
                nameservers: {search: [foo.local, bar.local], addresses: [4.4.4.4]}
        "#,
        networkd: &[
            "eth0.network [Network] DNS=8.8.8.8 && Domains=spam.local eggs.local",
            "eth0.network [Route] Gateway=192.168.14.1 && Metric=50",
            "eth0.network [Route] Gateway=2001:1::2 && Metric=100",
            "ens92.network [Network] DNS=4.4.4.4 && Domains=foo.local bar.local",
        ],
        nm: &[
            "eth0 [ipv4] dns=8.8.8.8; && dns-search=spam.local;eggs.local; \
             && route1=0.0.0.0/0,192.168.14.1,50",
            "eth0 [ipv6] route1=::/0,2001:1::2,100",
        ],
        ..ROW
    },
    Row {
        upstream: "test_network_state.py::TestNetworkStateParseConfigV2::test_v2_warns_deprecated_gateways[bond]",
        input: "
            version: 2
            ethernets: {enp0s0: {}, enp0s1: {}}
            bonds:
              bond0:
                addresses: [10.54.2.19/21, '2a00:1730:fff9:100::52/128']
                gateway4: 10.54.0.1
                gateway6: '2a00:1730:fff9:100::1'
                interfaces: [enp0s0, enp0s1]
                mtu: 1334
                parameters: {}
        ",
        // A v2 config goes to netplan as given, as cloud-init passes it through.
        netplan: &[
            "bonds/bond0/gateway4 = 10.54.0.1",
            "bonds/bond0/gateway6 = '2a00:1730:fff9:100::1'",
        ],
        networkd: &[
            "bond0.network [Route] Gateway=10.54.0.1 && !GatewayOnLink=yes",
            "bond0.network [Route] Gateway=2a00:1730:fff9:100::1 && GatewayOnLink=yes",
            "bond0.network [Link] MTUBytes=1334",
        ],
        nm: &[
            "bond0 [ipv4] gateway=10.54.0.1 && address1=10.54.2.19/21",
            "bond0 [ipv6] gateway=2a00:1730:fff9:100::1",
        ],
        ..ROW
    },
];

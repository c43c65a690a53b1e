//! `tests/unittests/net/network_configs.py`'s NETWORK_CONFIGS: the examples test_net.py
//! renders with every renderer (`expected_eni_*`, `expected_netplan`, `expected_networkd*`,
//! `expected_network_manager`). ENI facts name ember's placement where it writes a setting on
//! another stanza of the same interface (resolvers on the first stanza, a route on the stanza
//! whose subnet holds its gateway or the family's first): ifupdown and resolvconf apply both
//! alike.

use super::{Row, ROW};

pub const ROWS: &[Row] = &[
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[small_v1]",
        input: r#"
            version: 1
            config:
              - type: physical
                name: eth99
                mac_address: c0:d6:9f:2c:e8:80
                subnets:
                  - type: dhcp4
                  - type: static
                    address: 192.168.21.3/24
                    dns_nameservers: [8.8.8.8, 8.8.4.4]
                    dns_search: barley.maas sach.maas
                    routes:
                      - {gateway: 65.61.151.37, netmask: 0.0.0.0, network: 0.0.0.0, metric: 10000}
              - type: physical
                name: eth1
                mac_address: cf:d6:af:48:e8:80
              - type: nameserver
                address: [1.2.3.4, 5.6.7.8]
                search: [wark.maas]
        "#,
        eni: &[
            "iface lo inet loopback | dns-nameservers 1.2.3.4 5.6.7.8 && dns-search wark.maas",
            "iface eth1 inet manual",
            "!auto eth1",
            "auto eth99",
            "iface eth99 inet dhcp",
            "iface eth99 inet static | address 192.168.21.3/24 \
             && dns-nameservers 8.8.8.8 8.8.4.4 && dns-search barley.maas sach.maas",
            "iface eth99 | post-up ip route add default via 65.61.151.37 dev eth99 metric 10000 || true",
        ],
        netplan: &[
            "ethernets/eth1/match/macaddress = cf:d6:af:48:e8:80",
            "ethernets/eth1/set-name = eth1",
            "ethernets/eth99/addresses = [192.168.21.3/24]",
            "ethernets/eth99/dhcp4 = true",
            "ethernets/eth99/nameservers/addresses = [8.8.8.8, 8.8.4.4]",
            "ethernets/eth99/nameservers/search = [barley.maas, sach.maas]",
            "ethernets/eth99/routes = {metric: 10000, via: 65.61.151.37}",
        ],
        networkd: &[
            "eth99.network [Match] MACAddress=c0:d6:9f:2c:e8:80",
            "eth99.network [Network] DHCP=ipv4 && DNS=8.8.8.8 && DNS=8.8.4.4 && DNS=1.2.3.4 \
             && DNS=5.6.7.8",
            "eth99.network [Address] Address=192.168.21.3/24",
            "eth99.network [Route] Gateway=65.61.151.37 && Destination=0.0.0.0/0 && Metric=10000",
            "eth1.network [Network] DHCP=no",
        ],
        nm: &[
            "eth99 [ethernet] mac-address=C0:D6:9F:2C:E8:80",
            "eth99 [ipv4] method=auto && may-fail=false && address1=192.168.21.3/24 \
             && dns=8.8.8.8;8.8.4.4; && dns-search=barley.maas;sach.maas;",
            "eth1 [ethernet] mac-address=CF:D6:AF:48:E8:80",
        ],
        ..ROW
    },
    Row {
        // cloud-init's networkd gives the unaddressed eth1 the global resolvers too; its
        // netplan leaves them off eth99, which has its own.
        upstream: "network_configs.py::NETWORK_CONFIGS[small_v1] global resolvers",
        input: r#"
            version: 1
            config:
              - type: physical
                name: eth99
                subnets:
                  - {type: static, address: 192.168.21.3/24, dns_nameservers: [8.8.8.8]}
              - type: physical
                name: eth1
              - {type: nameserver, address: [1.2.3.4, 5.6.7.8], search: [wark.maas]}
        "#,
        netplan: &["ethernets/eth99/nameservers/addresses = [8.8.8.8, 1.2.3.4, 5.6.7.8]"],
        networkd: &["eth1.network [Network] !DNS=1.2.3.4"],
        nm: &["eth1 [ipv4] method=disabled", "eth1 [ipv6] method=ignore"],
        differs: Some("Global resolvers are added to every addressed interface"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[small_v2]",
        input: r#"
            version: 2
            ethernets:
              eth1:
                match: {macaddress: "cf:d6:af:48:e8:80"}
                set-name: eth1
              eth99:
                addresses: [192.168.21.3/24]
                dhcp4: true
                match: {macaddress: "c0:d6:9f:2c:e8:80"}
                nameservers:
                  addresses: [8.8.8.8, 8.8.4.4]
                  search: [barley.maas, sach.maas]
                routes:
                  - {metric: 10000, to: 0.0.0.0/0, via: 65.61.151.37}
                set-name: eth99
        "#,
        eni: &[
            "iface eth1 inet manual",
            "!auto eth1",
            "auto eth99",
            "iface eth99 inet dhcp",
            "iface eth99 inet static | address 192.168.21.3/24 \
             && dns-nameservers 8.8.8.8 8.8.4.4 && dns-search barley.maas sach.maas",
            "iface eth99 | post-up ip route add default via 65.61.151.37 dev eth99 metric 10000 || true",
        ],
        netplan: &[
            "ethernets/eth99/addresses = [192.168.21.3/24]",
            "ethernets/eth99/dhcp4 = true",
            "ethernets/eth99/routes = {metric: 10000, to: 0.0.0.0/0, via: 65.61.151.37}",
        ],
        networkd: &[
            "eth99.network [Network] DHCP=ipv4 && DNS=8.8.8.8 && DNS=8.8.4.4 \
             && Domains=barley.maas sach.maas",
            "eth99.network [Address] Address=192.168.21.3/24",
            "eth99.network [Route] Gateway=65.61.151.37 && Destination=0.0.0.0/0 && Metric=10000",
            "eth1.network [Network] DHCP=no",
        ],
        nm: &[
            "eth99 [ipv4] method=auto && may-fail=false && address1=192.168.21.3/24 \
             && dns=8.8.8.8;8.8.4.4; && dns-search=barley.maas;sach.maas;",
            "eth99 [ipv4] route1=0.0.0.0/0,65.61.151.37,10000",
            "eth1 [ethernet] mac-address=CF:D6:AF:48:E8:80",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v4_and_v6] yaml_v1",
        input: r#"
            version: 1
            config:
              - type: physical
                name: iface0
                subnets: [{type: dhcp4}, {type: dhcp6}]
        "#,
        eni: &["auto iface0", "iface iface0 inet dhcp", "iface iface0 inet6 dhcp"],
        netplan: &["ethernets/iface0/dhcp4 = true", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Match] Name=iface0", "iface0.network [Network] DHCP=yes"],
        nm: &[
            "iface0 [connection] interface-name=iface0",
            "iface0 [ipv4] method=auto && may-fail=true",
            "iface0 [ipv6] method=auto && may-fail=true",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v4_and_v6] yaml_v2",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp4: true, dhcp6: true}
        ",
        eni: &["auto iface0", "iface iface0 inet dhcp", "iface iface0 inet6 dhcp"],
        netplan: &["ethernets/iface0/dhcp4 = true", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=yes"],
        nm: &[
            "iface0 [ipv4] method=auto && may-fail=true",
            "iface0 [ipv6] method=auto && may-fail=true",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v1_ipv4_and_ipv6_static]",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                mtu: 8999
                subnets:
                  - {type: static, address: 192.168.14.2/24, mtu: 9000}
                  - {type: static, address: 2001:1::1/64, mtu: 1500}
        ",
        eni: &[
            "auto iface0",
            "iface iface0 inet static | address 192.168.14.2/24 && mtu 9000",
            "iface iface0 inet6 static | address 2001:1::1/64 && mtu 1500",
        ],
        netplan: &[
            "ethernets/iface0/addresses = [192.168.14.2/24, 2001:1::1/64]",
            "ethernets/iface0/ipv6-mtu = 1500",
            "ethernets/iface0/mtu = 9000",
        ],
        networkd: &[
            "iface0.network [Network] DHCP=no",
            "iface0.network [Address] Address=192.168.14.2/24",
            "iface0.network [Address] Address=2001:1::1/64",
        ],
        nm: &[
            "iface0 [ethernet] mtu=9000",
            "iface0 [ipv4] method=manual && may-fail=false && address1=192.168.14.2/24",
            "iface0 [ipv6] method=manual && may-fail=false && address1=2001:1::1/64",
        ],
        warns: &["differs from the MTU given before"],
        ..ROW
    },
    Row {
        // cloud-init's networkd alone writes the device's 8999 (its other renderers 9000) and
        // no IPv6 MTU.
        upstream: "network_configs.py::NETWORK_CONFIGS[v1_ipv4_and_ipv6_static] networkd MTU",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                mtu: 8999
                subnets:
                  - {type: static, address: 192.168.14.2/24, mtu: 9000}
                  - {type: static, address: 2001:1::1/64, mtu: 1500}
        ",
        networkd: &[
            "iface0.network [Link] MTUBytes=9000",
            "iface0.network [Network] IPv6MTUBytes=1500",
        ],
        differs: Some("a v1 subnet's MTU is the device's in networkd too"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2_ipv4_and_ipv6_static]",
        input: "
            version: 2
            ethernets:
              iface0:
                addresses: [192.168.14.2/24, 2001:1::1/64]
                mtu: 9000
        ",
        eni: &[
            "auto iface0",
            "iface iface0 inet static | address 192.168.14.2/24 && mtu 9000",
            "iface iface0 inet6 static | address 2001:1::1/64",
        ],
        netplan: &[
            "ethernets/iface0/addresses = [192.168.14.2/24, 2001:1::1/64]",
            "ethernets/iface0/mtu = 9000",
        ],
        networkd: &[
            "iface0.network [Link] MTUBytes=9000",
            "iface0.network [Address] Address=192.168.14.2/24",
            "iface0.network [Address] Address=2001:1::1/64",
        ],
        nm: &[
            "iface0 [ethernet] mtu=9000",
            "iface0 [ipv4] method=manual && address1=192.168.14.2/24",
            "iface0 [ipv6] method=manual && address1=2001:1::1/64",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v1_eni_ipv4_and_ipv6_static_dnsnameservers_only]",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                mac_address: c0:d6:9f:2c:e8:80
                mtu: 9000
                subnets:
                  - {type: static, address: 192.168.14.2/24, dns_nameservers: 8.8.8.8}
                  - {type: static6, address: 2001:1::1/64, dns_nameservers: 2001:1::1f}
              - {type: nameserver, address: [9.9.9.9]}
        ",
        eni: &[
            "iface lo inet loopback | dns-nameservers 9.9.9.9",
            "auto iface0",
            "iface iface0 inet static | address 192.168.14.2/24 && mtu 9000 \
             && dns-nameservers 8.8.8.8 2001:1::1f",
            "iface iface0 inet6 static | address 2001:1::1/64",
        ],
        nm: &["iface0 [ipv4] dns=8.8.8.8;", "iface0 [ipv6] dns=2001:1::1f;"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2_eni_ipv4_and_ipv6_static_dnsnameservers_only]",
        input: r#"
            version: 2
            ethernets:
              iface0:
                addresses: [192.168.14.2/24, 2001:1::1/64]
                nameservers: {addresses: [8.8.8.8, "2001:1::1f"]}
                mtu: 9000
        "#,
        eni: &[
            "auto iface0",
            "iface iface0 inet static | address 192.168.14.2/24 && mtu 9000 \
             && dns-nameservers 8.8.8.8 2001:1::1f",
            "iface iface0 inet6 static | address 2001:1::1/64",
        ],
        netplan: &["ethernets/iface0/nameservers/addresses = [8.8.8.8, 2001:1::1f]"],
        networkd: &["iface0.network [Network] DNS=8.8.8.8 && DNS=2001:1::1f"],
        nm: &["iface0 [ipv4] dns=8.8.8.8;", "iface0 [ipv6] dns=2001:1::1f;"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v1_eni_ipv4_and_ipv6_static_dns_only_ipv4]",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                mtu: 9000
                subnets:
                  - {type: static, address: 192.168.14.2/24, dns_nameservers: [8.8.8.8],
                     dns_search: [lab, home]}
                  - {type: static6, address: 2001:1::1/64}
              - {type: nameserver, address: 9.9.9.9, search: [cafe]}
        ",
        eni: &[
            "iface lo inet loopback | dns-nameservers 9.9.9.9 && dns-search cafe",
            "iface iface0 inet static | address 192.168.14.2/24 && dns-nameservers 8.8.8.8 \
             && dns-search lab home && mtu 9000",
            "iface iface0 inet6 static | address 2001:1::1/64",
        ],
        nm: &["iface0 [ipv4] dns=8.8.8.8; && dns-search=lab;home;"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2_eni_ipv4_and_ipv6_static_dns_only_ipv6]",
        input: r#"
            version: 2
            ethernets:
              iface0:
                addresses: [192.168.14.2/24, 2001:1::1/64]
                nameservers: {search: [lab, home], addresses: ["2001:1::1f"]}
                mtu: 9000
        "#,
        eni: &[
            "iface iface0 inet static | address 192.168.14.2/24 && mtu 9000",
            "iface iface0 | dns-nameservers 2001:1::1f && dns-search lab home",
        ],
        netplan: &[
            "ethernets/iface0/nameservers/addresses = [2001:1::1f]",
            "ethernets/iface0/nameservers/search = [lab, home]",
        ],
        networkd: &["iface0.network [Network] DNS=2001:1::1f && Domains=lab home"],
        nm: &["iface0 [ipv6] dns=2001:1::1f;"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v1_eni_ipv4_and_ipv6_static_dns_both_ipv4_ipv6]",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                mtu: 9000
                subnets:
                  - {type: static, address: 192.168.14.2/24, dns_nameservers: [8.8.8.8],
                     dns_search: [lab, home]}
                  - {type: static6, address: 2001:1::1/64, dns_nameservers: [2001:1::1f],
                     dns_search: [lab, home]}
              - {type: nameserver, address: [9.9.9.9, 2001:3db::2a], search: [cafe]}
        ",
        eni: &[
            "iface lo inet loopback | dns-nameservers 9.9.9.9 2001:3db::2a && dns-search cafe",
            "iface iface0 | dns-nameservers 8.8.8.8 2001:1::1f && dns-search lab home",
        ],
        nm: &[
            "iface0 [ipv4] dns=8.8.8.8; && dns-search=lab;home;",
            "iface0 [ipv6] dns=2001:1::1f;",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v6_and_v4]",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: dhcp6}, {type: dhcp4}]}
        ",
        eni: &["auto iface0", "iface iface0 inet dhcp", "iface iface0 inet6 dhcp"],
        netplan: &["ethernets/iface0/dhcp4 = true", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=yes"],
        nm: &[
            "iface0 [ipv4] method=auto && may-fail=true",
            "iface0 [ipv6] method=auto && may-fail=true",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_only] yaml_v1",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: dhcp6}]}
        ",
        eni: &["auto iface0", "iface iface0 inet6 dhcp", "!iface iface0 inet"],
        netplan: &["ethernets/iface0/dhcp6 = true", "!ethernets/iface0/dhcp4"],
        networkd: &["iface0.network [Network] DHCP=ipv6"],
        nm: &["iface0 [ipv6] method=auto && may-fail=false"],
        ..ROW
    },
    Row {
        // cloud-init writes no [ipv4], so NetworkManager would run DHCPv4 too.
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_only] yaml_v2",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp6: true}
        ",
        eni: &["auto iface0", "iface iface0 inet6 dhcp"],
        netplan: &["ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=ipv6"],
        nm: &["iface0 [ipv4] method=disabled", "iface0 [ipv6] method=auto && may-fail=false"],
        differs: Some("IPv4 `disabled` on IPv6-only interfaces"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_accept_ra] yaml_v1",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: dhcp6}], accept-ra: true}
        ",
        netplan: &["ethernets/iface0/accept-ra = true", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=ipv6 && IPv6AcceptRA=yes"],
        nm: &["iface0 [ipv6] method=auto"],
        ..ROW
    },
    Row {
        // cloud-init writes `accept-ra 1`, which ifupdown does not know.
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_accept_ra] yaml_v2 eni",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp6: true, accept-ra: true}
        ",
        eni: &["auto iface0", "iface iface0 inet6 dhcp | accept_ra 1"],
        netplan: &["ethernets/iface0/accept-ra = true", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=ipv6 && IPv6AcceptRA=yes"],
        differs: Some("`hwaddress`; `accept_ra` on the"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_reject_ra] yaml_v1",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: dhcp6}], accept-ra: false}
        ",
        eni: &["iface iface0 inet6 dhcp | accept_ra 0"],
        netplan: &["ethernets/iface0/accept-ra = false", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=ipv6 && IPv6AcceptRA=no"],
        // Without router advertisements, DHCPv6 must be asked for outright.
        nm: &["iface0 [ipv6] method=dhcp"],
        differs: Some("`hwaddress`; `accept_ra` on the"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_reject_ra] yaml_v2",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp6: true, accept-ra: false}
        ",
        netplan: &["ethernets/iface0/accept-ra = false", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=ipv6 && IPv6AcceptRA=no"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[ipv6_slaac]",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: ipv6_slaac}]}
        ",
        eni: &["auto iface0", "iface iface0 inet6 auto | dhcp 0"],
        nm: &[
            "iface0 [ipv6] method=auto && may-fail=false",
            "iface0 [ipv4] method=disabled",
        ],
        networkd: &["iface0.network [Network] DHCP=no && IPv6AcceptRA=yes"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[ipv6_slaac] netplan",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: ipv6_slaac}]}
        ",
        netplan: &["ethernets/iface0/accept-ra = true", "!ethernets/iface0/dhcp6"],
        differs: Some("`accept-ra: true`, not `dhcp6: true`"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[static6] yaml_v1",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                accept-ra: 'no'
                subnets: [{type: static6, address: 2001:1::1/64}]
        ",
        eni: &["auto iface0", "iface iface0 inet6 static | address 2001:1::1/64 && accept_ra 0"],
        netplan: &[
            "ethernets/iface0/accept-ra = false",
            "ethernets/iface0/addresses = [2001:1::1/64]",
        ],
        networkd: &[
            "iface0.network [Network] IPv6AcceptRA=no",
            "iface0.network [Address] Address=2001:1::1/64",
        ],
        nm: &["iface0 [ipv6] method=manual && address1=2001:1::1/64"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[static6] yaml_v2",
        input: "
            version: 2
            ethernets:
              iface0: {accept-ra: false, addresses: [2001:1::1/64]}
        ",
        eni: &["iface iface0 inet6 static | address 2001:1::1/64 && accept_ra 0"],
        netplan: &["ethernets/iface0/accept-ra = false"],
        networkd: &["iface0.network [Network] IPv6AcceptRA=no"],
        nm: &["iface0 [ipv6] method=manual && address1=2001:1::1/64"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_stateless]",
        input: "
            version: 1
            config:
              - {type: physical, name: iface0, subnets: [{type: ipv6_dhcpv6-stateless}]}
        ",
        eni: &["auto iface0", "iface iface0 inet6 auto | dhcp 1"],
        nm: &[
            "iface0 [ipv6] method=auto && may-fail=false",
            "iface0 [ipv4] method=disabled",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[dhcpv6_stateful]",
        input: "
            version: 1
            config:
              - type: physical
                name: iface0
                subnets: [{type: ipv6_dhcpv6-stateful}]
                accept-ra: true
        ",
        eni: &["auto iface0", "iface iface0 inet6 dhcp"],
        netplan: &["ethernets/iface0/accept-ra = true", "ethernets/iface0/dhcp6 = true"],
        networkd: &["iface0.network [Network] DHCP=ipv6 && IPv6AcceptRA=yes"],
        nm: &["iface0 [ipv6] method=dhcp"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[wakeonlan_disabled]",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp4: true, wakeonlan: false}
        ",
        eni: &["auto iface0", "iface iface0 inet dhcp | !ethernet-wol g"],
        netplan: &["ethernets/iface0/dhcp4 = true", "ethernets/iface0/wakeonlan = false"],
        nm: &["iface0 [ethernet] !wake-on-lan=64", "iface0 [ipv4] method=auto && may-fail=false"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[wakeonlan_enabled]",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp4: true, wakeonlan: true}
        ",
        eni: &["auto iface0", "iface iface0 inet dhcp | ethernet-wol g"],
        netplan: &["ethernets/iface0/dhcp4 = true", "ethernets/iface0/wakeonlan = true"],
        nm: &["iface0 [ethernet] wake-on-lan=64", "iface0 [ipv4] method=auto && may-fail=false"],
        ..ROW
    },
    Row {
        // cloud-init's networkd writes no wake-on-LAN setting.
        upstream: "network_configs.py::NETWORK_CONFIGS[wakeonlan_enabled] networkd",
        input: "
            version: 2
            ethernets:
              iface0: {dhcp4: true, wakeonlan: true}
        ",
        networkd: &["iface0.link [Link] WakeOnLan=magic"],
        differs: Some("wake-on-LAN in networkd"),
        ..ROW
    },
];

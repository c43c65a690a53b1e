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
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[large_v1]",
        input: LARGE_V1,
        eni: &[
            "iface lo inet loopback | dns-nameservers 8.8.8.8 4.4.4.4 8.8.4.4 \
             && dns-search barley.maas wark.maas foobar.maas",
            "iface eth0 inet manual",
            "!auto eth0",
            "auto eth1",
            "iface eth1 inet manual | bond-master bond0 && bond-mode active-backup \
             && bond-miimon 100 && bond-xmit-hash-policy layer3+4",
            "auto eth2",
            "iface eth3 inet manual",
            "iface eth4 inet manual",
            "!auto eth5",
            "iface eth5 inet dhcp",
            "auto ib0",
            "iface ib0 inet static | address 192.168.200.7/24 && mtu 9000",
            "auto bond0",
            "iface bond0 inet6 dhcp | bond-slaves none && bond-mode active-backup \
             && hwaddress aa:bb:cc:dd:ee:ff",
            "auto br0",
            "iface br0 inet static | address 192.168.14.2/24 && bridge_ports eth3 eth4 \
             && bridge_ageing 250 && bridge_bridgeprio 22 && bridge_fd 1 && bridge_hello 1 \
             && bridge_maxage 10 && bridge_pathcost eth3 50 && bridge_pathcost eth4 75 \
             && bridge_portprio eth3 28 && bridge_portprio eth4 14 && bridge_stp off \
             && hwaddress bb:bb:bb:bb:bb:aa",
            "iface br0 inet6 static | address 2001:1::1/64 \
             && post-up ip -6 route add default via 2001:4800:78ff:1b::1 dev br0 || true",
            "auto bond0.200",
            "iface bond0.200 inet dhcp | vlan-raw-device bond0 && vlan_id 200",
            "auto eth0.101",
            "iface eth0.101 inet static | address 192.168.0.2/24 && gateway 192.168.0.1 \
             && mtu 1500 && hwaddress aa:bb:cc:dd:ee:11 && vlan-raw-device eth0 && vlan_id 101 \
             && dns-nameservers 192.168.0.10 10.23.23.134 \
             && dns-search barley.maas sacchromyces.maas brettanomyces.maas",
            "iface eth0.101 inet static | address 192.168.2.10/24",
        ],
        netplan: &[
            "ethernets/eth5/dhcp4 = true",
            "bonds/bond0/dhcp6 = true",
            "bonds/bond0/interfaces = [eth1, eth2]",
            "bonds/bond0/macaddress = aa:bb:cc:dd:ee:ff",
            "bonds/bond0/parameters = {mii-monitor-interval: 100, mode: active-backup, \
             transmit-hash-policy: layer3+4}",
            "bridges/br0/addresses = [192.168.14.2/24, 2001:1::1/64]",
            "bridges/br0/interfaces = [eth3, eth4]",
            "bridges/br0/nameservers/addresses = [8.8.8.8, 4.4.4.4, 8.8.4.4]",
            "bridges/br0/parameters = {ageing-time: 250, forward-delay: 1, hello-time: 1, \
             max-age: 10, path-cost: {eth3: 50, eth4: 75}, \
             port-priority: {eth3: 28, eth4: 14}, priority: 22, stp: false}",
            "bridges/br0/routes = {to: default, via: 2001:4800:78ff:1b::1}",
            "vlans/bond0.200 = {dhcp4: true, id: 200, link: bond0}",
            "vlans/eth0.101 = {addresses: [192.168.0.2/24, 192.168.2.10/24], id: 101, \
             link: eth0, macaddress: aa:bb:cc:dd:ee:11, mtu: 1500}",
            "vlans/eth0.101/routes = {to: default, via: 192.168.0.1}",
        ],
        networkd: &[
            "eth1.network [Network] Bond=bond0",
            "eth3.network [Network] Bridge=br0",
            "eth3.network [Bridge] Cost=50 && Priority=28",
            "bond0.netdev [Bond] Mode=active-backup && TransmitHashPolicy=layer3+4",
            "bond0.network [Network] DHCP=ipv6",
            "br0.netdev [Bridge] STP=no && Priority=22",
            "br0.network [Address] Address=2001:1::1/64",
            "br0.network [Route] Destination=::/0 && Gateway=2001:4800:78ff:1b::1",
            "eth0.101.netdev [VLAN] Id=101",
            "eth0.network [Network] VLAN=eth0.101",
            "eth0.101.network [Route] Gateway=192.168.0.1",
            "bond0.200.network [Network] DHCP=ipv4",
        ],
        nm: &[
            "bond0.200 [connection] type=vlan",
            "bond0.200 [vlan] id=200 && parent=54317911-f840-516b-a10d-82cb4c1f075c",
            "bond0.200 [ipv4] method=auto && may-fail=false",
            "bond0 [bond] mode=active-backup && xmit_hash_policy=layer3+4",
            "bond0 [ipv6] method=auto && may-fail=false",
            "br0 [bridge] stp=false && priority=22 && mac-address=BB:BB:BB:BB:BB:AA",
            "br0 [ipv4] method=manual && address1=192.168.14.2/24 \
             && dns=8.8.8.8;4.4.4.4;8.8.4.4; && dns-search=barley.maas;wark.maas;foobar.maas;",
            "br0 [ipv6] method=manual && address1=2001:1::1/64 \
             && route1=::/0,2001:4800:78ff:1b::1",
            "eth0.101 [vlan] id=101 && parent=1dd9a779-d327-56e1-8454-c65e2556c12c",
            "eth0.101 [ipv4] method=manual && address1=192.168.0.2/24 \
             && address2=192.168.2.10/24 && gateway=192.168.0.1 \
             && dns=192.168.0.10;10.23.23.134;",
            "eth1 [connection] slave-type=bond && master=54317911-f840-516b-a10d-82cb4c1f075c",
            "eth1 ![ipv4]",
            "eth3 [connection] slave-type=bridge && master=dee46ce4-af7a-5e7c-aa08-b25533ae9213",
            "eth5 [ipv4] method=auto && may-fail=false && dns=8.8.8.8;4.4.4.4;8.8.4.4;",
            "ib0 [connection] type=infiniband",
            "ib0 [infiniband] transport-mode=datagram && mtu=9000 \
             && mac-address=A0:00:02:20:FE:80:00:00:00:00:00:00:EC:0D:9A:03:00:15:E2:C1",
            "ib0 [ipv4] method=manual && address1=192.168.200.7/24",
        ],
        ..ROW
    },
    Row {
        // v1 `control: manual` is kept by every renderer: cloud-init's ENI alone says it.
        upstream: "network_configs.py::NETWORK_CONFIGS[large_v1] control manual",
        input: LARGE_V1,
        eni: &["!auto eth5", "!allow-hotplug eth5"],
        netplan: &["ethernets/eth5/activation-mode = manual"],
        networkd: &["eth5.network [Link] ActivationPolicy=manual"],
        nm: &["eth5 [connection] autoconnect=false"],
        differs: Some("Every renderer keeps what cloud-init drops"),
        ..ROW
    },
    Row {
        // cloud-init's networkd writes no `.netdev` at all, nor this.
        upstream: "network_configs.py::NETWORK_CONFIGS[large_v1] carrier",
        input: LARGE_V1,
        networkd: &[
            "bond0.network [Network] ConfigureWithoutCarrier=yes",
            "br0.network [Network] ConfigureWithoutCarrier=yes",
            "eth0.101.network [Network] ConfigureWithoutCarrier=yes",
            "eth5.network [Network] !ConfigureWithoutCarrier=yes",
        ],
        differs: Some("networkd writes `ConfigureWithoutCarrier=yes` on bonds, bridges and vlans"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[large_v2]",
        input: r#"
            version: 2
            ethernets:
              eth0: {match: {macaddress: "c0:d6:9f:2c:e8:80"}, set-name: eth0}
              eth1: {match: {macaddress: "aa:d6:9f:2c:e8:80"}, set-name: eth1}
              eth2: {match: {macaddress: "c0:bb:9f:2c:e8:80"}, set-name: eth2}
              eth3: {match: {macaddress: "66:bb:9f:2c:e8:80"}, set-name: eth3}
              eth4: {match: {macaddress: "98:bb:9f:2c:e8:80"}, set-name: eth4}
              eth5: {dhcp4: true, match: {macaddress: "98:bb:9f:2c:e8:8a"}, set-name: eth5}
            bonds:
              bond0:
                dhcp6: true
                interfaces: [eth1, eth2]
                macaddress: aa:bb:cc:dd:ee:ff
                parameters:
                  mii-monitor-interval: 100
                  mode: active-backup
                  transmit-hash-policy: layer3+4
            bridges:
              br0:
                addresses: [192.168.14.2/24, 2001:1::1/64]
                interfaces: [eth3, eth4]
                macaddress: bb:bb:bb:bb:bb:aa
                nameservers:
                  addresses: [8.8.8.8, 4.4.4.4, 8.8.4.4]
                  search: [barley.maas, wark.maas, foobar.maas]
                parameters:
                  ageing-time: 250
                  forward-delay: 1
                  hello-time: 1
                  max-age: 10
                  path-cost: {eth3: 50, eth4: 75}
                  port-priority: {eth3: 28, eth4: 14}
                  priority: 22
                  stp: false
                routes:
                  - {to: "::/0", via: "2001:4800:78ff:1b::1"}
            vlans:
              bond0.200: {dhcp4: true, id: 200, link: bond0}
              eth0.101:
                addresses: [192.168.0.2/24, 192.168.2.10/24]
                id: 101
                link: eth0
                macaddress: aa:bb:cc:dd:ee:11
                mtu: 1500
                nameservers:
                  addresses: [192.168.0.10, 10.23.23.134]
                  search: [barley.maas, sacchromyces.maas, brettanomyces.maas]
                routes:
                  - {to: 0.0.0.0/0, via: 192.168.0.1}
        "#,
        eni: &[
            "iface eth0 inet manual",
            "auto eth1",
            "iface eth1 inet manual | bond-master bond0 && bond-mode active-backup \
             && bond-miimon 100",
            "auto eth5",
            "iface eth5 inet dhcp",
            "iface bond0 inet6 dhcp | bond-slaves none && hwaddress aa:bb:cc:dd:ee:ff",
            "iface br0 inet static | address 192.168.14.2/24 && bridge_ports eth3 eth4 \
             && bridge_stp off && bridge_pathcost eth3 50 && bridge_portprio eth4 14 \
             && dns-nameservers 8.8.8.8 4.4.4.4 8.8.4.4",
            "iface br0 inet6 static | address 2001:1::1/64",
            "iface eth0.101 inet static | address 192.168.0.2/24 && mtu 1500 \
             && vlan-raw-device eth0 && vlan_id 101",
            "iface eth0.101 | post-up ip route add default via 192.168.0.1 dev eth0.101 || true",
            "iface bond0.200 inet dhcp | vlan-raw-device bond0 && vlan_id 200",
        ],
        nm: &[
            "bond0 [bond] mode=active-backup && miimon=100 && xmit_hash_policy=layer3+4",
            "bond0 [ipv6] method=auto",
            "br0 [bridge] stp=false && priority=22",
            "br0 [ipv4] method=manual && address1=192.168.14.2/24 && dns=8.8.8.8;4.4.4.4;8.8.4.4;",
            "br0 [ipv6] route1=::/0,2001:4800:78ff:1b::1",
            "eth0.101 [ipv4] method=manual && address1=192.168.0.2/24 \
             && address2=192.168.2.10/24 && route1=0.0.0.0/0,192.168.0.1",
            "eth0.101 [vlan] id=101",
            "eth0.101 [ethernet] mtu=1500",
            "eth3 [connection] slave-type=bridge",
            "eth3 [bridge-port] priority=28 && path-cost=50",
        ],
        networkd: &[
            "bond0.netdev [Bond] Mode=active-backup && MIIMonitorSec=100ms",
            "br0.netdev [Bridge] STP=no && HelloTimeSec=1 && MaxAgeSec=10 && AgeingTimeSec=250",
            "eth4.network [Bridge] Cost=75 && Priority=14",
        ],
        warns: &["br0.forward-delay: NetworkManager takes 2 to 30 seconds"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[bond_v1]",
        input: "
            version: 1
            config:
              - {type: physical, name: bond0s0, mac_address: aa:bb:cc:dd:e8:00}
              - {type: physical, name: bond0s1, mac_address: aa:bb:cc:dd:e8:01}
              - type: bond
                name: bond0
                mac_address: aa:bb:cc:dd:e8:ff
                mtu: 9000
                bond_interfaces: [bond0s0, bond0s1]
                params:
                  bond-mode: active-backup
                  bond_miimon: 100
                  bond-xmit_hash_policy: layer3+4
                  bond-num_grat_arp: 5
                  bond-downdelay: 10
                  bond-updelay: 20
                  bond-fail_over_mac: active
                  bond-primary: bond0s0
                  bond-primary_reselect: always
                subnets:
                  - type: static
                    address: 192.168.0.2/24
                    gateway: 192.168.0.1
                    routes:
                      - {gateway: 192.168.0.3, netmask: 255.255.255.0, network: 10.1.3.0}
                  - {type: static, address: 192.168.1.2/24}
                  - type: static
                    address: 2001:1::1/92
                    routes:
                      - {gateway: '2001:67c:1562::1', network: '2001:67c::',
                         netmask: 'ffff:ffff::'}
                      - {gateway: '3001:67c:15::1', network: '3001:67c::',
                         netmask: 'ffff:ffff::', metric: 10000}
        ",
        eni: &[
            "auto bond0s0",
            "iface bond0s0 inet manual | bond-master bond0 && bond-mode active-backup \
             && bond-downdelay 10 && bond-fail-over-mac active && bond-miimon 100 \
             && bond-num-grat-arp 5 && bond-primary bond0s0 && bond-primary-reselect always \
             && bond-updelay 20 && bond-xmit-hash-policy layer3+4",
            "auto bond0s1",
            "auto bond0",
            "iface bond0 inet static | address 192.168.0.2/24 && gateway 192.168.0.1 \
             && bond-slaves none && hwaddress aa:bb:cc:dd:e8:ff && mtu 9000 \
             && post-up ip route add 10.1.3.0/24 via 192.168.0.3 dev bond0 || true",
            "iface bond0 inet static | address 192.168.1.2/24",
            "iface bond0 inet6 static | address 2001:1::1/92 \
             && post-up ip -6 route add 2001:67c::/32 via 2001:67c:1562::1 dev bond0 || true \
             && post-up ip -6 route add 3001:67c::/32 via 3001:67c:15::1 dev bond0 metric 10000 || true",
        ],
        netplan: &[
            "bonds/bond0/addresses = [192.168.0.2/24, 192.168.1.2/24, 2001:1::1/92]",
            "bonds/bond0/interfaces = [bond0s0, bond0s1]",
            "bonds/bond0/macaddress = aa:bb:cc:dd:e8:ff",
            "bonds/bond0/mtu = 9000",
            "bonds/bond0/parameters = {down-delay: 10, fail-over-mac-policy: active, \
             gratuitous-arp: 5, mii-monitor-interval: 100, mode: active-backup, \
             primary: bond0s0, primary-reselect-policy: always, \
             transmit-hash-policy: layer3+4, up-delay: 20}",
            "bonds/bond0/routes = [{to: default, via: 192.168.0.1}, \
             {to: 10.1.3.0/24, via: 192.168.0.3}, {to: '2001:67c::/32', via: '2001:67c:1562::1'}, \
             {metric: 10000, to: '3001:67c::/32', via: '3001:67c:15::1'}]",
        ],
        networkd: &[
            "bond0.netdev [Bond] Mode=active-backup && TransmitHashPolicy=layer3+4 \
             && MIIMonitorSec=100ms && UpDelaySec=20ms && DownDelaySec=10ms \
             && FailOverMACPolicy=active && PrimaryReselectPolicy=always && GratuitousARP=5",
            "bond0s0.network [Network] Bond=bond0 && PrimarySlave=yes",
            "bond0.network [Route] Destination=3001:67c::/32 && Gateway=3001:67c:15::1 \
             && Metric=10000",
        ],
        nm: &[
            "bond0 [bond] mode=active-backup && xmit_hash_policy=layer3+4 && num_grat_arp=5 \
             && downdelay=10 && updelay=20 && fail_over_mac=active \
             && primary_reselect=always && primary=bond0s0",
            "bond0 [ipv4] method=manual && may-fail=false && address1=192.168.0.2/24 \
             && gateway=192.168.0.1 && route1=10.1.3.0/24,192.168.0.3 \
             && address2=192.168.1.2/24",
            "bond0 [ipv6] method=manual && may-fail=false && address1=2001:1::1/92 \
             && route1=2001:67c::/32,2001:67c:1562::1 \
             && route2=3001:67c::/32,3001:67c:15::1,10000",
            "bond0 [ethernet] mtu=9000",
            "bond0s0 [connection] slave-type=bond && master=54317911-f840-516b-a10d-82cb4c1f075c",
            "bond0s0 [ethernet] mac-address=AA:BB:CC:DD:E8:00",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[bond_v2]",
        input: "
            version: 2
            ethernets:
              bond0s0:
                match: {driver: virtio_net, macaddress: aa:bb:cc:dd:e8:00}
                set-name: bond0s0
              bond0s1:
                set-name: bond0s1
                match: {driver: e1000, macaddress: aa:bb:cc:dd:e8:01}
            bonds:
              bond0:
                addresses: [192.168.0.2/24, 192.168.1.2/24, 2001:1::1/92]
                interfaces: [bond0s0, bond0s1]
                macaddress: aa:bb:cc:dd:e8:ff
                mtu: 9000
                parameters:
                  down-delay: 10
                  fail-over-mac-policy: active
                  gratuitous-arp: 5
                  mii-monitor-interval: 100
                  mode: active-backup
                  primary: bond0s0
                  primary-reselect-policy: always
                  transmit-hash-policy: layer3+4
                  up-delay: 20
                routes:
                  - {to: 0.0.0.0/0, via: 192.168.0.1}
                  - {to: 10.1.3.0/24, via: 192.168.0.3}
                  - {to: '2001:67c::/32', via: '2001:67c:1562::1'}
                  - {metric: 10000, to: '3001:67c::/32', via: '3001:67c:15::1'}
        ",
        eni: &[
            "auto bond0s0",
            "iface bond0s0 inet manual | bond-master bond0 && bond-mode active-backup \
             && bond-downdelay 10 && bond-fail-over-mac active && bond-num-grat-arp 5 \
             && bond-primary bond0s0 && bond-primary-reselect always && bond-updelay 20 \
             && bond-xmit-hash-policy layer3+4",
            "auto bond0",
            "iface bond0 inet static | address 192.168.0.2/24 && bond-slaves none \
             && hwaddress aa:bb:cc:dd:e8:ff && mtu 9000",
            "iface bond0 | post-up ip route add default via 192.168.0.1 dev bond0 || true",
            "iface bond0 | post-up ip route add 10.1.3.0/24 via 192.168.0.3 dev bond0 || true",
            "iface bond0 inet static | address 192.168.1.2/24",
            "iface bond0 inet6 static | address 2001:1::1/92 \
             && post-up ip -6 route add 2001:67c::/32 via 2001:67c:1562::1 dev bond0 || true",
        ],
        nm: &[
            "bond0 [bond] mode=active-backup && num_grat_arp=5 && downdelay=10 && updelay=20 \
             && fail_over_mac=active && primary_reselect=always && primary=bond0s0",
            "bond0 [ipv4] method=manual && address1=192.168.0.2/24 && address2=192.168.1.2/24 \
             && route1=0.0.0.0/0,192.168.0.1 && route2=10.1.3.0/24,192.168.0.3",
            "bond0 [ipv6] method=manual && address1=2001:1::1/92 \
             && route1=2001:67c::/32,2001:67c:1562::1 \
             && route2=3001:67c::/32,3001:67c:15::1,10000",
            "bond0s0 [connection] slave-type=bond && master=54317911-f840-516b-a10d-82cb4c1f075c",
            "bond0s1 [ethernet] mac-address=AA:BB:CC:DD:E8:01",
        ],
        networkd: &[
            "bond0.netdev [Bond] Mode=active-backup && PrimaryReselectPolicy=always",
            "bond0s0.network [Network] Bond=bond0 && PrimarySlave=yes",
        ],
        ..ROW
    },
    Row {
        // cloud-init matches by MAC alone outside netplan.
        upstream: "network_configs.py::NETWORK_CONFIGS[bond_v2] driver match",
        input: "
            version: 2
            ethernets:
              bond0s0:
                match: {driver: virtio_net, macaddress: aa:bb:cc:dd:e8:00}
                set-name: bond0s0
            bonds:
              bond0: {interfaces: [bond0s0], addresses: [192.168.0.2/24]}
        ",
        networkd: &[
            "bond0s0.network [Match] Driver=virtio_net && MACAddress=aa:bb:cc:dd:e8:00",
            "bond0s0.link [Match] Driver=virtio_net",
        ],
        nm: &["bond0s0 [match] driver=virtio_net;"],
        differs: Some("`match` by `driver` or `name`"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[vlan_v1]",
        input: "
            version: 1
            config:
              - {type: physical, name: en0, mac_address: aa:bb:cc:dd:e8:00}
              - type: vlan
                mtu: 2222
                name: en0.99
                vlan_link: en0
                vlan_id: 99
                subnets:
                  - {type: static, address: 192.168.2.2/24}
                  - {type: static, address: 192.168.1.2/24, gateway: 192.168.1.1}
                  - type: static
                    address: 2001:1::bbbb/96
                    routes: [{gateway: '2001:1::1', netmask: '::', network: '::'}]
        ",
        eni: &[
            "iface en0 inet manual",
            "auto en0.99",
            "iface en0.99 inet static | address 192.168.2.2/24 && mtu 2222 \
             && vlan-raw-device en0 && vlan_id 99",
            "iface en0.99 inet static | address 192.168.1.2/24 && gateway 192.168.1.1",
            "iface en0.99 inet6 static | address 2001:1::bbbb/96 \
             && post-up ip -6 route add default via 2001:1::1 dev en0.99 || true",
        ],
        netplan: &[
            "vlans/en0.99 = {id: 99, link: en0, mtu: 2222}",
            "vlans/en0.99/addresses = [192.168.2.2/24, 192.168.1.2/24, 2001:1::bbbb/96]",
            "vlans/en0.99/routes = [{to: default, via: 192.168.1.1}, \
             {to: default, via: '2001:1::1'}]",
        ],
        networkd: &[
            "en0.99.netdev [NetDev] Name=en0.99 && Kind=vlan",
            "en0.99.netdev [VLAN] Id=99",
            "en0.network [Network] VLAN=en0.99",
            "en0.99.network [Route] Gateway=192.168.1.1",
            "en0.99.network [Route] Destination=::/0 && Gateway=2001:1::1",
        ],
        nm: &[
            "en0.99 [connection] type=vlan && interface-name=en0.99",
            "en0.99 [vlan] id=99 && parent=e0ca478b-8d84-52ab-8fae-628482c629b5",
            "en0.99 [ipv4] method=manual && may-fail=false && address1=192.168.2.2/24 \
             && address2=192.168.1.2/24 && gateway=192.168.1.1",
            "en0.99 [ipv6] method=manual && may-fail=false && address1=2001:1::bbbb/96 \
             && route1=::/0,2001:1::1",
            "en0 [ethernet] mac-address=AA:BB:CC:DD:E8:00",
        ],
        ..ROW
    },
    Row {
        // cloud-init's keyfile drops a vlan's MTU.
        upstream: "network_configs.py::NETWORK_CONFIGS[vlan_v1] vlan MTU",
        input: "
            version: 1
            config:
              - {type: physical, name: en0, mac_address: aa:bb:cc:dd:e8:00}
              - {type: vlan, mtu: 2222, name: en0.99, vlan_link: en0, vlan_id: 99,
                 subnets: [{type: static, address: 192.168.2.2/24}]}
        ",
        nm: &["en0.99 [ethernet] mtu=2222"],
        networkd: &["en0.99.network [Link] MTUBytes=2222"],
        differs: Some("MTUs and MACs of virtual devices"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[vlan_v2]",
        input: "
            version: 2
            ethernets:
              en0: {match: {macaddress: aa:bb:cc:dd:e8:00}, set-name: en0}
            vlans:
              en0.99:
                addresses: [192.168.2.2/24, 192.168.1.2/24, 2001:1::bbbb/96]
                id: 99
                link: en0
                mtu: 2222
                routes:
                  - {to: 0.0.0.0/0, via: 192.168.1.1}
                  - {to: '::/0', via: '2001:1::1'}
        ",
        eni: &[
            "auto en0.99",
            "iface en0.99 inet static | address 192.168.2.2/24 && vlan-raw-device en0",
            "iface en0.99 | post-up ip route add default via 192.168.1.1 dev en0.99 || true",
            "iface en0.99 inet6 static | address 2001:1::bbbb/96 \
             && post-up ip -6 route add default via 2001:1::1 dev en0.99 || true",
        ],
        nm: &[
            "en0.99 [vlan] id=99 && parent=e0ca478b-8d84-52ab-8fae-628482c629b5",
            "en0.99 [ipv4] method=manual && address1=192.168.2.2/24 \
             && address2=192.168.1.2/24 && route1=0.0.0.0/0,192.168.1.1",
            "en0.99 [ipv6] method=manual && address1=2001:1::bbbb/96 && route1=::/0,2001:1::1",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[bridge] yaml_v1",
        input: BRIDGE_V1,
        eni: &[
            "auto br0",
            "iface br0 inet static | address 192.168.2.2/24 && bridge_bridgeprio 22 \
             && bridge_ports eth0 eth1 && bridge_stp off",
            "iface eth0 inet6 static | address 2001:1::100/96",
        ],
        netplan: &[
            "bridges/br0/addresses = [192.168.2.2/24]",
            "bridges/br0/interfaces = [eth0, eth1]",
            "bridges/br0/parameters = {priority: 22, stp: false}",
            "ethernets/eth0/addresses = [2001:1::100/96]",
        ],
        networkd: &[
            "br0.netdev [Bridge] STP=no && Priority=22",
            "br0.network [Address] Address=192.168.2.2/24",
            "eth0.network [Network] Bridge=br0",
            "eth0.network [Address] Address=2001:1::100/96",
        ],
        nm: &[
            "br0 [bridge] stp=false && priority=22",
            "br0 [ipv4] method=manual && may-fail=false && address1=192.168.2.2/24",
            "eth0 [connection] slave-type=bridge && master=dee46ce4-af7a-5e7c-aa08-b25533ae9213",
            "eth1 [ethernet] mac-address=52:54:00:12:34:01",
        ],
        warns: &["a bond or bridge member takes no addresses"],
        ..ROW
    },
    Row {
        // cloud-init writes the ports' own addresses into their keyfiles.
        upstream: "network_configs.py::NETWORK_CONFIGS[bridge] port addresses",
        input: BRIDGE_V1,
        nm: &["eth0 ![ipv6]", "eth1 ![ipv6]"],
        differs: Some("a bond or bridge port's addresses are left out of its keyfile"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[bridge] yaml_v2",
        input: "
            version: 2
            ethernets:
              eth0: {addresses: ['2001:1::100/96'], match: {macaddress: '52:54:00:12:34:00'},
                     set-name: eth0}
              eth1: {addresses: ['2001:1::101/96'], match: {macaddress: '52:54:00:12:34:01'},
                     set-name: eth1}
            bridges:
              br0:
                addresses: [192.168.2.2/24]
                interfaces: [eth0, eth1]
                parameters: {priority: 22, stp: false}
        ",
        eni: &["iface br0 inet static | address 192.168.2.2/24 && bridge_ports eth0 eth1"],
        networkd: &["br0.netdev [Bridge] STP=no && Priority=22"],
        nm: &[
            "br0 [bridge] stp=false && priority=22",
            "br0 [ipv4] method=manual && address1=192.168.2.2/24",
            "eth1 [connection] slave-type=bridge",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[manual]",
        input: MANUAL,
        eni: &[
            "!auto eth0",
            "iface eth0 inet static | address 192.168.1.2/24",
            "auto eth1",
            "iface eth1 inet manual | mtu 1480",
            "!auto eth2",
            "iface eth2 inet manual",
        ],
        netplan: &[
            "ethernets/eth0/addresses = [192.168.1.2/24]",
            "ethernets/eth0/match/macaddress = '52:54:00:12:34:00'",
            "ethernets/eth1/mtu = 1480",
            "ethernets/eth2/set-name = eth2",
        ],
        nm: &[
            "eth0 [ipv4] method=manual && may-fail=false && address1=192.168.1.2/24",
            "eth1 [ethernet] mtu=1480 && mac-address=52:54:00:12:34:AA",
        ],
        ..ROW
    },
    Row {
        // cloud-init's keyfile runs DHCP on a v1 `manual` subnet (its method table lacks it).
        upstream: "network_configs.py::NETWORK_CONFIGS[manual] keyfile",
        input: MANUAL,
        nm: &[
            "eth1 [ipv4] method=disabled",
            "eth1 [ipv6] method=ignore",
            "eth2 [ipv4] method=disabled",
        ],
        differs: Some("An interface without addresses or DHCP is not brought up"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v1-dns]",
        input: r#"
            version: 1
            config:
              - type: physical
                name: interface0
                mac_address: "11:22:33:44:55:66"
                subnets:
                  - {type: static, address: 192.168.1.20/16, gateway: 192.168.1.1,
                     dns_nameservers: [3.3.3.3], dns_search: [cccc]}
              - {type: nameserver, interface: interface0, address: [1.1.1.1], search: [aaaa]}
              - {type: nameserver, address: [2.2.2.2, "FEDC::1"], search: [bbbb]}
        "#,
        eni: &[
            "iface lo inet loopback | dns-nameservers 2.2.2.2 fedc::1 && dns-search bbbb",
            "auto interface0",
            "iface interface0 inet static | address 192.168.1.20/16 && gateway 192.168.1.1 \
             && dns-nameservers 3.3.3.3 1.1.1.1 && dns-search cccc aaaa",
        ],
        netplan: &[
            "ethernets/interface0/addresses = [192.168.1.20/16]",
            "ethernets/interface0/nameservers/addresses = [3.3.3.3, 1.1.1.1]",
            "ethernets/interface0/nameservers/search = [cccc, aaaa]",
            "ethernets/interface0/routes = {to: default, via: 192.168.1.1}",
        ],
        networkd: &[
            "interface0.network [Network] DHCP=no && DNS=3.3.3.3 && DNS=1.1.1.1",
            "interface0.network [Address] Address=192.168.1.20/16",
            "interface0.network [Route] Gateway=192.168.1.1",
        ],
        nm: &[
            "interface0 [ipv4] method=manual && may-fail=false && address1=192.168.1.20/16 \
             && gateway=192.168.1.1 && dns=3.3.3.3;1.1.1.1; && dns-search=cccc;aaaa;",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-dns]",
        input: r#"
            version: 2
            ethernets:
              eth0:
                nameservers: {search: [lab, home], addresses: [8.8.8.8, "FEDC::1"]}
                addresses: [192.168.1.20/16, "2001:bc8:1210:232:dc00:ff:fe20:185/64"]
        "#,
        eni: &[
            "auto eth0",
            "iface eth0 inet static | address 192.168.1.20/16 \
             && dns-nameservers 8.8.8.8 fedc::1 && dns-search lab home",
            "iface eth0 inet6 static | address 2001:bc8:1210:232:dc00:ff:fe20:185/64",
        ],
        networkd: &[
            "eth0.network [Network] DHCP=no && DNS=8.8.8.8 && DNS=fedc::1 && Domains=lab home",
            "eth0.network [Address] Address=2001:bc8:1210:232:dc00:ff:fe20:185/64",
        ],
        nm: &[
            "eth0 [ipv4] method=manual && address1=192.168.1.20/16 && dns=8.8.8.8; \
             && dns-search=lab;home;",
            "eth0 [ipv6] method=manual && address1=2001:bc8:1210:232:dc00:ff:fe20:185/64 \
             && dns=fedc::1;",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-dns-no-if-ips]",
        input: r#"
            version: 2
            ethernets:
              eth0:
                dhcp4: true
                dhcp6: true
                nameservers: {search: [lab, home], addresses: [8.8.8.8, "FEDC::1"]}
        "#,
        eni: &["auto eth0", "iface eth0 inet dhcp", "iface eth0 inet6 dhcp"],
        nm: &[
            "eth0 [ipv4] method=auto && may-fail=true && dns=8.8.8.8; && dns-search=lab;home;",
            "eth0 [ipv6] method=auto && may-fail=true && dns=fedc::1;",
        ],
        networkd: &["eth0.network [Network] DHCP=yes && DNS=8.8.8.8 && DNS=fedc::1"],
        ..ROW
    },
    Row {
        // Resolvers on an interface that takes no addresses: cloud-init's keyfile leaves them
        // out too; ENI and networkd keep them.
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-dns-no-dhcp]",
        input: r#"
            version: 2
            ethernets:
              eth0:
                nameservers: {search: [lab, home], addresses: [8.8.8.8, "FEDC::1"]}
        "#,
        eni: &["!auto eth0", "iface eth0 inet manual"],
        nm: &["eth0 [ipv4] !dns=8.8.8.8;", "eth0 [ipv6] !dns=fedc::1;"],
        warns: &["eth0.nameservers: a resolver of a disabled family; left out"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-mixed-routes]",
        input: r#"
            version: 2
            ethernets:
              eth0:
                dhcp4: true
                dhcp6: true
                mtu: 500
                nameservers: {search: [lab, home], addresses: [8.8.8.8, "FEDC::1"]}
                routes:
                  - {to: 169.254.42.42/32, via: 62.210.0.1, mtu: 400}
                  - {via: "fe80::dc00:ff:fe20:186", to: "::/0", mtu: 300}
                  - {to: 169.254.42.43/32, via: 62.210.0.2, mtu: 200}
                  - {via: "fe80::dc00:ff:fe20:187", to: "fe80::dc00:ff:fe20:188", mtu: 100}
                addresses: [192.168.1.20/16, "2001:bc8:1210:232:dc00:ff:fe20:185/64"]
        "#,
        eni: &[
            "iface eth0 inet dhcp | mtu 500 \
             && post-up ip route add 169.254.42.42/32 via 62.210.0.1 dev eth0 mtu 400 || true \
             && post-up ip route add 169.254.42.43/32 via 62.210.0.2 dev eth0 mtu 200 || true",
            "iface eth0 inet6 dhcp \
             | post-up ip -6 route add default via fe80::dc00:ff:fe20:186 dev eth0 mtu 300 || true",
            "iface eth0 inet static | address 192.168.1.20/16",
            "iface eth0 inet6 static | address 2001:bc8:1210:232:dc00:ff:fe20:185/64",
        ],
        nm: &[
            "eth0 [ethernet] mtu=500",
            "eth0 [ipv4] method=auto && may-fail=true && route1=169.254.42.42/32,62.210.0.1 \
             && route1_options=mtu=400 && route2=169.254.42.43/32,62.210.0.2 \
             && route2_options=mtu=200 && address1=192.168.1.20/16 && dns=8.8.8.8;",
            "eth0 [ipv6] method=auto && may-fail=true && route1=::/0,fe80::dc00:ff:fe20:186 \
             && route1_options=mtu=300 && route2_options=mtu=100 \
             && address1=2001:bc8:1210:232:dc00:ff:fe20:185/64 && dns=fedc::1;",
        ],
        networkd: &[
            "eth0.network [Route] Destination=169.254.42.42/32 && Gateway=62.210.0.1 \
             && MTUBytes=400",
        ],
        ..ROW
    },
    Row {
        // A v2 route `to` without a prefix is a host route: /128, where cloud-init's ENI
        // and keyfile write /64.
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-mixed-routes] host route",
        input: r#"
            version: 2
            ethernets:
              eth0:
                dhcp6: true
                routes:
                  - {via: "fe80::dc00:ff:fe20:187", to: "fe80::dc00:ff:fe20:188", mtu: 100}
        "#,
        eni: &["iface eth0 inet6 dhcp | post-up ip -6 route add fe80::dc00:ff:fe20:188/128 \
                via fe80::dc00:ff:fe20:187 dev eth0 mtu 100 || true"],
        nm: &["eth0 [ipv6] route1=fe80::dc00:ff:fe20:188/128,fe80::dc00:ff:fe20:187"],
        differs: Some("a v2 route to an address without a prefix is a host route"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-mixed-routes-no-ipv6-addr]",
        input: r#"
            version: 2
            ethernets:
              eth0:
                dhcp4: true
                nameservers: {search: [lab, home], addresses: [8.8.8.8, "FEDC::1"]}
                routes:
                  - {to: 169.254.42.42/32, via: 62.210.0.1}
                  - {via: "fe80::dc00:ff:fe20:186", to: "::/0"}
                addresses: [192.168.1.20/16]
        "#,
        eni: &[
            "iface eth0 inet dhcp \
             | post-up ip route add 169.254.42.42/32 via 62.210.0.1 dev eth0 || true",
            "iface eth0 | post-up ip -6 route add default via fe80::dc00:ff:fe20:186 dev eth0 || true",
            "iface eth0 inet static | address 192.168.1.20/16",
        ],
        nm: &[
            "eth0 [ipv4] method=auto && may-fail=false && route1=169.254.42.42/32,62.210.0.1 \
             && address1=192.168.1.20/16 && dns=8.8.8.8;",
            "eth0 [ipv6] route1=::/0,fe80::dc00:ff:fe20:186 && dns=fedc::1;",
        ],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-route-no-gateway]",
        input: r#"
            version: 2
            ethernets:
              eth0:
                dhcp4: true
                routes: [{to: "0.0.0.0/0"}]
        "#,
        eni: &["iface eth0 inet dhcp | post-up ip route add default dev eth0 || true"],
        netplan: &["ethernets/eth0/routes = {to: 0.0.0.0/0}"],
        networkd: &["eth0.network [Route] Destination=0.0.0.0/0 && !Gateway=0.0.0.0"],
        nm: &["eth0 [ipv4] method=auto && may-fail=false && route1=0.0.0.0/0"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-bridges-set-name]",
        input: BRIDGES_SET_NAME,
        eni: &[
            "iface baremetal inet6 static | address fc00:1:1::2/64 && bridge_ports baremetal0",
            "iface provisioning inet6 static | address fc00:1:2::2/64 \
             && bridge_ports provisioning0",
        ],
        netplan: &["bridges/baremetal/interfaces = [baremetalport]"],
        networkd: &["baremetal0.network [Network] Bridge=baremetal"],
        nm: &[
            "baremetal [connection] type=bridge && interface-name=baremetal",
            "baremetal [ipv6] method=manual && may-fail=false && address1=fc00:1:1::2/64",
            "provisioning [ipv6] method=manual && address1=fc00:1:2::2/64",
        ],
        ..ROW
    },
    Row {
        // cloud-init names a port's keyfile after the v2 id (`baremetalport`); both say
        // `id=cloud-init baremetal0` and the same master.
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-bridges-set-name] keyfile names",
        input: BRIDGES_SET_NAME,
        nm: &[
            "baremetal0 [connection] id=cloud-init baremetal0 && slave-type=bridge \
             && master=e63eed9a-cd1c-55de-8d5e-1e80b756a482",
            "baremetal0 [ethernet] mac-address=52:54:00:BD:8F:CB",
            "provisioning0 [connection] master=e5bd3f1a-cdcc-55d3-a6d8-88f1ba73bd0e",
            "provisioning0 [ethernet] mac-address=52:54:00:25:AE:12",
            "!baremetalport",
        ],
        differs: Some("a keyfile is named after the interface's `set-name`"),
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[v2-dev-name-via-mac-lookup]",
        input: "
            version: 2
            ethernets:
              nic0: {match: {macaddress: 'cf:d6:af:48:e8:80'}}
        ",
        eni: &["iface nic0 inet manual"],
        netplan: &["ethernets/nic0/match/macaddress = 'cf:d6:af:48:e8:80'"],
        networkd: &["nic0.network [Match] MACAddress=cf:d6:af:48:e8:80"],
        nm: &["nic0 [ethernet] mac-address=CF:D6:AF:48:E8:80"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[all] bridge",
        input: ALL_BRIDGE,
        eni: &["iface br0 inet static | address 192.168.14.2/24 && bridge_ports eth3 eth4 \
                && bridge_ageing 250 && bridge_fd 1 && bridge_gcint 2 && bridge_stp off \
                && bridge_waitport 1 eth3 && bridge_waitport 2 eth4"],
        netplan: &[
            "bridges/br0/interfaces = [eth3, eth4]",
            "bridges/br0/parameters = {ageing-time: 250, forward-delay: 1, stp: false}",
            "!bridges/br0/parameters/gcint",
        ],
        networkd: &["br0.netdev [Bridge] STP=no && ForwardDelaySec=1"],
        nm: &["br0 [bridge] stp=false"],
        warns: &["br0.bridge_gcint", "br0.bridge_maxwait", "br0.bridge_waitport"],
        ..ROW
    },
    Row {
        upstream: "network_configs.py::NETWORK_CONFIGS[all] bridge_maxwait 0",
        input: ALL_BRIDGE,
        eni: &["iface br0 inet static | bridge_maxwait 0"],
        differs: Some("a bridge option of 0 is written"),
        ..ROW
    },
];

/// `v2-bridges-set-name`: bridge ports renamed by `set-name`.
const BRIDGES_SET_NAME: &str = "
    version: 2
    ethernets:
      baremetalport: {match: {macaddress: '52:54:00:bd:8f:cb'}, set-name: baremetal0}
      provisioningport: {match: {macaddress: '52:54:00:25:ae:12'}, set-name: provisioning0}
    bridges:
      baremetal: {addresses: ['fc00:1:1::2/64'], interfaces: [baremetalport]}
      provisioning: {addresses: ['fc00:1:2::2/64'], interfaces: [provisioningport]}
";

/// `bridge`: a bridge whose ports have IPv6 addresses of their own.
const BRIDGE_V1: &str = "
    version: 1
    config:
      - {type: physical, name: eth0, mac_address: '52:54:00:12:34:00',
         subnets: [{type: static, address: '2001:1::100/96'}]}
      - {type: physical, name: eth1, mac_address: '52:54:00:12:34:01',
         subnets: [{type: static, address: '2001:1::101/96'}]}
      - type: bridge
        name: br0
        bridge_interfaces: [eth0, eth1]
        params: {bridge_stp: 0, bridge_bridgeprio: 22}
        subnets: [{type: static, address: 192.168.2.2/24}]
";

/// `manual`: `control: manual` and `manual` subnets.
const MANUAL: &str = "
    version: 1
    config:
      - {type: physical, name: eth0, mac_address: '52:54:00:12:34:00',
         subnets: [{type: static, address: 192.168.1.2/24, control: manual}]}
      - {type: physical, name: eth1, mtu: 1480, mac_address: '52:54:00:12:34:aa',
         subnets: [{type: manual}]}
      - {type: physical, name: eth2, mac_address: '52:54:00:12:34:ff',
         subnets: [{type: manual, control: manual}]}
";

/// `large_v1`: every device kind, global resolvers and a global route.
const LARGE_V1: &str = "
    version: 1
    config:
      - {type: physical, name: eth0, mac_address: c0:d6:9f:2c:e8:80}
      - {type: physical, name: eth1, mac_address: aa:d6:9f:2c:e8:80}
      - {type: physical, name: eth2, mac_address: c0:bb:9f:2c:e8:80}
      - {type: physical, name: eth3, mac_address: 66:bb:9f:2c:e8:80}
      - {type: physical, name: eth4, mac_address: 98:bb:9f:2c:e8:80}
      - type: physical
        name: eth5
        mac_address: 98:bb:9f:2c:e8:8a
        subnets: [{type: dhcp, control: manual}]
      - type: vlan
        name: eth0.101
        vlan_link: eth0
        vlan_id: 101
        mac_address: aa:bb:cc:dd:ee:11
        mtu: 1500
        subnets:
          - type: static
            mtu: 1500
            address: 192.168.0.2/24
            gateway: 192.168.0.1
            dns_nameservers: [192.168.0.10, 10.23.23.134]
            dns_search: [barley.maas, sacchromyces.maas, brettanomyces.maas]
          - {type: static, address: 192.168.2.10/24}
      - type: bond
        name: bond0
        mac_address: aa:bb:cc:dd:ee:ff
        bond_interfaces: [eth1, eth2]
        params: {bond-mode: active-backup, bond_miimon: 100, bond-xmit-hash-policy: layer3+4}
        subnets: [{type: dhcp6}]
      - type: vlan
        name: bond0.200
        vlan_link: bond0
        vlan_id: 200
        subnets: [{type: dhcp4}]
      - type: infiniband
        name: ib0
        mac_address: a0:00:02:20:fe:80:00:00:00:00:00:00:ec:0d:9a:03:00:15:e2:c1
        subnets: [{type: static, address: 192.168.200.7/24, mtu: 9000}]
      - type: bridge
        name: br0
        bridge_interfaces: [eth3, eth4]
        mac_address: bb:bb:bb:bb:bb:aa
        params:
          bridge_ageing: 250
          bridge_bridgeprio: 22
          bridge_fd: 1
          bridge_hello: 1
          bridge_maxage: 10
          bridge_pathcost: [eth3 50, eth4 75]
          bridge_portprio: [eth3 28, eth4 14]
          bridge_stp: 'off'
        subnets:
          - {type: static, address: 192.168.14.2/24}
          - type: static
            address: 2001:1::1/64
            routes: [{gateway: '2001:4800:78ff:1b::1', netmask: '::', network: '::'}]
      - {type: nameserver, address: 8.8.8.8, search: barley.maas}
      - {type: nameserver, address: [4.4.4.4, 8.8.4.4], search: [wark.maas, foobar.maas]}
";

/// NETWORK_CONFIGS[all]'s bridge, with its bridge-utils knobs (`bridge_gcint`,
/// `bridge_maxwait`, `bridge_waitport`), which only cloud-init's ENI writes (the other
/// renderers drop them without a word; ember warns, naming each key).
const ALL_BRIDGE: &str = "
    version: 1
    config:
      - {type: physical, name: eth3, mac_address: '66:bb:9f:2c:e8:80'}
      - {type: physical, name: eth4, mac_address: '98:bb:9f:2c:e8:80'}
      - type: bridge
        name: br0
        bridge_interfaces: [eth3, eth4]
        mac_address: bb:bb:bb:bb:bb:aa
        params:
          bridge_ageing: 250
          bridge_bridgeprio: 22
          bridge_fd: 1
          bridge_gcint: 2
          bridge_hello: 1
          bridge_maxage: 10
          bridge_maxwait: 0
          bridge_pathcost: [eth3 50, eth4 75]
          bridge_portprio: [eth3 28, eth4 14]
          bridge_stp: 'off'
          bridge_waitport: [1 eth3, 2 eth4]
        subnets: [{type: static, address: 192.168.14.2/24}]
";

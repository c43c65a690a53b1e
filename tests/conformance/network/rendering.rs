//! `tests/unittests/net/test_net_rendering.py::test_convert`: whole configs (under
//! `artifacts/`) whose rendered files upstream compares file by file: networkd for
//! `openstack_net_config_v1` and `photon_net_config_v2`, netplan and NetworkManager for
//! `no_matching_mac_v2`.

use super::{Row, ROW};

const OPENSTACK_V1: &str = "
    version: 1
    config:
      - {mac_address: '00:00:00:00:00:01', mtu: 1500, name: slot1port1, subnets: [], type: physical}
      - {mac_address: '00:00:00:00:00:02', mtu: 1500, name: slot1port2, subnets: [], type: physical}
      - {mac_address: '00:00:00:00:01:01', mtu: 1500, name: slot2port1, subnets: [], type: physical}
      - {mac_address: '00:00:00:00:01:02', mtu: 1500, name: slot2port2, subnets: [], type: physical}
      - {mac_address: '00:00:00:00:02:01', mtu: 1500, name: slot3port1, subnets: [], type: physical}
      - {mac_address: '00:00:00:00:02:02', mtu: 1500, name: slot3port2, subnets: [], type: physical}
      - bond_interfaces: [slot1port1, slot3port1]
        mac_address: '01:00:00:00:00:01'
        mtu: 1500
        name: bond0
        params: {bond-mode: active-backup}
        subnets: [{address: 10.11.12.13, ipv4: true, netmask: 255.255.255.0, type: static}]
        type: bond
      - bond_interfaces: [slot1port2, slot2port1]
        mac_address: '01:00:00:00:00:02'
        mtu: 1500
        name: bond1
        params: {bond-mode: active-backup}
        subnets:
          - {address: 10.20.30.2, ipv4: true, netmask: 255.255.255.0, type: static,
             routes: [{gateway: 10.20.30.1, netmask: 0.0.0.0, network: 0.0.0.0}]}
        type: bond
      - bond_interfaces: [slot2port2, slot3port2]
        mac_address: '01:00:00:00:00:02'
        mtu: 1500
        name: bond2
        params: {bond-mode: active-backup}
        subnets: [{address: 10.20.30.3, ipv4: true, netmask: 255.255.255.0, type: static}]
        type: bond
      - {address: 8.8.8.8, type: nameserver}
      - {address: 4.4.4.4, type: nameserver}
";

const PHOTON_V2: &str = r#"
    version: 2
    ethernets:
      eth0:
        match: {macaddress: "00:11:22:33:44:55"}
        set-name: eth0
        dhcp4: false
        mtu: 1500
        addresses: [192.0.2.10/24]
        routes:
          - {to: default, via: 192.168.14.1, metric: 50, table: 10}
          - {to: default, via: "2001:1::2", metric: 100}
        routing-policy:
          - {from: 192.0.2.10, to: 203.0.113.100, table: 10, priority: 100}
          - {to: 192.0.2.11/8, from: 203.0.113.101/24, table: 70, priority: 90}
      eth1: {dhcp4: true, dhcp6: true}
      eth2:
        match: {macaddress: "00:aa:bb:cc:dd:ee"}
        set-name: eth2
        dhcp4: false
        mtu: 1400
        addresses: [10.20.30.40/24]
        nameservers: {addresses: [9.9.9.9, 8.8.8.8], search: [example.org]}
        routes:
          - {to: 198.51.100.0/24, via: 10.20.30.1, metric: 60}
          - {to: 192.0.2.0/24, via: 10.20.30.1, metric: 110}
        routing-policy:
          - {from: 10.20.30.40, to: 198.51.100.200, table: 12, priority: 120}
      eth3: {dhcp4: false, dhcp6: false}
      eth4: {dhcp4: false, dhcp6: false}
    bonds:
      bond0:
        interfaces: [eth0, eth2]
        parameters:
          mode: 802.3ad
          mii-monitor-interval: 100
          transmit-hash-policy: layer2+3
          lacp-rate: fast
          all-slaves-active: true
          arp-all-targets: ff
          learn-packet-interval: 12
          packets-per-slave: 42
        dhcp4: false
        dhcp6: false
        mtu: 333
        macaddress: "00:11:22:33:44:77"
    vlans:
      vlan100:
        id: 100
        link: eth0
        addresses: [192.168.100.10/24, 192.168.100.11/24]
        dhcp6: true
        mtu: 901
        macaddress: "00:11:22:33:44:66"
        nameservers: {addresses: [8.8.8.8, 1.1.1.1], search: [corp.example.com, vlan.test]}
        routes:
          - {to: 10.10.200.0/24, via: 192.168.100.1, metric: 50}
          - {to: 10.10.201.0/24, via: 192.168.100.2, metric: 150}
      vlan101:
        id: 101
        link: eth0
        addresses: [10.100.101.10/24]
        routes: [{to: 0.0.0.0/0, via: 10.100.101.1, table: 101}]
        routing-policy: [{from: 10.100.101.10, table: 101, priority: 100}]
        mtu: 1400
        nameservers: {addresses: [1.1.1.1, 9.9.9.9], search: [vlan101.local]}
      vl101: {id: 101, link: eth2}
      bond.200:
        id: 200
        link: bond0
        macaddress: "00:11:22:33:44:99"
        addresses: [192.168.200.10/24]
        nameservers: {addresses: [1.1.1.1, 8.8.4.4], search: [bond.vlan.test]}
        mtu: 111
        dhcp6: true
    bridges:
      br0:
        interfaces: [eth3, eth4]
        addresses: [172.16.1.10/24]
        routes: [{to: 0.0.0.0/0, via: 172.16.1.1, metric: 100}]
        nameservers: {addresses: [1.1.1.1], search: [bridge.test]}
        mtu: 9000
        macaddress: "00:11:22:33:44:aa"
        parameters:
          stp: true
          forward-delay: 4
          hello-time: 2
          max-age: 20
          priority: 2048
          ageing-time: 300
          path-cost: {eth3: 30, eth4: 40}
          port-priority: {eth3: 32, eth4: 60}
      br1:
        interfaces: [vlan100]
        addresses: [10.0.0.10/24]
        routes: [{to: 10.0.0.0/24, via: 10.0.0.1, metric: 200}]
        nameservers: {addresses: [9.9.9.9], search: [vlan.bridge]}
        mtu: 1500
        macaddress: "00:11:22:33:44:88"
        parameters: {stp: true, forward-delay: 3, hello-time: 1, max-age: 15, priority: 4096,
                     ageing-time: 200, path-cost: {vlan100: 45}, port-priority: {vlan100: 50}}
      br2:
        interfaces: [vl101]
        addresses: [192.168.50.10/24]
        nameservers: {addresses: [8.8.4.4]}
        mtu: 1600
        macaddress: "00:11:22:33:44:BB"
        parameters: {stp: false, forward-delay: 0, hello-time: 2, max-age: 20, priority: 8192,
                     ageing-time: 100}
"#;

const NO_MATCHING_MAC: &str = r#"
    version: 2
    ethernets:
      encc000: {}
      zz-all-en: {match: {name: "en*"}, dhcp4: true}
      zz-all-eth: {match: {name: "eth*"}, dhcp4: true}
    vlans:
      encc000.2653:
        id: 2653
        link: "encc000"
        addresses: ["10.245.236.14/24"]
        gateway4: "10.245.236.1"
        nameservers: {addresses: ["10.245.236.1"]}
"#;

pub const ROWS: &[Row] = &[
    Row {
        upstream: "test_net_rendering.py::test_convert[openstack_net_config_v1]",
        input: OPENSTACK_V1,
        networkd: &[
            "bond0.netdev [NetDev] Name=bond0 && Kind=bond && MACAddress=01:00:00:00:00:01",
            "bond0.netdev [Bond] Mode=active-backup",
            "bond0.network [Address] Address=10.11.12.13/24",
            "bond0.network [Link] MTUBytes=1500",
            "bond0.network [Network] DHCP=no && DNS=8.8.8.8 && DNS=4.4.4.4",
            "bond1.network [Route] Destination=0.0.0.0/0 && Gateway=10.20.30.1",
            "bond2.network [Address] Address=10.20.30.3/24",
            "slot1port1.network [Match] MACAddress=00:00:00:00:00:01 && Name=slot1port1",
            "slot1port1.network [Network] Bond=bond0 && DHCP=no",
            "slot1port1.network [Link] MTUBytes=1500",
            "slot3port2.network [Network] Bond=bond2",
        ],
        ..ROW
    },
    Row {
        // cloud-init gives the bond members the global resolvers too.
        upstream: "test_net_rendering.py::test_convert[openstack_net_config_v1] member resolvers",
        input: OPENSTACK_V1,
        networkd: &["slot1port1.network [Network] !DNS=8.8.8.8"],
        differs: Some("Global resolvers are added to every addressed interface"),
        ..ROW
    },
    Row {
        upstream: "test_net_rendering.py::test_convert[photon_net_config_v2]",
        input: PHOTON_V2,
        networkd: &[
            "br0.netdev [NetDev] Name=br0 && Kind=bridge && MACAddress=00:11:22:33:44:aa",
            "br0.netdev [Bridge] AgeingTimeSec=300 && ForwardDelaySec=4 && HelloTimeSec=2 \
             && MaxAgeSec=20 && Priority=2048 && STP=yes",
            "br0.network [Address] Address=172.16.1.10/24",
            "br0.network [Link] MTUBytes=9000",
            "br0.network [Network] DHCP=no && DNS=1.1.1.1 && Domains=bridge.test",
            "br0.network [Route] Destination=0.0.0.0/0 && Gateway=172.16.1.1 && Metric=100",
            "eth3.network [Network] Bridge=br0",
            "eth3.network [Bridge] Cost=30 && Priority=32",
            "bond0.netdev [NetDev] Name=bond0 && Kind=bond && MACAddress=00:11:22:33:44:77",
            "bond0.netdev [Bond] AllSlavesActive=yes && LACPTransmitRate=fast \
             && LearnPacketIntervalSec=12 && MIIMonitorSec=100ms && Mode=802.3ad \
             && PacketsPerSlave=42 && TransmitHashPolicy=layer2+3",
            "bond0.network [Link] MTUBytes=333",
            "vlan100.netdev [NetDev] Name=vlan100 && Kind=vlan && MACAddress=00:11:22:33:44:66",
            "vlan100.netdev [VLAN] Id=100",
            "vlan100.network [Address] Address=192.168.100.10/24",
            "vlan100.network [Address] Address=192.168.100.11/24",
            "vlan100.network [Bridge] Cost=45 && Priority=50",
            "vlan100.network [Link] MTUBytes=901",
            "vlan100.network [Network] Bridge=br1 && DHCP=ipv6 && DNS=8.8.8.8 && DNS=1.1.1.1 \
             && Domains=corp.example.com vlan.test",
            "vlan100.network [Route] Destination=10.10.200.0/24 && Gateway=192.168.100.1 \
             && Metric=50",
            "eth0.network [Match] MACAddress=00:11:22:33:44:55 && Name=eth0",
            "eth0.network [Network] Bond=bond0 && DHCP=no && VLAN=vlan100 && VLAN=vlan101",
            "eth0.network [Link] MTUBytes=1500",
            "eth0.network [Address] Address=192.0.2.10/24",
            "eth0.network [Route] Destination=0.0.0.0/0 && Gateway=192.168.14.1 && Metric=50 \
             && Table=10",
            "eth0.network [Route] Destination=::/0 && Gateway=2001:1::2 && Metric=100",
            "eth0.network [RoutingPolicyRule] From=203.0.113.101/24 && Priority=90 \
             && Table=70 && To=192.0.2.11/8",
            "eth0.network [RoutingPolicyRule] From=192.0.2.10/32 && To=203.0.113.100/32 \
             && Table=10 && Priority=100",
            "bond.200.network [Address] Address=192.168.200.10/24",
            "bond.200.network [Network] DHCP=ipv6 && DNS=1.1.1.1 && DNS=8.8.4.4 \
             && Domains=bond.vlan.test",
            "bond.200.network [Link] MTUBytes=111",
        ],
        warns: &["arp-all-targets: ARP monitoring does not apply to bond mode 802.3ad"],
        ..ROW
    },
    Row {
        upstream: "test_net_rendering.py::test_convert[no_matching_mac_v2]",
        input: NO_MATCHING_MAC,
        netplan: &[
            "ethernets/zz-all-en = {match: {name: en*}, dhcp4: true}",
            "vlans/encc000.2653 = {id: 2653, link: encc000, gateway4: 10.245.236.1}",
        ],
        nm: &[
            "encc000.2653 [connection] type=vlan && interface-name=encc000.2653",
            "encc000.2653 [vlan] id=2653 && parent=f869ebd3-f175-5747-bf02-d0d44d687248",
            "encc000.2653 [ipv4] method=manual && may-fail=false \
             && address1=10.245.236.14/24 && gateway=10.245.236.1 && dns=10.245.236.1;",
            "encc000 [connection] interface-name=encc000",
            "zz-all-en [ipv4] method=auto && may-fail=false",
            "zz-all-eth [ipv4] method=auto && may-fail=false",
        ],
        ..ROW
    },
    Row {
        // cloud-init binds these profiles to interfaces called `zz-all-en` and `zz-all-eth`.
        upstream: "test_net_rendering.py::test_convert[no_matching_mac_v2] name patterns",
        input: NO_MATCHING_MAC,
        nm: &[
            "zz-all-en [match] interface-name=en*;",
            "zz-all-eth [match] interface-name=eth*;",
            "zz-all-en [connection] !interface-name=zz-all-en",
        ],
        differs: Some("`match` by `driver` or `name`"),
        ..ROW
    },
];

//! The benchmarks' network configs: a fleet of NICs in bonds of two with two vlans each, as
//! network-config v2 and v1, sized by the number of NICs; and the percentile helper.

use std::fmt::Write;

pub fn mac(i: usize) -> String {
    format!("52:54:00:00:{:02x}:{:02x}", i / 256, i % 256)
}

pub fn v2(nics: usize) -> String {
    let mut y = String::from("network:\n  version: 2\n  ethernets:\n");
    for i in 0..nics {
        let _ = write!(
            y,
            "    nic{i}:\n      match: {{macaddress: \"{}\"}}\n      set-name: nic{i}\n      mtu: 9000\n",
            mac(i)
        );
    }
    y.push_str("  bonds:\n");
    for b in 0..nics / 2 {
        let _ = write!(
            y,
            "    bond{b}:\n      interfaces: [nic{}, nic{}]\n      mtu: 9000\n      parameters:\n        mode: 802.3ad\n        lacp-rate: fast\n        mii-monitor-interval: 100\n        transmit-hash-policy: layer3+4\n",
            2 * b,
            2 * b + 1
        );
    }
    y.push_str("  vlans:\n");
    for b in 0..nics / 2 {
        for v in 0..2 {
            let id = 100 + v;
            let _ = write!(
                y,
                "    bond{b}.{id}:\n      id: {id}\n      link: bond{b}\n      addresses: [\"10.{}.{}.10/24\", \"fd00:{b:x}:{v}::10/64\"]\n      routes:\n        - {{to: 172.{}.{v}.0/24, via: 10.{}.{}.1, metric: 100}}\n      nameservers:\n        addresses: [10.{}.{}.2]\n        search: [v{v}.example.net]\n",
                b / 64,
                (b % 64) * 4 + v,
                16 + b % 16,
                b / 64,
                (b % 64) * 4 + v,
                b / 64,
                (b % 64) * 4 + v,
            );
        }
    }
    y
}

pub fn v1(nics: usize) -> String {
    let mut y = String::from("version: 1\nconfig:\n");
    for i in 0..nics {
        let _ = write!(
            y,
            "  - type: physical\n    name: nic{i}\n    mac_address: \"{}\"\n    mtu: 9000\n",
            mac(i)
        );
    }
    for b in 0..nics / 2 {
        let _ = write!(
            y,
            "  - type: bond\n    name: bond{b}\n    bond_interfaces: [nic{}, nic{}]\n    params: {{bond-mode: 802.3ad, bond-miimon: 100, bond-xmit-hash-policy: layer3+4}}\n",
            2 * b,
            2 * b + 1
        );
        for v in 0..2 {
            let id = 100 + v;
            let net = format!("10.{}.{}", b / 64, (b % 64) * 4 + v);
            let _ = write!(
                y,
                "  - type: vlan\n    name: bond{b}.{id}\n    vlan_link: bond{b}\n    vlan_id: {id}\n    subnets:\n      - type: static\n        address: {net}.10/24\n        dns_nameservers: [{net}.2]\n        routes:\n          - {{network: 172.{}.{v}.0/24, gateway: {net}.1, metric: 100}}\n",
                16 + b % 16
            );
        }
        let _ = write!(
            y,
            "  - type: route\n    destination: 198.{}.{}.0/24\n    gateway: 10.{}.{}.254\n",
            18 + b / 256,
            b % 256,
            b / 64,
            (b % 64) * 4
        );
    }
    y.push_str("  - type: nameserver\n    address: [192.0.2.53]\n    search: [example.net]\n");
    y
}

pub fn pct(v: &mut [u64], p: usize) -> u64 {
    v.sort_unstable();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

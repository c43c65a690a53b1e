//! `cargo bench --bench network_render`: rendering a large network config, in process, for
//! systemd-networkd and netplan. NICs matched by MAC and renamed, bonded in pairs, two VLANs
//! with static addresses, routes and nameservers on each bond, and a global route per bond
//! (v1): 64 NICs, then 256 to show the cost grows linearly with the config. v2 for networkd;
//! v1 for both (netplan writes v2 through, so its v1 conversion is the work worth measuring).
//! Reports the median and p90 per rendering and per interface.

use ember::limits::Limits;
use ember::network::render::{netplan, networkd, Rendered};
use ember::network::{parse, Input, Network};
use std::fmt::Write;
use std::time::Instant;

const RUNS: usize = 200;

fn mac(i: usize) -> String {
    format!("52:54:00:00:{:02x}:{:02x}", i / 256, i % 256)
}

fn v2(nics: usize) -> String {
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

fn v1(nics: usize) -> String {
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

fn pct(v: &mut [u64], p: usize) -> u64 {
    v.sort_unstable();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

fn model(text: &str) -> Network {
    let p = parse("bench", Input::Text(text, &Limits::default())).unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    p.model
}

/// The median in microseconds.
fn bench(name: &str, net: &Network, render: fn(&Network) -> Rendered) -> f64 {
    let check = render(net);
    assert!(check.warnings.is_empty(), "{name}: {:?}", check.warnings);
    let bytes: usize = check.files.iter().map(|f| f.content.len()).sum();
    let mut t = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t0 = Instant::now();
        std::hint::black_box(render(std::hint::black_box(net)));
        t.push(t0.elapsed().as_nanos() as u64);
    }
    let n = net.interfaces.len();
    let median = pct(&mut t, 50) as f64 / 1000.0;
    println!(
        "{name}: {n} interfaces, {} files, {bytes} bytes: median {median:.0} us ({:.2} us per interface), p90 {:.0} us",
        check.files.len(),
        median / n as f64,
        pct(&mut t, 90) as f64 / 1000.0,
    );
    median
}

fn main() {
    let mut ratios = Vec::new();
    for (label, render) in [
        ("networkd", networkd::render as fn(&Network) -> Rendered),
        ("netplan", netplan::render),
    ] {
        for (format, text) in [("v2", v2 as fn(usize) -> String), ("v1", v1)] {
            if label == "netplan" && format == "v2" {
                continue;
            }
            let small = bench(
                &format!("{label} {format}, 64 NICs"),
                &model(&text(64)),
                render,
            );
            let large = bench(
                &format!("{label} {format}, 256 NICs"),
                &model(&text(256)),
                render,
            );
            ratios.push(format!("{label} {format} {:.2}", large / small));
        }
    }
    println!("256 NICs / 64 NICs (4.00 is linear): {}", ratios.join(", "));
}

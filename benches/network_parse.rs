//! `cargo bench --bench network_parse`: parsing a large network-config, in process: 64 NICs
//! matched by MAC, bonded in pairs (32 bonds), two VLANs with static addresses, routes and
//! nameservers on each bond (64 VLANs), as v2 and as the same layout in v1. Reports the median
//! and p90 of the whole parse (YAML text to model) and of the model step alone (from the YAML
//! document, lines included).

use ember::limits::Limits;
use ember::network::{parse, Input};
use std::fmt::Write;
use std::time::Instant;

const RUNS: usize = 300;
const NICS: usize = 64;

fn mac(i: usize) -> String {
    format!("52:54:00:00:{:02x}:{:02x}", i / 256, i % 256)
}

fn v2() -> String {
    let mut y = String::from("network:\n  version: 2\n  ethernets:\n");
    for i in 0..NICS {
        let _ = write!(
            y,
            "    nic{i}:\n      match: {{macaddress: \"{}\"}}\n      set-name: nic{i}\n      mtu: 9000\n",
            mac(i)
        );
    }
    y.push_str("  bonds:\n");
    for b in 0..NICS / 2 {
        let _ = write!(
            y,
            "    bond{b}:\n      interfaces: [nic{}, nic{}]\n      mtu: 9000\n      parameters:\n        mode: 802.3ad\n        lacp-rate: fast\n        mii-monitor-interval: 100\n        transmit-hash-policy: layer3+4\n",
            2 * b,
            2 * b + 1
        );
    }
    y.push_str("  vlans:\n");
    for b in 0..NICS / 2 {
        for v in 0..2 {
            let id = 100 + v;
            let _ = write!(
                y,
                "    bond{b}.{id}:\n      id: {id}\n      link: bond{b}\n      addresses: [\"10.{b}.{v}.10/24\", \"fd00:{b}:{v}::10/64\"]\n      routes:\n        - {{to: 172.{}.{v}.0/24, via: 10.{b}.{v}.1, metric: 100}}\n      nameservers:\n        addresses: [10.{b}.{v}.2]\n        search: [v{v}.example.net]\n",
                16 + b % 16
            );
        }
    }
    y
}

fn v1() -> String {
    let mut y = String::from("version: 1\nconfig:\n");
    for i in 0..NICS {
        let _ = write!(
            y,
            "  - type: physical\n    name: nic{i}\n    mac_address: \"{}\"\n    mtu: 9000\n",
            mac(i)
        );
    }
    for b in 0..NICS / 2 {
        let _ = write!(
            y,
            "  - type: bond\n    name: bond{b}\n    bond_interfaces: [nic{}, nic{}]\n    params: {{bond-mode: 802.3ad, bond-miimon: 100, bond-xmit-hash-policy: layer3+4}}\n",
            2 * b,
            2 * b + 1
        );
        for v in 0..2 {
            let id = 100 + v;
            let _ = write!(
                y,
                "  - type: vlan\n    name: bond{b}.{id}\n    vlan_link: bond{b}\n    vlan_id: {id}\n    subnets:\n      - type: static\n        address: 10.{b}.{v}.10/24\n        dns_nameservers: [10.{b}.{v}.2]\n        routes:\n          - {{network: 172.{}.{v}.0/24, gateway: 10.{b}.{v}.1, metric: 100}}\n",
                16 + b % 16
            );
        }
    }
    y
}

fn pct(v: &mut [u64], p: usize) -> u64 {
    v.sort_unstable();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

fn bench(name: &str, text: &str) {
    let limits = Limits::default();
    let doc = ember::yaml::parse(text, &limits).unwrap();
    let check = parse("bench", Input::Doc(&doc)).unwrap();
    assert!(check.warnings.is_empty(), "{:?}", check.warnings);
    assert_eq!(check.model.interfaces.len(), NICS * 2 + NICS / 2);
    let mut whole = Vec::with_capacity(RUNS);
    let mut model = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let p = parse("bench", Input::Text(text, &limits)).unwrap();
        whole.push(t0.elapsed().as_micros() as u64);
        std::hint::black_box(p);
        let t0 = Instant::now();
        let p = parse("bench", Input::Doc(&doc)).unwrap();
        model.push(t0.elapsed().as_micros() as u64);
        std::hint::black_box(p);
    }
    println!(
        "{name}: {} bytes, {} interfaces, {RUNS} runs",
        text.len(),
        check.model.interfaces.len()
    );
    println!(
        "  YAML text to model  median {} us, p90 {} us",
        pct(&mut whole, 50),
        pct(&mut whole, 90)
    );
    println!(
        "  model step alone    median {} us, p90 {} us",
        pct(&mut model, 50),
        pct(&mut model, 90)
    );
}

fn main() {
    bench("v2, 64 NICs, 32 bonds, 64 vlans", &v2());
    bench("v1, 64 NICs, 32 bonds, 64 vlans", &v1());
}

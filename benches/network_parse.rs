//! `cargo bench --bench network_parse`: parsing a large network-config, in process: 64 NICs
//! matched by MAC, bonded in pairs (32 bonds), two VLANs with static addresses, routes and
//! nameservers on each bond (64 VLANs), as v2 and as the same layout in v1. Reports the median
//! and p90 of the whole parse (YAML text to model) and of the model step alone (from the YAML
//! document, lines included).

use ember::limits::Limits;
use ember::network::{parse, Input};
use std::time::Instant;

#[path = "common/fleet.rs"]
mod fleet;
use fleet::pct;

const RUNS: usize = 300;
const NICS: usize = 64;

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
        let p = ember::network_text("bench", text, &limits).unwrap();
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
    bench("v2, 64 NICs, 32 bonds, 64 vlans", &fleet::v2(NICS));
    bench("v1, 64 NICs, 32 bonds, 64 vlans", &fleet::v1(NICS));
}

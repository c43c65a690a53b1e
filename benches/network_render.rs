//! `cargo bench --bench network_render`: rendering a large network config, in process, for
//! systemd-networkd and netplan. NICs matched by MAC and renamed, bonded in pairs, two VLANs
//! with static addresses, routes and nameservers on each bond, and a global route per bond
//! (v1): 64 NICs, then 256 to show the cost grows linearly with the config. v2 for networkd;
//! v1 for both (netplan writes v2 through, so its v1 conversion is the work worth measuring).
//! Reports the median and p90 per rendering and per interface.

use ember::limits::Limits;
use ember::network::render::{netplan, networkd, Rendered};
use ember::network::Network;
use std::time::Instant;

#[path = "common/fleet.rs"]
mod fleet;
use fleet::{pct, v1, v2};

const RUNS: usize = 200;

fn model(text: &str) -> Network {
    let p = ember::network_text("bench", text, &Limits::default()).unwrap();
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

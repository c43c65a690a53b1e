//! The netplan renderer against golden files (see `golden/harness.rs`; rewrite them with
//! `EMBER_BLESS=1 cargo test --test render_netplan`).

#[path = "golden/harness.rs"]
mod harness;

use ember::network::render::netplan;

#[test]
fn every_input_renders_as_its_golden_file() {
    harness::run("netplan", netplan::render, 0o600);
}

//! The systemd-networkd renderer against golden trees (see `golden/harness.rs`; rewrite them
//! with `EMBER_BLESS=1 cargo test --test render_networkd`).

#[path = "golden/harness.rs"]
mod harness;

use ember::network::render::networkd;

#[test]
fn every_input_renders_as_its_golden_tree() {
    harness::run("networkd", networkd::render, 0o644);
}

//! The systemd-networkd renderer against golden trees (see `golden/harness.rs`; rewrite them
//! with `EMBER_BLESS=1 cargo test --test network render_networkd`).

use crate::golden::harness;

use ember::network::render::networkd;

#[test]
fn every_input_renders_as_its_golden_tree() {
    harness::run("networkd", networkd::render, 0o644);
}

/// The parser refuses names the kernel would not take and line breaks in values; a model read
/// back from a file could still hold them, and the renderer leaves each out with a warning.
#[test]
fn names_and_line_breaks_no_parser_passes_are_left_out() {
    let text = "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n    nameservers: {search: [ok.example, x.example-DOMAIN]}\nvlans:\n  vlan5: {id: 5, link: eth0}\n";
    let model = ember::network_text("t", text, &Default::default())
        .unwrap()
        .model;
    let json = serde_json::to_string(&model)
        .unwrap()
        .replace("-DOMAIN", "\\nDNS=192.0.2.66")
        .replace("vlan5", "vlan-name-too-long");
    let out = networkd::render(&serde_json::from_str(&json).unwrap());
    for f in &out.files {
        assert!(
            !f.content.contains("192.0.2.66"),
            "{}: {}",
            f.path,
            f.content
        );
        assert!(!f.path.contains("vlan-name"), "{}", f.path);
    }
    let warned: Vec<String> = out.warnings.iter().map(|d| d.to_string()).collect();
    assert_eq!(warned.len(), 2, "{warned:#?}");
}

//! The netplan renderer against golden files (see `golden/harness.rs`; rewrite them with
//! `EMBER_BLESS=1 cargo test --test network render_netplan`).

use crate::golden::harness;

use ember::network::render::netplan;

#[test]
fn every_input_renders_as_its_golden_file() {
    harness::run("netplan", netplan::render, 0o600);
}

/// What the renderer writes reads back: a v2 input as the same value under `network:`, a
/// converted one as a v2 config ember's own parser takes without a warning.
#[test]
fn every_file_reads_back_as_netplan() {
    use ember::limits::Limits;
    use ember::network::{parse, Input};
    for (case, net) in harness::cases() {
        let r = netplan::render(&net);
        let text = &r.files[0].content;
        let doc = ember::yaml::parse(text, &Limits::default())
            .unwrap_or_else(|e| panic!("{case}: {e:?}\n{text}"));
        match &net.netplan {
            Some(v2) => assert_eq!(&doc.value["network"], v2, "{case}"),
            None => {
                let p = parse(&case, Input::Doc(&doc)).unwrap_or_else(|d| panic!("{case}: {d:#?}"));
                assert!(p.warnings.is_empty(), "{case}: {:#?}", p.warnings);
                assert_eq!(p.model.interfaces.len(), net.interfaces.len(), "{case}");
            }
        }
    }
}

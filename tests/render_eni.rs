//! Golden tests of the ENI renderer. Each folder under `tests/golden/eni/` is a case: its
//! `network-config.yaml` is parsed with `network::parse` and rendered, and every file the
//! renderer returns must be there at its path (`etc/network/interfaces.d/50-cloud-init`) with
//! the same content; a missing file, an extra one or another content fails. The renderer's
//! warnings are in `warnings.txt` (absent: none).
//!
//! `EMBER_BLESS=1 cargo test --test render_eni` rewrites the expected files from what the
//! renderer gives now; review the diff before committing it.
//!
//! The inputs were also converted by Debian's cloud-init 22.4 (`cloud-init devel net-convert
//! -O eni -D debian`). Differences kept on purpose:
//! - ember's own header comment;
//! - no `dns {…}` lines (22.4 writes a Python dict for v2 and per-interface nameservers) and
//!   v2 nameservers are not repeated on `lo`;
//! - a route goes in the stanza that brings up its gateway's subnet (else the first of its
//!   family), not in the first stanza; a route tied to no interface goes with the interface
//!   whose subnet holds its gateway (22.4 puts them after the last stanza);
//! - `accept_ra` goes on the first inet6 stanza and `dhcp 0|1` on every `inet6 auto` stanza
//!   (22.4 writes both only on an interface's first stanza);
//! - `bridge_fd 0`, a bridge's MAC as `hwaddress` (also when v1 gave `bridge_hw`),
//!   `bridge_ports none` for a bridge without ports, v2's `macaddress` of a NIC as
//!   `hwaddress`: 22.4 drops them;
//! - bond options named `bond-*` whichever spelling the input used;
//! - a NIC matched by driver or name pattern only is left out with a warning.

use ember::limits::Limits;
use ember::network::render::{eni, Rendered};
use ember::network::{parse, Input, Network};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const INPUT: &str = "network-config.yaml";
const WARNINGS: &str = "warnings.txt";

fn model(text: &str) -> Network {
    parse("network-config", Input::Text(text, &Limits::default()))
        .unwrap_or_else(|d| panic!("{d:#?}"))
        .model
}

/// Every file under `dir`, by its path relative to `root`.
fn files(root: &Path, dir: &Path, into: &mut BTreeMap<String, String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(root, &path, into);
        } else {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            into.insert(rel, fs::read_to_string(&path).unwrap());
        }
    }
}

/// Renders every case under `tests/golden/<name>` and compares, or rewrites when blessing.
fn golden(name: &str, render: fn(&Network) -> Rendered) -> usize {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let bless = std::env::var_os("EMBER_BLESS").is_some_and(|v| v == "1");
    let mut cases: Vec<PathBuf> = fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    for case in &cases {
        let out = render(&model(&fs::read_to_string(case.join(INPUT)).unwrap()));
        let mut got: BTreeMap<String, String> = out
            .files
            .iter()
            .map(|f| {
                (
                    f.path.trim_start_matches('/').to_string(),
                    f.content.clone(),
                )
            })
            .collect();
        let warnings: Vec<String> = out.warnings.iter().map(|d| format!("{d}\n")).collect();
        if !warnings.is_empty() {
            got.insert(WARNINGS.into(), warnings.concat());
        }
        let mut want = BTreeMap::new();
        files(case, case, &mut want);
        want.remove(INPUT);
        if bless {
            for path in want.keys() {
                fs::remove_file(case.join(path)).unwrap();
            }
            for (path, content) in &got {
                let path = case.join(path);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, content).unwrap();
            }
            continue;
        }
        let case = case.display();
        let (got_paths, want_paths): (Vec<_>, Vec<_>) =
            (got.keys().collect(), want.keys().collect());
        assert_eq!(got_paths, want_paths, "{case}: the files rendered");
        for (path, content) in &got {
            assert_eq!(content, &want[path], "{case}: {path}");
        }
    }
    cases.len()
}

#[test]
fn golden_cases() {
    assert!(golden("eni", eni::render) >= 7);
}

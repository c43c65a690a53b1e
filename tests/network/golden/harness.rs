//! Golden tests of the network renderers: every input under `tests/golden/inputs/` is parsed
//! with `network::parse` (or `parse_network_data`, or from a kernel command line), rendered,
//! and compared with the tree under `tests/golden/<renderer>/<case>/`: a missing, an extra or a
//! different file fails. What the renderer warned is compared with `<case>.warnings`.
//!
//! To rewrite the goldens after a deliberate change, run with `EMBER_BLESS=1`:
//! `EMBER_BLESS=1 cargo test --test network render_net`, then review the
//! diff with `git diff tests/golden/`.

use ember::limits::Limits;
use ember::network::render::Rendered;
use ember::network::{parse, parse_network_data, Input, Network};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The host's interfaces by MAC for OpenStack inputs: one NIC known by name, as an initramfs
/// would see it; the rest are matched by MAC.
fn openstack_macs() -> BTreeMap<String, String> {
    BTreeMap::from([("fa:16:3e:61:00:01".to_string(), "ens3".to_string())])
}

/// Every input: its case name (the file name without extension) and its model.
pub fn cases() -> Vec<(String, Network)> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = fs::read_dir(golden().join("inputs"))
        .expect("tests/golden/inputs")
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&path).unwrap();
        let parsed = match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => ember::network_text(&name, &text, &Limits::default()),
            Some("json") => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                parse_network_data(&name, &v, &openstack_macs())
            }
            Some("cmdline") => {
                let params = ember::cmdline::split(text.trim());
                parse(&name, Input::Cmdline(&params))
            }
            _ => continue,
        };
        let parsed = parsed.unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        out.push((name, parsed.model));
    }
    assert!(out.len() >= 10, "inputs are missing");
    out
}

fn bless() -> bool {
    std::env::var_os("EMBER_BLESS").is_some_and(|v| v == "1")
}

fn walk(dir: &Path, base: &Path, out: &mut BTreeSet<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, base, out);
        } else {
            out.insert(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
        }
    }
}

fn warnings_text(r: &Rendered) -> String {
    r.warnings
        .iter()
        .map(|w| {
            let key = w.key.as_deref().unwrap_or("-");
            format!("{} {key}: {}\n", w.code, w.message)
        })
        .collect()
}

/// Compares (or, blessing, writes) one case's rendering; returns the problems found.
pub fn check(renderer: &str, case: &str, r: &Rendered) -> Vec<String> {
    let dir = golden().join(renderer).join(case);
    let warn_path = golden().join(renderer).join(format!("{case}.warnings"));
    let warnings = warnings_text(r);
    if bless() {
        let _ = fs::remove_dir_all(&dir);
        for f in &r.files {
            let p = dir.join(f.path.trim_start_matches('/'));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, &f.content).unwrap();
        }
        let _ = fs::remove_file(&warn_path);
        if !warnings.is_empty() {
            fs::write(&warn_path, &warnings).unwrap();
        }
        return Vec::new();
    }
    let mut problems = Vec::new();
    let mut expected = BTreeSet::new();
    walk(&dir, &dir, &mut expected);
    let got: BTreeSet<String> = r
        .files
        .iter()
        .map(|f| f.path.trim_start_matches('/').to_string())
        .collect();
    for missing in expected.difference(&got) {
        problems.push(format!("{case}: {missing} not rendered"));
    }
    for extra in got.difference(&expected) {
        problems.push(format!("{case}: {extra} rendered but not in the goldens"));
    }
    for f in &r.files {
        let rel = f.path.trim_start_matches('/');
        if let Ok(want) = fs::read_to_string(dir.join(rel)) {
            if want != f.content {
                problems.push(format!(
                    "{case}: {rel} differs\n--- golden\n{want}--- rendered\n{}",
                    f.content
                ));
            }
        }
    }
    let want_warnings = fs::read_to_string(&warn_path).unwrap_or_default();
    if want_warnings != warnings {
        problems.push(format!(
            "{case}: warnings differ\n--- golden\n{want_warnings}--- rendered\n{warnings}"
        ));
    }
    problems
}

/// Renders every case twice (the output must not vary) and checks it; fails with every
/// problem at once.
pub fn run(renderer: &str, render: fn(&Network) -> Rendered, mode: u32) {
    let mut problems = Vec::new();
    for (case, net) in cases() {
        let r = render(&net);
        let again = render(&net);
        if r.files != again.files {
            problems.push(format!("{case}: two renderings differ"));
        }
        let paths: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
        let mut sorted = paths.clone();
        sorted.sort();
        sorted.dedup();
        if paths != sorted {
            problems.push(format!("{case}: files not sorted by path, or repeated"));
        }
        for f in &r.files {
            if f.mode != mode {
                problems.push(format!("{case}: {} has mode {:o}", f.path, f.mode));
            }
        }
        problems.extend(check(renderer, &case, &r));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

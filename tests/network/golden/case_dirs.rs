//! The golden harness of the ENI and NetworkManager renderer tests: each folder under
//! `tests/golden/<renderer>/` is a case whose `network-config.yaml` is parsed and rendered; every
//! file the renderer returns must be there at its path with the same content, and its warnings
//! in `warnings.txt` (absent: none). `EMBER_BLESS=1` rewrites the expected files.

use ember::limits::Limits;
use ember::network::render::Rendered;
use ember::network::Network;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const INPUT: &str = "network-config.yaml";
const WARNINGS: &str = "warnings.txt";

pub fn model(text: &str) -> Network {
    ember::network_text("network-config", text, &Limits::default())
        .unwrap_or_else(|d| panic!("{d:#?}"))
        .model
}

/// The model of `text` with each placeholder replaced in its strings by a value no parser
/// passes, as a model read back from a file could hold it: a renderer's own checks must stand
/// without the parser's.
pub fn model_with(text: &str, swaps: &[(&str, &str)]) -> Network {
    let mut json = serde_json::to_string(&model(text)).unwrap();
    for (placeholder, value) in swaps {
        let quoted = serde_json::to_string(value).unwrap();
        json = json.replace(placeholder, quoted.trim_matches('"'));
    }
    serde_json::from_str(&json).unwrap()
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
pub fn golden(name: &str, render: fn(&Network) -> Rendered) -> usize {
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

//! Layers that point one way: no import cycle among the top-level modules of each crate's
//! `src/` (cargo itself refuses a cycle between the workspace's crates). Each
//! file's `crate::NAME` references (outside its `#[cfg(test)]` part and test files) are edges
//! from its top-level module to NAME; a cycle fails the test, naming the files of each edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names after each `crate::` in `text`.
fn crate_refs(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("crate::").map(move |(i, m)| {
        let rest = &text[i + m.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        &rest[..end]
    })
}

fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let top_of = |path: &Path| {
        let rel = path.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let tops: BTreeSet<String> = files.iter().map(|f| top_of(f)).collect();
    let mut g = Graph::new();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap().display().to_string();
        let name = file.file_name().unwrap().to_string_lossy();
        let is_test = rel.contains("/tests/") || name == "tests.rs" || name.ends_with("_tests.rs");
        let top = top_of(file);
        if is_test || top == "lib" || top == "bin" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for to in crate_refs(code) {
            if to != top && tops.contains(to) {
                let edges = g.entry(top.clone()).or_default();
                edges.entry(to.to_string()).or_default().insert(rel.clone());
            }
        }
    }
    g
}

/// Strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.g.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                scc.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.found.push(scc);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// The root package's `src/` and each workspace crate's.
fn source_dirs() -> Vec<PathBuf> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![top.join("src")];
    for entry in std::fs::read_dir(top.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            dirs.push(src);
        }
    }
    dirs.sort();
    dirs
}

/// Expected: no two top-level modules of a crate depend on each other, directly or through
/// others.
#[test]
fn no_import_cycle_among_top_level_modules() {
    let mut read = 0;
    let mut report = String::new();
    for dir in source_dirs() {
        let g = graph(&dir);
        read += g.len();
        for scc in &cycles(&g) {
            report.push_str(&format!("{}: cycle among {scc:?}:\n", dir.display()));
            for from in scc {
                for (to, files) in &g[from] {
                    if scc.contains(to) {
                        report.push_str(&format!("  {from} -> {to} ({files:?})\n"));
                    }
                }
            }
        }
    }
    assert!(read > 20, "too few modules read: {read}");
    assert!(report.is_empty(), "{report}");
}

/// The normal dependencies of one crate's Cargo.toml, by the package each names (dev and
/// build dependencies are not linked into its binary): `[dependencies]` and
/// `[target.'…'.dependencies]` entries, `[dependencies.name]` sections, `package = "…"` renames.
fn normal_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let package_of = |line: &str| {
        let rest = line.split("package").nth(1)?;
        rest.split('"').nth(1).map(str::to_string)
    };
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            let table = header.rsplit_once('.').map_or(header, |(_, last)| last);
            in_deps = header == "dependencies"
                || (header.starts_with("target.") && table == "dependencies");
            if let Some(name) = header.strip_prefix("dependencies.") {
                names.push(name.to_string());
            }
        } else if line.starts_with("package") && line.contains('=') {
            // `package = "…"` inside a `[dependencies.name]` section: the real package.
            names.extend(package_of(line));
        } else if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            names.push(package_of(line).unwrap_or_else(|| name.to_string()));
        }
    }
    names
}

/// Expected: the runner's crate reaches, through the workspace's crates, none of the
/// initramfs side: not its library (`ember`), the YAML parser, Jinja, TLS or XML. The
/// compiler enforces it once the manifests say so; this keeps a manifest from saying otherwise.
#[test]
fn the_runner_cannot_reach_the_initramfs_side() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest_of = |name: &str| match name.strip_prefix("ember-") {
        Some(dir) => Some(top.join("crates").join(dir).join("Cargo.toml")),
        None if name == "ember" => Some(top.join("Cargo.toml")),
        None => None,
    };
    let forbidden = [
        "ember",
        "ember-yaml",
        "ember-jinja",
        "saphyr-parser",
        "minijinja",
        "minijinja-contrib",
        "rustls",
        "roxmltree",
    ];
    let mut seen = BTreeSet::new();
    let mut todo = vec![("ember-runner".to_string(), "ember-runner".to_string())];
    while let Some((name, path)) = todo.pop() {
        assert!(
            !forbidden.contains(&name.as_str()),
            "the runner reaches {path}"
        );
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(manifest) = manifest_of(&name) {
            for dep in normal_dependencies(&manifest) {
                todo.push((dep.clone(), format!("{path} -> {dep}")));
            }
        }
    }
    for must in ["ember-core", "ember-modules", "ember-network", "ember-disk"] {
        assert!(seen.contains(must), "{must} not read: {seen:?}");
    }
}

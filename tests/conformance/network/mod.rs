//! cloud-init's network tests (`tests/unittests/net/`, `tests/unittests/test_net.py`, the
//! netplan cases of `distros/test_netconfig.py`, and `sources/helpers/test_openstack.py` for
//! network_data.json; one file per upstream file): each row is one upstream
//! example, its input written here (v1, v2 or network_data.json), and the facts upstream's
//! expected output asserts (addresses, routes, resolvers, bond, bridge and vlan settings, IPv6
//! methods, `auto` lines), checked on what `ember-initrd net-convert` writes for each of the
//! four renderers. Facts are written in ember's spelling of the same setting (one `DNS=` line
//! per server, `ip route` rather than `route`): the fact is the setting, not the text.
//!
//! Fact syntax, per renderer (a leading `!` on the part after the place: must be absent):
//! - eni: `auto eth0` (a line of the file), or `iface eth0 inet static | address 10.0.0.2/24`
//!   (lines of the stanza that starts with that header);
//! - netplan: `ethernets/eth0/addresses = 10.0.0.2/24`: the value at the path holds the
//!   right side, read as YAML (a list holds it if an item does, a mapping if it has its keys);
//!   `!ethernets/eth0/dhcp4`: no such path;
//! - networkd: `eth0.network [Network] DNS=10.0.0.1` (file `10-cloud-init-eth0.network`, a
//!   `[Network]` section with that line); `!eth0.netdev`: no such file;
//! - nm: `eth0 [ipv4] method=manual` (file `cloud-init-eth0.nmconnection`); `eth0 ![ipv6]`:
//!   no such section; `!eth0`: no such file.
//!
//! Lines joined by ` && ` must be in the same section or stanza. The real consumers judge each
//! row's output too (`netplan generate`, `ifup --no-act`, libnm), where they are installed.

mod configs;
mod netplan;
mod openstack;
mod rendering;
mod sources;
mod test_net;
mod units;

use crate::common::{self, have, skip};
use crate::differences;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// One upstream example. Start from `ROW`.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// `network_configs.py::NETWORK_CONFIGS[bond_v1]`, `test_networkd.py::TestNetworkdRenderState::test_dhcp_v6`.
    pub upstream: &'static str,
    /// A v1 or v2 YAML config, or (with `json`) OpenStack's network_data.json.
    pub input: &'static str,
    pub json: bool,
    /// The host's interfaces for network_data.json, as net-convert's `--mac NAME,MAC`.
    pub macs: &'static [&'static str],
    pub eni: &'static [&'static str],
    pub netplan: &'static [&'static str],
    pub networkd: &'static [&'static str],
    pub nm: &'static [&'static str],
    /// Words net-convert's warnings must hold (each somewhere on stderr).
    pub warns: &'static [&'static str],
    /// Where ember deliberately differs: a phrase of the manual's entry (docs/src/differences.md). The facts are then
    /// ember's.
    pub differs: Option<&'static str>,
    /// Why the upstream test asserts nothing ember's output can hold (netplan's Python API,
    /// calls into `netplan generate`): the row has no input and is not rendered.
    pub unchecked: Option<&'static str>,
}

pub const ROW: Row = Row {
    upstream: "",
    input: "",
    json: false,
    macs: &[],
    eni: &[],
    netplan: &[],
    networkd: &[],
    nm: &[],
    warns: &[],
    differs: None,
    unchecked: None,
};

const STACKS: [(&str, &str); 4] = [
    ("eni", "eni"),
    ("netplan", "netplan"),
    ("networkd", "networkd"),
    ("nm", "network-manager"),
];

/// What net-convert wrote for one row: by renderer, file path (under the root) → content.
struct Output {
    files: BTreeMap<&'static str, BTreeMap<String, String>>,
    warnings: String,
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ember-conf-net-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn render(row: &Row, dir: &Path) -> Output {
    std::fs::create_dir_all(dir).unwrap();
    let input = dir.join("input");
    std::fs::write(&input, row.input).unwrap();
    let kind = if row.json {
        "network_data.json"
    } else {
        "yaml"
    };
    let mut files = BTreeMap::new();
    let mut warnings = String::new();
    for (name, stack) in STACKS {
        let root = dir.join(name);
        let out = common::run(
            Command::new(common::EMBER_INITRD)
                .args(["net-convert", "--kind", kind, "--output-kind", stack])
                .args(row.macs.iter().flat_map(|m| ["--mac", m]))
                .arg("--directory")
                .arg(&root)
                .arg(&input),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {name}: {}",
            row.upstream,
            common::stderr(&out)
        );
        warnings = common::stderr(&out);
        let mut mine = BTreeMap::new();
        for (path, meta) in common::walk(&root) {
            if meta.is_file() {
                let rel = path.strip_prefix(&root).unwrap().to_string_lossy();
                mine.insert(rel.into_owned(), std::fs::read_to_string(&path).unwrap());
            }
        }
        files.insert(name, mine);
    }
    Output { files, warnings }
}

/// A file's sections (INI) or stanzas (ENI): (header, lines), trimmed, comments left out.
fn blocks(text: &str, eni: bool) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![(String::new(), Vec::new())];
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let header = if eni {
            line.starts_with("iface ").then(|| line.to_string())
        } else {
            line.strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .map(str::to_string)
        };
        match header {
            Some(h) => out.push((h, Vec::new())),
            None if eni && ["auto ", "allow-"].iter().any(|p| line.starts_with(p)) => {
                out[0].1.push(line.to_string())
            }
            None => out.last_mut().unwrap().1.push(line.to_string()),
        }
    }
    out
}

/// Whether some block named `header` (or, for a stanza, whose header starts with it: `iface
/// eth0 inet`) holds every line of `lines` (`&&`-joined), and none of those written `!line`.
fn block_holds(blocks: &[(String, Vec<String>)], header: &str, lines: &str) -> bool {
    let want: Vec<&str> = lines
        .split(" && ")
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let named = |h: &str| {
        h == header || (header.starts_with("iface ") && h.starts_with(&format!("{header} ")))
    };
    blocks.iter().filter(|(h, _)| named(h)).any(|(_, have)| {
        want.iter().all(|w| match w.strip_prefix('!') {
            Some(w) => !have.iter().any(|l| l == w),
            None => have.iter().any(|l| l == w),
        })
    })
}

fn split_negation(s: &str) -> (bool, &str) {
    match s.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, s),
    }
}

/// `name [Section] lines`, `name ![Section]` or `!name` against INI files named by `file`.
fn ini_fact(fact: &str, file: impl Fn(&str) -> String, files: &BTreeMap<String, String>) -> bool {
    let (gone, fact) = split_negation(fact);
    let (name, rest) = fact.split_once(' ').unwrap_or((fact, ""));
    let text = files.get(&file(name));
    if rest.is_empty() {
        return text.is_some() != gone;
    }
    assert!(!gone, "a `!` goes after the file's name: {fact}");
    let Some(text) = text else { return false };
    let blocks = blocks(text, false);
    let (absent, rest) = split_negation(rest);
    let (section, lines) = rest[1..].split_once(']').expect("[Section]");
    let lines = lines.trim();
    if absent {
        return !blocks.iter().any(|(h, _)| h == section);
    }
    block_holds(&blocks, section, lines)
}

fn eni_fact(fact: &str, text: &str) -> bool {
    let blocks = blocks(text, true);
    let (gone, fact) = split_negation(fact);
    let holds = match fact.split_once(" | ") {
        Some((header, lines)) => block_holds(&blocks, header, lines),
        None if fact.starts_with("iface ") => block_holds(&blocks, fact, ""),
        None => blocks[0].1.iter().any(|l| l == fact),
    };
    holds != gone
}

/// Whether `have` holds `want`: equal scalars, a mapping with `want`'s keys (each held), a
/// list with an item that holds it (or, for a list, every item held).
fn yaml_holds(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::Array(items), Value::Array(wanted)) => wanted
            .iter()
            .all(|w| items.iter().any(|h| yaml_holds(h, w))),
        (Value::Array(items), w) => items.iter().any(|h| yaml_holds(h, w)),
        (Value::Object(h), Value::Object(w)) => w
            .iter()
            .all(|(k, v)| h.get(k).is_some_and(|hv| yaml_holds(hv, v))),
        (h, w) => h == w || scalar(h) == scalar(w),
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn yaml(text: &str) -> Value {
    let doc = ember::yaml::parse(text, &ember::limits::Limits::default()).expect("YAML");
    doc.value
}

fn netplan_fact(fact: &str, text: &str) -> bool {
    let doc = yaml(text);
    let (gone, fact) = split_negation(fact);
    let (path, want) = match fact.split_once(" = ") {
        Some((p, w)) => (p, Some(yaml(w))),
        None => (fact, None),
    };
    let mut node = doc.get("network");
    for key in path.split('/') {
        node = node.and_then(|n| n.get(key));
    }
    let holds = match (node, want) {
        (Some(n), Some(w)) => yaml_holds(n, &w),
        (n, None) => n.is_some(),
        (None, Some(_)) => false,
    };
    holds != gone
}

/// Every fact of `row` that does not hold on `out`.
fn wrong_facts(row: &Row, out: &Output) -> Vec<String> {
    let mut wrong = Vec::new();
    let files = |name: &str| &out.files[name];
    let eni = files("eni")
        .get("etc/network/interfaces.d/50-cloud-init")
        .cloned()
        .unwrap_or_default();
    let netplan = files("netplan")
        .get("etc/netplan/50-cloud-init.yaml")
        .cloned()
        .unwrap_or_default();
    for f in row.eni {
        if !eni_fact(f, &eni) {
            wrong.push(format!("eni: {f}\n{eni}"));
        }
    }
    for f in row.netplan {
        if !netplan_fact(f, &netplan) {
            wrong.push(format!("netplan: {f}\n{netplan}"));
        }
    }
    let networkd = |n: &str| format!("etc/systemd/network/10-cloud-init-{n}");
    for f in row.networkd {
        if !ini_fact(f, networkd, files("networkd")) {
            wrong.push(format!("networkd: {f}\n{:#?}", files("networkd")));
        }
    }
    let nm = |n: &str| format!("etc/NetworkManager/system-connections/cloud-init-{n}.nmconnection");
    for f in row.nm {
        if !ini_fact(f, nm, files("nm")) {
            wrong.push(format!("nm: {f}\n{:#?}", files("nm")));
        }
    }
    for w in row.warns {
        if !out.warnings.contains(w) {
            wrong.push(format!("warning with {w:?}: {}", out.warnings));
        }
    }
    wrong
}

/// What net-convert wrote for every row of every table, by upstream name (rendered once for
/// all the tests here, then read from memory).
fn rendered() -> &'static BTreeMap<&'static str, Output> {
    static ALL: OnceLock<BTreeMap<&'static str, Output>> = OnceLock::new();
    ALL.get_or_init(|| {
        let dir = scratch("render");
        let mut out = BTreeMap::new();
        for (n, row) in all_rows().iter().enumerate() {
            assert!(!row.upstream.is_empty(), "row {n} names no upstream test");
            if row.unchecked.is_some() {
                continue;
            }
            let output = render(row, &dir.join(n.to_string()));
            let twice = out.insert(row.upstream, output).is_some();
            assert!(!twice, "{}: two rows of this name", row.upstream);
        }
        let _ = std::fs::remove_dir_all(&dir);
        out
    })
}

/// Checks the facts of every row of `rows`; all problems are reported at once.
pub fn check(rows: &[Row]) {
    let mut problems = Vec::new();
    for row in rows {
        if let Some(phrase) = row.differs {
            differences::assert_listed(row.upstream, phrase);
        }
        if let Some(why) = row.unchecked {
            let facts = [row.eni, row.netplan, row.networkd, row.nm, row.warns];
            assert!(
                !why.is_empty() && row.input.is_empty() && facts.iter().all(|f| f.is_empty()),
                "{}: a row left unchecked gives its reason, and no input or facts",
                row.upstream
            );
            continue;
        }
        for w in wrong_facts(row, &rendered()[row.upstream]) {
            problems.push(format!("{}: {w}", row.upstream));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

fn all_rows() -> Vec<Row> {
    [
        configs::ROWS,
        test_net::ROWS,
        units::ROWS,
        rendering::ROWS,
        openstack::ROWS,
        netplan::ROWS,
    ]
    .concat()
}

/// The rows that are rendered (every one but those left unchecked).
fn rendered_rows() -> Vec<Row> {
    all_rows()
        .into_iter()
        .filter(|r| r.unchecked.is_none())
        .collect()
}

#[test]
fn network_configs_examples() {
    check(configs::ROWS);
}

#[test]
fn test_net_renderer_tests() {
    check(test_net::ROWS);
}

#[test]
fn renderer_unit_tests() {
    check(units::ROWS);
}

#[test]
fn whole_configs_rendered() {
    check(rendering::ROWS);
}

#[test]
fn openstack_network_data() {
    check(openstack::ROWS);
}

#[test]
fn netplan_renderer_tests() {
    check(netplan::ROWS);
}

/// Writes `files` (path under the root → content) under `root`, each 0600 as ember writes
/// them (netplan warns about a file others can read).
fn write_tree(root: &Path, files: &BTreeMap<String, String>) {
    use std::os::unix::fs::PermissionsExt;
    for (rel, content) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

/// `netplan generate` in `root`: whether it took the files, and what it said.
fn netplan_generate(root: &Path) -> (bool, String) {
    let res = Command::new("netplan")
        .arg("generate")
        .arg("--root-dir")
        .arg(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
    (res.status.success() && !stderr.contains("Error"), stderr)
}

/// The consumers take every row's output: `netplan generate`, `ifup --no-act` on every
/// interface, libnm's keyfile reader and `verify()`.
#[test]
fn consumers_take_every_row() {
    let dir = scratch("consumers");
    let rows = rendered_rows();
    let outs: Vec<&Output> = rows.iter().map(|r| &rendered()[r.upstream]).collect();
    for (n, out) in outs.iter().enumerate() {
        for (stack, files) in &out.files {
            write_tree(&dir.join(n.to_string()).join(stack), files);
        }
    }
    let mut problems = Vec::new();
    if have("netplan") {
        for (n, (row, out)) in rows.iter().zip(outs.iter()).enumerate() {
            let root = dir.join(n.to_string()).join("netplan");
            if out.files["netplan"].is_empty() {
                continue;
            }
            let (ok, said) = netplan_generate(&root);
            // A v2 config passed through as given draws what netplan says of the row's own
            // input, and is judged by that.
            let own = || {
                let own = dir.join(n.to_string()).join("own");
                let file = BTreeMap::from([(
                    "etc/netplan/50-cloud-init.yaml".to_string(),
                    format!("network:\n{}", row.input),
                )]);
                write_tree(&own, &file);
                netplan_generate(&own).0
            };
            if !ok && (row.json || own()) {
                problems.push(format!("{}: netplan generate: {said}", row.upstream));
            }
        }
    }
    if have("ifup") {
        for (n, (row, out)) in rows.iter().zip(outs.iter()).enumerate() {
            let Some(text) = out.files["eni"].get("etc/network/interfaces.d/50-cloud-init") else {
                continue;
            };
            let base = dir.join(n.to_string());
            let file = base.join("interfaces");
            std::fs::write(&file, text).unwrap();
            let state = base.join("ifstate");
            std::fs::create_dir_all(&state).unwrap();
            let mut names: Vec<&str> = Vec::new();
            for name in text
                .lines()
                .filter_map(|l| l.strip_prefix("iface "))
                .filter_map(|l| l.split_whitespace().next())
            {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let res = Command::new("ifup")
                .arg("--no-act")
                .arg("-i")
                .arg(&file)
                .arg("--state-dir")
                .arg(&state)
                .args(&names)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&res.stderr);
            let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ifup:")).collect();
            if !res.status.success() || !said.is_empty() {
                problems.push(format!("{}: ifup --no-act: {said:?}", row.upstream));
            }
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/network/libnm-check.py");
    let python = "/usr/bin/python3";
    let probe = Command::new(python).arg(&script).arg("--probe").output();
    if probe.is_ok_and(|o| o.status.success()) {
        let mut paths = Vec::new();
        for (n, out) in outs.iter().enumerate() {
            for rel in out.files["nm"].keys() {
                if rel.ends_with(".nmconnection") {
                    paths.push(dir.join(n.to_string()).join("nm").join(rel));
                }
            }
        }
        let res = Command::new(python)
            .arg(&script)
            .args(&paths)
            .output()
            .unwrap();
        let mut said = String::from_utf8_lossy(&res.stdout).into_owned();
        for (n, row) in rows.iter().enumerate().rev() {
            let at = format!("{}/{n}/", dir.display());
            said = said.replace(&at, &format!("{}: ", row.upstream));
        }
        if !res.status.success() {
            problems.push(format!("libnm: {said}{}", common::stderr(&res)));
        }
    } else {
        skip("libnm cannot be loaded");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

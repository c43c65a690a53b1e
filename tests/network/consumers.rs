//! The real consumers judge what the renderers write, beyond the goldens' "as before":
//! libnm's keyfile reader and `verify()` every NetworkManager file (`libnm-check.py`),
//! `netplan generate` every netplan file, `ifup --no-act` every ENI file. The files are every
//! file under `tests/golden/<renderer>/` (a walk: a new case is judged too) and what each
//! renderer makes of every network config the tests hold (the golden inputs, each ENI and
//! NetworkManager case's input, the demo's seed), each distinct content once.
//! systemd-networkd has no offline verifier (`systemd-analyze verify` takes units only,
//! `networkctl` nothing offline): its files have the goldens alone.
//! A missing consumer skips its test, and fails it under CI (scripts/setup installs them).

use crate::common::{have, skip};
use crate::golden::{case_dirs, harness};
use ember::network::render::{eni, netplan, nm, Rendered};
use ember::network::Network;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian's own Python: the one python3-gi is installed for (a PATH python may be another).
const PYTHON: &str = "/usr/bin/python3";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("ember-consumers-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes `content` at `rel` (parents made) with `mode`; returns the path.
    fn write(&self, rel: &str, content: &str, mode: u32) -> PathBuf {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A network config the tests hold: where it came from, its text, its model.
struct Config {
    label: String,
    text: String,
    net: Network,
}

fn configs() -> Vec<Config> {
    let golden = repo().join("tests/golden");
    let mut out: Vec<Config> = harness::cases()
        .into_iter()
        .map(|(case, net)| {
            let path = fs::read_dir(golden.join("inputs"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.file_stem().is_some_and(|s| s == case.as_str()))
                .unwrap();
            Config {
                label: format!("inputs/{case}"),
                text: fs::read_to_string(path).unwrap(),
                net,
            }
        })
        .collect();
    for renderer in ["eni", "nm"] {
        let mut cases: Vec<PathBuf> = fs::read_dir(golden.join(renderer))
            .unwrap()
            .map(|e| e.unwrap().path().join("network-config.yaml"))
            .filter(|p| p.is_file())
            .collect();
        cases.sort();
        for path in cases {
            let text = fs::read_to_string(&path).unwrap();
            let case = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy();
            out.push(Config {
                label: format!("{renderer}/{case}"),
                net: case_dirs::model(&text),
                text,
            });
        }
    }
    let demo = fs::read_to_string(repo().join("examples/nocloud-seed/network-config")).unwrap();
    out.push(Config {
        label: "examples/nocloud-seed".into(),
        net: case_dirs::model(&demo),
        text: demo,
    });
    out
}

/// One file to judge: where it was first seen, and the config it was rendered from (`None`
/// for a golden file no config renders today).
struct Judged<'a> {
    label: String,
    from: Option<&'a Config>,
}

/// Every distinct file `render` makes of `configs` whose path `wanted` takes, then every such
/// file under `tests/golden/<dir>/` not among them; by content.
fn files<'a>(
    dir: &str,
    render: fn(&Network) -> Rendered,
    wanted: fn(&str) -> bool,
    configs: &'a [Config],
) -> BTreeMap<String, Judged<'a>> {
    let mut out = BTreeMap::new();
    for c in configs {
        for f in render(&c.net).files {
            if wanted(&f.path) {
                let label = format!("{} → {}", c.label, f.path);
                out.entry(f.content).or_insert(Judged {
                    label,
                    from: Some(c),
                });
            }
        }
    }
    let base = repo().join("tests/golden").join(dir);
    let mut golden = Vec::new();
    walk(&base, &mut golden);
    golden.sort();
    for path in golden {
        let rel = path
            .strip_prefix(repo())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if wanted(&rel) {
            let content = fs::read_to_string(&path).unwrap();
            out.entry(content).or_insert(Judged {
                label: rel,
                from: None,
            });
        }
    }
    assert!(
        out.len() >= 7,
        "{dir}: too few files to judge: {}",
        out.len()
    );
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn libnm_loads() -> bool {
    let why = match Command::new(PYTHON).arg(script()).arg("--probe").output() {
        Ok(o) if o.status.success() => return true,
        Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Err(e) => format!("{PYTHON}: {e}"),
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "under CI: {why} (scripts/setup installs it)"
    );
    skip(&why);
    false
}

fn script() -> PathBuf {
    repo().join("tests/network/libnm-check.py")
}

#[test]
fn every_keyfile_loads_in_libnm() {
    if !libnm_loads() {
        return;
    }
    let configs = configs();
    let files = files(
        "nm",
        nm::render,
        |p| p.contains("etc/NetworkManager/"),
        &configs,
    );
    let scratch = Scratch::new("nm");
    let mut paths = BTreeMap::new();
    for (n, (content, judged)) in files.iter().enumerate() {
        let name = judged.label.rsplit('/').next().unwrap();
        let path = scratch.write(&format!("{n}/{name}"), content, 0o600);
        paths.insert(path.to_string_lossy().into_owned(), judged);
    }
    let out = Command::new(PYTHON)
        .arg(script())
        .args(paths.keys())
        .output()
        .unwrap();
    let mut said = String::from_utf8_lossy(&out.stdout).into_owned();
    for (path, judged) in &paths {
        said = said.replace(path.as_str(), &judged.label);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "libnm refuses what ember wrote:\n{said}{stderr}"
    );
}

/// What `netplan generate` says about the netplan file `content`, in a fresh root: its exit
/// status and its messages, each without the file's place, the process id and the time.
fn netplan_says(scratch: &Scratch, n: usize, content: &str) -> (bool, Vec<String>) {
    let root = scratch.0.join(n.to_string());
    // 0600, as ember writes it: netplan warns about a file others can read.
    scratch.write(
        &format!("{n}/etc/netplan/50-cloud-init.yaml"),
        content,
        0o600,
    );
    let out = Command::new("netplan")
        .arg("generate")
        .arg("--root-dir")
        .arg(&root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let messages = stderr
        .lines()
        .filter_map(|l| {
            // `** (generate:PID): WARNING **: HH:MM:SS.mmm: text`
            if let Some((_, rest)) = l.split_once(" **: ") {
                return rest.split_once(": ").map(|(_, text)| text.to_string());
            }
            // `FILE:LINE:COL: Error in network definition: text`, then the line and a caret.
            let (_, text) = l.split_once(".yaml:")?;
            let text = text.splitn(3, ':').nth(2)?.trim();
            Some(text.to_string())
        })
        .collect();
    (out.status.success(), messages)
}

/// A v2 config's own text as a netplan file: under `network:` unless it is already.
fn as_netplan_file(text: &str) -> String {
    if text.lines().any(|l| l.starts_with("network:")) {
        return text.to_string();
    }
    let body: String = text.lines().map(|l| format!("  {l}\n")).collect();
    format!("network:\n{body}")
}

/// netplan takes every file without a word; a v2 config ember passes through as given (as
/// cloud-init does) may draw what netplan says of the user's own file, and nothing more.
#[test]
fn netplan_generate_takes_every_file() {
    if !have("netplan") {
        return;
    }
    let configs = configs();
    let files = files(
        "netplan",
        netplan::render,
        |p| p.contains("etc/netplan/"),
        &configs,
    );
    let scratch = Scratch::new("netplan");
    let mut problems = Vec::new();
    for (n, (content, judged)) in files.iter().enumerate() {
        let got = netplan_says(&scratch, 2 * n, content);
        let passthrough = judged.from.filter(|c| c.net.netplan.is_some());
        let want = match passthrough {
            Some(c) => netplan_says(&scratch, 2 * n + 1, &as_netplan_file(&c.text)),
            None => (true, Vec::new()),
        };
        if got != want {
            problems.push(format!(
                "{}: netplan generate {}: {:#?}\n(expected {want:?})",
                judged.label,
                if got.0 { "succeeds" } else { "fails" },
                got.1
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every interface an ENI file defines.
fn eni_interfaces(content: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let stanzas = content.lines().filter_map(|l| l.strip_prefix("iface "));
    for name in stanzas.filter_map(|l| l.split_whitespace().next()) {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// `ifup --no-act` brings up every interface of every file: it parses the file, knows each
/// family and method, and finds each method's required options. Its own state directory keeps
/// the host's ifupdown state out of it; with `--no-act` it runs nothing (it prints the commands).
#[test]
fn ifup_takes_every_eni_file() {
    if !have("ifup") {
        return;
    }
    let configs = configs();
    let files = files("eni", eni::render, |p| p.contains("etc/network/"), &configs);
    let scratch = Scratch::new("eni");
    let mut problems = Vec::new();
    for (n, (content, judged)) in files.iter().enumerate() {
        let file = scratch.write(&format!("{n}/interfaces"), content, 0o644);
        let state = scratch.0.join(format!("{n}/state"));
        fs::create_dir_all(&state).unwrap();
        let names = eni_interfaces(content);
        assert!(!names.is_empty(), "{}: no iface stanza", judged.label);
        let out = Command::new("ifup")
            .arg("--no-act")
            .arg("-i")
            .arg(&file)
            .arg("--state-dir")
            .arg(&state)
            .args(&names)
            .output()
            .unwrap();
        // The commands it would run go to stderr too; its own words start with `ifup:`.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ifup:")).collect();
        if !out.status.success() || !said.is_empty() {
            problems.push(format!("{}: {:?}: {said:#?}", judged.label, out.status));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

//! Checks on a whole model, whatever format it came from: every name that becomes a device
//! name, a file name or a line of a rendered file is one the kernel would take (`dev_valid_name`:
//! 1-15 bytes, not `.` or `..`, no `/`, `:` or blank), so no renderer can write outside its
//! directory or start a new section; and bonds, bridges and vlans form no cycle.

use super::model::{Kind, Network};
use super::read::Reader;
use serde_json::Value;

/// Longest interface id (a file name part for a matched NIC, which the kernel never sees).
const ID_MAX: usize = 64;

/// A kernel interface name, as `dev_valid_name` checks it (IFNAMSIZ is 16 with the NUL);
/// printable ASCII only, since it also becomes part of a file name.
pub fn kernel_name_ok(name: &str) -> bool {
    (1..16).contains(&name.len()) && word_ok(name) && !name.contains(':')
}

/// A word safe in a file name and on one line of any renderer's format: printable ASCII
/// without blanks or `/`, and not `.` or `..`.
fn word_ok(word: &str) -> bool {
    !matches!(word, "" | "." | "..") && word.bytes().all(|b| b.is_ascii_graphic() && b != b'/')
}

/// The problems with names and the device graph of `net`, each as (interface index, key
/// path, message); `paths` holds each interface's key path, by index. Of a cycle, its first
/// device is named (the others then refer to a skipped device).
pub(crate) fn problems(net: &Network, paths: &[String]) -> Vec<(usize, String, String)> {
    let path_of = |i: usize| paths.get(i).cloned().unwrap_or_else(|| "ip".to_string());
    let mut out = Vec::new();
    for (i, iface) in net.interfaces.iter().enumerate() {
        let path = path_of(i);
        if iface.id.len() > ID_MAX || !word_ok(&iface.id) {
            let msg = "not a usable interface id (1-64 printable characters, no blank or `/`, not `.` or `..`)";
            out.push((i, path, msg.to_string()));
            continue;
        }
        if let Some(name) = iface.device_name().filter(|n| !kernel_name_ok(n)) {
            let at = if name == iface.id {
                path
            } else {
                format!("{path}.set-name")
            };
            let msg = "not a valid interface name (1-15 printable characters, no blank, `/` or `:`, not `.` or `..`)";
            out.push((i, at, msg.to_string()));
            continue;
        }
        if let Kind::Physical { matching, .. } = &iface.kind {
            let names = matching.name.iter().chain(&matching.driver);
            if names.clone().any(|n| n.len() > ID_MAX || !word_ok(n)) {
                let msg = "a name or driver to match holds a blank, `/` or a control character";
                out.push((i, format!("{}.match", path_of(i)), msg.to_string()));
            }
        }
    }
    for cycle in cycles(net) {
        let first = net
            .interfaces
            .iter()
            .position(|i| i.id == cycle[0])
            .unwrap_or(0);
        let msg = format!("devices hold each other in a cycle: {}", cycle.join(" -> "));
        out.push((first, path_of(first), msg));
    }
    out
}

/// The interfaces a bond, bridge or vlan is made of (members, ports, the vlan's link).
fn parts(kind: &Kind) -> Vec<&str> {
    match kind {
        Kind::Bond { members, .. } | Kind::Bridge { members, .. } => {
            members.iter().map(String::as_str).collect()
        }
        Kind::Vlan { link, .. } => vec![link.as_str()],
        Kind::Physical { .. } => Vec::new(),
    }
}

/// Each cycle once, as the ids along it with the first repeated at the end. Depth-first
/// with colours: a config has tens of interfaces, so the index lookups stay cheap.
fn cycles(net: &Network) -> Vec<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Seen {
        No,
        OnPath,
        Done,
    }
    fn visit(
        net: &Network,
        i: usize,
        seen: &mut [Seen],
        path: &mut Vec<usize>,
        out: &mut Vec<Vec<String>>,
    ) {
        seen[i] = Seen::OnPath;
        path.push(i);
        for part in parts(&net.interfaces[i].kind) {
            let Some(j) = net.interfaces.iter().position(|o| o.id == part) else {
                continue; // an undefined part is reported by the reference check
            };
            match seen[j] {
                Seen::No => visit(net, j, seen, path, out),
                Seen::OnPath if j != i => {
                    let start = path.iter().position(|&p| p == j).unwrap_or(0);
                    let mut ids: Vec<String> = path[start..]
                        .iter()
                        .map(|&p| net.interfaces[p].id.clone())
                        .collect();
                    ids.push(net.interfaces[j].id.clone());
                    out.push(ids);
                }
                _ => {} // done, or a self-reference, which the reference check names
            }
        }
        path.pop();
        seen[i] = Seen::Done;
    }
    let mut seen = vec![Seen::No; net.interfaces.len()];
    let mut out = Vec::new();
    for i in 0..net.interfaces.len() {
        if seen[i] == Seen::No {
            visit(net, i, &mut seen, &mut Vec::new(), &mut out);
        }
    }
    out
}

/// Every key and string of a mapping but those under `entries` (read entry by entry, so an
/// entry with one is skipped alone): see [`refuse_controls`].
pub(crate) fn refuse_controls_but(value: &Value, path: &str, entries: &[&str], rd: &mut Reader) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if !entries.contains(&key.as_str()) {
                    refuse_key_controls(key, item, &super::read::join(path, key), rd);
                }
            }
        }
        _ => refuse_controls(value, path, rd),
    }
}

/// A key (a v2 device id) and its value: see [`refuse_controls`].
pub(crate) fn refuse_key_controls(key: &str, value: &Value, at: &str, rd: &mut Reader) {
    if key.chars().any(char::is_control) {
        rd.error(at, "this key holds a control character (a line break?)");
    } else {
        refuse_controls(value, at, rd);
    }
}

/// Every key and string of the input: a control character (a line break above all) would end
/// a rendered line early and could start a section of its own, so it is refused where it is.
pub(crate) fn refuse_controls(value: &Value, path: &str, rd: &mut Reader) {
    let has_control = |s: &str| s.chars().any(char::is_control);
    match value {
        Value::String(s) if has_control(s) => {
            rd.error(
                path,
                "holds a control character (a line break?), which no network file can carry",
            );
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                refuse_controls(item, &super::read::join(path, i), rd);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                refuse_key_controls(key, item, &super::read::join(path, key), rd);
            }
        }
        _ => {}
    }
}

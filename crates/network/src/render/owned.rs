//! What of the record of rendered files (`/var/lib/ember/network-rendered.json`) is ember's
//! to remove, on a new instance and by `ember clean --configs network`: a listed path only if
//! one of the renderers writes there, and the file only while it is a regular file that still
//! starts with that renderer's header. A gone NIC's udev rule only by its whole MAC. A stale or
//! corrupt record thus never removes a file ember did not write. Only names and headers here,
//! no renderer code, so the runner links none of it.

use super::{eni, netplan, networkd, nm};
use crate::reason::Reason;
use crate::root::{Marked, Root, RootError};

/// Where the network step records what it rendered.
pub const RECORD: &str = "/var/lib/ember/network-rendered.json";
/// The record's budget: far more than any rendering lists.
pub const MAX_RECORD: u64 = 1 << 20;
/// The code of a listed path or MAC left alone, or of a record that cannot be read.
pub const REFUSED: Reason = Reason::NetworkRecordRefused;
/// Said of a record that is not JSON of the expected shape.
pub const UNREADABLE: &str =
    "not a record ember can read: none of the network files it lists is removed";

/// Files a renderer writes: exactly `path`, or in the directory `path` named `prefix` + a
/// name of its own + `suffix`; each starts with `header`.
struct Kind {
    path: &'static str,
    named: Option<(&'static str, &'static str)>,
    header: &'static str,
}

const fn exact(path: &'static str, header: &'static str) -> Kind {
    Kind {
        path,
        named: None,
        header,
    }
}

const fn named(
    dir: &'static str,
    affixes: (&'static str, &'static str),
    header: &'static str,
) -> Kind {
    Kind {
        path: dir,
        named: Some(affixes),
        header,
    }
}

const KINDS: [Kind; 8] = [
    named(
        networkd::DIR,
        (networkd::PREFIX, ".network"),
        networkd::HEADER,
    ),
    named(
        networkd::DIR,
        (networkd::PREFIX, ".netdev"),
        networkd::HEADER,
    ),
    named(networkd::DIR, (networkd::PREFIX, ".link"), networkd::HEADER),
    exact(netplan::PATH, netplan::HEADER),
    exact(eni::PATH, eni::util::HEADER),
    exact(eni::RULES, eni::util::HEADER),
    named(nm::DIR, (nm::PREFIX, nm::SUFFIX), eni::util::HEADER),
    exact(nm::CONF, nm::CONF_HEADER),
];

/// The header a renderer's file at `path` starts with, if a renderer writes there.
pub fn header_for(path: &str) -> Option<&'static str> {
    let (dir, name) = path.rsplit_once('/')?;
    KINDS.iter().find_map(|k| {
        let ok = match k.named {
            None => path == k.path,
            Some((prefix, suffix)) => {
                let own = name
                    .strip_prefix(prefix)
                    .and_then(|n| n.strip_suffix(suffix));
                dir == k.path && own.is_some_and(|n| !n.is_empty() && !n.contains(char::is_control))
            }
        };
        ok.then_some(k.header)
    })
}

/// Why a listed file was left alone.
#[derive(Debug)]
pub enum Refusal {
    /// No renderer writes there.
    NotRenderers,
    /// A symlink, directory or other non-regular file.
    NotRegular,
    /// A regular file without the renderer's header: someone else's, or edited.
    NoHeader,
    /// The removal itself failed.
    Failed(RootError),
}

impl Refusal {
    pub fn code(&self) -> Reason {
        match self {
            Refusal::Failed(e) => e.code(),
            _ => REFUSED,
        }
    }

    /// Names the path and the record, never the file's content.
    pub fn message(&self, path: &str) -> String {
        let why = match self {
            Refusal::NotRenderers => "no network renderer of ember writes there",
            Refusal::NotRegular => "it is not a regular file (a symlink, a directory…)",
            Refusal::NoHeader => "it does not start with ember's header (not ember's, or edited)",
            Refusal::Failed(e) => return e.to_string(),
        };
        format!(
            "{} is listed in {RECORD}, but {why}: left alone",
            path.escape_debug()
        )
    }
}

/// Removes the listed `path` if it is ember's (see the module's doc); absent is fine.
pub fn remove(root: &Root, path: &str) -> Result<(), Refusal> {
    let header = header_for(path).ok_or(Refusal::NotRenderers)?;
    match root.remove_marked(path, header.as_bytes()) {
        Ok(Marked::Removed | Marked::Absent) => Ok(()),
        Ok(Marked::NotRegular) => Err(Refusal::NotRegular),
        Ok(Marked::Unmarked) => Err(Refusal::NoHeader),
        Err(e) => Err(Refusal::Failed(e)),
    }
}

/// Whether `s` is a whole MAC address: six octets of two hex digits, colon-separated.
pub fn is_mac(s: &str) -> bool {
    s.len() == 17
        && s.split(':')
            .all(|o| o.len() == 2 && o.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `rules` without the lines whose `ATTR{address}` value is one of `gone` (whole MACs),
/// compared without regard to case. Comments and every other line stay.
pub fn drop_udev_rules(rules: &str, gone: &[&str]) -> String {
    rules
        .split_inclusive('\n')
        .filter(|line| {
            let line = line.trim_start();
            line.starts_with('#')
                || !addresses(line).any(|a| gone.iter().any(|g| a.eq_ignore_ascii_case(g)))
        })
        .collect()
}

/// The values of a rule line's `ATTR{address}=="…"` matches.
fn addresses(line: &str) -> impl Iterator<Item = &str> {
    line.match_indices("ATTR{address}")
        .filter_map(move |(at, key)| {
            let rest = line[at + key.len()..].trim_start();
            let rest = rest.strip_prefix("==")?.trim_start().strip_prefix('"')?;
            rest.split_once('"').map(|(value, _)| value)
        })
}

#[cfg(test)]
#[path = "owned_tests.rs"]
mod tests;

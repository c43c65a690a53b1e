//! Reading network-config values: typed getters that record a diagnostic naming the key path
//! (and the line, when the input was YAML) instead of failing, so one pass reports every
//! problem. Messages never quote the input's values (RELIABILITY rule 3).

use super::addr;
use super::model::{Cidr, Network};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::IpAddr;

pub(crate) const INVALID: Reason = Reason::NetworkConfigInvalid;
pub(crate) const UNKNOWN: Reason = Reason::NetworkConfigUnknownKey;
pub(crate) const UNSUPPORTED: Reason = Reason::NetworkConfigUnsupported;

/// `base.key`, or `key` at the top.
pub(crate) fn join(base: &str, key: impl std::fmt::Display) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// Collects the diagnostics of one parse.
pub(crate) struct Reader<'a> {
    file: &'a str,
    lines: Option<&'a BTreeMap<String, u32>>,
    pub(crate) diags: Vec<Diag>,
    /// How many entries were skipped for their problems.
    pub(crate) skipped: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(file: &'a str, lines: Option<&'a BTreeMap<String, u32>>) -> Reader<'a> {
        Reader {
            file,
            lines,
            diags: Vec::new(),
            skipped: 0,
        }
    }

    /// Where an entry's diagnostics begin, for [`Reader::skip`].
    pub(crate) fn mark(&self) -> usize {
        self.diags.len()
    }

    /// Whether the entry at `path` read since `mark` had an error: then, as cloud-init skips
    /// an invalid entry and renders the rest, its errors become warnings and one more says
    /// that `what` is skipped.
    pub(crate) fn skip(&mut self, mark: usize, path: &str, what: &str) -> bool {
        let mut failed = false;
        for d in &mut self.diags[mark..] {
            if d.is_error() {
                d.severity = crate::error::Severity::Warning;
                failed = true;
            }
        }
        if failed {
            self.skipped += 1;
            let msg = format!("{what} is skipped for the problem above; the rest is used");
            self.warn(INVALID, path, msg);
        }
        failed
    }

    /// The line of `path`, or of the nearest enclosing key that has one.
    fn line(&self, path: &str) -> Option<u32> {
        let lines = self.lines?;
        let mut p = path;
        loop {
            if let Some(l) = lines.get(p) {
                return Some(*l);
            }
            p = &p[..p.rfind('.')?];
        }
    }

    fn push(&mut self, diag: Diag, path: &str) {
        let line = self.line(path);
        let diag = diag.file(self.file).line(line);
        self.diags.push(if path.is_empty() {
            diag
        } else {
            diag.key(path)
        });
    }

    pub(crate) fn error(&mut self, path: &str, msg: impl Into<String>) {
        self.push(Diag::error(INVALID, msg), path);
    }

    pub(crate) fn warn(&mut self, code: Reason, path: &str, msg: impl Into<String>) {
        self.push(Diag::warning(code, msg), path);
    }

    pub(crate) fn unknown(&mut self, path: &str) {
        self.warn(UNKNOWN, path, "unknown key, ignored");
    }

    pub(crate) fn has_errors(&self) -> bool {
        self.diags.iter().any(Diag::is_error)
    }

    pub(crate) fn map<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v Map<String, Value>> {
        let m = v.as_object();
        if m.is_none() {
            self.error(path, "expected a mapping");
        }
        m
    }

    /// A list; `null` is an empty one.
    pub(crate) fn list<'v>(&mut self, v: &'v Value, path: &str) -> &'v [Value] {
        match v {
            Value::Array(items) => items,
            Value::Null => &[],
            _ => {
                self.error(path, "expected a list");
                &[]
            }
        }
    }

    /// A boolean, also written as YAML 1.1 and netplan accept it in a string (`"yes"`).
    pub(crate) fn bool(&mut self, v: &Value, path: &str) -> Option<bool> {
        let b = match v {
            Value::Bool(b) => Some(*b),
            Value::String(s) => match s.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "y" | "1" => Some(true),
                "false" | "no" | "off" | "n" | "0" => Some(false),
                _ => None,
            },
            Value::Number(n) => n.as_u64().filter(|n| *n <= 1).map(|n| n == 1),
            _ => None,
        };
        if b.is_none() {
            self.error(path, "expected true or false");
        }
        b
    }

    /// A whole number in `min..=max`, also as a string of digits.
    pub(crate) fn num(&mut self, v: &Value, path: &str, min: u32, max: u32) -> Option<u32> {
        let n = match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        let Some(n) = n else {
            self.error(path, "expected a number");
            return None;
        };
        match u32::try_from(n).ok().filter(|n| (min..=max).contains(n)) {
            Some(n) => Some(n),
            None => {
                self.error(path, format!("out of range ({min} to {max})"));
                None
            }
        }
    }

    /// A scalar as text: numbers are written out (an interface called `100`).
    pub(crate) fn text<'v>(&mut self, v: &'v Value, path: &str) -> Option<Cow<'v, str>> {
        match v {
            Value::String(s) => Some(Cow::Borrowed(s)),
            Value::Number(n) => Some(Cow::Owned(n.to_string())),
            _ => {
                self.error(path, "expected a string");
                None
            }
        }
    }

    pub(crate) fn string(&mut self, v: &Value, path: &str) -> Option<String> {
        self.text(v, path).map(Cow::into_owned)
    }

    /// A list of strings, or one string (then split at whitespace, as v1's `dns_search`).
    pub(crate) fn strings(&mut self, v: &Value, path: &str) -> Vec<String> {
        match v {
            Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
            _ => {
                let items = self.list(v, path);
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.extend(self.string(item, &join(path, i)));
                }
                out
            }
        }
    }

    pub(crate) fn ip(&mut self, v: &Value, path: &str) -> Option<IpAddr> {
        let ip = self.text(v, path)?.trim().parse().ok();
        if ip.is_none() {
            self.error(path, "not an IP address");
        }
        ip
    }

    /// IP addresses: a list, or one address (v1's `address: 10.0.0.2`), or space-separated.
    pub(crate) fn ips(&mut self, v: &Value, path: &str) -> Vec<IpAddr> {
        if let Value::String(s) = v {
            let out: Option<Vec<IpAddr>> = s.split_whitespace().map(|a| a.parse().ok()).collect();
            if out.is_none() {
                self.error(path, "not an IP address");
            }
            return out.unwrap_or_default();
        }
        let items = self.list(v, path);
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.extend(self.ip(item, &join(path, i)));
        }
        out
    }

    /// `addr/prefix`, which must have its prefix length (netplan's rule for addresses).
    pub(crate) fn cidr(&mut self, v: &Value, path: &str) -> Option<Cidr> {
        let text = self.text(v, path)?;
        match addr::cidr(&text) {
            Ok((ip, Some(prefix))) => Some(Cidr { ip, prefix }),
            Ok((_, None)) => {
                self.error(path, "has no prefix length");
                None
            }
            Err(e) => {
                self.error(path, e);
                None
            }
        }
    }

    /// `addr/prefix` or a bare address, which stands for the host (/32, /128).
    pub(crate) fn cidr_or_host(&mut self, v: &Value, path: &str) -> Option<Cidr> {
        let text = self.text(v, path)?;
        match addr::cidr(&text) {
            Ok((ip, prefix)) => Some(Cidr {
                ip,
                prefix: prefix.unwrap_or(addr::max_prefix(ip)),
            }),
            Err(e) => {
                self.error(path, e);
                None
            }
        }
    }

    pub(crate) fn mac(&mut self, v: &Value, path: &str) -> Option<String> {
        let mac = addr::mac(&self.text(v, path)?);
        if mac.is_none() {
            self.error(
                path,
                "not a MAC address (six or twenty hex bytes, colon-separated)",
            );
        }
        mac
    }

    /// A duration in milliseconds: a number in `unit_ms` units, or with a suffix (`ms`, `s`,
    /// `min`).
    pub(crate) fn duration_ms(&mut self, v: &Value, path: &str, unit_ms: u32) -> Option<u32> {
        let d = match v {
            Value::Number(n) => n.as_u64().and_then(|n| addr::scale(n, unit_ms)),
            Value::String(s) => addr::duration_ms(s, unit_ms),
            _ => None,
        };
        if d.is_none() {
            self.error(path, "not a duration (a number, or with ms, s or min)");
        }
        d
    }
}

/// What a reference from one interface to another is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefKind {
    /// A bond or bridge member: each interface may be a member of one only.
    Member,
    /// A vlan's link, a bond's primary, a bridge port option, a nameserver's interface.
    Other,
}

/// References between interfaces, checked once every interface is known.
#[derive(Default)]
pub(crate) struct Refs {
    /// The key path of each interface of the model, by index.
    pub(crate) paths: Vec<String>,
    refs: Vec<Ref>,
}

struct Ref {
    path: String,
    /// The interface referred to.
    id: String,
    /// The referring interface's id, and its index (the interface being read when the
    /// reference was added); none for a nameserver entry.
    from: String,
    owner: Option<usize>,
    kind: RefKind,
}

impl Refs {
    /// Records a reference from the interface being read (`from`; empty for an entry that is
    /// no interface).
    pub(crate) fn add(&mut self, path: String, id: &str, from: &str, kind: RefKind) {
        let owner = (!from.is_empty()).then_some(self.paths.len());
        self.add_at(owner, path, id, from, kind);
    }

    /// Records a reference from the interface that will have index `owner` (none for an
    /// entry that is no interface), for a reader that builds interfaces out of order.
    pub(crate) fn add_at(
        &mut self,
        owner: Option<usize>,
        path: String,
        id: &str,
        from: &str,
        kind: RefKind,
    ) {
        self.refs.push(Ref {
            path,
            id: id.to_string(),
            from: from.to_string(),
            owner,
            kind,
        });
    }

    /// How many references there are, to forget those of a skipped entry.
    pub(crate) fn mark(&self) -> usize {
        self.refs.len()
    }

    pub(crate) fn forget(&mut self, mark: usize) {
        self.refs.truncate(mark);
    }

    /// Every id is defined once, every reference names a defined interface other than its
    /// own, no interface is a member of two bonds or bridges, names are usable and devices
    /// form no cycle ([`super::devices::problems`]). An interface with such a problem is
    /// skipped with a warning, as cloud-init skips an invalid entry, and the checks run again
    /// on the rest (a vlan on a skipped NIC goes next). A nameserver entry naming no
    /// interface is skipped alone. (Linear searches: a config has at most a few hundred
    /// interfaces, and a map would cost more code than it saves time.)
    pub(crate) fn check(&mut self, net: &mut Network, rd: &mut Reader) {
        loop {
            let bad = self.problems(net, rd);
            if bad.is_empty() {
                return;
            }
            let mut gone: Vec<usize> = Vec::new();
            for (k, path, msg) in bad {
                rd.warn(INVALID, &path, msg);
                if !gone.contains(&k) {
                    gone.push(k);
                }
            }
            ember_core::sort::sort(&mut gone);
            for &k in &gone {
                rd.skipped += 1;
                let msg = "this interface is skipped for the problem above; the rest is used";
                rd.warn(INVALID, &self.paths[k], msg);
            }
            for &k in gone.iter().rev() {
                net.interfaces.remove(k);
                self.paths.remove(k);
            }
            self.refs
                .retain(|r| r.owner.is_none_or(|o| !gone.contains(&o)));
            for r in &mut self.refs {
                if let Some(o) = &mut r.owner {
                    *o -= gone.iter().filter(|&&g| g < *o).count();
                }
            }
        }
    }

    /// The problems of one round, each as (interface index, key path, message); those of
    /// nameserver entries are warned here, and their references dropped.
    fn problems(&mut self, net: &Network, rd: &mut Reader) -> Vec<(usize, String, String)> {
        let ifaces = &net.interfaces;
        let mut bad = Vec::new();
        for (i, iface) in ifaces.iter().enumerate() {
            if ifaces[..i].iter().any(|o| o.id == iface.id) {
                let msg = "this id is defined twice".to_string();
                bad.push((i, self.paths[i].clone(), msg));
            }
        }
        let mut owner: Vec<(&str, &str)> = Vec::new();
        let mut dropped = Vec::new();
        for (n, r) in self.refs.iter().enumerate() {
            let msg = if !ifaces.iter().any(|o| o.id == r.id) {
                "names an interface that is not defined (or was skipped)"
            } else if r.id == r.from {
                "an interface cannot refer to itself"
            } else if r.kind == RefKind::Member {
                match owner.iter().find(|(m, _)| *m == r.id) {
                    Some((_, prev)) if *prev != r.from => {
                        "this interface is already a member of another bond or bridge"
                    }
                    Some(_) => continue,
                    None => {
                        owner.push((&r.id, &r.from));
                        continue;
                    }
                }
            } else {
                continue;
            };
            match r.owner {
                Some(k) => bad.push((k, r.path.clone(), msg.to_string())),
                None => {
                    rd.skipped += 1;
                    rd.warn(INVALID, &r.path, format!("{msg}: this entry is skipped"));
                    dropped.push(n);
                }
            }
        }
        for n in dropped.into_iter().rev() {
            self.refs.remove(n);
        }
        bad.extend(super::devices::problems(net, &self.paths));
        bad
    }
}

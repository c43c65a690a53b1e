//! Network configuration: one model (`model.rs`) and the parsers that make it from
//! network-config v1, v2 (netplan), OpenStack's network_data.json (`parse_network_data`) and
//! the kernel command line.
//! Parsing and rendering are pure; `ephemeral` is the initramfs's own DHCP client.
//!
//! Architecture invariant: the network takes values, never text. It depends on `ember-core`
//! alone: the YAML parser is the initramfs side's, which reads network-config text into a
//! `Doc` first (`ember::network_text`), so the runner can render and describe networks without
//! linking a parser. Parsing and rendering write nothing; the stages write what they return.

mod addr;
pub mod cmdline;
pub mod convert;
mod devices;
pub mod ephemeral;
pub mod fallback;
pub mod model;
pub mod openstack;
mod params;
mod read;
pub mod render;
pub mod routes;
pub mod stack;
pub mod v1;
mod v1_subnet;
pub mod v2;
mod v2_ip;

pub use model::Network;

#[cfg(test)]
mod tests;

use ember_core::yaml_doc::Doc;
use ember_core::{clock, error, host, reason, root, status, yaml_emit};
use error::Diag;
use read::Reader;
use serde_json::Value;
use std::collections::BTreeMap;

/// What to parse.
pub enum Input<'a> {
    /// An already read YAML document: its line map puts a line on each diagnostic.
    Doc(&'a Doc),
    /// A value without lines (JSON, or YAML read earlier), with the line map if it was kept.
    Value(&'a Value, Option<&'a BTreeMap<String, u32>>),
    /// The kernel command line's parameters: `ip=`, `nameserver=`, `ifname=`, `rd.route=`,
    /// `rd.peerdns=`.
    Cmdline(&'a [String]),
    /// OpenStack's network_data.json, with the host's interface names by lowercase MAC.
    NetworkData(&'a Value, &'a BTreeMap<String, String>),
}

/// A parsed configuration and the warnings it gave (unknown keys, assumed values).
#[derive(Debug)]
pub struct Parsed {
    pub model: Network,
    pub warnings: Vec<Diag>,
}

/// Parses `input`; `source` names it in diagnostics (`/dev/sr0: network-config`). As
/// cloud-init does, an invalid v1 or v2 entry (a device, a subnet, a route, a nameserver) is
/// skipped with warnings and the rest is used. On error (the config as a whole is unusable),
/// every problem found is returned (errors and warnings), each naming its key path and, for
/// YAML input, its line.
pub fn parse(source: &str, input: Input) -> Result<Parsed, Vec<Diag>> {
    let (value, lines) = match input {
        Input::Doc(doc) if !doc.problems.is_empty() => {
            // One bad value of a network config is not guessed at: the config is refused whole
            // (the fallback network is rendered), each value named.
            return Err(doc.problem_diags(source));
        }
        Input::Doc(doc) => (&doc.value, Some(&doc.lines)),
        Input::Value(value, lines) => (value, lines),
        Input::Cmdline(params) => {
            let mut rd = Reader::new(source, None);
            let model = cmdline::parse(params, &mut rd);
            return finish(model, rd);
        }
        Input::NetworkData(value, macs) => return parse_network_data(source, value, macs),
    };
    let mut rd = Reader::new(source, lines);
    let (value, base) = unwrap(value);
    // The entries are checked one by one, so that one with a control character is skipped.
    let entries: &[&str] = match value.get("version").and_then(Value::as_u64) {
        Some(1) => &["config"],
        Some(2) => &v2::SECTIONS,
        _ => &[],
    };
    devices::refuse_controls_but(value, base, entries, &mut rd);
    let Some(map) = rd.map(value, base) else {
        return finish(Network::default(), rd);
    };
    let version_path = read::join(base, "version");
    let model = match map.get("version") {
        Some(v) if v.as_u64() == Some(1) => v1::parse(map, base, &mut rd),
        Some(v) if v.as_u64() == Some(2) => v2::parse(map, base, &mut rd),
        Some(_) => {
            rd.error(&version_path, "unsupported version (1 or 2)");
            Network::default()
        }
        None if map.contains_key("network-interfaces") => {
            let msg = "ENI-style network-interfaces is not supported; use version 1 or 2";
            rd.warn(read::UNSUPPORTED, "network-interfaces", msg);
            return Err(rd.diags);
        }
        None => {
            rd.error(&version_path, "missing: version 1 or 2 is required");
            Network::default()
        }
    };
    finish(model, rd)
}

/// Parses OpenStack's network_data.json; `macs` has the host's interface names by lowercase
/// MAC (it may be empty: physical links are then matched by MAC and named after their link).
pub fn parse_network_data(
    source: &str,
    value: &Value,
    macs: &BTreeMap<String, String>,
) -> Result<Parsed, Vec<Diag>> {
    let mut rd = Reader::new(source, None);
    devices::refuse_controls(value, "", &mut rd);
    let model = openstack::parse(value, macs, &mut rd);
    finish(model, rd)
}

fn finish(model: Network, mut rd: Reader) -> Result<Parsed, Vec<Diag>> {
    // Entries were skipped and no interface is left: nothing of the config is usable (the
    // boot then renders the fallback, as cloud-init would have nothing to render).
    if rd.skipped > 0 && model.interfaces.is_empty() {
        let msg = "no usable interface is left once the invalid entries are skipped";
        rd.error("", msg);
    }
    if rd.has_errors() {
        Err(rd.diags)
    } else {
        Ok(Parsed {
            model,
            warnings: rd.diags,
        })
    }
}

/// The config inside a `network:` wrapper (and its key path), or the value itself.
fn unwrap(value: &Value) -> (&Value, &'static str) {
    match value.get("network") {
        Some(inner) if value.get("version").is_none() => (inner, "network"),
        _ => (value, ""),
    }
}

/// Whether `value` is OpenStack's network_data.json (`links`, no `version`), which a
/// datasource passes on as it is.
pub fn is_network_data(value: &Value) -> bool {
    value.get("version").is_none() && value.get("links").is_some_and(Value::is_array)
}

/// Whether the config says `config: disabled` (bare or under `network:`), as cloud-init's
/// `is_disabled_cfg` reads it.
pub fn is_disabled(value: &Value) -> bool {
    unwrap(value).0.get("config").and_then(Value::as_str) == Some("disabled")
}

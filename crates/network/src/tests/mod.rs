//! Tests of the network parsers: one file per format, each feature and each error path.

mod cmdline;
mod devices;
mod openstack;
mod v1;
mod v2;

use super::{parse, Input, Parsed};
use crate::error::Diag;
use crate::reason::Reason;
use ember_core::limits::Limits;

/// Parses YAML that must be valid; panics with the diagnostics otherwise.
fn ok(yaml: &str) -> Parsed {
    from_text("network-config", yaml).unwrap_or_else(|d| panic!("{}", shown(&d)))
}

/// Parses YAML that has problems: refused as a whole, or with entries skipped. Returns its
/// diagnostics.
fn bad(yaml: &str) -> Vec<Diag> {
    match from_text("network-config", yaml) {
        Ok(p)
            if p.warnings
                .iter()
                .any(|d| d.code == Reason::NetworkConfigInvalid) =>
        {
            p.warnings
        }
        Ok(p) => panic!("accepted: {:#?}", p.model),
        Err(d) => d,
    }
}

/// Parses YAML that must be refused as a whole, and returns its diagnostics.
fn refused(yaml: &str) -> Vec<Diag> {
    match from_text("network-config", yaml) {
        Ok(p) => panic!("accepted: {:#?}", p.model),
        Err(d) => d,
    }
}

/// network-config text read as the boot reads it (the YAML parser is a dev-dependency only).
pub(crate) fn from_text(source: &str, text: &str) -> Result<Parsed, Vec<Diag>> {
    let doc = ember_yaml::parse(text, &Limits::default()).map_err(|e| vec![e.to_diag(source)])?;
    parse(source, Input::Doc(&doc))
}

fn shown(diags: &[Diag]) -> String {
    diags.iter().map(|d| format!("{d}\n")).collect()
}

/// The problem at `key`, which must be there: an error, or the warning of a skipped entry.
fn error_at<'a>(diags: &'a [Diag], key: &str) -> &'a Diag {
    diags
        .iter()
        .find(|d| d.code == Reason::NetworkConfigInvalid && d.key.as_deref() == Some(key))
        .unwrap_or_else(|| panic!("no problem at {key} in\n{}", shown(diags)))
}

/// The keys of the warnings, in order.
fn warned(diags: &[Diag]) -> Vec<&str> {
    diags
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| d.key.as_deref().unwrap_or(""))
        .collect()
}

//! Tests of the network parsers: one file per format, each feature and each error path.

mod cmdline;
mod devices;
mod openstack;
mod v1;
mod v2;

use super::{parse, Input, Parsed};
use crate::error::Diag;
use crate::limits::Limits;

/// Parses YAML that must be valid; panics with the diagnostics otherwise.
fn ok(yaml: &str) -> Parsed {
    parse("network-config", Input::Text(yaml, &Limits::default()))
        .unwrap_or_else(|d| panic!("{}", shown(&d)))
}

/// Parses YAML that must be refused, and returns its diagnostics.
fn bad(yaml: &str) -> Vec<Diag> {
    match parse("network-config", Input::Text(yaml, &Limits::default())) {
        Ok(p) => panic!("accepted: {:#?}", p.model),
        Err(d) => d,
    }
}

fn shown(diags: &[Diag]) -> String {
    diags.iter().map(|d| format!("{d}\n")).collect()
}

/// The error at `key`, which must be there.
fn error_at<'a>(diags: &'a [Diag], key: &str) -> &'a Diag {
    diags
        .iter()
        .find(|d| d.is_error() && d.key.as_deref() == Some(key))
        .unwrap_or_else(|| panic!("no error at {key} in\n{}", shown(diags)))
}

/// The keys of the warnings, in order.
fn warned(diags: &[Diag]) -> Vec<&str> {
    diags
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| d.key.as_deref().unwrap_or(""))
        .collect()
}

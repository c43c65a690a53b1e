//! `schema --schema-type network-config`: a network-config document (v1 or v2, bare or under
//! `network:`) checked by the parser the boot uses. cloud-init's schema refuses an entry its
//! boot would skip, and its v1 schema a key it does not know, so here those are errors, though
//! the boot renders the rest with warnings. An empty config is skipped, as cloud-init's
//! command says.

use crate::error::{Diag, Reason, Severity};
use crate::limits::Limits;
use crate::network::{self, Input};
use serde_json::Value;

/// cloud-init's words for a config with nothing in it.
pub const EMPTY: &str = "Skipping network-config schema validation on empty config.";

pub enum Verdict {
    /// Problems found; valid when none is an error.
    Checked(Vec<Diag>),
    /// Nothing to check (an empty config), with the note to print.
    Skipped(&'static str),
}

pub fn check(name: &str, text: &str, limits: &Limits) -> Verdict {
    let doc = match crate::yaml::parse(text, limits) {
        Ok(doc) => doc,
        Err(e) => {
            let key = format!("format-l{}.c{}", e.line, e.column);
            return Verdict::Checked(vec![e.to_diag(name).key(key)]);
        }
    };
    let inner = doc.value.get("network").unwrap_or(&doc.value);
    let empty = match inner {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    };
    if empty {
        return Verdict::Skipped(EMPTY);
    }
    let mut diags = match network::parse(name, Input::Doc(&doc)) {
        Ok(parsed) => parsed.warnings,
        Err(diags) => diags,
    };
    // v1's schema allows no other keys; v2's (without netplan) takes them, as ember's warning.
    let v1 = inner.get("version").and_then(Value::as_u64) == Some(1);
    for d in &mut diags {
        let unknown = v1 && d.code == Reason::NetworkConfigUnknownKey;
        if d.code == Reason::NetworkConfigInvalid || unknown {
            d.severity = Severity::Error;
        }
    }
    Verdict::Checked(diags)
}

//! How the host keys are shown on the console, as the ssh module reads it (keys_to_console's
//! `ssh.emit_keys_to_console` and blacklists). A value it cannot use is a warning and the
//! default stands: the console blocks are informative, and a mistake in them must not fail
//! the module (`ember schema` still reports it as the error cloud-init's schema calls it).
//! `ssh_publish_hostkeys` is not read: no datasource publishes from the initramfs.

use super::string_items;
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use serde_json::{Map, Value};

/// What keys_to_console prints: `ssh.emit_keys_to_console` and the two blacklists (key type
/// names such as `ssh-dss`).
#[derive(Debug, PartialEq)]
pub struct Console {
    pub emit: bool,
    pub fp_blacklist: Vec<String>,
    pub key_blacklist: Vec<String>,
}

/// The mapping at `key`, warning of fields other than `fields`; None when absent, null or
/// not a mapping (a warning).
fn mapping<'a>(
    cfg: &'a Value,
    key: &str,
    fields: &[&str],
    diags: &mut Vec<Diag>,
) -> Option<&'a Map<String, Value>> {
    let map = match cfg.get(key)? {
        Value::Null => return None,
        Value::Object(map) => map,
        _ => {
            diags.push(Diag::warning(Reason::WrongType, "must be a mapping").key(key));
            return None;
        }
    };
    for name in map.keys().filter(|n| !fields.contains(&n.as_str())) {
        let msg = format!("not a key of {key}: ignored");
        diags.push(Diag::warning(Reason::UnknownKey, msg).key(format!("{key}.{name}")));
    }
    Some(map)
}

/// Only `false` turns the console blocks off; any other value but `true` is a warning and
/// leaves them on, since hiding fingerprints on a guess would cost a user their check.
fn emit_keys(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    let field = "emit_keys_to_console";
    let map = mapping(cfg, "ssh", &[field], diags);
    match map.and_then(|m| m.get(field)) {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            let d = Diag::warning(Reason::WrongType, "must be true or false");
            diags.push(d.key(format!("ssh.{field}")));
            true
        }
    }
}

/// keys_to_console's settings.
pub fn console(cfg: &Value, diags: &mut Vec<Diag>) -> Console {
    let list = |key: &str, diags: &mut Vec<Diag>| blacklist(cfg.get(key), key, diags);
    Console {
        emit: emit_keys(cfg, diags),
        fp_blacklist: list("ssh_fp_console_blacklist", diags),
        key_blacklist: list("ssh_key_console_blacklist", diags),
    }
}

/// A blacklist as cloud-init's `get_cfg_option_list` reads it: a list of names, or one name.
fn blacklist(value: Option<&Value>, key: &str, diags: &mut Vec<Diag>) -> Vec<String> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => {
            let mut found = Vec::new();
            let names = string_items(items, key, &mut found);
            diags.extend(found.into_iter().map(|mut d| {
                d.severity = Severity::Warning;
                d
            }));
            names.into_iter().map(|(s, _)| s).collect()
        }
        Some(_) => {
            let msg = "must be a list of key types";
            diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_warn() {
        let cfg = json!({"ssh": {"emit_keys_to_console": true, "emit": false}});
        let mut diags = Vec::new();
        assert!(console(&cfg, &mut diags).emit);
        assert_eq!(keys_and_codes(&diags), [("ssh.emit", "unknown-key")]);
    }

    /// A mistake in what the console shows warns and leaves the default: it never fails the
    /// module. One name is a one-item list, as cloud-init reads it.
    #[test]
    fn console_mistakes_warn() {
        let cfg = json!({"ssh_fp_console_blacklist": "ssh-rsa"});
        let mut diags = Vec::new();
        assert_eq!(console(&cfg, &mut diags).fp_blacklist, ["ssh-rsa"]);
        assert!(diags.is_empty());
        let cases = [
            (json!({"ssh": "quiet"}), "ssh"),
            (
                json!({"ssh": {"emit_keys_to_console": "no"}}),
                "ssh.emit_keys_to_console",
            ),
            (
                json!({"ssh_key_console_blacklist": {}}),
                "ssh_key_console_blacklist",
            ),
            (
                json!({"ssh_key_console_blacklist": [1]}),
                "ssh_key_console_blacklist.0",
            ),
        ];
        for (cfg, key) in cases {
            let mut diags = Vec::new();
            let shown = console(&cfg, &mut diags);
            assert!(shown.emit && shown.key_blacklist.is_empty(), "{cfg}");
            assert_eq!(keys_and_codes(&diags), [(key, "wrong-type")], "{cfg}");
            assert!(!diags[0].is_error(), "{cfg}");
        }
    }

    fn keys_and_codes(diags: &[Diag]) -> Vec<(&str, &str)> {
        diags
            .iter()
            .map(|d| (d.key.as_deref().unwrap_or(""), d.code.as_str()))
            .collect()
    }
}

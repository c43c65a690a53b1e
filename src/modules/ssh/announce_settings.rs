//! How the host keys are made known, as the ssh module reads it: on the console
//! (keys_to_console's `ssh.emit_keys_to_console` and blacklists) and to the datasource
//! (`ssh_publish_hostkeys`, read but not acted on here).

use super::{bool_value, string_list};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// `ssh_publish_hostkeys`, with cloud-init's defaults (enabled, nothing left out).
#[derive(Debug, PartialEq)]
pub struct Publish {
    pub enabled: bool,
    pub blacklist: Vec<String>,
}

/// What keys_to_console prints: `ssh.emit_keys_to_console` and the two blacklists (key type
/// names such as `ssh-dss`).
#[derive(Debug, PartialEq)]
pub struct Console {
    pub emit: bool,
    pub fp_blacklist: Vec<String>,
    pub key_blacklist: Vec<String>,
}

/// The mapping at `key`, warning of fields other than `fields`; None when absent, null or
/// not a mapping (an error).
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
            diags.push(Diag::error(Reason::WrongType, "must be a mapping").key(key));
            return None;
        }
    };
    for name in map.keys().filter(|n| !fields.contains(&n.as_str())) {
        let msg = format!("not a key of {key}: ignored");
        diags.push(Diag::warning(Reason::UnknownKey, msg).key(format!("{key}.{name}")));
    }
    Some(map)
}

/// `ssh_publish_hostkeys` as cc_ssh reads it: `enabled` a boolean, `blacklist` key types.
pub fn publish(cfg: &Value, diags: &mut Vec<Diag>) -> Publish {
    let key = "ssh_publish_hostkeys";
    let Some(map) = mapping(cfg, key, &["enabled", "blacklist"], diags) else {
        return Publish {
            enabled: true,
            blacklist: Vec::new(),
        };
    };
    let enabled = map.get("enabled");
    Publish {
        enabled: bool_value(enabled, &format!("{key}.enabled"), true, diags),
        blacklist: string_list(map.get("blacklist"), &format!("{key}.blacklist"), diags),
    }
}

/// Only `false` turns the console blocks off; any other value but `true` is an error and
/// leaves them on, since hiding fingerprints on a guess would cost a user their check.
fn emit_keys(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    let field = "emit_keys_to_console";
    let map = mapping(cfg, "ssh", &[field], diags);
    match map.and_then(|m| m.get(field)) {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            let d = Diag::error(Reason::WrongType, "must be true or false");
            diags.push(d.key(format!("ssh.{field}")));
            true
        }
    }
}

/// keys_to_console's settings.
pub fn console(cfg: &Value, diags: &mut Vec<Diag>) -> Console {
    let list = |key: &str, diags: &mut Vec<Diag>| string_list(cfg.get(key), key, diags);
    Console {
        emit: emit_keys(cfg, diags),
        fp_blacklist: list("ssh_fp_console_blacklist", diags),
        key_blacklist: list("ssh_key_console_blacklist", diags),
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
        let cfg = json!({"ssh_publish_hostkeys": {"enable": false}});
        let mut diags = Vec::new();
        assert!(publish(&cfg, &mut diags).enabled);
        let want = [("ssh_publish_hostkeys.enable", "unknown-key")];
        assert_eq!(keys_and_codes(&diags), want);
    }

    fn keys_and_codes(diags: &[Diag]) -> Vec<(&str, &str)> {
        diags
            .iter()
            .map(|d| (d.key.as_deref().unwrap_or(""), d.code.as_str()))
            .collect()
    }
}

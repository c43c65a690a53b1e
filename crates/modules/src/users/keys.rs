//! The `groups` key and a user's `sudo`: the two that take several shapes.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#users-and-groups>

use super::fields::{name_ok, type_error};
use crate::conf_lang::sudoers;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// `sudo`: a rule, a list of rules, `null` for none, or the deprecated `false`.
pub fn sudo(m: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> Vec<String> {
    let k = format!("{key}.sudo");
    let rules = match m.get("sudo") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Bool(false)) => {
            diags.push(
                Diag::deprecated(
                    Reason::Deprecated,
                    "`sudo: false` is deprecated: use `null` or leave sudo out",
                )
                .key(k),
            );
            return Vec::new();
        }
        Some(Value::String(s)) => vec![s.clone()],
        // A null rule adds nothing (cloud-init's schema takes it).
        Some(Value::Array(a)) if a.iter().all(|v| v.is_string() || v.is_null()) => a
            .iter()
            .filter_map(|v| Some(v.as_str()?.to_string()))
            .collect(),
        Some(_) => {
            diags.push(type_error(&k, "a sudo rule or a list of rules"));
            return Vec::new();
        }
    };
    // Checked by sudoers' one writer here, where the key is known: a rule it refuses drops
    // the user's rules (a part of them could grant what the whole did not mean).
    if let Some(why) = rules.iter().find_map(|r| sudoers::rule(r).err()) {
        let msg = format!("a sudo rule {why}; the user's rules not written");
        diags.push(Diag::error(Reason::BadValue, msg).key(k));
        return Vec::new();
    }
    rules
}

/// `groups`: names (a list, or a comma string), or mappings of a name to its members.
pub fn groups(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut one = |key: String, name: &str, members: Option<&Value>, diags: &mut Vec<Diag>| {
        let members = match members {
            None | Some(Value::Null) => Some(Vec::new()),
            Some(v) => super::fields::names(v),
        };
        match members {
            Some(ms) if name_ok(name) && ms.iter().all(|m| name_ok(m)) => {
                out.push((key, name.to_string(), ms))
            }
            Some(_) => diags
                .push(Diag::error(Reason::InvalidName, "not a valid group or user name").key(key)),
            None => diags.push(type_error(&key, "a list of member names")),
        }
    };
    match cfg.get("groups") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            for n in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                one("groups".into(), n, None, diags);
            }
        }
        Some(Value::Object(m)) => {
            for (n, v) in m {
                one(format!("groups.{n}"), n, Some(v), diags);
            }
        }
        Some(Value::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                match v {
                    Value::String(n) => one(format!("groups.{i}"), n, None, diags),
                    Value::Object(m) => {
                        for (n, members) in m {
                            one(format!("groups.{i}.{n}"), n, Some(members), diags);
                        }
                    }
                    _ => diags.push(type_error(
                        &format!("groups.{i}"),
                        "a group name or a mapping",
                    )),
                }
            }
        }
        Some(_) => diags.push(type_error("groups", "a list of groups")),
    }
    out
}

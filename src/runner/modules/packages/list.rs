//! `packages` and the update/upgrade flags as cloud-init reads them: names or
//! `[name, version]`, the `{apt: [...]}` mapping form, and the deprecated `apt_*` names.

use super::Manager;
use crate::error::Diag;
use crate::reason::Reason;
use crate::runner::modules::distro::{flag, plain_word};
use serde_json::Value;

/// `packages` as `(name, version)`; a bad item is an error naming `packages.N` and left out.
/// Mapping items (`{apt: [...], snap: [...]}`) count for `manager`'s key only.
pub fn package_list(
    v: &Value,
    manager: Option<Manager>,
    diags: &mut Vec<Diag>,
) -> Vec<(String, Option<String>)> {
    let Some(items) = v.as_array() else {
        diags.push(Diag::error(Reason::WrongType, "expected a list of packages").key("packages"));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("packages.{i}");
        match item {
            Value::Object(map) => {
                for (k, list) in map {
                    let sub = format!("{key}.{k}");
                    if k == "apt" && manager == Some(Manager::Apt) {
                        let Some(list) = list.as_array() else {
                            let msg = "expected a list of packages";
                            diags.push(Diag::error(Reason::WrongType, msg).key(sub));
                            continue;
                        };
                        for (j, p) in list.iter().enumerate() {
                            out.extend(one(p, &format!("{sub}.{j}"), diags));
                        }
                    } else {
                        let msg = "packages for this package manager are not supported here";
                        diags.push(Diag::warning(Reason::PackageManagerUnsupported, msg).key(sub));
                    }
                }
            }
            _ => out.extend(one(item, &key, diags)),
        }
    }
    out
}

fn one(v: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<(String, Option<String>)> {
    let got = match v {
        Value::String(s) => Some((s.clone(), None)),
        Value::Array(pair) if pair.len() == 2 => {
            let ver = match &pair[1] {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            pair[0]
                .as_str()
                .zip(ver)
                .map(|(n, v)| (n.to_string(), Some(v)))
        }
        _ => None,
    };
    let ok = got
        .as_ref()
        .is_some_and(|(n, v)| plain_word(n) && v.as_deref().is_none_or(plain_word));
    if !ok {
        let msg = "expected a package name or [name, version]; item skipped";
        diags.push(Diag::error(Reason::WrongType, msg).key(key));
        return None;
    }
    got
}

/// `new` or, deprecated, `old`, either one true (cloud-init ORs them).
pub fn either(cfg: &Value, new: &str, old: &str, diags: &mut Vec<Diag>) -> bool {
    let a = flag(cfg.get(new), new, diags).unwrap_or(false);
    let b = flag(cfg.get(old), old, diags);
    if b.is_some() {
        let msg = format!("deprecated: use {new}");
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(old));
    }
    a || b.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists() {
        let mut d = Vec::new();
        let v =
            json!(["vim", ["curl", "7.88"], ["bad"], 5, "-oops", {"apt": ["jq"], "snap": ["x"]}]);
        let got = package_list(&v, Some(Manager::Apt), &mut d);
        let names: Vec<_> = got
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_deref()))
            .collect();
        assert_eq!(names, [("vim", None), ("curl", Some("7.88")), ("jq", None)]);
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(
            keys,
            ["packages.2", "packages.3", "packages.4", "packages.5.snap"]
        );
        assert!(!d[3].is_error());
    }
}

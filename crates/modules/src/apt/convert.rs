//! cloud-init's conversion of the deprecated top-level apt keys (deprecated since 22.1, still
//! read by 26) into the `apt` mapping: `apt_sources` (a list, v1, or a mapping, v2),
//! `apt_mirror`, `apt_mirror_search`, `apt_mirror_search_dns` (into `primary`), `apt_proxy`,
//! `apt_http_proxy`, `apt_ftp_proxy`, `apt_https_proxy`, `apt_preserve_sources_list`,
//! `apt_custom_sources_list` and `add_apt_repo_match`. A null or empty one is dropped. With
//! `apt` also given, the old keys are dropped, and one whose value differs from its `apt`
//! counterpart stops the module (cloud-init raises). Unlike cloud-init, which swaps them,
//! `apt_ftp_proxy` becomes `ftp_proxy` and `apt_https_proxy` `https_proxy`.

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Each old key and its key under `apt` (`None`: the mirror keys, which become `primary`).
pub const OLD: &[(&str, Option<&str>)] = &[
    ("apt_sources", Some("sources")),
    ("apt_mirror", None),
    ("apt_mirror_search", None),
    ("apt_mirror_search_dns", None),
    ("apt_proxy", Some("proxy")),
    ("apt_http_proxy", Some("http_proxy")),
    ("apt_ftp_proxy", Some("ftp_proxy")),
    ("apt_https_proxy", Some("https_proxy")),
    ("apt_preserve_sources_list", Some("preserve_sources_list")),
    ("apt_custom_sources_list", Some("sources_list")),
    ("add_apt_repo_match", Some("add_apt_repo_match")),
];

/// The `apt` mapping to read, and for each of its keys the key path diagnostics name (an old
/// key's own name when it came from one).
pub struct Apt {
    pub map: Map<String, Value>,
    pub paths: BTreeMap<String, String>,
}

impl Apt {
    pub fn path(&self, key: &str) -> String {
        self.paths
            .get(key)
            .cloned()
            .unwrap_or_else(|| format!("apt.{key}"))
    }
}

/// `None` when the module must not run (cloud-init raises): `apt` not a mapping, an old key
/// conflicting with `apt`, or `apt_sources` neither a list nor a mapping.
pub fn convert(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Apt> {
    let apt = cfg.get("apt").filter(|v| !v.is_null());
    if apt.is_some_and(|v| !v.is_object()) {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping; module not run").key("apt"));
        return None;
    }
    let given: Vec<(&str, Option<&str>, &Value)> = OLD
        .iter()
        .filter_map(|(old, new)| {
            let v = cfg.get(*old)?;
            let empty = v.is_null() || v.as_str() == Some("");
            (!empty).then_some((*old, *new, v))
        })
        .collect();
    let mut out = Apt {
        map: apt.and_then(Value::as_object).cloned().unwrap_or_default(),
        paths: BTreeMap::new(),
    };
    if given.is_empty() {
        return Some(out);
    }
    for (old, new, _) in &given {
        let instead = new.map_or("apt.primary".to_string(), |n| format!("apt.{n}"));
        let msg = format!("use {instead} (cloud-init 22.1 deprecated this key)");
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(*old));
    }
    let sources = match cfg.get("apt_sources").filter(|v| !v.is_null()) {
        Some(v) => Some(v1_to_v2(v, diags)?),
        None => None,
    };
    if apt.is_some() {
        let msg = "the old apt_* keys and apt are both given: the old keys are ignored";
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key("apt"));
        for (old, new, value) in &given {
            let Some(new) = new else { continue };
            let value = if *old == "apt_sources" {
                sources.as_ref().unwrap_or(value)
            } else {
                value
            };
            match out.map.get(*new) {
                Some(v) if !v.is_null() && v != value => {
                    let msg = format!("differs from apt.{new}; module not run");
                    diags.push(Diag::error(Reason::BadValue, msg).key(*old));
                    return None;
                }
                _ => {}
            }
        }
        return Some(out);
    }
    let mut mirror = Map::new();
    mirror.insert("arches".into(), json!(["default"]));
    for (old, new, value) in given {
        let value = if old == "apt_sources" {
            sources.clone().unwrap_or_default()
        } else {
            value.clone()
        };
        let field = match (new, old) {
            (Some(new), _) => new,
            (None, "apt_mirror") => "uri",
            (None, "apt_mirror_search") => "search",
            _ => "search_dns",
        };
        if new.is_some() {
            out.map.insert(field.into(), value);
            out.paths.insert(field.into(), old.into());
        } else {
            mirror.insert(field.into(), value);
            out.paths
                .entry("primary".into())
                .or_insert_with(|| old.into());
        }
    }
    if mirror.len() > 1 {
        out.map.insert("primary".into(), json!([mirror]));
    }
    Some(out)
}

/// `apt_sources` as a list (v1) becomes a mapping keyed by each entry's `filename`; entries
/// without one all go to `cloud_config_sources.list` under keys of their own.
fn v1_to_v2(v: &Value, diags: &mut Vec<Diag>) -> Option<Value> {
    let items = match v {
        Value::Object(_) => return Some(v.clone()),
        Value::Array(items) => items,
        _ => {
            let msg = "expected a list or mapping of sources; module not run";
            diags.push(Diag::error(Reason::WrongType, msg).key("apt_sources"));
            return None;
        }
    };
    let mut out = Map::new();
    for (i, item) in items.iter().enumerate() {
        let Some(entry) = item.as_object() else {
            let msg = "expected a mapping; module not run";
            diags.push(Diag::error(Reason::WrongType, msg).key(format!("apt_sources.{i}")));
            return None;
        };
        let mut entry = entry.clone();
        let key = match entry.get("filename").and_then(Value::as_str) {
            Some(f) => f.to_string(),
            None => {
                let file = "cloud_config_sources.list";
                entry.insert("filename".into(), json!(file));
                let mut key = file.to_string();
                let mut n = 0;
                while out.contains_key(&key) {
                    n += 1;
                    key = format!("{file}_{n}");
                }
                key
            }
        };
        out.insert(key, Value::Object(entry));
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(d: &[Diag]) -> Vec<(&str, &str)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    #[test]
    fn old_keys_become_apt() {
        let cfg = json!({
            "apt_mirror": "http://m/debian", "apt_mirror_search_dns": true,
            "apt_proxy": "http://p:3128", "apt_ftp_proxy": "ftp://f", "apt_https_proxy": "",
            "apt_preserve_sources_list": true,
            "apt_sources": [{"source": "deb a b c"}, {"source": "deb d e f"},
                            {"source": "deb g h i", "filename": "x.list"}],
        });
        let mut d = Vec::new();
        let apt = convert(&cfg, &mut d).unwrap();
        assert_eq!(
            Value::Object(apt.map.clone()),
            json!({
                "primary": [{"arches": ["default"], "uri": "http://m/debian", "search_dns": true}],
                "proxy": "http://p:3128", "ftp_proxy": "ftp://f", "preserve_sources_list": true,
                "sources": {
                    "cloud_config_sources.list": {"source": "deb a b c", "filename": "cloud_config_sources.list"},
                    "cloud_config_sources.list_1": {"source": "deb d e f", "filename": "cloud_config_sources.list"},
                    "x.list": {"source": "deb g h i", "filename": "x.list"},
                },
            })
        );
        assert_eq!(apt.path("primary"), "apt_mirror");
        assert_eq!(apt.path("sources"), "apt_sources");
        assert_eq!(apt.path("conf"), "apt.conf");
        assert_eq!(codes(&d).len(), 6);
        assert!(d.iter().all(|d| d.code == "deprecated"));
    }

    #[test]
    fn old_and_new_together() {
        let mut d = Vec::new();
        let cfg = json!({"apt": {"proxy": "http://a"}, "apt_proxy": "http://a", "apt_mirror": "x"});
        let apt = convert(&cfg, &mut d).unwrap();
        assert_eq!(Value::Object(apt.map), json!({"proxy": "http://a"}));
        assert_eq!(
            codes(&d),
            [
                ("deprecated", "apt_mirror"),
                ("deprecated", "apt_proxy"),
                ("deprecated", "apt")
            ]
        );
        let mut d = Vec::new();
        let cfg = json!({"apt": {"proxy": "http://a"}, "apt_proxy": "http://b"});
        assert!(convert(&cfg, &mut d).is_none());
        assert_eq!(codes(&d)[2], ("bad-value", "apt_proxy"));
        for (cfg, key) in [
            (json!({"apt": [1]}), "apt"),
            (json!({"apt_sources": "deb x"}), "apt_sources"),
            (json!({"apt_sources": ["deb x"]}), "apt_sources.0"),
        ] {
            let mut d = Vec::new();
            assert!(convert(&cfg, &mut d).is_none(), "{cfg}");
            assert!(
                d.iter()
                    .any(|d| d.is_error() && d.key.as_deref() == Some(key)),
                "{cfg}"
            );
        }
    }
}

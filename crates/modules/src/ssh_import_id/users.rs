//! The users cloud-init's `normalize_users_groups` makes of `users`, `user` and
//! `system_info.default_user`, for the runner's modules that act per user (ssh_import_id,
//! ssh_authkey_fingerprints): in its order, each user's keys with `-` read as `_`, the default
//! user marked. Pure: it reads the handoff's config, never the target. (ember-initrd's users
//! module creates the users; this only names them.)
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#users-and-groups>

use ember_core::sort::IntoMap;
use serde_json::{Map, Value};

/// One user as cloud-init normalizes it.
#[derive(Debug, PartialEq)]
pub struct User {
    pub name: String,
    pub cfg: Map<String, Value>,
    /// The image's default user (`default` in `users`, or the legacy `user` key).
    pub default: bool,
}

/// cloud-init's `is_true` for a scalar: true, or the words true/1/on/yes.
fn is_true(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "true" | "1" | "on" | "yes"
        ),
        Value::Number(n) => n.to_string() == "1",
        _ => false,
    }
}

/// `a` with the keys of `b` it lacks: cloud-init's merge, where the first source wins.
fn merged(mut a: Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    for (k, v) in b {
        a.entry(k.clone()).or_insert_with(|| v.clone());
    }
    a
}

/// The names of a comma-separated string (each trimmed, empty ones dropped) or of a list's
/// string items, as cloud-init's `uniq_merge` gives them.
fn names(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => s
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// The entries of `users` as a list, with `default` added when the legacy `user` is given.
fn entries(cfg: &Value, old_user: bool) -> Vec<Value> {
    let mut list: Vec<Value> = match cfg.get("users") {
        Some(Value::Array(items)) => items.clone(),
        // The older mapping form: `name: true` or `name: {config}`.
        Some(Value::Object(m)) => m
            .iter()
            .filter_map(|(k, v)| match v {
                Value::Object(c) => {
                    let mut c = c.clone();
                    c.insert("name".into(), Value::String(k.clone()));
                    Some(Value::Object(c))
                }
                v if is_true(v) => Some(Value::String(k.clone())),
                _ => None,
            })
            .collect(),
        // A comma-separated string, its names sorted as cloud-init sorts them.
        Some(v @ Value::String(_)) => {
            let mut n = names(v);
            ember_core::sort::sort(&mut n);
            n.dedup();
            n.into_iter().map(Value::String).collect()
        }
        _ => Vec::new(),
    };
    // The mapping form keeps its own `default` entry, even `default: false`.
    let own = cfg
        .get("users")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key("default"));
    if old_user && !own {
        list.push(Value::String("default".into()));
    }
    list
}

/// Every user cloud-init would name, in its order.
pub fn normalize(cfg: &Value) -> Vec<User> {
    let old_user = match cfg.get("user") {
        Some(Value::String(s)) if !s.is_empty() => {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(s.clone()));
            m
        }
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let distro = cfg
        .pointer("/system_info/default_user")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let default_cfg = merged(old_user.clone(), &distro);
    let mut users: Vec<(String, Map<String, Value>)> = Vec::new();
    for item in entries(cfg, !old_user.is_empty()) {
        match &item {
            Value::String(_) | Value::Array(_) => {
                for n in names(&item) {
                    if !users.iter().any(|(u, _)| *u == n) {
                        users.push((n, Map::new()));
                    }
                }
            }
            Value::Object(m) => {
                let mut c = m.clone();
                let name = match c.remove("name") {
                    Some(Value::String(n)) => n,
                    _ => "default".to_string(),
                };
                // A later entry of the same name adds only the keys the first lacks.
                match users.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, prev)) => *prev = merged(std::mem::take(prev), &c),
                    None => users.push((name, c)),
                }
            }
            _ => {}
        }
    }
    // cloud-init reads every user key with `-` as `_`.
    for (_, c) in users.iter_mut() {
        *c = c
            .iter()
            .map(|(k, v)| (k.replace('-', "_").trim().to_string(), v.clone()))
            .filter(|(k, _)| !k.is_empty())
            .into_map();
    }
    // `default` becomes the image's default user, its config under the image's.
    let mut def_user = None;
    if let Some(i) = users.iter().position(|(n, _)| n == "default") {
        let (_, def_config) = users.remove(i);
        if let Some(name) = default_cfg.get("name").and_then(Value::as_str) {
            let name = name.to_string();
            let mut base = default_cfg.clone();
            base.remove("name");
            base.remove("groups");
            let parsed = match users.iter().position(|(n, _)| *n == name) {
                Some(j) => users.remove(j).1,
                None => Map::new(),
            };
            users.push((name.clone(), merged(merged(base, &def_config), &parsed)));
            def_user = Some(name);
        }
    }
    users
        .into_iter()
        .map(|(name, cfg)| User {
            default: def_user.as_deref() == Some(name.as_str()),
            name,
            cfg,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(cfg: Value) -> Vec<(String, bool)> {
        normalize(&cfg)
            .into_iter()
            .map(|u| (u.name, u.default))
            .collect()
    }

    fn u(n: &str, d: bool) -> (String, bool) {
        (n.to_string(), d)
    }

    #[test]
    fn users_as_cloud_init_normalizes_them() {
        let sys = json!({"default_user": {"name": "ubuntu", "groups": ["adm"]}});
        assert_eq!(
            shown(json!({"users": ["default", "bob"], "system_info": sys})),
            [u("bob", false), u("ubuntu", true)],
            "the default user goes last"
        );
        assert_eq!(
            shown(json!({"users": ["default"]})),
            [],
            "no default user named"
        );
        assert_eq!(shown(json!({"system_info": sys})), [], "no users key: none");
        assert_eq!(
            shown(json!({"user": "ann", "users": [{"name": "bob"}], "system_info": sys})),
            [u("bob", false), u("ann", true)],
            "the legacy user is the default user, named as it says"
        );
        assert_eq!(
            shown(json!({"users": "default, carl,bob", "system_info": sys})),
            [u("bob", false), u("carl", false), u("ubuntu", true)]
        );
        assert_eq!(
            shown(json!({"users": {"zed": true, "amy": {"shell": "/bin/sh"}, "no": false}})),
            [u("amy", false), u("zed", false)]
        );
    }

    #[test]
    fn configs_merge_and_keys_are_normalized() {
        let cfg = json!({
            "users": [
                {"name": "bob", "ssh-import-id": ["gh:bob"]},
                {"name": "bob", "ssh_import_id": ["lp:other"], "system": true},
                "default",
                {"name": "ubuntu", "no_create_home": true},
            ],
            "system_info": {"default_user": {"name": "ubuntu", "shell": "/bin/bash"}},
        });
        let users = normalize(&cfg);
        assert_eq!(users[0].name, "bob");
        // The first entry of a name wins, with the later one's other keys; the two spellings
        // are two keys until cloud-init renames them, and the later in order then wins.
        assert_eq!(users[0].cfg["ssh_import_id"], json!(["lp:other"]));
        assert_eq!(users[0].cfg["system"], json!(true));
        assert_eq!(users[1].name, "ubuntu");
        assert!(users[1].default);
        assert_eq!(users[1].cfg["shell"], "/bin/bash");
        assert_eq!(users[1].cfg["no_create_home"], json!(true));
    }
}

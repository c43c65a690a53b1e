//! The `users` and `groups` keys read into checked values: every wrong type is an Error naming
//! its key path (`users.2.groups`), never the value, and fails that user or group only.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#users-and-groups>

use super::fields::{bool_at, list_at, name_ok, str_at, text_ok, type_error};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

/// One user to create or update. Passwords stay in `Secret`.
#[derive(Default)]
pub struct UserSpec {
    /// Where it came from, for diagnostics: `users.2`, or `system_info.default_user`.
    pub key: String,
    pub name: String,
    pub gecos: Option<String>,
    pub homedir: Option<String>,
    pub primary_group: Option<String>,
    pub groups: Vec<String>,
    pub shell: Option<String>,
    /// Sudo rules; empty for none.
    pub sudo: Vec<String>,
    pub lock_passwd: bool,
    pub passwd: Option<Secret<String>>,
    pub hashed_passwd: Option<Secret<String>>,
    pub plain_text_passwd: Option<Secret<String>>,
    pub keys: Vec<String>,
    pub system: bool,
    pub no_create_home: bool,
    pub uid: Option<u32>,
    pub expiredate: Option<i64>,
    pub inactive: Option<String>,
    /// Create missing `groups` and (issue text) a user-private group.
    pub create_groups: bool,
    pub no_user_group: bool,
    /// doas rules, each naming the user (else none is kept).
    pub doas: Vec<String>,
    /// `ssh_redirect_user`: the cloud's keys, redirecting logins to the default user.
    pub ssh_redirect: bool,
}

/// The image's default user config (`system_info.default_user`), if it names one.
fn default_user_cfg(cfg: &Value) -> Option<&Map<String, Value>> {
    let d = cfg.get("system_info")?.get("default_user")?.as_object()?;
    d.get("name")?.as_str().filter(|n| !n.is_empty())?;
    Some(d)
}

/// The entries of `users` as `(key path, value)`; a comma string is a list of names.
fn entries(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<(String, Value)> {
    match cfg.get("users") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| ("users".to_string(), Value::String(n.to_string())))
            .collect(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("users.{i}"), v.clone()))
            .collect(),
        // cloud-init's older mapping form: `name: true` asks for that user (`default: true`
        // for the default user), `name: {config}` configures it. (Keys come in name order: the
        // JSON model does not keep YAML's.)
        Some(Value::Object(m)) => m
            .iter()
            .filter_map(|(name, v)| {
                let key = format!("users.{name}");
                match v {
                    Value::Object(cfg) => {
                        let mut cfg = cfg.clone();
                        cfg.entry("name")
                            .or_insert_with(|| Value::String(name.clone()));
                        Some((key, Value::Object(cfg)))
                    }
                    Value::Bool(true) => Some((key, Value::String(name.clone()))),
                    Value::Bool(false) | Value::Null => None,
                    _ => {
                        diags.push(type_error(&key, "true or a mapping"));
                        None
                    }
                }
            })
            .collect(),
        Some(_) => {
            diags.push(type_error(
                "users",
                "a list of users, a mapping of names or a comma-separated string",
            ));
            Vec::new()
        }
    }
}

/// Whether `users` asks for the default user (the only way cloud-init has one).
pub fn wants_default(cfg: &Value) -> bool {
    entries(cfg, &mut Vec::new())
        .iter()
        .any(|(_, v)| v.as_str() == Some("default"))
}

/// The default user's name, when `users` asks for it and the image names one.
pub fn default_user_name(cfg: &Value) -> Option<String> {
    let d = default_user_cfg(cfg).filter(|_| wants_default(cfg))?;
    Some(d.get("name")?.as_str()?.to_string())
}

pub use super::keys::groups;

/// Every user asked for, in order; the default user's config merged under a later entry of
/// the same name (the entry's keys win), as cloud-init merges them.
pub fn users(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<UserSpec> {
    let mut objs: Vec<(String, Map<String, Value>)> = Vec::new();
    // Where each name's entry is in `objs`: a scan of `objs` per user made 10 k users take
    // seconds (the scaling bench).
    let mut by_name: std::collections::HashMap<String, usize> = Default::default();
    for (key, v) in entries(cfg, diags) {
        let obj = match v {
            Value::String(s) if s == "default" => match default_user_cfg(cfg) {
                Some(d) => ("system_info.default_user".to_string(), d.clone()),
                None => {
                    diags.push(
                        Diag::warning(
                            Reason::NoDefaultUser,
                            "`default` asks for the image's default user, but \
                             system_info.default_user names none: skipped",
                        )
                        .key(key),
                    );
                    continue;
                }
            },
            Value::String(s) => {
                let mut m = Map::new();
                m.insert("name".into(), Value::String(s));
                (key, m)
            }
            Value::Object(m) => (key, m),
            _ => {
                diags.push(type_error(&key, "a user name or a mapping"));
                continue;
            }
        };
        let name = obj
            .1
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string);
        match name.as_ref().and_then(|n| by_name.get(n)) {
            // The merged entry keeps its name: the later entry's is the same.
            Some(&i) => {
                let (k, o) = &mut objs[i];
                o.extend(obj.1);
                *k = obj.0;
            }
            None => {
                if let Some(n) = name {
                    by_name.insert(n, objs.len());
                }
                objs.push(obj);
            }
        }
    }
    objs.into_iter()
        .filter_map(|(key, m)| user(&key, &m, diags))
        .collect()
}

/// Keys of a user mapping that cloud-init knows (the unsupported ones are warned about apart).
const KNOWN: &[&str] = &[
    "name",
    "gecos",
    "homedir",
    "primary_group",
    "groups",
    "shell",
    "sudo",
    "lock_passwd",
    "passwd",
    "hashed_passwd",
    "plain_text_passwd",
    "ssh_authorized_keys",
    "system",
    "no_create_home",
    "uid",
    "expiredate",
    "inactive",
    "create_groups",
    "no_user_group",
    "ssh_import_id",
    "ssh_redirect_user",
    "selinux_user",
    "snapuser",
    "doas",
    "no_log_init",
];

/// Keys renamed from the spelling written: `(new, old)`.
type Renamed = Vec<(String, String)>;

/// cloud-init reads every key of a user with `-` as `_`, so the old spellings
/// (`ssh-authorized-keys`, `lock-passwd`, `no-create-home`, ...) still work, deprecated. A copy
/// with them renamed, each with a deprecation, and the renamings `(new, old)`; `None` when
/// there are none. Where both spellings are given, the `_` one wins. A hyphenated key that is
/// no user key stays as it is (an unknown key).
fn hyphenated(
    m: &Map<String, Value>,
    key: &str,
    diags: &mut Vec<Diag>,
) -> Option<(Map<String, Value>, Renamed)> {
    let old: Vec<&String> = m
        .keys()
        .filter(|f| f.contains('-') && KNOWN.contains(&f.replace('-', "_").as_str()))
        .collect();
    if old.is_empty() {
        return None;
    }
    let (mut copy, mut renamed) = (m.clone(), Vec::new());
    for f in old {
        let new = f.replace('-', "_");
        let msg = format!("deprecated spelling: use {new}");
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(format!("{key}.{f}")));
        if let Some(v) = copy.remove(f.as_str()) {
            if !copy.contains_key(&new) {
                copy.insert(new.clone(), v);
                renamed.push((new, f.clone()));
            }
        }
    }
    Some((copy, renamed))
}

/// Diagnostics about a renamed key name it as the user wrote it.
fn spelled_as_written(diags: &mut [Diag], key: &str, renamed: &[(String, String)]) {
    for d in diags {
        let Some(path) = d.key.as_deref() else {
            continue;
        };
        for (new, old) in renamed {
            let at = format!("{key}.{new}");
            if let Some(rest) = path
                .strip_prefix(&at)
                .filter(|r| r.is_empty() || r.starts_with('.'))
            {
                d.key = Some(format!("{key}.{old}{rest}"));
                break;
            }
        }
    }
}

/// One user mapping; `None` (with an Error) when it cannot be applied at all.
fn user(key: &str, m: &Map<String, Value>, diags: &mut Vec<Diag>) -> Option<UserSpec> {
    let start = diags.len();
    let (normalized, renamed) = hyphenated(m, key, diags).unzip();
    let m = normalized.as_ref().unwrap_or(m);
    let u = user_fields(key, m, diags);
    spelled_as_written(&mut diags[start..], key, &renamed.unwrap_or_default());
    u
}

fn user_fields(key: &str, m: &Map<String, Value>, diags: &mut Vec<Diag>) -> Option<UserSpec> {
    let before = diags.iter().filter(|d| d.is_error()).count();
    let k = |f: &str| format!("{key}.{f}");
    let name = str_at(m, "name", key, diags);
    if name.is_none() && m.contains_key("snapuser") {
        // A snap store account (valid upstream, made by `snap create-user`): not a user ember
        // creates, and no missing name either.
        let why = "a snap store account (snapuser) is not created by ember: this user is skipped";
        diags.push(Diag::warning(Reason::UnsupportedKey, why).key(k("snapuser")));
        return None;
    }
    let Some(name) = name else {
        if !diags.iter().skip(before).any(|d| d.is_error()) {
            diags.push(Diag::error(Reason::MissingKey, "a user needs a name").key(k("name")));
        }
        return None;
    };
    if !name_ok(&name) {
        diags.push(Diag::error(Reason::InvalidName, "not a valid user name").key(k("name")));
        return None;
    }
    let mut u = UserSpec {
        key: key.to_string(),
        name,
        lock_passwd: true,
        create_groups: true,
        ..UserSpec::default()
    };
    let secret = |f: &str, diags: &mut Vec<Diag>| {
        str_at(m, f, key, diags)
            .filter(|s| text_ok(s, &k(f), diags))
            .map(Secret::new)
    };
    u.passwd = secret("passwd", diags);
    u.hashed_passwd = secret("hashed_passwd", diags);
    u.plain_text_passwd = secret("plain_text_passwd", diags);
    let text = |f: &str, diags: &mut Vec<Diag>| {
        str_at(m, f, key, diags).filter(|s| text_ok(s, &k(f), diags))
    };
    u.gecos = text("gecos", diags);
    u.shell = text("shell", diags);
    u.homedir = text("homedir", diags);
    // `..` or `.` in a home would make `/home/x/../..` the target's root, given to the user.
    let normal = |h: &str| h.starts_with('/') && !h.split('/').any(|c| c == ".." || c == ".");
    if u.homedir.as_deref().is_some_and(|h| !normal(h)) {
        let msg = "homedir must be an absolute path without `.` or `..`";
        diags.push(Diag::error(Reason::BadValue, msg).key(k("homedir")));
        u.homedir = None;
    }
    u.primary_group = str_at(m, "primary_group", key, diags);
    u.groups = match m.get("groups") {
        // The deprecated mapping form: its keys are the group names, as cloud-init reads it.
        Some(Value::Object(names)) => names.keys().cloned().collect(),
        _ => list_at(m, "groups", key, diags).unwrap_or_default(),
    };
    for (i, g) in u.primary_group.iter().chain(&u.groups).enumerate() {
        if !name_ok(g) {
            let at = if i == 0 && u.primary_group.is_some() {
                k("primary_group")
            } else {
                k("groups")
            };
            diags.push(Diag::error(Reason::InvalidName, "not a valid group name").key(at));
        }
    }
    u.sudo = super::keys::sudo(m, key, diags);
    u.keys = list_at(m, "ssh_authorized_keys", key, diags)
        .unwrap_or_default()
        .iter()
        .flat_map(|s| {
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
        })
        .map(str::to_string)
        .collect();
    u.lock_passwd = bool_at(m, "lock_passwd", key, diags).unwrap_or(true);
    u.system = bool_at(m, "system", key, diags).unwrap_or(false);
    u.no_create_home = bool_at(m, "no_create_home", key, diags).unwrap_or(false);
    u.create_groups = bool_at(m, "create_groups", key, diags).unwrap_or(true);
    u.no_user_group = bool_at(m, "no_user_group", key, diags).unwrap_or(false);
    u.uid = match m.get("uid") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().or_else(|| v.as_str()?.parse().ok()) {
            Some(n) if n < u64::from(u32::MAX) => Some(n as u32),
            _ => {
                diags.push(type_error(&k("uid"), "a number"));
                None
            }
        },
    };
    u.expiredate = str_at(m, "expiredate", key, diags).and_then(|s| {
        let days = crate::password::days_from_date(&s);
        if days.is_none() {
            diags.push(
                Diag::error(Reason::BadValue, "expected a date as YYYY-MM-DD").key(k("expiredate")),
            );
        }
        days
    });
    u.inactive = match m.get("inactive") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().map(|n| n.to_string()).or_else(|| {
            v.as_str()
                .filter(|s| s.parse::<u64>().is_ok())
                .map(str::to_string)
        }) {
            Some(s) => Some(s),
            None => {
                diags.push(type_error(&k("inactive"), "a number of days"));
                None
            }
        },
    };
    // ssh_import_id is the runner's ssh_import_id module's, once the network is up.
    // selinux_user is useradd's `--selinux-user`, a policy mapping the initramfs cannot make.
    for f in ["selinux_user", "snapuser"] {
        if m.contains_key(f) {
            let why = "not supported in the initramfs: ignored";
            diags.push(Diag::warning(Reason::UnsupportedKey, why).key(k(f)));
        }
    }
    u.ssh_redirect = redirect(m, &k("ssh_redirect_user"), diags);
    for f in m.keys().filter(|f| !KNOWN.contains(&f.as_str())) {
        diags.push(Diag::warning(Reason::UnknownKey, "not a key of a user: ignored").key(k(f)));
    }
    let errors = diags.iter().skip(before).filter(|d| d.is_error()).count();
    // A bad doas rule drops the user's rules, not the user (cloud-init logs an error).
    u.doas = list_at(m, "doas", key, diags).unwrap_or_default();
    if let Some(i) = u
        .doas
        .iter()
        .position(|r| !super::doas::names_user(r, &u.name))
    {
        let msg = "not a doas rule naming this user (permit|deny [options] USER [as TARGET] \
                   [cmd COMMAND [args ...]]): none of the user's doas rules is written";
        diags.push(Diag::error(Reason::BadValue, msg).key(format!("{}.{i}", k("doas"))));
        u.doas.clear();
    }
    (errors == 0).then_some(u)
}

/// `ssh_redirect_user` as cloud-init's module reads it: true or `default` redirects, false
/// or absent does not; another value, or one given with the user's own keys, is an error and
/// the user is not created.
fn redirect(m: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> bool {
    let on = match m.get("ssh_redirect_user") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return false,
        Some(Value::Bool(true)) => true,
        Some(Value::String(s)) if s == "default" => true,
        Some(_) => {
            let msg = "expected true, default or false: user not created";
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
            return false;
        }
    };
    let own_keys = ["ssh_authorized_keys", "ssh_import_id"];
    if own_keys
        .iter()
        .any(|f| m.get(*f).is_some_and(|v| !v.is_null()))
    {
        let msg = "cannot be given with ssh_authorized_keys or ssh_import_id: user not created";
        diags.push(Diag::error(Reason::BadValue, msg).key(key));
    }
    on
}

#[cfg(test)]
mod mapping_form_tests {
    use super::*;
    use serde_json::json;

    /// A user's `groups` as a mapping (deprecated): its keys are the groups.
    #[test]
    fn groups_as_a_mapping_are_its_keys() {
        let cfg = json!({"users": [{"name": "bbsw", "groups": {"adm": null, "sudo": null}}]});
        let mut diags = Vec::new();
        let got = users(&cfg, &mut diags);
        assert_eq!(got[0].groups, ["adm", "sudo"]);
        assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    }

    #[test]
    fn the_older_mapping_form_names_its_users() {
        let cfg = json!({"users": {"alice": {"shell": "/bin/sh"}, "bob": true, "carol": false, "dave": 3}});
        let mut diags = Vec::new();
        let got: Vec<(String, Value)> = entries(&cfg, &mut diags);
        let names: Vec<String> = got
            .iter()
            .map(|(_, v)| {
                v.get("name")
                    .and_then(Value::as_str)
                    .or(v.as_str())
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(names, ["alice", "bob"]);
        assert_eq!(got[0].1["shell"], "/bin/sh");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].key.as_deref(), Some("users.dave"));
    }

    /// Issue 21 item 3: `- snapuser: joe@example.com` is valid upstream; ember says it does not
    /// create snap store accounts, never that the user lacks a name.
    #[test]
    fn a_snap_store_account_is_unsupported_not_nameless() {
        let mut diags = Vec::new();
        let m = json!({"snapuser": "joe@example.com"});
        assert!(user_fields("users.0", m.as_object().unwrap(), &mut diags).is_none());
        let [d] = &diags[..] else { panic!("{diags:?}") };
        assert_eq!(
            (d.code.as_str(), d.key.as_deref()),
            ("unsupported-key", Some("users.0.snapuser"))
        );
        assert!(!d.is_error() && !d.message.contains("joe"), "{d:?}");
    }

    #[test]
    fn the_old_lock_passwd_spelling_is_honoured_with_a_deprecation() {
        let m = json!({"name": "erin", "lock-passwd": false});
        let mut diags = Vec::new();
        let u = user("users.0", m.as_object().unwrap(), &mut diags).unwrap();
        assert!(!u.lock_passwd);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].key.as_deref(), Some("users.0.lock-passwd"));
        // Both spellings: the current one wins.
        let m = json!({"name": "erin", "lock-passwd": false, "lock_passwd": true});
        let u = user("users.0", m.as_object().unwrap(), &mut Vec::new()).unwrap();
        assert!(u.lock_passwd);
    }

    /// Every hyphenated user key cloud-init still reads works at boot, with a deprecation
    /// naming it; a hyphenated key that is no user key is an unknown key.
    #[test]
    fn hyphenated_user_keys_are_read_deprecated() {
        let m = json!({
            "name": "erin",
            "ssh-authorized-keys": ["ssh-ed25519 AAAAerin erin@x"],
            "no-create-home": true,
            "no-user-group": true,
            "create-groups": false,
            "primary-group": "users",
            "hashed-passwd": "$6$salt$hash",
            "home-dir": "/x"
        });
        let mut diags = Vec::new();
        let u = user("users.0", m.as_object().unwrap(), &mut diags).unwrap();
        assert_eq!(u.keys, ["ssh-ed25519 AAAAerin erin@x"]);
        assert!(u.no_create_home && u.no_user_group && !u.create_groups);
        assert_eq!(u.primary_group.as_deref(), Some("users"));
        assert!(u.hashed_passwd.is_some());
        let mut deprecated: Vec<&str> = diags
            .iter()
            .filter(|d| d.severity == crate::error::Severity::Deprecated)
            .filter_map(|d| d.key.as_deref())
            .collect();
        deprecated.sort_unstable();
        assert_eq!(
            deprecated,
            [
                "users.0.create-groups",
                "users.0.hashed-passwd",
                "users.0.no-create-home",
                "users.0.no-user-group",
                "users.0.primary-group",
                "users.0.ssh-authorized-keys"
            ]
        );
        let unknown: Vec<_> = diags
            .iter()
            .filter(|d| d.code == Reason::UnknownKey)
            .collect();
        assert_eq!(unknown.len(), 1, "{diags:?}");
        assert_eq!(unknown[0].key.as_deref(), Some("users.0.home-dir"));
        // A problem with a renamed key names it as written.
        let m = json!({"name": "erin", "primary-group": 5, "ssh-import-id": ["gh:erin"]});
        let mut diags = Vec::new();
        assert!(user("users.0", m.as_object().unwrap(), &mut diags).is_none());
        let keys: Vec<_> = diags.iter().filter_map(|d| d.key.as_deref()).collect();
        assert!(keys.contains(&"users.0.primary-group"), "{diags:?}");
        assert!(!keys.iter().any(|k| k.contains('_')), "{diags:?}");
    }
}

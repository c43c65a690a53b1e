//! `rh_subscription`, read once into `Settings`: cloud-init 25.3's keys with underscores, and
//! their hyphenated spellings (deprecated in 25.3; `org` as a number deprecated in 24.2). The
//! boot and `ember schema` both read it here; cloud-init's own checks (unknown keys,
//! `auto_attach` not a boolean, `service_level` without it) are made when it runs, after the
//! machine is found unregistered, as warnings (`problem`).

use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

#[derive(Debug, Default)]
pub struct Settings {
    pub username: Option<String>,
    pub password: Option<Secret<String>>,
    pub activation_key: Option<Secret<String>>,
    pub org: Option<String>,
    /// `auto_attach`: `Err` when it is not a boolean cloud-init reads.
    pub auto_attach: Option<Result<bool, ()>>,
    pub service_level: Option<String>,
    /// `add_pool`: `Err` when not a list.
    pub add_pool: Option<Result<Vec<String>, ()>>,
    pub enable_repo: Option<Result<Vec<String>, ()>>,
    pub disable_repo: Option<Result<Vec<String>, ()>>,
    pub release_version: Option<String>,
    pub rhsm_baseurl: Option<String>,
    pub server_hostname: Option<String>,
    /// Keys cloud-init does not know, by name.
    pub unknown: Vec<String>,
}

impl Settings {
    /// cloud-init's test for anything to do: a user and password, or an activation key.
    pub fn configured(&self) -> bool {
        (self.username.is_some() && self.password.is_some()) || self.activation_key.is_some()
    }

    /// cloud-init's `_verify_keys`: the first problem, as a sentence and its key.
    pub fn problem(&self) -> Option<(String, String)> {
        if let Some(k) = self.unknown.first() {
            let msg = format!(
                "{} is not a valid key for rh_subscription",
                crate::redact::printable(k)
            );
            return Some((msg, format!("rh_subscription.{k}")));
        }
        if self.auto_attach == Some(Err(())) {
            let msg = "auto_attach must be a boolean value".to_string();
            return Some((msg, "rh_subscription.auto_attach".into()));
        }
        if self.service_level.is_some() && self.auto_attach != Some(Ok(true)) {
            let msg = "service_level must be used with auto_attach: true".to_string();
            return Some((msg, "rh_subscription.service_level".into()));
        }
        None
    }
}

/// The names cloud-init reads: (current, deprecated spelling).
const NAMES: &[(&str, Option<&str>)] = &[
    ("username", None),
    ("password", None),
    ("activation_key", Some("activation-key")),
    ("org", None),
    ("auto_attach", Some("auto-attach")),
    ("service_level", Some("service-level")),
    ("add_pool", Some("add-pool")),
    ("enable_repo", Some("enable-repo")),
    ("disable_repo", Some("disable-repo")),
    ("release_version", None),
    ("rhsm_baseurl", Some("rhsm-baseurl")),
    ("server_hostname", Some("server-hostname")),
];

const STRS: Shape = list(&Shape::Str, 0);
const OLD: &str = "use the spelling with underscores";
const RHSM: Shape = Shape::Map(&Fields {
    fields: &[
        ("username", Shape::Str),
        ("password", Shape::Str),
        ("activation_key", Shape::Str),
        ("activation-key", Shape::Deprecated(&Shape::Str, OLD)),
        (
            "org",
            Shape::OneOf(&[Shape::Str, Shape::Deprecated(&Shape::Int, "use a string")]),
        ),
        ("auto_attach", Shape::Bool),
        ("auto-attach", Shape::Deprecated(&Shape::Bool, OLD)),
        ("service_level", Shape::Str),
        ("service-level", Shape::Deprecated(&Shape::Str, OLD)),
        ("add_pool", STRS),
        ("add-pool", Shape::Deprecated(&STRS, OLD)),
        ("enable_repo", STRS),
        ("enable-repo", Shape::Deprecated(&STRS, OLD)),
        ("disable_repo", STRS),
        ("disable-repo", Shape::Deprecated(&STRS, OLD)),
        ("release_version", Shape::Str),
        ("rhsm_baseurl", Shape::Str),
        ("rhsm-baseurl", Shape::Deprecated(&Shape::Str, OLD)),
        ("server_hostname", Shape::Str),
        ("server-hostname", Shape::Deprecated(&Shape::Str, OLD)),
    ],
    required: &[],
    open: false,
});
pub const SHAPES: &[(&str, Shape)] = &[("rh_subscription", RHSM)];

/// `None` when the key is absent or null; a value that is no mapping is an error.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let map = match cfg.get("rh_subscription")? {
        Value::Null => return None,
        Value::Object(m) => m,
        _ => {
            let msg = "expected a mapping";
            diags.push(Diag::error(Reason::WrongType, msg).key("rh_subscription"));
            return None;
        }
    };
    let mut s = Settings {
        unknown: map
            .keys()
            .filter(|k| !NAMES.iter().any(|(n, o)| k == n || Some(k.as_str()) == *o))
            .cloned()
            .collect(),
        ..Settings::default()
    };
    for (name, _) in NAMES {
        let Some((at, v)) = get(map, name, diags) else {
            continue;
        };
        match *name {
            "password" => s.password = text(v, &at, diags).map(Secret::new),
            "activation_key" => s.activation_key = text(v, &at, diags).map(Secret::new),
            "username" => s.username = text(v, &at, diags),
            "org" => {
                if v.is_number() {
                    let msg = "give org as a string";
                    diags.push(Diag::deprecated(Reason::Deprecated, msg).key(&at));
                }
                s.org = text(v, &at, diags);
            }
            "auto_attach" => s.auto_attach = Some(boolean(v).ok_or(())),
            "service_level" => s.service_level = text(v, &at, diags),
            "add_pool" => s.add_pool = Some(names(v, &at, diags)),
            "enable_repo" => s.enable_repo = Some(names(v, &at, diags)),
            "disable_repo" => s.disable_repo = Some(names(v, &at, diags)),
            "release_version" => s.release_version = text(v, &at, diags),
            "rhsm_baseurl" => s.rhsm_baseurl = text(v, &at, diags),
            _ => s.server_hostname = text(v, &at, diags),
        }
    }
    Some(s)
}

/// The value of `name` or its deprecated spelling (a deprecation; both given: the old one
/// ignored with a warning), with the key path it came from. Null counts as absent.
fn get<'a>(
    map: &'a Map<String, Value>,
    name: &str,
    diags: &mut Vec<Diag>,
) -> Option<(String, &'a Value)> {
    let old = NAMES.iter().find(|(n, _)| *n == name).and_then(|(_, o)| *o);
    let old_v = old.and_then(|o| map.get(o).map(|v| (o, v)));
    if let Some((o, _)) = old_v {
        let msg = format!("use {name}");
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(format!("rh_subscription.{o}")));
    }
    let found = match (map.get(name), old_v) {
        (Some(v), Some((o, _))) => {
            let msg = format!("both {name} and {o} given: {o} ignored");
            diags
                .push(Diag::warning(Reason::DuplicateKey, msg).key(format!("rh_subscription.{o}")));
            (name, v)
        }
        (Some(v), None) => (name, v),
        (None, Some((o, v))) => (o, v),
        (None, None) => return None,
    };
    (!found.1.is_null()).then(|| (format!("rh_subscription.{}", found.0), found.1))
}

/// A string (a number as written); an item with a line break cannot be a command's argument.
fn text(v: &Value, at: &str, diags: &mut Vec<Diag>) -> Option<String> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a string").key(at));
            return None;
        }
    };
    if s.contains(['\n', '\r', '\0']) {
        diags.push(Diag::error(Reason::BadValue, "holds a line break").key(at));
        return None;
    }
    Some(s)
}

/// cloud-init's `is_true`/`is_false`: a boolean, or its words.
fn boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "on" | "yes" => Some(true),
            "false" | "0" | "off" | "no" => Some(false),
            _ => None,
        },
        Value::Number(n) => match n.as_i64() {
            Some(1) => Some(true),
            Some(0) => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A list of pool or repository ids; `Err` when not a list (cloud-init's runtime check).
fn names(v: &Value, at: &str, diags: &mut Vec<Diag>) -> Result<Vec<String>, ()> {
    let items = v.as_array().ok_or(())?;
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(s) if crate::common::distro::plain_word(s) => out.push(s.to_string()),
            _ => {
                let msg = "expected an id";
                diags.push(Diag::error(Reason::WrongType, msg).key(format!("{at}.{i}")));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn new_and_deprecated_spellings_read_alike() {
        let new = json!({"rh_subscription": {"activation_key": "k", "org": "ABC",
            "auto_attach": true, "service_level": "self-support", "add_pool": ["p1"],
            "enable_repo": ["r1"], "disable_repo": ["r2"], "rhsm_baseurl": "http://b",
            "server_hostname": "s.example.com", "release_version": "9.2"}});
        let old = json!({"rh_subscription": {"activation-key": "k", "org": 12345,
            "auto-attach": "yes", "service-level": "self-support", "add-pool": ["p1"],
            "enable-repo": ["r1"], "disable-repo": ["r2"], "rhsm-baseurl": "http://b",
            "server-hostname": "s.example.com", "release_version": "9.2"}});
        let mut d = Vec::new();
        let a = read(&new, &mut d).unwrap();
        assert!(d.is_empty(), "{d:?}");
        let b = read(&old, &mut d).unwrap();
        assert_eq!(d.len(), 9, "{d:?}");
        assert!(d.iter().all(|d| d.code == "deprecated"));
        assert_eq!(a.activation_key.as_ref().unwrap().expose(), "k");
        assert_eq!(b.activation_key.as_ref().unwrap().expose(), "k");
        assert_eq!(b.org.as_deref(), Some("12345"));
        assert_eq!(b.auto_attach, Some(Ok(true)));
        assert_eq!(a.add_pool, b.add_pool);
        assert_eq!(a.server_hostname, b.server_hostname);
        assert!(a.problem().is_none() && b.problem().is_none());
    }

    #[test]
    fn cloud_inits_runtime_checks() {
        let s = |v: Value| read(&json!({ "rh_subscription": v }), &mut Vec::new()).unwrap();
        assert!(!s(json!({"username": "u"})).configured());
        assert!(s(json!({"username": "u", "password": "p"})).configured());
        assert!(s(json!({"activation_key": "k"})).configured());
        let p = s(json!({"activation_key": "k", "bogus": 1}))
            .problem()
            .unwrap();
        assert_eq!(p.1, "rh_subscription.bogus");
        let p = s(json!({"activation_key": "k", "auto_attach": "maybe"})).problem();
        assert_eq!(p.unwrap().1, "rh_subscription.auto_attach");
        let p = s(json!({"activation_key": "k", "service_level": "x"})).problem();
        assert_eq!(p.unwrap().1, "rh_subscription.service_level");
        assert_eq!(s(json!({"add_pool": "one"})).add_pool, Some(Err(())));
        let mut d = Vec::new();
        let both = json!({"rh_subscription": {"add_pool": ["a"], "add-pool": ["b"]}});
        let got = read(&both, &mut d).unwrap();
        assert_eq!(got.add_pool, Some(Ok(vec!["a".to_string()])));
        let codes: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["deprecated", "duplicate-key"]);
    }
}

//! `ubuntu_pro` (or the deprecated `ubuntu_advantage` and `ubuntu-advantage`), read once into
//! `Settings` with cloud-init's checks: one key only, a mapping, no old `commands` form,
//! `config` values http(s) URLs or null, `features.disable_auto_attach` a boolean. The boot and
//! `ember schema` both read it here.

use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

/// The deprecated spellings cloud-init still reads (deprecated in 24.1).
pub const OLD_KEYS: [&str; 2] = ["ubuntu_advantage", "ubuntu-advantage"];
/// The `config` properties cloud-init checks for an http(s) URL.
const KNOWN_CONFIG: &[&str] = &[
    "http_proxy",
    "https_proxy",
    "global_apt_http_proxy",
    "global_apt_https_proxy",
    "ua_apt_http_proxy",
    "ua_apt_https_proxy",
];

#[derive(Debug, Default)]
pub struct Settings {
    /// The key it was read from: what the module's diagnostics name.
    pub key: &'static str,
    /// `token`: the contract token (a secret: never on a command line or in a log).
    pub token: Option<Secret<String>>,
    /// `enable`: `None` when not given (the contract's defaults apply).
    pub enable: Option<Vec<String>>,
    /// `enable_beta`, likewise.
    pub enable_beta: Option<Vec<String>>,
    /// `config`, by name: a value to set, or `None` to unset.
    pub config: Vec<(String, Option<String>)>,
    /// `features.disable_auto_attach`.
    pub disable_auto_attach: bool,
    /// Keys other than `features` are given: attach with the token when not auto-attaching.
    pub attach: bool,
}

const PROXY: Shape = Shape::OneOf(&[Shape::Str, Shape::Null]);
const PRO: Shape = Shape::Map(&Fields {
    fields: &[
        ("enable", list(&Shape::Str, 0)),
        ("enable_beta", list(&Shape::Str, 0)),
        ("token", Shape::Str),
        (
            "features",
            Shape::Map(&Fields {
                fields: &[("disable_auto_attach", Shape::Bool)],
                required: &[],
                open: false,
            }),
        ),
        (
            "config",
            Shape::Map(&Fields {
                fields: &[
                    ("http_proxy", PROXY),
                    ("https_proxy", PROXY),
                    ("global_apt_http_proxy", PROXY),
                    ("global_apt_https_proxy", PROXY),
                    ("ua_apt_http_proxy", PROXY),
                    ("ua_apt_https_proxy", PROXY),
                ],
                required: &[],
                open: true,
            }),
        ),
    ],
    required: &[],
    open: false,
});

/// The shapes of its keys, after cloud-init's schema (`ubuntu-advantage` is read by the
/// module, not in the schema; it gets the deprecated shape too).
pub const SHAPES: &[(&str, Shape)] = &[
    ("ubuntu_pro", PRO),
    (
        "ubuntu_advantage",
        Shape::Deprecated(&PRO, "use ubuntu_pro"),
    ),
    (
        "ubuntu-advantage",
        Shape::Deprecated(&PRO, "use ubuntu_pro"),
    ),
];

/// `None` when no key is given (or its value is null), or when the module must not act: an
/// error in `diags` says why.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let old: Vec<&'static str> = OLD_KEYS
        .into_iter()
        .filter(|k| cfg.get(k).is_some())
        .collect();
    if old.len() > 1 {
        let msg =
            "both deprecated keys ubuntu_advantage and ubuntu-advantage given: give ubuntu_pro";
        diags.push(Diag::error(Reason::DuplicateKey, msg).key(old[1]));
        return None;
    }
    let mut key = old.first().copied();
    if let Some(k) = key {
        let msg = "use ubuntu_pro";
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(k));
    }
    if cfg.get("ubuntu_pro").is_some() {
        if let Some(k) = key {
            let msg = "ignored: ubuntu_pro is given too and is used";
            diags.push(Diag::warning(Reason::DuplicateKey, msg).key(k));
        }
        key = Some("ubuntu_pro");
    }
    let key = key?;
    let map = match cfg.get(key)? {
        Value::Null => return None,
        Value::Object(map) => map,
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(key));
            return None;
        }
    };
    if map.contains_key("commands") {
        let msg = "the old commands form is no longer read: give token";
        diags.push(Diag::error(Reason::Deprecated, msg).key(format!("{key}.commands")));
        return None;
    }
    let before = diags.iter().filter(|d| d.is_error()).count();
    let settings = Settings {
        key,
        token: token(map, key, diags),
        enable: services(map, key, "enable", diags),
        enable_beta: services(map, key, "enable_beta", diags),
        config: config(map, key, diags),
        disable_auto_attach: features(map, key, diags),
        attach: map.keys().any(|k| k != "features"),
    };
    let after = diags.iter().filter(|d| d.is_error()).count();
    (after == before).then_some(settings)
}

fn token(map: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> Option<Secret<String>> {
    match map.get("token") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(Secret::new(s.clone())),
        Some(_) => {
            let msg = "expected a string: the contract token";
            diags.push(Diag::error(Reason::WrongType, msg).key(format!("{key}.token")));
            None
        }
    }
}

/// A list of service names; one name is read as a list of one and any other value as an
/// empty list, each with a warning, as cloud-init does.
fn services(
    map: &Map<String, Value>,
    key: &str,
    name: &str,
    diags: &mut Vec<Diag>,
) -> Option<Vec<String>> {
    let at = format!("{key}.{name}");
    let items = match map.get(name)? {
        Value::Null => return None,
        Value::Array(items) => items,
        Value::String(s) => {
            let msg = "expected a list, not a string: read as a list of one service";
            diags.push(Diag::warning(Reason::WrongType, msg).key(at));
            return Some(vec![s.clone()]);
        }
        _ => {
            let msg = "expected a list of services: none enabled";
            diags.push(Diag::warning(Reason::WrongType, msg).key(at));
            return Some(Vec::new());
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(s) if crate::common::distro::plain_word(s) => out.push(s.to_string()),
            _ => {
                let msg = "expected a service name";
                diags.push(Diag::error(Reason::WrongType, msg).key(format!("{at}.{i}")));
            }
        }
    }
    Some(out)
}

/// `config`, sorted by name as cloud-init applies it. Unknown names are set without their
/// value checked (a warning says so); the known ones must be http(s) URLs.
fn config(
    map: &Map<String, Value>,
    key: &str,
    diags: &mut Vec<Diag>,
) -> Vec<(String, Option<String>)> {
    let at = format!("{key}.config");
    let props = match map.get("config") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Object(props)) => props,
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(at));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let mut names: Vec<&String> = props.keys().collect();
    ember_core::sort::sort(&mut names);
    for name in names {
        let sub = format!("{at}.{name}");
        if !crate::common::distro::plain_word(name) || name.contains('=') {
            diags.push(Diag::error(Reason::BadValue, "not a Pro config name").key(sub));
            continue;
        }
        let known = KNOWN_CONFIG.contains(&name.as_str());
        if !known {
            let msg = "unknown Pro config property: set without its value checked";
            diags.push(Diag::warning(Reason::UnknownKey, msg).key(&sub));
        }
        match &props[name] {
            Value::Null => out.push((name.clone(), None)),
            Value::String(v) => {
                if known && !matches!(scheme(v).as_deref(), Some("http" | "https")) {
                    let msg = "expected a URL with the scheme http or https";
                    diags.push(Diag::error(Reason::BadValue, msg).key(sub));
                    continue;
                }
                out.push((name.clone(), Some(v.clone())));
            }
            _ => {
                let msg = "expected a URL, or null to unset";
                diags.push(Diag::error(Reason::WrongType, msg).key(sub));
            }
        }
    }
    out
}

/// The scheme as Python's `urlparse` finds it: a letter, then letters, digits, `+-.`, before
/// the first `:`; lowercased.
fn scheme(url: &str) -> Option<String> {
    let (s, _) = url.split_once(':')?;
    let mut chars = s.chars();
    let ok = chars.next()?.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    ok.then(|| s.to_ascii_lowercase())
}

/// `features.disable_auto_attach`: a mapping holding a boolean, else an error.
fn features(map: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> bool {
    let at = format!("{key}.features");
    let Some(features) = map.get("features") else {
        return false;
    };
    let Some(features) = features.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(at));
        return false;
    };
    match features.get("disable_auto_attach") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            let msg = "expected true or false";
            diags
                .push(Diag::error(Reason::WrongType, msg).key(format!("{at}.disable_auto_attach")));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(d: &[Diag]) -> Vec<(&str, &str)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    #[test]
    fn keys_and_deprecations() {
        let mut d = Vec::new();
        let s = read(&json!({"ubuntu_advantage": {"token": "t0k"}}), &mut d).unwrap();
        assert_eq!(s.key, "ubuntu_advantage");
        assert_eq!(s.token.unwrap().expose(), "t0k");
        assert!(s.attach && s.enable.is_none());
        assert_eq!(keys(&d), [("deprecated", "ubuntu_advantage")]);

        let mut d = Vec::new();
        let cfg = json!({"ubuntu-advantage": {"token": "a"}, "ubuntu_pro": {"features": {"disable_auto_attach": true}}});
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(s.key, "ubuntu_pro");
        assert!(s.disable_auto_attach && !s.attach && s.token.is_none());
        assert_eq!(
            keys(&d),
            [
                ("deprecated", "ubuntu-advantage"),
                ("duplicate-key", "ubuntu-advantage")
            ]
        );

        let mut d = Vec::new();
        let both = json!({"ubuntu-advantage": {}, "ubuntu_advantage": {}});
        assert!(read(&both, &mut d).is_none());
        assert_eq!(keys(&d), [("duplicate-key", "ubuntu-advantage")]);
        let mut d = Vec::new();
        assert!(read(&json!({"ubuntu_pro": null}), &mut d).is_none());
        assert!(read(&json!({}), &mut d).is_none());
        assert!(d.is_empty());
    }

    #[test]
    fn cloud_inits_checks() {
        let mut d = Vec::new();
        let cfg = json!({"ubuntu_pro": {"commands": ["attach x"]}});
        assert!(read(&cfg, &mut d).is_none());
        assert_eq!(keys(&d), [("deprecated", "ubuntu_pro.commands")]);

        let mut d = Vec::new();
        let cfg = json!({"ubuntu_pro": {"enable": "fips", "enable_beta": 3, "config": {
            "https_proxy": "http://p:3128", "http_proxy": null, "zz_other": "any thing"}}});
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(s.enable.as_deref(), Some(&["fips".to_string()][..]));
        assert_eq!(s.enable_beta.as_deref(), Some(&[][..]));
        assert_eq!(
            s.config,
            [
                ("http_proxy".to_string(), None),
                ("https_proxy".to_string(), Some("http://p:3128".to_string())),
                ("zz_other".to_string(), Some("any thing".to_string())),
            ]
        );
        assert_eq!(
            keys(&d),
            [
                ("wrong-type", "ubuntu_pro.enable"),
                ("wrong-type", "ubuntu_pro.enable_beta"),
                ("unknown-key", "ubuntu_pro.config.zz_other"),
            ]
        );
        assert!(d.iter().all(|d| !d.is_error()));

        let mut d = Vec::new();
        let cfg = json!({"ubuntu_pro": {"config": {"http_proxy": "ftp://p", "https_proxy": "p:80"},
                         "features": {"disable_auto_attach": "yes"}, "token": 5}});
        assert!(read(&cfg, &mut d).is_none());
        assert_eq!(
            keys(&d),
            [
                ("wrong-type", "ubuntu_pro.token"),
                ("bad-value", "ubuntu_pro.config.http_proxy"),
                ("bad-value", "ubuntu_pro.config.https_proxy"),
                ("wrong-type", "ubuntu_pro.features.disable_auto_attach"),
            ]
        );
        // No message quotes a value.
        assert!(d.iter().all(|d| !d.message.contains("ftp")));
    }

    #[test]
    fn url_schemes() {
        assert_eq!(scheme("HTTP://x").as_deref(), Some("http"));
        assert_eq!(scheme("https://u:p@x:1/").as_deref(), Some("https"));
        assert_eq!(scheme("some-proxy:8088").as_deref(), Some("some-proxy"));
        assert_eq!(scheme("/path"), None);
        assert_eq!(scheme("1http://x"), None);
    }
}

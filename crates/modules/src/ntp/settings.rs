//! The `ntp` key, read once into `Settings`: the client, `config`'s overrides of its defaults
//! (all of them, for a client of the user's own) and the host lists. The boot and
//! `ember schema` both read it here.

use super::clients::KNOWN;
use crate::common::distro::{flag, plain_word};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// `ntp.config`: what replaces the client's defaults (cloud-init merges it over them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub confpath: Option<String>,
    pub check_exe: Option<String>,
    pub packages: Option<Vec<String>>,
    pub service_name: Option<String>,
    /// An inline template (`## template:jinja` first, or cloud-init's basic `$name` form).
    pub template: Option<String>,
    /// A template of the image's `/etc/cloud/templates` (or one ember carries), by name;
    /// `{distro}` stands for the distribution. Not in cloud-init's schema, but its module reads it.
    pub template_name: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// `ntp_client`; `None` for `auto`: the first installed, in the distribution's order.
    pub client: Option<String>,
    pub config: Overrides,
    pub servers: Vec<String>,
    pub pools: Vec<String>,
    /// `Some` when given, even unusable: a template without the setting warns it is ignored.
    pub peers: Option<Vec<String>>,
    pub allow: Option<Vec<String>>,
}

/// `None` when there is nothing to configure: `ntp` absent or not a mapping, or
/// `enabled: false` (the keys after it are then not read, as the boot has always done).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let ntp = match cfg.get("ntp")? {
        // cloud-init: an empty `ntp:` configures the default client with default pools.
        Value::Null => return Some(Settings::default()),
        Value::Object(map) => map,
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("ntp"));
            return None;
        }
    };
    if flag(ntp.get("enabled"), "ntp.enabled", diags) == Some(false) {
        return None;
    }
    let client = client(ntp.get("ntp_client"), diags)?;
    let config = overrides(ntp.get("config"), diags);
    if let Some(name) = &client {
        if !KNOWN.contains(&name.as_str()) {
            custom_needs(&config, diags);
        }
    }
    Some(Settings {
        client,
        config,
        servers: hosts(ntp, "servers", diags).unwrap_or_default(),
        pools: hosts(ntp, "pools", diags).unwrap_or_default(),
        peers: hosts(ntp, "peers", diags),
        allow: hosts(ntp, "allow", diags),
    })
}

/// `Some(None)` for auto; a name of the user's own is a client the `config` describes.
/// `None` after recording a name that cannot be one.
fn client(v: Option<&Value>, diags: &mut Vec<Diag>) -> Option<Option<String>> {
    let name = match v {
        None | Some(Value::Null) => return Some(None),
        Some(v) => v.as_str(),
    };
    match name {
        Some("auto") => Some(None),
        Some(n) if plain_word(n) => Some(Some(n.to_string())),
        _ => {
            let msg = "expected auto, a client cloud-init knows, or a name for config to describe";
            diags.push(Diag::error(Reason::WrongType, msg).key("ntp.ntp_client"));
            None
        }
    }
}

/// cloud-init's check of a client of the user's own: `config` must say everything a known
/// client's defaults would (its module fails otherwise; its schema does not tell).
fn custom_needs(c: &Overrides, diags: &mut Vec<Diag>) {
    let missing = |key: &str| {
        let msg = format!("required for an ntp_client cloud-init does not know: {key}");
        Diag::error(Reason::MissingKey, msg).key(format!("ntp.config.{key}"))
    };
    for (key, given) in [
        ("check_exe", c.check_exe.is_some()),
        ("confpath", c.confpath.is_some()),
        ("packages", c.packages.is_some()),
        ("service_name", c.service_name.is_some()),
    ] {
        if !given {
            diags.push(missing(key));
        }
    }
    if c.template.is_none() && c.template_name.is_none() {
        diags.push(missing("template"));
    }
}

/// A list of host names (or, for `allow`, networks) under `ntp.<key>`; bad items are errors
/// naming `ntp.<key>.N` and are left out, so they never become a line of their own. `None`
/// when the key is absent or null.
fn hosts(ntp: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let path = format!("ntp.{key}");
    let items = match ntp.get(key)? {
        Value::Null => return None,
        Value::Array(items) => items,
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a list").key(path));
            return Some(Vec::new());
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().filter(|s| plain_word(s)) {
            Some(s) => out.push(s.to_string()),
            None => {
                let msg = "expected a host name or address; item skipped";
                diags.push(Diag::error(Reason::WrongType, msg).key(format!("{path}.{i}")));
            }
        }
    }
    Some(out)
}

/// `ntp.config`'s overrides of the client's defaults.
fn overrides(v: Option<&Value>, diags: &mut Vec<Diag>) -> Overrides {
    let mut out = Overrides::default();
    let map = match v {
        None | Some(Value::Null) => return out,
        Some(Value::Object(map)) => map,
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("ntp.config"));
            return out;
        }
    };
    for (k, v) in map {
        let key = format!("ntp.config.{k}");
        let word = v.as_str().filter(|s| plain_word(s)).map(str::to_string);
        let wrong = |what: &str| Diag::error(Reason::WrongType, format!("expected {what}"));
        match k.as_str() {
            "confpath" if word.as_ref().is_some_and(|p| p.starts_with('/')) => out.confpath = word,
            "service_name" if word.is_some() => out.service_name = word,
            "check_exe" if word.is_some() => out.check_exe = word,
            "confpath" => diags.push(wrong("an absolute path").key(key)),
            "service_name" | "check_exe" => diags.push(wrong("a name").key(key)),
            "packages" => out.packages = packages(v, &key, diags),
            // cloud-init: either may be null, the other then decides.
            "template" | "template_name" if v.is_null() => {}
            "template" => match v.as_str() {
                Some(t) => out.template = Some(t.to_string()),
                None => diags.push(wrong("a template").key(key)),
            },
            "template_name" => {
                let msg = "not in cloud-init's schema, though its module reads it (as ember does)";
                diags.push(Diag::warning(Reason::UnknownKey, msg).key(key.clone()));
                match word.filter(|w| !w.contains('/')) {
                    Some(name) => out.template_name = Some(name),
                    None => diags.push(wrong("a template name").key(key)),
                }
            }
            _ => diags.push(Diag::warning(Reason::UnknownKey, "unknown key; ignored").key(key)),
        }
    }
    out
}

/// `ntp.config.packages`: package names; a bad item is an error and left out.
fn packages(v: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let Some(items) = v.as_array() else {
        diags.push(Diag::error(Reason::WrongType, "expected a list of packages").key(key));
        return None;
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().filter(|s| plain_word(s)) {
            Some(s) => out.push(s.to_string()),
            None => {
                let msg = "expected a package name; item skipped";
                diags.push(Diag::error(Reason::WrongType, msg).key(format!("{key}.{i}")));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(diags: &[Diag]) -> Vec<(&str, &str)> {
        diags
            .iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn absent_disabled_and_empty() {
        let mut d = Vec::new();
        assert_eq!(read(&json!({}), &mut d), None);
        assert_eq!(read(&json!({"ntp": {"enabled": false}}), &mut d), None);
        // Disabled: the other keys are not read, so their mistakes are not reported.
        let off = json!({"ntp": {"enabled": "off", "servers": 5}});
        assert_eq!(read(&off, &mut d), None);
        assert_eq!(
            read(&json!({"ntp": null}), &mut d),
            Some(Settings::default())
        );
        assert_eq!(read(&json!({"ntp": {}}), &mut d), Some(Settings::default()));
        assert!(d.is_empty());
    }

    #[test]
    fn each_key_is_read() {
        let mut d = Vec::new();
        let cfg = json!({"ntp": {
            "enabled": true,
            "ntp_client": "systemd-timesyncd",
            "config": {"confpath": "/etc/t.conf", "service_name": "ts", "check_exe": "tsd",
                       "packages": ["ts"], "template": "## template:jinja\n{{servers}}\n"},
            "servers": ["10.0.0.1"],
            "pools": ["pool.example.com"],
            "peers": ["peer.example.com"],
            "allow": ["10.0.0.0/8"],
        }});
        let want = Settings {
            client: Some("systemd-timesyncd".into()),
            config: Overrides {
                confpath: Some("/etc/t.conf".into()),
                service_name: Some("ts".into()),
                check_exe: Some("tsd".into()),
                packages: Some(strings(&["ts"])),
                template: Some("## template:jinja\n{{servers}}\n".into()),
                template_name: None,
            },
            servers: strings(&["10.0.0.1"]),
            pools: strings(&["pool.example.com"]),
            peers: Some(strings(&["peer.example.com"])),
            allow: Some(strings(&["10.0.0.0/8"])),
        };
        assert_eq!(read(&cfg, &mut d), Some(want));
        assert!(d.is_empty());
        for (name, client) in [
            ("auto", None),
            ("chrony", Some("chrony")),
            ("ntp", Some("ntp")),
            ("ntpdate", Some("ntpdate")),
        ] {
            let got = read(&json!({"ntp": {"ntp_client": name}}), &mut d);
            assert_eq!(got.unwrap().client.as_deref(), client, "{name}");
        }
        assert!(d.is_empty());
    }

    #[test]
    fn a_client_of_ones_own_needs_its_whole_config() {
        let mut d = Vec::new();
        let cfg = json!({"ntp": {"ntp_client": "myntpclient", "config": {"check_exe": "myd"}}});
        let got = read(&cfg, &mut d).unwrap();
        assert_eq!(got.client.as_deref(), Some("myntpclient"));
        assert_eq!(
            keys(&d),
            [
                ("missing-key", "ntp.config.confpath"),
                ("missing-key", "ntp.config.packages"),
                ("missing-key", "ntp.config.service_name"),
                ("missing-key", "ntp.config.template"),
            ]
        );
        let mut d = Vec::new();
        let whole = json!({"ntp": {"ntp_client": "mine", "config": {
            "check_exe": "myd", "confpath": "/etc/my.conf", "packages": [],
            "service_name": "my", "template_name": "my.conf"}}});
        read(&whole, &mut d).unwrap();
        // template_name is read, with a word that cloud-init's schema does not list it.
        assert_eq!(keys(&d), [("unknown-key", "ntp.config.template_name")]);
    }

    #[test]
    fn unknown_config_keys_warn() {
        let mut d = Vec::new();
        let cfg = json!({"ntp": {"config": {"other": 1, "template": null}}});
        assert_eq!(read(&cfg, &mut d), Some(Settings::default()));
        assert_eq!(keys(&d), [("unknown-key", "ntp.config.other")]);
        assert!(d.iter().all(|d| !d.is_error()));
    }

    #[test]
    fn a_wrong_type_names_its_key() {
        let cases = [
            (json!({"ntp": 5}), "ntp"),
            (json!({"ntp": {"enabled": [1]}}), "ntp.enabled"),
            (json!({"ntp": {"ntp_client": "a b"}}), "ntp.ntp_client"),
            (json!({"ntp": {"ntp_client": 3}}), "ntp.ntp_client"),
            (json!({"ntp": {"config": "x"}}), "ntp.config"),
            (
                json!({"ntp": {"config": {"confpath": "etc/x"}}}),
                "ntp.config.confpath",
            ),
            (
                json!({"ntp": {"config": {"packages": "chrony"}}}),
                "ntp.config.packages",
            ),
            (
                json!({"ntp": {"config": {"packages": ["a", "-b"]}}}),
                "ntp.config.packages.1",
            ),
            (
                json!({"ntp": {"config": {"template": 5}}}),
                "ntp.config.template",
            ),
            (json!({"ntp": {"servers": "a"}}), "ntp.servers"),
            (json!({"ntp": {"servers": ["a", "b c"]}}), "ntp.servers.1"),
            (json!({"ntp": {"pools": [7]}}), "ntp.pools.0"),
            (json!({"ntp": {"peers": {}}}), "ntp.peers"),
            (json!({"ntp": {"allow": ["-x"]}}), "ntp.allow.0"),
        ];
        for (cfg, key) in cases {
            let mut d = Vec::new();
            read(&cfg, &mut d);
            assert_eq!(keys(&d), [("wrong-type", key)], "{cfg}");
        }
        // Given but unusable still counts as given, for the ignored-key warning.
        let got = read(&json!({"ntp": {"peers": 5}}), &mut Vec::new());
        assert_eq!(got.unwrap().peers, Some(Vec::new()));
    }
}

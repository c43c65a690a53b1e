//! The `ntp` key, read once into `Settings`: the client, `config`'s overrides of its defaults
//! and the host lists. The boot and `ember schema` both read it here.

use super::{Client, ClientCfg, PREFERRED};
use crate::error::Diag;
use crate::reason::Reason;
use crate::runner::modules::distro::{flag, plain_word};
use serde_json::{Map, Value};

/// `ntp.config`: what replaces the client's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub confpath: Option<String>,
    pub service_name: Option<String>,
    pub check_exe: Option<String>,
}

impl Overrides {
    pub fn apply(&self, cfg: &mut ClientCfg) {
        if let Some(p) = &self.confpath {
            cfg.confpath = p.clone();
        }
        if let Some(s) = &self.service_name {
            cfg.service = s.clone();
        }
        if let Some(e) = &self.check_exe {
            cfg.check_exe = vec![e.clone()];
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// `ntp_client`; `None` for `auto`: the first installed, in cloud-init's order.
    pub client: Option<Client>,
    pub config: Overrides,
    pub servers: Vec<String>,
    pub pools: Vec<String>,
    /// `Some` when given, even unusable: a client without the setting warns it is ignored.
    pub peers: Option<Vec<String>>,
    pub allow: Option<Vec<String>>,
}

/// `None` when there is nothing to configure: `ntp` absent or not a mapping, `enabled: false`,
/// or an `ntp_client` ember does not know. The keys after those are then not read, as the boot
/// has always done.
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
    Some(Settings {
        client: client(ntp.get("ntp_client"), diags)?,
        config: overrides(ntp.get("config"), diags),
        servers: hosts(ntp, "servers", diags).unwrap_or_default(),
        pools: hosts(ntp, "pools", diags).unwrap_or_default(),
        peers: hosts(ntp, "peers", diags),
        allow: hosts(ntp, "allow", diags),
    })
}

/// `Some(None)` for auto; `None` after recording a name ember does not know.
fn client(v: Option<&Value>, diags: &mut Vec<Diag>) -> Option<Option<Client>> {
    let name = match v {
        None | Some(Value::Null) => return Some(None),
        Some(v) => v.as_str(),
    };
    if name == Some("auto") {
        return Some(None);
    }
    let known = PREFERRED.into_iter().find(|c| Some(c.name()) == name);
    if known.is_none() {
        let msg = "expected auto, chrony, systemd-timesyncd or ntp";
        diags.push(Diag::error(Reason::WrongType, msg).key("ntp.ntp_client"));
        return None;
    }
    Some(known)
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
        match k.as_str() {
            "confpath" if word.as_ref().is_some_and(|p| p.starts_with('/')) => out.confpath = word,
            "service_name" if word.is_some() => out.service_name = word,
            "check_exe" if word.is_some() => out.check_exe = word,
            "confpath" | "service_name" | "check_exe" => {
                diags.push(Diag::error(Reason::WrongType, "expected a path or name").key(key))
            }
            "packages" => {
                let msg = "ignored: ember's ntp installs nothing; list the client in packages";
                diags.push(Diag::warning(Reason::NtpPackagesIgnored, msg).key(key));
            }
            "template" | "template_name" => {
                let msg = "not supported: ember writes its own configuration file";
                diags.push(Diag::warning(Reason::NtpTemplateUnsupported, msg).key(key));
            }
            _ => diags.push(Diag::warning(Reason::UnknownKey, "unknown key; ignored").key(key)),
        }
    }
    out
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
            "config": {"confpath": "/etc/t.conf", "service_name": "ts", "check_exe": "tsd"},
            "servers": ["10.0.0.1"],
            "pools": ["pool.example.com"],
            "peers": ["peer.example.com"],
            "allow": ["10.0.0.0/8"],
        }});
        let want = Settings {
            client: Some(Client::Timesyncd),
            config: Overrides {
                confpath: Some("/etc/t.conf".into()),
                service_name: Some("ts".into()),
                check_exe: Some("tsd".into()),
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
            ("chrony", Some(Client::Chrony)),
            ("ntp", Some(Client::Ntpd)),
        ] {
            let got = read(&json!({"ntp": {"ntp_client": name}}), &mut d);
            assert_eq!(got.unwrap().client, client, "{name}");
        }
    }

    #[test]
    fn config_keys_ember_does_not_use_warn() {
        let mut d = Vec::new();
        let cfg = json!({"ntp": {"config": {"packages": ["chrony"], "template": "x", "other": 1}}});
        assert_eq!(read(&cfg, &mut d), Some(Settings::default()));
        assert_eq!(
            keys(&d),
            [
                ("unknown-key", "ntp.config.other"),
                ("ntp-packages-ignored", "ntp.config.packages"),
                ("ntp-template-unsupported", "ntp.config.template")
            ]
        );
        assert!(d.iter().all(|d| !d.is_error()));
    }

    #[test]
    fn a_wrong_type_names_its_key() {
        let cases = [
            (json!({"ntp": 5}), "ntp"),
            (json!({"ntp": {"enabled": [1]}}), "ntp.enabled"),
            (json!({"ntp": {"ntp_client": "openntpd"}}), "ntp.ntp_client"),
            (json!({"ntp": {"config": "x"}}), "ntp.config"),
            (
                json!({"ntp": {"config": {"confpath": "etc/x"}}}),
                "ntp.config.confpath",
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
        // Given but unusable still counts as given, for the client's ignored-key warning.
        let got = read(&json!({"ntp": {"peers": 5}}), &mut Vec::new());
        assert_eq!(got.unwrap().peers, Some(Vec::new()));
    }
}

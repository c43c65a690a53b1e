//! `ca_certs` (or the deprecated `ca-certs`), read once into `Settings`. The boot and `ember
//! schema` both read it here.

use crate::common::distro::flag;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The key it was read from, `ca_certs` or `ca-certs`: what the module's own
    /// diagnostics name.
    pub key: &'static str,
    /// `remove_defaults` (or the deprecated `remove-defaults`): distrust the distribution's
    /// certificates.
    pub remove_defaults: bool,
    /// `trusted`: PEM texts, in order (one string counts as a list of one).
    pub trusted: Vec<String>,
}

/// `None` when neither key is given or the value is not a mapping. `ca_certs` wins over
/// `ca-certs` when both are given, as in cloud-init.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let (key, cc) = match (cfg.get("ca_certs"), cfg.get("ca-certs")) {
        (None, None) => return None,
        (Some(new), old) => {
            if old.is_some() {
                let msg = "both ca_certs and the deprecated ca-certs given: ca-certs ignored";
                diags.push(Diag::warning(Reason::DuplicateKey, msg).key("ca-certs"));
            }
            ("ca_certs", new)
        }
        (None, Some(old)) => {
            let msg = "use ca_certs";
            diags.push(Diag::deprecated(Reason::Deprecated, msg).key("ca-certs"));
            ("ca-certs", old)
        }
    };
    if !cc.is_object() {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(key));
        return None;
    }
    Some(Settings {
        key,
        remove_defaults: remove_defaults(cc, key, diags),
        trusted: certs(cc, key, diags),
    })
}

/// `remove_defaults`, else the deprecated `remove-defaults`, else false.
fn remove_defaults(cc: &Value, key: &str, diags: &mut Vec<Diag>) -> bool {
    let new_key = format!("{key}.remove_defaults");
    if let Some(b) = flag(cc.get("remove_defaults"), &new_key, diags) {
        return b;
    }
    let old_key = format!("{key}.remove-defaults");
    let old = flag(cc.get("remove-defaults"), &old_key, diags);
    if old.is_some() {
        let msg = "use remove_defaults";
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(old_key));
    }
    old.unwrap_or(false)
}

/// `trusted`: one certificate or a list; bad items are errors naming `<key>.trusted.N`.
fn certs(cc: &Value, key: &str, diags: &mut Vec<Diag>) -> Vec<String> {
    let items = match cc.get("trusted") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::String(s)) => return vec![s.clone()],
        Some(Value::Array(items)) => items,
        Some(_) => {
            let msg = "expected a list of certificates";
            diags.push(Diag::error(Reason::WrongType, msg).key(format!("{key}.trusted")));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(s) if !s.is_empty() => out.push(s.to_string()),
            _ => {
                let msg = "expected a certificate (PEM text); item skipped";
                diags.push(Diag::error(Reason::WrongType, msg).key(format!("{key}.trusted.{i}")));
            }
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

    #[test]
    fn absent_and_defaults() {
        let mut d = Vec::new();
        assert_eq!(read(&json!({}), &mut d), None);
        let want = Settings {
            key: "ca_certs",
            remove_defaults: false,
            trusted: Vec::new(),
        };
        assert_eq!(read(&json!({"ca_certs": {}}), &mut d), Some(want));
        assert!(d.is_empty());
    }

    #[test]
    fn each_key_is_read() {
        let mut d = Vec::new();
        let cfg = json!({"ca_certs": {"remove_defaults": true, "trusted": ["A", "B"]}});
        let want = Settings {
            key: "ca_certs",
            remove_defaults: true,
            trusted: vec!["A".into(), "B".into()],
        };
        assert_eq!(read(&cfg, &mut d), Some(want));
        let one = read(&json!({"ca_certs": {"trusted": "A"}}), &mut d).unwrap();
        assert_eq!(one.trusted, ["A"]);
        assert!(d.is_empty());
    }

    #[test]
    fn deprecated_spellings() {
        let mut d = Vec::new();
        let cfg = json!({"ca-certs": {"remove-defaults": "yes"}});
        let got = read(&cfg, &mut d).unwrap();
        assert_eq!((got.key, got.remove_defaults), ("ca-certs", true));
        let both = json!({"ca_certs": {"remove_defaults": false, "remove-defaults": true},
                          "ca-certs": {"trusted": "A"}});
        let got = read(&both, &mut d).unwrap();
        assert_eq!((got.key, got.remove_defaults), ("ca_certs", false));
        assert!(got.trusted.is_empty());
        assert_eq!(
            keys(&d),
            [
                ("deprecated", "ca-certs"),
                ("deprecated", "ca-certs.remove-defaults"),
                ("duplicate-key", "ca-certs")
            ]
        );
    }

    #[test]
    fn a_wrong_type_names_its_key() {
        let cases = [
            (json!({"ca_certs": ["A"]}), "ca_certs"),
            (
                json!({"ca_certs": {"remove_defaults": 2}}),
                "ca_certs.remove_defaults",
            ),
            (json!({"ca_certs": {"trusted": 5}}), "ca_certs.trusted"),
            (
                json!({"ca_certs": {"trusted": ["A", ""]}}),
                "ca_certs.trusted.1",
            ),
        ];
        for (cfg, key) in cases {
            let mut d = Vec::new();
            read(&cfg, &mut d);
            assert_eq!(keys(&d), [("wrong-type", key)], "{cfg}");
        }
    }
}

//! The host key part of the ssh module's settings: `ssh_keys` when given, else
//! `ssh_genkeytypes`, read as cloud-init's cc_ssh reads them (it reads the second only when
//! the first is absent, so a bad `ssh_genkeytypes` next to `ssh_keys` goes unread here too).

use super::string_items;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

/// A host key type of `ssh_keys` or `ssh_genkeytypes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    Rsa,
    Dsa,
    Ecdsa,
    Ed25519,
    /// Security-key types: cloud-init accepts them in `ssh_genkeytypes` but cannot make them
    /// (they need a hardware token), so they are skipped.
    EcdsaSk,
    Ed25519Sk,
}

/// The types that have key files under /etc/ssh.
pub const FILE_TYPES: [KeyType; 4] = [KeyType::Rsa, KeyType::Dsa, KeyType::Ecdsa, KeyType::Ed25519];
const DEFAULT_GENKEYTYPES: [KeyType; 3] = [KeyType::Ecdsa, KeyType::Ed25519, KeyType::Rsa];

impl KeyType {
    pub fn name(self) -> &'static str {
        match self {
            KeyType::Rsa => "rsa",
            KeyType::Dsa => "dsa",
            KeyType::Ecdsa => "ecdsa",
            KeyType::Ed25519 => "ed25519",
            KeyType::EcdsaSk => "ecdsa-sk",
            KeyType::Ed25519Sk => "ed25519-sk",
        }
    }

    fn parse(name: &str) -> Option<KeyType> {
        let mut all = FILE_TYPES
            .into_iter()
            .chain([KeyType::EcdsaSk, KeyType::Ed25519Sk]);
        all.find(|t| t.name() == name)
    }
}

/// Which file of a host key an `ssh_keys` entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPart {
    Private,
    Public,
    Certificate,
}

/// One `ssh_keys` entry, such as `ed25519_private`.
#[derive(Debug, PartialEq)]
pub struct GivenKey {
    pub key_type: KeyType,
    pub part: KeyPart,
    pub text: Secret<String>,
    /// Its key path, `ssh_keys.<type>_<part>`.
    pub key: String,
    /// A private key whose `<type>_public` entry is absent: its public half is derived. An
    /// entry present but unusable counts as given, as in cloud-init.
    pub derive_public: bool,
}

/// A type of `ssh_genkeytypes` to generate, with its key path for diagnostics.
#[derive(Debug, PartialEq)]
pub struct GenKey {
    pub key_type: KeyType,
    pub key: String,
}

/// Where the host keys come from.
#[derive(Debug, PartialEq)]
pub enum HostKeys {
    /// `ssh_keys` was given: written as given, nothing generated (none when it is unusable).
    Given(Vec<GivenKey>),
    /// Otherwise the types of `ssh_genkeytypes` (default ecdsa, ed25519, rsa).
    Generate(Vec<GenKey>),
}

impl HostKeys {
    /// The key types whose certificate is given, by entry name (cloud-init gives sshd a
    /// `HostCertificate` line for each).
    pub fn certificates(&self) -> impl Iterator<Item = KeyType> + '_ {
        let keys = match self {
            HostKeys::Given(keys) => &keys[..],
            HostKeys::Generate(_) => &[],
        };
        keys.iter()
            .filter(|k| k.part == KeyPart::Certificate)
            .map(|k| k.key_type)
    }
}

pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> HostKeys {
    match cfg.get("ssh_keys") {
        None | Some(Value::Null) => HostKeys::Generate(genkeytypes(cfg, diags)),
        Some(Value::Object(entries)) => HostKeys::Given(given(entries, diags)),
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "must be a mapping").key("ssh_keys"));
            HostKeys::Given(Vec::new())
        }
    }
}

/// `<type>_<part>`, for the types that have key files.
fn entry_name(name: &str) -> Option<(KeyType, KeyPart)> {
    let (t, part) = name.rsplit_once('_')?;
    let key_type = KeyType::parse(t).filter(|t| FILE_TYPES.contains(t))?;
    let part = match part {
        "private" => KeyPart::Private,
        "public" => KeyPart::Public,
        "certificate" => KeyPart::Certificate,
        _ => return None,
    };
    Some((key_type, part))
}

fn given(entries: &Map<String, Value>, diags: &mut Vec<Diag>) -> Vec<GivenKey> {
    let mut keys = Vec::new();
    for (name, value) in entries {
        let key = format!("ssh_keys.{name}");
        let Some((key_type, part)) = entry_name(name) else {
            diags.push(Diag::warning(Reason::UnknownKey, "not a host key entry").key(key));
            continue;
        };
        let Some(text) = value.as_str() else {
            diags.push(Diag::error(Reason::WrongType, "must be a string").key(key));
            continue;
        };
        let public_entry = format!("{}_public", key_type.name());
        keys.push(GivenKey {
            key_type,
            part,
            text: Secret::new(text.to_string()),
            key,
            derive_public: part == KeyPart::Private && !entries.contains_key(&public_entry),
        });
    }
    keys
}

/// `ssh_genkeytypes` as cloud-init's get_cfg_option_list reads it: a list, one string, or
/// null (none). Unknown type names are left out with a warning.
fn genkeytypes(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<GenKey> {
    let key = "ssh_genkeytypes";
    let named: Vec<(String, String)> = match cfg.get(key) {
        None => {
            let defaults = DEFAULT_GENKEYTYPES.iter().enumerate();
            return defaults
                .map(|(i, t)| GenKey {
                    key_type: *t,
                    key: format!("{key}.{i}"),
                })
                .collect();
        }
        Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![(s.clone(), key.to_string())],
        Some(Value::Array(items)) => string_items(items, key, diags),
        // cloud-init would run ssh-keygen on its text and log the failure: a warning.
        Some(_) => {
            diags.push(Diag::warning(Reason::WrongType, "must be a list of strings").key(key));
            Vec::new()
        }
    };
    named
        .into_iter()
        .filter_map(|(name, key)| match KeyType::parse(&name) {
            Some(key_type) => Some(GenKey { key_type, key }),
            None => {
                let d = Diag::warning(Reason::UnsupportedKey, "unknown host key type");
                diags.push(d.key(key));
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_all(cfg: Value) -> (HostKeys, Vec<Diag>) {
        let mut diags = Vec::new();
        (read(&cfg, &mut diags), diags)
    }

    fn keys_of(diags: &[Diag]) -> Vec<&str> {
        diags.iter().filter_map(|d| d.key.as_deref()).collect()
    }

    fn types(keys: &HostKeys) -> Vec<(KeyType, &str)> {
        match keys {
            HostKeys::Generate(g) => g.iter().map(|k| (k.key_type, k.key.as_str())).collect(),
            HostKeys::Given(_) => panic!("given keys"),
        }
    }

    #[test]
    fn default_generates_three_types() {
        let (keys, diags) = read_all(json!({}));
        let want = [
            (KeyType::Ecdsa, "ssh_genkeytypes.0"),
            (KeyType::Ed25519, "ssh_genkeytypes.1"),
            (KeyType::Rsa, "ssh_genkeytypes.2"),
        ];
        assert_eq!(types(&keys), want);
        assert!(diags.is_empty());
        let (keys, _) = read_all(json!({"ssh_keys": null}));
        assert_eq!(types(&keys).len(), 3);
    }

    #[test]
    fn genkeytypes_forms() {
        let (keys, diags) = read_all(json!({"ssh_genkeytypes": "ed25519"}));
        assert_eq!(types(&keys), [(KeyType::Ed25519, "ssh_genkeytypes")]);
        assert!(diags.is_empty());
        let (keys, _) = read_all(json!({"ssh_genkeytypes": null}));
        assert_eq!(types(&keys), []);
        let cfg = json!({"ssh_genkeytypes": ["ed25519-sk", 7, "rsa1", "dsa"]});
        let (keys, diags) = read_all(cfg);
        let want = [
            (KeyType::Ed25519Sk, "ssh_genkeytypes.0"),
            (KeyType::Dsa, "ssh_genkeytypes.3"),
        ];
        assert_eq!(types(&keys), want);
        assert_eq!(keys_of(&diags), ["ssh_genkeytypes.1", "ssh_genkeytypes.2"]);
        // cloud-init would run ssh-keygen on either and log its failure: warnings.
        assert!(diags.iter().all(|d| !d.is_error()));
    }

    #[test]
    fn genkeytypes_of_a_wrong_type_generate_nothing() {
        let (keys, diags) = read_all(json!({"ssh_genkeytypes": {"rsa": true}}));
        assert_eq!(types(&keys), []);
        assert_eq!(keys_of(&diags), ["ssh_genkeytypes"]);
        assert_eq!(diags[0].code, "wrong-type");
    }

    #[test]
    fn given_keys_and_their_problems() {
        let cfg = json!({
            "ssh_genkeytypes": 7,
            "ssh_keys": {
                "ed25519_private": "PRIV",
                "rsa_public": 3,
                "rsa_private": "RSA",
                "ecdsa_certificate": "CERT",
                "ecdsa_secret": "x",
                "bogus_private": "x",
            },
        });
        let (keys, diags) = read_all(cfg);
        // Not read when keys are given, as in cloud-init.
        assert!(!keys_of(&diags).contains(&"ssh_genkeytypes"));
        let HostKeys::Given(given) = &keys else {
            panic!("not given: {keys:?}")
        };
        let got: Vec<(&str, KeyPart, bool)> = given
            .iter()
            .map(|k| (k.key.as_str(), k.part, k.derive_public))
            .collect();
        let want = [
            ("ssh_keys.ecdsa_certificate", KeyPart::Certificate, false),
            ("ssh_keys.ed25519_private", KeyPart::Private, true),
            // Its public entry is there, though unusable.
            ("ssh_keys.rsa_private", KeyPart::Private, false),
        ];
        assert_eq!(got, want);
        assert_eq!(given[1].text.expose(), "PRIV");
        assert_eq!(
            keys_of(&diags),
            [
                "ssh_keys.bogus_private",
                "ssh_keys.ecdsa_secret",
                "ssh_keys.rsa_public"
            ]
        );
        let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["unknown-key", "unknown-key", "wrong-type"]);
        assert_eq!(keys.certificates().collect::<Vec<_>>(), [KeyType::Ecdsa]);
    }

    #[test]
    fn every_certificate_is_presented() {
        let cfg = json!({"ssh_keys": {"rsa_certificate": "a", "ed25519_certificate": "b"}});
        let keys = read_all(cfg).0;
        let got: Vec<KeyType> = keys.certificates().collect();
        assert_eq!(got, [KeyType::Ed25519, KeyType::Rsa]);
        assert_eq!(read_all(json!({})).0.certificates().count(), 0);
    }

    #[test]
    fn ssh_keys_not_a_mapping() {
        let (keys, diags) = read_all(json!({"ssh_keys": ["rsa_private"]}));
        assert_eq!(keys, HostKeys::Given(Vec::new()));
        assert_eq!(keys_of(&diags), ["ssh_keys"]);
    }
}

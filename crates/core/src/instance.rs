//! What a datasource returns: one `InstanceData`, the same shape for every platform. It is
//! also what ember keeps between stages (`fetched.json`) and boots (the per-instance cache,
//! `state::instance_cache`): it serialises itself, payloads in base64 (they may be binary),
//! under the cache's format version.

use crate::error::Diag;
use crate::secret::Secret;
use crate::state::instance_cache::FormatVersion;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct InstanceData {
    /// The format of the serialised form; absent in caches written before it had one.
    #[serde(default = "crate::state::instance_cache::legacy")]
    pub version: FormatVersion,
    /// `nocloud`.
    pub datasource: String,
    /// cloud-init's `platform` where it is not the datasource's name (`openstack` for a config
    /// drive).
    #[serde(default)]
    pub platform: Option<String>,
    /// cloud-init's `cloud_name` (and cloud-id) where it is not the platform (`aws` for EC2 on
    /// AWS, `unknown` for an EC2-compatible cloud).
    #[serde(default)]
    pub cloud_name: Option<String>,
    /// cloud-init's description: `DataSourceNoCloud [seed=/dev/sr0]`.
    pub detail: String,
    /// cloud-init's subplatform: `config-disk (/dev/sr0)`, `seed-dir (/var/lib/...)`.
    pub subplatform: String,
    pub instance_id: String,
    pub meta_data: Value,
    #[serde(default, with = "payload")]
    pub user_data: Option<Secret<Vec<u8>>>,
    #[serde(default, with = "payload")]
    pub vendor_data: Option<Secret<Vec<u8>>>,
    #[serde(default, with = "payload")]
    pub vendor_data2: Option<Secret<Vec<u8>>>,
    /// The network config as given (v1/v2 YAML parsed to JSON), and where it came from.
    pub network_config: Option<(String, Value)>,
    /// The line of each key path of `network_config`, when it was read from YAML.
    #[serde(default)]
    pub network_config_lines: BTreeMap<String, u32>,
    /// The data came from removable media (a CD or USB seed): see `ember.removable_seeds`.
    pub from_removable_media: bool,
    /// Requests or files read, for status.
    pub reads: u32,
    /// The public ssh keys, filled by the fetch stage from `Datasource::public_keys`.
    #[serde(default)]
    pub public_keys: Vec<PublicKey>,
    /// Problems with single files, recorded by the fetch stage; not kept.
    #[serde(skip)]
    pub diags: Vec<Diag>,
    /// Work worth its own line in status.json (NoCloud's lease per NIC tried for a seedfrom
    /// URL); not kept.
    #[serde(skip)]
    pub steps: Vec<crate::status::Step>,
    /// Cloud-config the platform supplies (cloud-init's `get_config_obj`: Azure's default
    /// user from ovf-env.xml, its resource disk), merged over the image config and under
    /// vendor- and user-data. May hold a password hash: stored 0600 only.
    #[serde(default)]
    pub config: Option<Value>,
    /// Files the platform's own agent expects in the target (Azure's sanitized ovf-env.xml).
    #[serde(default)]
    pub files: Vec<PlatformFile>,
    /// cloud-init's `region` and `availability_zone` where the datasource has its own rule
    /// for them (EC2's identity document, Azure's IMDS); else they come from meta-data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_zone: Option<String>,
    /// What instance data's `ds` holds besides the meta-data.
    #[serde(default)]
    pub ds: DsTree,
    /// The None datasource standing in after the listed ones found nothing: a cached
    /// instance is kept over it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
}

/// instance-data.json's `ds` besides the meta-data, as cloud-init keeps it per datasource.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct DsTree {
    /// The meta-data goes under `meta-data`, as cloud-init keeps a crawled tree (EC2), not
    /// `meta_data`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crawled: bool,
    /// Trees beside it: EC2's `dynamic` (the identity document), OpenStack's `network_json`.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra: serde_json::Map<String, Value>,
}

/// A file for the target, written with the instance's other data on every boot it was read.
/// Its serialised form is also read from the list `[path, mode, base64]` of format 0.
#[derive(Debug, Serialize, Deserialize)]
pub struct PlatformFile {
    /// Absolute path in the target: `/var/lib/waagent/ovf-env.xml`.
    pub path: String,
    pub mode: u32,
    #[serde(with = "payload::required")]
    pub content: Secret<Vec<u8>>,
    /// Written on a new instance only (a config drive's injected files, which the admin may
    /// change afterwards), else on every boot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_instance_only: bool,
}

/// A public ssh key and the user it names, if any (GCE's `user:key` lines): the ssh module
/// gives a user the keys that name no one or name that user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublicKey {
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl PublicKey {
    /// A key for whichever user the config makes the default.
    pub fn for_default_user(key: &str) -> PublicKey {
        PublicKey {
            key: key.to_string(),
            user: None,
        }
    }

    /// meta-data's `public-keys`: a string (one key per line), a list, or a map of lists (the
    /// EC2-style `public-keys: {name: [keys]}`), as cloud-init normalises them; for no user.
    pub fn from_meta_data(md: &Value) -> Vec<PublicKey> {
        let mut keys = Vec::new();
        if let Some(v) = md.get("public-keys") {
            collect_keys(v, &mut keys);
        }
        keys.iter()
            .map(|k| PublicKey::for_default_user(k))
            .collect()
    }
}

impl InstanceData {
    pub fn local_hostname(&self) -> Option<&str> {
        self.meta_data
            .get("local-hostname")
            .or_else(|| self.meta_data.get("hostname"))
            .and_then(Value::as_str)
    }
}

/// Payloads as base64 text: written while encoded, and decoded from the text where it lies in
/// the input (serde borrows it), so a large user-data is never held a third time.
mod payload {
    use crate::secret::Secret;
    use base64::engine::general_purpose::STANDARD as B64;
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::borrow::Cow;

    /// The base64 text, borrowed where the JSON has no escape in it (serde would not borrow
    /// a bare `Option<Cow<str>>`).
    #[derive(Deserialize)]
    struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

    fn decode<E: serde::de::Error>(t: Text) -> Result<Secret<Vec<u8>>, E> {
        let bytes = B64.decode(t.0.as_bytes()).map_err(E::custom)?;
        Ok(Secret::new(bytes))
    }

    pub fn serialize<S: Serializer>(p: &Option<Secret<Vec<u8>>>, s: S) -> Result<S::Ok, S::Error> {
        match p {
            Some(payload) => required::serialize(payload, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Secret<Vec<u8>>>, D::Error> {
        Option::<Text>::deserialize(d)?.map(decode).transpose()
    }

    pub mod required {
        use super::*;

        pub fn serialize<S: Serializer>(p: &Secret<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(&base64::display::Base64Display::new(p.expose(), &B64))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Secret<Vec<u8>>, D::Error> {
            decode(Text::deserialize(d)?)
        }
    }
}

fn collect_keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.extend(
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string),
        ),
        Value::Array(items) => items.iter().for_each(|i| collect_keys(i, out)),
        Value::Object(map) => map.values().for_each(|i| collect_keys(i, out)),
        _ => {}
    }
}

/// cloud-init's value for a `v1` key the datasource did not give.
pub const UNKNOWN: &str = "unknown";

/// Regions that name another cloud than `cloud_name` says: (region prefix, cloud id, the only
/// cloud_name it applies to), as cloud-init's table has them.
const REGION_CLOUDS: &[(&str, &str, &str)] = &[
    ("cn-", "aws-china", "aws"),
    ("us-gov-", "aws-gov", "aws"),
    ("china", "azure-china", "azure"),
];

/// cloud-init's `canonical_cloud_id`: `cloud_name`, unless the region names a special
/// partition of that cloud; the platform when even the cloud is unknown. Empty is unknown.
/// Also `cloud-id`'s rule, reading instance-data.json's `v1`.
pub fn canonical_cloud_id(cloud_name: &str, region: &str, platform: &str) -> String {
    let known = |s: &str| !s.is_empty() && s != UNKNOWN;
    let special = REGION_CLOUDS
        .iter()
        .find(|(prefix, _, only)| region.starts_with(prefix) && cloud_name == *only);
    match special {
        Some((_, id, _)) => id.to_string(),
        None if known(cloud_name) => cloud_name.to_string(),
        None if known(platform) => platform.to_string(),
        None => UNKNOWN.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(md: Value) -> Vec<String> {
        let keys = PublicKey::from_meta_data(&md);
        assert!(keys.iter().all(|k| k.user.is_none()));
        keys.into_iter().map(|k| k.key).collect()
    }

    #[test]
    fn public_keys_in_every_form() {
        let text = json!({"public-keys": "ssh-ed25519 AAA a\n\n# c\nssh-rsa BBB b"});
        assert_eq!(keys(text), ["ssh-ed25519 AAA a", "ssh-rsa BBB b"]);
        assert_eq!(keys(json!({"public-keys": ["k1", "k2"]})), ["k1", "k2"]);
        let named = json!({"public-keys": {"0": ["k1"], "1": "k2"}});
        assert_eq!(keys(named), ["k1", "k2"]);
    }
}

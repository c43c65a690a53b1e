//! What a datasource returns: one `InstanceData`, the same shape for every platform.

use crate::error::Diag;
use crate::secret::Secret;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct InstanceData {
    /// `nocloud`.
    pub datasource: String,
    /// cloud-init's `platform` where it is not the datasource's name (`openstack` for a config
    /// drive).
    pub platform: Option<String>,
    /// cloud-init's `cloud_name` (and cloud-id) where it is not the platform (`aws` for EC2 on
    /// AWS, `unknown` for an EC2-compatible cloud).
    pub cloud_name: Option<String>,
    /// cloud-init's description: `DataSourceNoCloud [seed=/dev/sr0]`.
    pub detail: String,
    /// cloud-init's subplatform: `config-disk (/dev/sr0)`, `seed-dir (/var/lib/...)`.
    pub subplatform: String,
    pub instance_id: String,
    pub meta_data: Value,
    pub user_data: Option<Secret<Vec<u8>>>,
    pub vendor_data: Option<Secret<Vec<u8>>>,
    pub vendor_data2: Option<Secret<Vec<u8>>>,
    /// The network config as given (v1/v2 YAML parsed to JSON), and where it came from.
    pub network_config: Option<(String, Value)>,
    /// The line of each key path of `network_config`, when it was read from YAML.
    pub network_config_lines: BTreeMap<String, u32>,
    /// The data came from removable media (a CD or USB seed): see `ember.removable_seeds`.
    pub from_removable_media: bool,
    /// Requests or files read, for status.
    pub reads: u32,
    pub diags: Vec<Diag>,
    /// Work worth its own line in status.json (an ephemeral lease per NIC tried).
    pub steps: Vec<crate::status::Step>,
    /// Cloud-config the platform supplies (cloud-init's `get_config_obj`: Azure's default
    /// user from ovf-env.xml, its resource disk), merged over the image config and under
    /// vendor- and user-data. May hold a password hash: stored 0600 only.
    pub config: Option<Value>,
    /// Files the platform's own agent expects in the target (Azure's sanitized ovf-env.xml).
    pub files: Vec<PlatformFile>,
}

/// A file for the target, written with the instance's other data on every boot it was read.
#[derive(Debug)]
pub struct PlatformFile {
    /// Absolute path in the target: `/var/lib/waagent/ovf-env.xml`.
    pub path: String,
    pub mode: u32,
    pub content: Secret<Vec<u8>>,
}

impl InstanceData {
    pub fn local_hostname(&self) -> Option<&str> {
        self.meta_data
            .get("local-hostname")
            .or_else(|| self.meta_data.get("hostname"))
            .and_then(Value::as_str)
    }

    /// Public keys from meta-data: a string (one key per line), a list, or a map of lists
    /// (the EC2-style `public-keys: {name: [keys]}`), as cloud-init normalises them.
    pub fn public_keys(&self) -> Vec<String> {
        let mut keys = Vec::new();
        if let Some(v) = self.meta_data.get("public-keys") {
            collect_keys(v, &mut keys);
        }
        keys
    }

    /// The public keys the default user gets: `public_keys`, except on GCE, whose keys name
    /// their user (`user:key`) and are kept only for the default user and `cloudinit`.
    pub fn public_keys_for(&self, default_user: Option<&str>) -> Vec<String> {
        super::gce::keys::from_meta_data(&self.meta_data, default_user)
            .unwrap_or_else(|| self.public_keys())
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn public_keys_in_every_form() {
        let mut d = InstanceData {
            meta_data: json!({"public-keys": "ssh-ed25519 AAA a\n\n# c\nssh-rsa BBB b"}),
            ..InstanceData::default()
        };
        assert_eq!(d.public_keys(), ["ssh-ed25519 AAA a", "ssh-rsa BBB b"]);
        d.meta_data = json!({"public-keys": ["k1", "k2"]});
        assert_eq!(d.public_keys(), ["k1", "k2"]);
        d.meta_data = json!({"public-keys": {"0": ["k1"], "1": "k2"}});
        assert_eq!(d.public_keys(), ["k1", "k2"]);
    }
}

//! What VMware's guestinfo payloads become, as cloud-init's DataSourceVMware builds it: the
//! metadata (JSON, else YAML) with its `network` (a mapping, or a string in
//! `network.encoding`) moved under `network.config` and handed on as the network config; the
//! instance id from the metadata, else the DMI product UUID in lower case; user- and
//! vendor-data as given. Not here: reading the keys (`guestinfo.rs`), the host facts cloud-init
//! adds after the network is up (`local-ipv4`, `wait-on-network`), which ember does not gather.

use super::guestinfo::{decode, Payloads};
use crate::datasource::common::seed::parse_mapping_doc;
use crate::datasource::InstanceData;
use crate::detect::dmi::Dmi;
use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::yaml::Doc;
use ember_core::sort::IntoMap;
use serde_json::{Map, Value};

/// The metadata as a mapping: JSON first, then YAML (cloud-init's `load_json_or_yaml`), with
/// the line of each key when it was YAML. `file` names it: `guestinfo.metadata`.
pub fn parse(raw: &[u8], file: &str, limits: &Limits) -> Result<Doc, Diag> {
    if let Ok(value @ Value::Object(_)) = serde_json::from_slice::<Value>(raw) {
        return Ok(Doc {
            value,
            ..Doc::default()
        });
    }
    parse_mapping_doc(raw, file, limits)
}

/// Moves `network` (and `network.encoding`) out of the metadata and returns the network
/// config it holds, as cloud-init's `process_metadata`; the metadata keeps it as
/// `network: {config: …}`. A network that cannot be decoded or parsed is an error for that
/// key only: the metadata goes on without it.
pub fn take_network(
    md: &mut Map<String, Value>,
    file: &str,
    limits: &Limits,
) -> Result<Option<Value>, Diag> {
    let network = md.remove("network");
    let encoding = md.remove("network.encoding");
    let config = match network {
        None | Some(Value::Null) => return Ok(None),
        Some(v @ Value::Object(_)) => v,
        Some(Value::String(text)) => {
            let enc = encoding.as_ref().and_then(Value::as_str);
            let key_file = format!("{file}: network");
            let raw = decode(&text, enc, limits.inflated_bytes).map_err(|d| d.file(&key_file))?;
            parse(&raw, &key_file, limits)?.value
        }
        Some(_) => {
            let msg = "network must be a mapping or an encoded string";
            return Err(Diag::error(Reason::WrongType, msg)
                .file(file)
                .key("network"));
        }
    };
    md.insert(
        "network".into(),
        serde_json::json!({ "config": config.clone() }),
    );
    Ok(Some(config))
}

/// The instance id: the metadata's `instance-id`, else the DMI system UUID in lower case,
/// written back into the metadata as cloud-init's `get_instance_id` does.
pub fn instance_id(md: &mut Map<String, Value>, dmi: &Dmi) -> Option<String> {
    if let Some(id) = md.get("instance-id") {
        return match id {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
    }
    let uuid = dmi.get("product_uuid")?.trim().to_ascii_lowercase();
    md.insert("instance-id".into(), Value::String(uuid.clone()));
    Some(uuid)
}

/// The payloads into `data`: metadata, its network config, user- and vendor-data.
pub fn build(
    p: Payloads,
    md_file: &str,
    dmi: &Dmi,
    limits: &Limits,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let mut md = Map::new();
    if let Some(raw) = &p.metadata {
        match parse(raw.expose(), md_file, limits) {
            Ok(mut doc) if doc.value.is_object() => {
                data.diags.extend(doc.drop_failed_keys(md_file));
                let Doc { value, lines, .. } = doc;
                md = match value {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                data.network_config_lines = lines
                    .iter()
                    .filter_map(|(k, l)| Some((k.strip_prefix("network.")?.to_string(), *l)))
                    .into_map();
            }
            Ok(_) => {}
            // A metadata that is not a mapping fails its key; user-data may still provision.
            Err(d) => data.diags.push(d),
        }
    }
    match take_network(&mut md, md_file, limits) {
        Ok(Some(cfg)) => data.network_config = Some((format!("{md_file}: network"), cfg)),
        Ok(None) => data.network_config_lines.clear(),
        Err(d) => {
            data.network_config_lines.clear();
            data.diags.push(d);
        }
    }
    let Some(id) = instance_id(&mut md, dmi) else {
        let msg = "no instance-id in the metadata and no DMI product_uuid to stand for it";
        return Err(Diag::error(Reason::MissingKey, msg)
            .file(md_file)
            .key("instance-id"));
    };
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    data.user_data = p.userdata;
    data.vendor_data = p.vendordata;
    Ok(())
}

/// cloud-init's VMware keys for ssh: the first of `public-keys-data`, `public_keys_data`,
/// `public-keys`, `public_keys` that is there, normalised as any meta-data's keys.
pub fn public_keys(md: &Value) -> Vec<crate::datasource::PublicKey> {
    [
        "public-keys-data",
        "public_keys_data",
        "public-keys",
        "public_keys",
    ]
    .iter()
    .find_map(|k| md.get(*k))
    .map(|v| crate::datasource::PublicKey::from_meta_data(&serde_json::json!({"public-keys": v})))
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;
    use base64::Engine as _;

    fn payloads(md: &str) -> Payloads {
        Payloads {
            metadata: Some(Secret::new(md.as_bytes().to_vec())),
            ..Payloads::default()
        }
    }

    #[test]
    fn yaml_metadata_with_network_and_dmi_instance_id() {
        let md = "local-hostname: vm1\nnetwork:\n  version: 2\n  ethernets:\n    nics:\n      match: {name: ens*}\n      dhcp4: true\npublic-keys-data: ssh-ed25519 AAAA k1\n";
        let dmi = Dmi::from_pairs(&[("product_uuid", "4211AB-CD")]);
        let mut data = InstanceData::default();
        build(
            payloads(md),
            "guestinfo.metadata",
            &dmi,
            &Limits::default(),
            &mut data,
        )
        .unwrap();
        assert_eq!(data.instance_id, "4211ab-cd");
        assert_eq!(data.meta_data["instance-id"], "4211ab-cd");
        assert_eq!(data.local_hostname(), Some("vm1"));
        let (src, cfg) = data.network_config.unwrap();
        assert_eq!(src, "guestinfo.metadata: network");
        assert_eq!(cfg["ethernets"]["nics"]["dhcp4"], true);
        assert_eq!(data.meta_data["network"]["config"]["version"], 2);
        assert_eq!(
            data.network_config_lines.get("ethernets.nics.dhcp4"),
            Some(&7)
        );
        let keys = public_keys(&data.meta_data);
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].key, "ssh-ed25519 AAAA k1");
    }

    #[test]
    fn encoded_network_and_json_metadata() {
        let net = base64::engine::general_purpose::STANDARD.encode("version: 1\nconfig: []\n");
        let md = format!(
            "{{\"instance-id\": \"i-9\", \"network\": \"{net}\", \"network.encoding\": \"base64\"}}"
        );
        let mut data = InstanceData::default();
        build(
            payloads(&md),
            "guestinfo.metadata",
            &Dmi::default(),
            &Limits::default(),
            &mut data,
        )
        .unwrap();
        assert_eq!(data.instance_id, "i-9");
        assert_eq!(data.network_config.unwrap().1["version"], 1);
        assert!(data.meta_data.get("network.encoding").is_none());
    }

    #[test]
    fn bad_network_fails_its_key_only() {
        let md = "instance-id: i-1\nnetwork: '%%%'\nnetwork.encoding: base64\n";
        let mut data = InstanceData::default();
        build(
            payloads(md),
            "guestinfo.metadata",
            &Dmi::default(),
            &Limits::default(),
            &mut data,
        )
        .unwrap();
        assert!(data.network_config.is_none());
        assert_eq!(data.diags.len(), 1);
        assert_eq!(
            data.diags[0].file.as_deref(),
            Some("guestinfo.metadata: network")
        );
        assert_eq!(data.instance_id, "i-1");
    }

    #[test]
    fn no_instance_id_anywhere_is_an_error() {
        let mut data = InstanceData::default();
        let e = build(
            payloads("{}"),
            "guestinfo.metadata",
            &Dmi::default(),
            &Limits::default(),
            &mut data,
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("instance-id"));
        let e = build(
            payloads("[1]"),
            "guestinfo.metadata",
            &Dmi::default(),
            &Limits::default(),
            &mut data,
        );
        assert!(e.is_err());
        assert_eq!(data.diags[0].code, "wrong-type", "{:?}", data.diags);
    }
}

//! Hetzner's network config as cloud-init builds it: the metadata's own `network-config` (a
//! v1 document: the public NIC by MAC, DHCPv4 and a static IPv6 with `fe80::1` as gateway),
//! with one entry added per attached private network, `physical`, matched by MAC, named as
//! the host names that NIC, DHCPv4. Pure: values in, values out; the v1 parser judges the rest.
//! Not here: the private networks' alias IPs (cloud-init leaves them to DHCP too).
//! <https://docs.hetzner.cloud/#server-metadata>

use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// `metadata/private-networks`: a YAML list of mappings (empty or null: none).
pub fn private_networks(body: &[u8], file: &str, limits: &Limits) -> Result<Vec<Value>, Diag> {
    let text = std::str::from_utf8(body)
        .map_err(|_| Diag::error(Reason::NotUtf8, "not valid UTF-8").file(file))?;
    let doc = crate::yaml::parse(text, limits).map_err(|e| e.to_diag(file))?;
    match doc.value {
        Value::Null => Ok(Vec::new()),
        Value::Array(list) => Ok(list),
        _ => Err(Diag::error(Reason::WrongType, "must be a list").file(file)),
    }
}

/// The v1 config with the private networks added, and a warning per network left out (no
/// `mac_address`, or a MAC this machine does not have).
pub fn config(
    given: &Map<String, Value>,
    private: &[Value],
    host_macs: &BTreeMap<String, String>,
) -> (Value, Vec<Diag>) {
    let mut cfg = given.clone();
    let mut diags = Vec::new();
    let mut added = Vec::new();
    for (i, net) in private.iter().enumerate() {
        let key = format!("private-networks.{i}.mac_address");
        let Some(mac) = net.get("mac_address").and_then(Value::as_str) else {
            let msg = "a private network without a MAC address is left out";
            diags.push(Diag::warning(Reason::MetadataInvalid, msg).key(key));
            continue;
        };
        let mac = mac.to_ascii_lowercase();
        let Some(name) = host_macs.get(&mac) else {
            let msg = format!(
                "no interface on this machine has the MAC {mac}: that private network is left out"
            );
            diags.push(Diag::warning(Reason::NicMissing, msg).key(key));
            continue;
        };
        added.push(json!({
            "type": "physical",
            "mac_address": mac,
            "name": name,
            "subnets": [{"ipv4": true, "type": "dhcp"}],
        }));
    }
    if !added.is_empty() {
        match cfg.get_mut("config") {
            Some(Value::Array(list)) => list.extend(added),
            _ => {
                cfg.insert("config".into(), Value::Array(added));
            }
        }
    }
    (Value::Object(cfg), diags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given() -> Map<String, Value> {
        let v = json!({"version": 1, "config": [{"type": "physical", "name": "eth0",
            "mac_address": "96:00:00:08:19:da", "subnets": [{"type": "dhcp", "ipv4": true}]}]});
        v.as_object().unwrap().clone()
    }

    #[test]
    fn private_networks_are_added_by_mac_with_dhcp() {
        let macs = BTreeMap::from([("86:00:00:2a:7d:e0".to_string(), "enp7s0".to_string())]);
        let private = [
            json!({"ip": "10.0.0.2", "mac_address": "86:00:00:2A:7D:E0", "interface_num": 1}),
            json!({"ip": "10.1.0.2", "mac_address": "86:00:00:00:00:01"}),
            json!({"ip": "10.2.0.2"}),
        ];
        let (cfg, diags) = config(&given(), &private, &macs);
        let list = cfg["config"].as_array().unwrap();
        assert_eq!(list.len(), 2, "{cfg}");
        assert_eq!(list[0]["name"], "eth0");
        let want = json!({"type": "physical", "mac_address": "86:00:00:2a:7d:e0",
            "name": "enp7s0", "subnets": [{"ipv4": true, "type": "dhcp"}]});
        assert_eq!(list[1], want);
        let codes: Vec<_> = diags
            .iter()
            .map(|d| (d.code.as_str(), d.key.clone()))
            .collect();
        assert_eq!(
            codes,
            [
                ("nic-missing", Some("private-networks.1.mac_address".into())),
                (
                    "metadata-invalid",
                    Some("private-networks.2.mac_address".into())
                ),
            ]
        );
    }

    #[test]
    fn private_networks_yaml_forms() {
        let limits = Limits::default();
        let list = b"- ip: 10.0.0.2\n  mac_address: 86:00:00:2a:7d:e0\n";
        assert_eq!(private_networks(list, "f", &limits).unwrap().len(), 1);
        assert!(private_networks(b"", "f", &limits).unwrap().is_empty());
        let err = private_networks(b"ip: 1", "f", &limits).unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.file.as_deref()),
            ("wrong-type", Some("f"))
        );
        let err = private_networks(b"- [", "f", &limits).unwrap_err();
        assert_eq!(err.code, "yaml-syntax");
    }
}

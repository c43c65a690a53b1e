//! Azure's instance metadata service: one GET of `/metadata/instance` with `Metadata: true`,
//! api-version 2021-08-01 with `extended=true`, falling back to 2019-06-01 when the service
//! answers 400 (it does not know the version), as cloud-init does. Also what is read from the
//! answer: the admin user, host name, keys, user-data and the network config cloud-init builds
//! from `network.interface`. Errors name the key, never a value.
//! <https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service>

use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine as _;
use serde_json::{json, Map, Value};

pub const API_WANT: &str = "2021-08-01";
pub const API_MIN: &str = "2019-06-01";
pub const UNREACHABLE: Reason = Reason::MetadataUnreachable;

/// The header IMDS requires of every request (a proxy would not add it).
pub const HEADER: (&str, &str) = ("Metadata", "true");

/// The instance document, a JSON object, counting requests in `reads`.
pub fn fetch(client: &Client, reads: &mut u32) -> Result<Value, Diag> {
    let want = format!("metadata/instance?api-version={API_WANT}&extended=true");
    let doc = match client.get_json(&want, reads) {
        Err(d) if d.code == metadata_get::BAD_REQUEST.as_str() => {
            client.get_json(&format!("metadata/instance?api-version={API_MIN}"), reads)?
        }
        other => other?,
    };
    Ok(Value::Object(doc))
}

fn text<'v>(doc: &'v Value, pointer: &str) -> Option<&'v str> {
    doc.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

pub fn username(doc: &Value) -> Option<&str> {
    text(doc, "/compute/osProfile/adminUsername")
}

pub fn hostname(doc: &Value) -> Option<&str> {
    text(doc, "/compute/osProfile/computerName")
}

/// `disablePasswordAuthentication` is the string "true" or "false".
pub fn disable_password(doc: &Value) -> Option<bool> {
    text(doc, "/compute/osProfile/disablePasswordAuthentication").map(|s| s == "true")
}

/// The `keyData` of `compute.publicKeys`; `None` when the list is absent or a key is not in
/// OpenSSH form (cloud-init then takes the keys of ovf-env.xml).
pub fn public_keys(doc: &Value) -> Option<Vec<String>> {
    let list = doc.pointer("/compute/publicKeys")?.as_array()?;
    let keys: Option<Vec<String>> = list
        .iter()
        .map(|k| k.get("keyData")?.as_str().map(str::trim).map(String::from))
        .collect();
    keys.filter(|ks| ks.iter().all(|k| openssh_key(k)))
}

fn openssh_key(key: &str) -> bool {
    let mut parts = key.split_whitespace();
    let (Some(kind), Some(blob)) = (parts.next(), parts.next()) else {
        return false;
    };
    let base64_chars = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=');
    (kind.starts_with("ssh-") || kind.starts_with("ecdsa-") || kind.starts_with("sk-"))
        && blob.chars().all(base64_chars)
}

/// `compute.userData`, always base64: `Err` (a diag) when it does not decode.
pub fn user_data(doc: &Value) -> Result<Option<Secret<Vec<u8>>>, Diag> {
    let Some(encoded) = text(doc, "/compute/userData") else {
        return Ok(None);
    };
    let compact: String = encoded.split_whitespace().collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map(|b| Some(Secret::new(b)))
        .map_err(|_| {
            Diag::error(Reason::UserDataInvalid, "not base64")
                .file("IMDS /metadata/instance")
                .key("compute.userData")
        })
}

/// The document without `compute.userData`, for meta-data (which is public instance data).
pub fn without_user_data(doc: &Value) -> Value {
    let mut copy = doc.clone();
    if let Some(compute) = copy.get_mut("compute").and_then(Value::as_object_mut) {
        compute.remove("userData");
    }
    copy
}

/// cloud-init's v2 network config from `network.interface`: per interface with an address,
/// `eth{i}` matched by MAC (and by driver `hv_netvsc` where the NIC has it, since accelerated
/// networking gives a second NIC the same MAC), DHCPv4 with route metric 100×(i+1), DHCPv6
/// when IPv6 addresses exist, further addresses static. `Err` names the key.
pub fn network_config(
    doc: &Value,
    driver_of: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, String> {
    let list = doc
        .pointer("/network/interface")
        .and_then(Value::as_array)
        .ok_or("network.interface")?;
    let mut ethernets = Map::new();
    for (idx, intf) in list.iter().enumerate() {
        let key = |k: &str| format!("network.interface.{idx}.{k}");
        let name = format!("eth{idx}");
        let metric = json!({"route-metric": (idx + 1) * 100});
        let mut dev = json!({"dhcp4": true, "dhcp4-overrides": metric, "dhcp6": false});
        let mut statics = Vec::new();
        let mut has_address = false;
        for (family, default_prefix) in [("ipv4", "24"), ("ipv6", "128")] {
            let addrs = intf
                .pointer(&format!("/{family}/ipAddress"))
                .and_then(Value::as_array)
                .filter(|a| !a.is_empty());
            let Some(addrs) = addrs else { continue };
            has_address = true;
            if family == "ipv6" {
                dev["dhcp6"] = json!(true);
                dev["dhcp6-overrides"] = metric.clone();
            }
            let prefix = match intf.pointer(&format!("/{family}/subnet/0/prefix")) {
                Some(Value::String(p)) => p.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => default_prefix.to_string(),
            };
            for (n, addr) in addrs.iter().enumerate().skip(1) {
                let ip = addr
                    .get("privateIpAddress")
                    .and_then(Value::as_str)
                    .ok_or_else(|| key(&format!("{family}.ipAddress.{n}.privateIpAddress")))?;
                statics.push(json!(format!("{ip}/{prefix}")));
            }
        }
        if !has_address {
            continue;
        }
        let raw_mac = intf
            .get("macAddress")
            .and_then(Value::as_str)
            .ok_or_else(|| key("macAddress"))?;
        let mac = normalize_mac(raw_mac).ok_or_else(|| key("macAddress"))?;
        let mut matching = json!({"macaddress": mac});
        if driver_of(&mac).as_deref() == Some("hv_netvsc") {
            matching["driver"] = json!("hv_netvsc");
        }
        dev["match"] = matching;
        dev["set-name"] = json!(name);
        if !statics.is_empty() {
            dev["addresses"] = Value::Array(statics);
        }
        ethernets.insert(name, dev);
    }
    Ok(json!({"version": 2, "ethernets": ethernets}))
}

/// IMDS gives `000D3A047598`; also accepted with separators. Lowercase, colon-separated.
fn normalize_mac(raw: &str) -> Option<String> {
    let hex: String = raw.chars().filter(|c| *c != ':' && *c != '-').collect();
    if hex.len() != 12 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let lower = hex.to_ascii_lowercase();
    let pairs: Vec<&str> = (0..6).map(|i| &lower[i * 2..i * 2 + 2]).collect();
    Some(pairs.join(":"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        json!({
            "compute": {
                "osProfile": {"adminUsername": "azureuser", "computerName": "vm1",
                              "disablePasswordAuthentication": "true"},
                "publicKeys": [{"keyData": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me", "path": "/home/azureuser/.ssh/authorized_keys"}],
                "userData": "I2Nsb3VkLWNvbmZpZwo=",
                "vmId": "e8f0c9b4-0000-4c2e-9a47-0123456789ab"
            },
            "network": {"interface": [
                {"macAddress": "000D3A047598",
                 "ipv4": {"ipAddress": [{"privateIpAddress": "10.0.0.4"}, {"privateIpAddress": "10.0.0.5"}],
                          "subnet": [{"address": "10.0.0.0", "prefix": "24"}]},
                 "ipv6": {"ipAddress": []}},
                {"macAddress": "000D3A047599",
                 "ipv4": {"ipAddress": [{"privateIpAddress": "10.0.1.4"}], "subnet": [{"prefix": "26"}]},
                 "ipv6": {"ipAddress": [{"privateIpAddress": "fd00::4"}]}},
                {"macAddress": "000D3A04759A", "ipv4": {"ipAddress": []}}
            ]}
        })
    }

    #[test]
    fn reads_the_profile() {
        let d = doc();
        assert_eq!(username(&d), Some("azureuser"));
        assert_eq!(hostname(&d), Some("vm1"));
        assert_eq!(disable_password(&d), Some(true));
        assert_eq!(public_keys(&d).unwrap().len(), 1);
        assert_eq!(user_data(&d).unwrap().unwrap().expose(), b"#cloud-config\n");
        assert!(without_user_data(&d).pointer("/compute/userData").is_none());
    }

    #[test]
    fn keys_not_in_openssh_form_are_refused() {
        let mut d = doc();
        d["compute"]["publicKeys"][0]["keyData"] = json!("---- BEGIN SSH2 PUBLIC KEY ----");
        assert_eq!(public_keys(&d), None);
    }

    #[test]
    fn network_as_cloud_init_builds_it() {
        let driver = |mac: &str| (mac == "00:0d:3a:04:75:98").then(|| "hv_netvsc".to_string());
        let net = network_config(&doc(), &driver).unwrap();
        let eth0 = &net["ethernets"]["eth0"];
        assert_eq!(
            eth0["match"],
            json!({"macaddress": "00:0d:3a:04:75:98", "driver": "hv_netvsc"})
        );
        assert_eq!(eth0["dhcp4-overrides"]["route-metric"], 100);
        assert_eq!(eth0["addresses"], json!(["10.0.0.5/24"]));
        assert_eq!(eth0["dhcp6"], false);
        let eth1 = &net["ethernets"]["eth1"];
        assert_eq!(eth1["dhcp6"], true);
        assert_eq!(eth1["dhcp6-overrides"]["route-metric"], 200);
        assert!(eth1.get("addresses").is_none());
        // No address at all: no config, as cloud-init.
        assert!(net["ethernets"].get("eth2").is_none());
    }

    #[test]
    fn bad_network_names_the_key() {
        let mut d = doc();
        d["network"]["interface"][1]["macAddress"] = json!("zz");
        let err = network_config(&d, &|_| None).unwrap_err();
        assert_eq!(err, "network.interface.1.macAddress");
        assert_eq!(
            network_config(&json!({}), &|_| None).unwrap_err(),
            "network.interface"
        );
    }
}

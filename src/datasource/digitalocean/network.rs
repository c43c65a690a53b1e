//! DigitalOcean's `interfaces` and `dns` into a network-config v1, as cloud-init's
//! `convert_network_configuration` builds it: the first interface of each kind, matched by MAC
//! and named `eth0` (public) or `eth1` (private), static addresses for `ipv4`, `ipv6`,
//! `anchor_ipv4` and `anchor_ipv6`, the gateway only on the public NIC's own (not anchor)
//! subnets, and the droplet's nameservers. Pure: values in, a value out.
//! <https://docs.digitalocean.com/reference/api/metadata/>

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The names cloud-init gives by kind; other kinds keep the host's name.
const NAMES: [(&str, &str); 2] = [("public", "eth0"), ("private", "eth1")];
const SUBNETS: [&str; 4] = ["ipv4", "ipv6", "anchor_ipv4", "anchor_ipv6"];

/// The v1 config, or `Err(mac)` naming an interface the host does not have (cloud-init then
/// refuses the whole config). `host_macs` maps lowercase MACs to the host's NIC names.
pub fn convert(
    interfaces: &Map<String, Value>,
    nameservers: &[String],
    host_macs: &BTreeMap<String, String>,
) -> Result<Value, String> {
    // The droplet's JSON lists public first; serde_json's map is sorted, so say it here.
    let mut kinds: Vec<&String> = interfaces.keys().collect();
    ember_core::sort::sort_by_key(&mut kinds, |k| {
        (k.as_str() != "public", k.as_str() != "private", k.as_str())
    });
    let mut config = Vec::new();
    for kind in kinds {
        let Some(nic) = interfaces[kind].as_array().and_then(|l| l.first()) else {
            continue;
        };
        let mac = nic["mac"].as_str().unwrap_or_default().to_ascii_lowercase();
        let Some(host_name) = host_macs.get(&mac) else {
            return Err(mac);
        };
        let nic_type = nic["type"].as_str().unwrap_or("unknown");
        let name = NAMES
            .iter()
            .find(|(t, _)| *t == nic_type)
            .map_or(host_name.as_str(), |(_, n)| n);
        let mut subnets = Vec::new();
        for def in SUBNETS {
            let Some(raw) = nic
                .get(def)
                .and_then(Value::as_object)
                .filter(|m| !m.is_empty())
            else {
                continue;
            };
            let gateway = nic_type == "public" && !def.starts_with("anchor");
            subnets.extend(subnet(raw, gateway));
        }
        config.push(json!({
            "type": "physical",
            "mac_address": mac,
            "name": name,
            "subnets": subnets,
        }));
    }
    if !nameservers.is_empty() {
        config.push(json!({"type": "nameserver", "address": nameservers}));
    }
    Ok(json!({"version": 1, "config": config}))
}

/// One static subnet; none without an address.
fn subnet(raw: &Map<String, Value>, with_gateway: bool) -> Option<Value> {
    let text = |k: &str| match raw.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let ip = text("ip_address")?;
    let mut s = Map::new();
    s.insert("type".into(), json!("static"));
    s.insert("control".into(), json!("auto"));
    if ip.contains(':') {
        let cidr = text("cidr").unwrap_or_else(|| "64".into());
        s.insert("address".into(), json!(format!("{ip}/{cidr}")));
    } else {
        s.insert("address".into(), json!(ip));
        if let Some(mask) = text("netmask") {
            s.insert("netmask".into(), json!(mask));
        }
    }
    if let (true, Some(gw)) = (with_gateway, text("gateway")) {
        s.insert("gateway".into(), json!(gw));
    }
    Some(Value::Object(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_and_private_as_cloud_init_builds_them() {
        let interfaces = json!({
            "private": [{"mac": "04:01:2A:0F:2A:02", "type": "private",
                "ipv4": {"ip_address": "10.132.255.113", "netmask": "255.255.0.0",
                         "gateway": "10.132.0.1"}}],
            "public": [{"mac": "04:01:2a:0f:2a:01", "type": "public",
                "ipv4": {"ip_address": "104.131.20.105", "netmask": "255.255.192.0",
                         "gateway": "104.131.0.1"},
                "ipv6": {"ip_address": "2604:a880:800:10::17d:2001", "cidr": 64,
                         "gateway": "2604:a880:800:10::1"},
                "anchor_ipv4": {"ip_address": "10.17.0.5", "netmask": "255.255.0.0",
                                "gateway": "10.17.0.1"},
                "anchor_ipv6": {}}],
        });
        let macs = BTreeMap::from([
            ("04:01:2a:0f:2a:01".to_string(), "ens3".to_string()),
            ("04:01:2a:0f:2a:02".to_string(), "ens4".to_string()),
        ]);
        let ns = vec!["2001:4860:4860::8844".to_string(), "8.8.8.8".to_string()];
        let cfg = convert(interfaces.as_object().unwrap(), &ns, &macs).unwrap();
        let want = json!({"version": 1, "config": [
            {"type": "physical", "mac_address": "04:01:2a:0f:2a:01", "name": "eth0", "subnets": [
                {"type": "static", "control": "auto", "address": "104.131.20.105",
                 "netmask": "255.255.192.0", "gateway": "104.131.0.1"},
                {"type": "static", "control": "auto", "address": "2604:a880:800:10::17d:2001/64",
                 "gateway": "2604:a880:800:10::1"},
                {"type": "static", "control": "auto", "address": "10.17.0.5",
                 "netmask": "255.255.0.0"},
            ]},
            {"type": "physical", "mac_address": "04:01:2a:0f:2a:02", "name": "eth1", "subnets": [
                {"type": "static", "control": "auto", "address": "10.132.255.113",
                 "netmask": "255.255.0.0"},
            ]},
            {"type": "nameserver", "address": ["2001:4860:4860::8844", "8.8.8.8"]},
        ]});
        assert_eq!(cfg, want);
        // A NIC the host lacks: no config at all, as in cloud-init.
        let one = BTreeMap::from([("04:01:2a:0f:2a:01".to_string(), "ens3".to_string())]);
        let err = convert(interfaces.as_object().unwrap(), &ns, &one);
        assert_eq!(err, Err("04:01:2a:0f:2a:02".to_string()));
    }
}

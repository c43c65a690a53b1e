//! AliYun's per-MAC metadata (`network.interfaces.macs`) into a network-config v2, as
//! cloud-init's `convert_ecs_metadata_network_config` builds it: every NIC of the host that
//! the metadata names, in natural order of the host's names, by DHCPv4 (and DHCPv6 where the
//! NIC has `ipv6s`), matched by MAC, with route metrics 100, 200, … when there is more than
//! one; with `apply_full_imds_network_config: false`, only the fallback NIC.
//! Pure: values in, a value out. Not here: reading the metadata (mod.rs).

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The v2 config. `macs` is the metadata's `macs` map; `host_macs` maps lowercase MACs to
/// the host's NIC names; `fallback` is the NIC ember would configure without metadata.
pub fn convert(
    macs: &Map<String, Value>,
    host_macs: &BTreeMap<String, String>,
    fallback: Option<&str>,
    full: bool,
) -> Value {
    let meta = |mac: &str| {
        macs.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(mac))
            .map(|(_, v)| v)
    };
    let has_v6 = |mac: &str| {
        meta(mac)
            .and_then(|m| m.get("ipv6s"))
            .is_some_and(|v| match v {
                Value::String(s) => !s.trim().is_empty(),
                Value::Array(a) => !a.is_empty(),
                _ => false,
            })
    };
    let mut ethernets = Map::new();
    if !full {
        let found = host_macs
            .iter()
            .find(|(_, name)| Some(name.as_str()) == fallback);
        if let Some((mac, name)) = found {
            let dev = json!({
                "dhcp4": true,
                "dhcp6": has_v6(mac),
                "match": {"macaddress": mac},
                "set-name": name,
            });
            ethernets.insert(name.clone(), dev);
        }
        return json!({"version": 2, "ethernets": ethernets});
    }
    let mut nics: Vec<(&String, &String)> = host_macs
        .iter()
        .filter(|(mac, _)| meta(mac).is_some())
        .map(|(mac, name)| (name, mac))
        .collect();
    ember_core::sort::sort_by_key(&mut nics, |(name, _)| natural_key(name));
    let single = nics.len() == 1;
    for (index, (name, mac)) in nics.into_iter().enumerate() {
        let metric = json!({"route-metric": (index + 1) * 100});
        let mut dev = Map::new();
        dev.insert("dhcp4".into(), json!(true));
        if !single {
            dev.insert("dhcp4-overrides".into(), metric.clone());
        }
        dev.insert("dhcp6".into(), json!(false));
        dev.insert("match".into(), json!({"macaddress": mac}));
        dev.insert("set-name".into(), json!(name));
        if has_v6(mac) {
            dev.insert("dhcp6".into(), json!(true));
            if !single {
                dev.insert("dhcp6-overrides".into(), metric);
            }
        }
        ethernets.insert(name.clone(), Value::Object(dev));
    }
    json!({"version": 2, "ethernets": ethernets})
}

/// A key that sorts `eth2` before `eth10`, as cloud-init's `natural_sort_key`.
fn natural_key(name: &str) -> Vec<(u64, String)> {
    let mut key = Vec::new();
    let mut chars = name.chars().peekable();
    while let Some(&c) = chars.peek() {
        let digit = c.is_ascii_digit();
        let mut run = String::new();
        while let Some(&c) = chars.peek().filter(|c| c.is_ascii_digit() == digit) {
            run.push(c);
            chars.next();
        }
        key.push(match digit {
            true => (run.parse().unwrap_or(u64::MAX), String::new()),
            false => (u64::MAX, run),
        });
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macs() -> Map<String, Value> {
        json!({
            "00:16:3e:00:00:01": {"vpc-id": "vpc-1", "ipv6s": "[2408:4000::1]"},
            "00:16:3E:00:00:02": {"vpc-id": "vpc-1"},
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn every_named_nic_by_dhcp_in_natural_order_with_metrics() {
        let host = BTreeMap::from([
            ("00:16:3e:00:00:01".to_string(), "eth10".to_string()),
            ("00:16:3e:00:00:02".to_string(), "eth2".to_string()),
            ("00:16:3e:00:00:03".to_string(), "eth0".to_string()),
        ]);
        let cfg = convert(&macs(), &host, Some("eth0"), true);
        let want = json!({"version": 2, "ethernets": {
            "eth2": {"dhcp4": true, "dhcp4-overrides": {"route-metric": 100}, "dhcp6": false,
                     "match": {"macaddress": "00:16:3e:00:00:02"}, "set-name": "eth2"},
            "eth10": {"dhcp4": true, "dhcp4-overrides": {"route-metric": 200}, "dhcp6": true,
                      "dhcp6-overrides": {"route-metric": 200},
                      "match": {"macaddress": "00:16:3e:00:00:01"}, "set-name": "eth10"},
        }});
        assert_eq!(cfg, want);
    }

    #[test]
    fn one_nic_has_no_metric_and_not_full_is_the_fallback_alone() {
        let host = BTreeMap::from([("00:16:3e:00:00:01".to_string(), "eth0".to_string())]);
        let cfg = convert(&macs(), &host, Some("eth0"), true);
        let eth0 = &cfg["ethernets"]["eth0"];
        assert_eq!(eth0.get("dhcp4-overrides"), None, "{cfg}");
        assert_eq!(eth0.get("dhcp6-overrides"), None, "{cfg}");
        assert_eq!(eth0["dhcp6"], true);
        let host = BTreeMap::from([
            ("00:16:3e:00:00:01".to_string(), "eth0".to_string()),
            ("00:16:3e:00:00:02".to_string(), "eth1".to_string()),
        ]);
        let cfg = convert(&macs(), &host, Some("eth1"), false);
        let want = json!({"version": 2, "ethernets": {
            "eth1": {"dhcp4": true, "dhcp6": false,
                     "match": {"macaddress": "00:16:3e:00:00:02"}, "set-name": "eth1"},
        }});
        assert_eq!(cfg, want);
    }
}

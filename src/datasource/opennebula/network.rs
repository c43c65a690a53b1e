//! The context's `ETHx_*` variables into a network-config v2, as cloud-init's
//! `OpenNebulaNetwork` builds it: every physical NIC of the host, matched by MAC, gets a
//! static address (its `ETHx_IP`, else the one its MAC encodes, as OpenNebula's leases do),
//! `ETHx_MASK` (default /24), IPv6 global and ULA addresses, both gateways, DNS (its own and
//! the global `DNS`), search domains and MTU. The context names a NIC `ETHx` through
//! `ETHx_MAC`; a NIC it does not name is looked up by the host's own name. Pure.
//! <https://docs.opennebula.io/stable/management_and_operations/references/template.html>

use ember_core::sort::IntoMap;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// A variable whose value could not be used, and why; its NIC keeps the rest.
#[derive(Debug, PartialEq)]
pub struct BadVar {
    pub key: String,
    pub why: String,
}

/// Whether the context carries network settings: cloud-init builds a config only then.
pub fn wanted(context: &BTreeMap<String, String>) -> bool {
    context.keys().any(|k| {
        k.strip_prefix("ETH").is_some_and(|rest| {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            digits > 0 && rest[digits..].starts_with("_IP")
        })
    })
}

/// The v2 config for `nics` (host name, lowercase MAC), in the order given.
pub fn config(
    context: &BTreeMap<String, String>,
    nics: &[(String, String)],
    bad: &mut Vec<BadVar>,
) -> Value {
    // `ETH0_MAC='02:00:…'` names the context's device for that MAC.
    let by_mac: BTreeMap<String, &str> = context
        .iter()
        .filter_map(|(k, v)| Some((v.to_ascii_lowercase(), k.strip_suffix("_MAC")?)))
        .into_map();
    let mut ethernets = Map::new();
    for (name, mac) in nics {
        let dev = by_mac
            .get(mac)
            .copied()
            .unwrap_or(name)
            .to_ascii_uppercase();
        // An empty value counts as unset, as in cloud-init.
        let field = |f: &str| {
            context
                .get(&format!("{dev}_{f}"))
                .map(String::as_str)
                .filter(|v| !v.is_empty())
        };
        let mut conf = Map::new();
        conf.insert("match".into(), json!({"macaddress": mac}));
        let mask_key = format!("{dev}_MASK");
        let prefix = match prefix_of(field("MASK").unwrap_or("255.255.255.0")) {
            Some(p) => p,
            None => {
                bad.push(BadVar {
                    key: mask_key,
                    why: "not a contiguous IPv4 netmask; /24 used".into(),
                });
                24
            }
        };
        let ip = field("IP").map_or_else(|| mac_ip(mac), str::to_string);
        let mut addresses = vec![format!("{ip}/{prefix}")];
        let prefix6 = field("IP6_PREFIX_LENGTH").unwrap_or("64");
        for key in ["IP6", "IP6_ULA"] {
            if let Some(a) = field(key) {
                addresses.push(format!("{a}/{prefix6}"));
            }
        }
        conf.insert("addresses".into(), json!(addresses));
        if let Some(g) = field("GATEWAY") {
            conf.insert("gateway4".into(), json!(g));
        }
        // OpenNebula 6.2 renamed ETHx_GATEWAY6 to ETHx_IP6_GATEWAY.
        if let Some(g) = field("IP6_GATEWAY").or_else(|| field("GATEWAY6")) {
            conf.insert("gateway6".into(), json!(g));
        }
        let words = |v: Option<&str>| -> Vec<String> {
            v.unwrap_or("")
                .split_whitespace()
                .map(String::from)
                .collect()
        };
        let mut dns = words(field("DNS"));
        dns.extend(words(context.get("DNS").map(String::as_str)));
        let search = words(field("SEARCH_DOMAIN"));
        let mut ns = Map::new();
        if !dns.is_empty() {
            ns.insert("addresses".into(), json!(dns));
        }
        if !search.is_empty() {
            ns.insert("search".into(), json!(search));
        }
        if !ns.is_empty() {
            conf.insert("nameservers".into(), Value::Object(ns));
        }
        if let Some(mtu) = field("MTU") {
            // cloud-init passes the text on; netplan wants a number, and so does ember.
            match mtu.trim().parse::<u32>() {
                Ok(n) => {
                    conf.insert("mtu".into(), json!(n));
                }
                Err(_) => bad.push(BadVar {
                    key: format!("{dev}_MTU"),
                    why: "not a number; left out".into(),
                }),
            }
        }
        ethernets.insert(name.clone(), Value::Object(conf));
    }
    json!({"version": 2, "ethernets": ethernets})
}

/// OpenNebula's MAC prefix convention: the last four octets are the IPv4 address.
fn mac_ip(mac: &str) -> String {
    let octets: Vec<String> = mac
        .split(':')
        .skip(2)
        .map(|h| u8::from_str_radix(h, 16).map_or_else(|_| h.to_string(), |b| b.to_string()))
        .collect();
    octets.join(".")
}

fn prefix_of(mask: &str) -> Option<u32> {
    let m = u32::from(mask.trim().parse::<Ipv4Addr>().ok()?);
    let ones = m.leading_ones();
    (m.checked_shl(ones).unwrap_or(0) == 0).then_some(ones)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn wanted_only_with_eth_ip_keys() {
        assert!(wanted(&ctx(&[("ETH0_IP", "1.2.3.4")])));
        assert!(wanted(&ctx(&[("ETH12_IP6", "fd::1")])));
        assert!(!wanted(&ctx(&[("ETH0_MAC", "x"), ("ETHX_IP", "1")])));
        assert!(!wanted(&ctx(&[("DNS", "1.1.1.1")])));
    }

    #[test]
    fn nics_by_mac_with_every_field() {
        let c = ctx(&[
            ("ETH0_MAC", "02:00:0A:00:00:05"),
            ("ETH0_IP", "10.0.0.5"),
            ("ETH0_MASK", "255.255.0.0"),
            ("ETH0_GATEWAY", "10.0.0.1"),
            ("ETH0_IP6", "2001:db8::5"),
            ("ETH0_IP6_ULA", "fd00::5"),
            ("ETH0_IP6_PREFIX_LENGTH", "48"),
            ("ETH0_GATEWAY6", "2001:db8::1"),
            ("ETH0_DNS", "10.0.0.2 10.0.0.3"),
            ("ETH0_SEARCH_DOMAIN", "example.org lab"),
            ("ETH0_MTU", "1450"),
            ("DNS", "9.9.9.9"),
            ("ETH1_MAC", "02:00:c0:a8:01:07"),
            ("ETH1_IP", ""),
            ("ETH1_IP6_GATEWAY", "fe80::1"),
            ("ETH1_GATEWAY6", "fe80::2"),
        ]);
        let nics = [
            ("ens3".to_string(), "02:00:0a:00:00:05".to_string()),
            ("ens4".to_string(), "02:00:c0:a8:01:07".to_string()),
            ("ens5".to_string(), "52:54:00:00:00:09".to_string()),
        ];
        let mut bad = Vec::new();
        let v = config(&c, &nics, &mut bad);
        assert!(bad.is_empty(), "{bad:?}");
        let want = json!({"version": 2, "ethernets": {
            "ens3": {
                "match": {"macaddress": "02:00:0a:00:00:05"},
                "addresses": ["10.0.0.5/16", "2001:db8::5/48", "fd00::5/48"],
                "gateway4": "10.0.0.1", "gateway6": "2001:db8::1",
                "nameservers": {"addresses": ["10.0.0.2", "10.0.0.3", "9.9.9.9"],
                                "search": ["example.org", "lab"]},
                "mtu": 1450
            },
            "ens4": {
                "match": {"macaddress": "02:00:c0:a8:01:07"},
                "addresses": ["192.168.1.7/24"],
                "gateway6": "fe80::1",
                "nameservers": {"addresses": ["9.9.9.9"]}
            },
            "ens5": {
                "match": {"macaddress": "52:54:00:00:00:09"},
                "addresses": ["0.0.0.9/24"],
                "nameservers": {"addresses": ["9.9.9.9"]}
            }
        }});
        assert_eq!(v, want);
    }

    #[test]
    fn a_nic_the_context_does_not_name_uses_the_host_name() {
        let c = ctx(&[("ENS3_IP", "10.1.1.1"), ("ETH0_IP", "10.9.9.9")]);
        let nics = [("ens3".to_string(), "02:00:00:00:00:01".to_string())];
        let v = config(&c, &nics, &mut Vec::new());
        assert_eq!(v["ethernets"]["ens3"]["addresses"], json!(["10.1.1.1/24"]));
    }

    #[test]
    fn bad_values_are_named_and_the_nic_kept() {
        let c = ctx(&[
            ("ETH0_MAC", "02:00:00:00:00:01"),
            ("ETH0_IP", "10.0.0.1"),
            ("ETH0_MASK", "255.0.255.0"),
            ("ETH0_MTU", "big"),
        ]);
        let nics = [("eth0".to_string(), "02:00:00:00:00:01".to_string())];
        let mut bad = Vec::new();
        let v = config(&c, &nics, &mut bad);
        assert_eq!(v["ethernets"]["eth0"]["addresses"], json!(["10.0.0.1/24"]));
        assert!(v["ethernets"]["eth0"].get("mtu").is_none());
        let keys: Vec<&str> = bad.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(keys, ["ETH0_MASK", "ETH0_MTU"]);
        assert_eq!(prefix_of("255.255.255.255"), Some(32));
        assert_eq!(prefix_of("0.0.0.0"), Some(0));
    }
}

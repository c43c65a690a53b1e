//! EC2's per-MAC network metadata into a network-config v2, as cloud-init's
//! `convert_ec2_metadata_network_config` (23.x and later) builds it: every NIC on DHCPv4, in
//! the order of `network-card` then `device-number` (then MAC), a route metric of 100 per
//! place, secondary addresses with their subnet's prefix, DHCPv6 where the NIC has IPv6, and
//! policy routing for the secondary NICs. Pure: values in, a value out; reading the service
//! is ec2.rs's job. Not here: the NIC names of the booted system (NICs are matched by MAC).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/ec2.html>

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// What ember reads about one NIC (`meta-data/network/interfaces/macs/<mac>/…`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NicMeta {
    pub device_number: Option<u32>,
    pub network_card: Option<u32>,
    pub local_ipv4s: Vec<String>,
    pub subnet_ipv4: Option<String>,
    pub ipv6s: Vec<String>,
    pub subnet_ipv6s: Vec<String>,
}

/// The MACs (lowercase) in cloud-init's NIC order: network card, device number, then MAC; a
/// NIC without a number sorts after those with one.
pub fn order(macs: &BTreeMap<String, NicMeta>) -> Vec<&str> {
    let mut list: Vec<(&String, &NicMeta)> = macs.iter().collect();
    ember_core::sort::sort_by_key(&mut list, |(mac, m)| {
        (
            m.network_card.unwrap_or(u32::MAX),
            m.device_number.unwrap_or(u32::MAX),
            mac.as_str(),
        )
    });
    list.into_iter().map(|(mac, _)| mac.as_str()).collect()
}

/// The NICs of `macs` this host has (`names`: its interfaces by MAC), as cloud-init configures
/// only the host's NICs that the metadata describes: a NIC the metadata lists but the host
/// does not have (not attached yet, no driver) would otherwise be rendered, and ifupdown's
/// `auto` for it holds networking.service for its five minutes. All of them when the host's
/// NICs are unknown, or none of them is there (the config then still says what the metadata
/// says).
pub fn on_this_host(
    macs: &BTreeMap<String, NicMeta>,
    names: &BTreeMap<String, String>,
) -> BTreeMap<String, NicMeta> {
    let here: BTreeMap<String, NicMeta> = macs
        .iter()
        .filter(|(mac, _)| names.contains_key(*mac))
        .map(|(mac, m)| (mac.clone(), m.clone()))
        .collect();
    if here.is_empty() {
        return macs.clone();
    }
    here
}

/// The v2 config. `names` maps a MAC to the host's interface name, used as the id when known
/// (else `nicN` by order; the NIC is matched by MAC either way, never renamed). With `full`
/// false (`apply_full_imds_network_config: false`) only the primary NIC is configured, by DHCP.
pub fn convert(
    macs: &BTreeMap<String, NicMeta>,
    names: &BTreeMap<String, String>,
    full: bool,
) -> Value {
    let ordered = order(macs);
    let id = |i: usize, mac: &str| names.get(mac).cloned().unwrap_or(format!("nic{i}"));
    let mut ethernets = Map::new();
    if !full {
        if let Some(mac) = ordered.first() {
            let m = &macs[*mac];
            let dev = json!({
                "match": {"macaddress": mac},
                "dhcp4": true,
                "dhcp6": !m.ipv6s.is_empty(),
            });
            ethernets.insert(id(0, mac), dev);
        }
        return json!({"version": 2, "ethernets": ethernets});
    }
    let single = ordered.len() == 1;
    for (i, mac) in ordered.iter().enumerate() {
        let m = &macs[*mac];
        let mut dev = Map::new();
        dev.insert("match".into(), json!({"macaddress": mac}));
        dev.insert("dhcp4".into(), Value::Bool(true));
        dev.insert("dhcp6".into(), Value::Bool(!m.ipv6s.is_empty()));
        let mut overrides = Map::new();
        if !single {
            overrides.insert("route-metric".into(), json!(100 * (i as u32 + 1)));
        }
        let table = 100 + i as u32;
        // A NIC without a device number (EC2-compatible clouds) cannot be told primary or
        // not: no policy routing, as in cloud-init.
        if !single && i > 0 && m.device_number.is_some() {
            overrides.insert("use-routes".into(), Value::Bool(true));
            let (routes, rules) = policy_routing(m, table);
            if !routes.is_empty() {
                dev.insert("routes".into(), Value::Array(routes));
            }
            if !rules.is_empty() {
                dev.insert("routing-policy".into(), Value::Array(rules));
            }
        }
        if !overrides.is_empty() {
            let o = Value::Object(overrides);
            if !m.ipv6s.is_empty() {
                dev.insert("dhcp6-overrides".into(), o.clone());
            }
            dev.insert("dhcp4-overrides".into(), o);
        }
        let addresses = secondary_addresses(m);
        if !addresses.is_empty() {
            dev.insert("addresses".into(), json!(addresses));
        }
        ethernets.insert(id(i, mac), Value::Object(dev));
    }
    json!({"version": 2, "ethernets": ethernets})
}

/// `cfg` without the secondary NICs' policy routing: their `routes` (all in the NIC's own
/// table), `routing-policy` and the overrides' `use-routes`, for a stack that cannot express
/// them.
pub fn without_policy_routing(mut cfg: Value) -> Value {
    let ethernets = cfg.get_mut("ethernets").and_then(Value::as_object_mut);
    for dev in ethernets.into_iter().flat_map(|e| e.values_mut()) {
        let Some(dev) = dev.as_object_mut() else {
            continue;
        };
        dev.remove("routes");
        dev.remove("routing-policy");
        for key in ["dhcp4-overrides", "dhcp6-overrides"] {
            if let Some(o) = dev.get_mut(key).and_then(Value::as_object_mut) {
                o.remove("use-routes");
            }
        }
    }
    cfg
}

/// Addresses after the first of each family, with the prefix of the NIC's subnet (cloud-init's
/// /24 and /128 when the subnet is missing or malformed), sorted as cloud-init sorts them.
pub fn secondary_addresses(m: &NicMeta) -> Vec<String> {
    let prefix = |cidr: Option<&String>, default: &str| {
        cidr.and_then(|c| c.split_once('/'))
            .map(|(_, p)| p.to_string())
            .filter(|p| p.parse::<u8>().is_ok())
            .unwrap_or_else(|| default.to_string())
    };
    let mut out = Vec::new();
    let p4 = prefix(m.subnet_ipv4.as_ref(), "24");
    out.extend(m.local_ipv4s.iter().skip(1).map(|ip| format!("{ip}/{p4}")));
    let p6 = prefix(m.subnet_ipv6s.first(), "128");
    out.extend(m.ipv6s.iter().skip(1).map(|ip| format!("{ip}/{p6}")));
    ember_core::sort::sort(&mut out);
    out
}

/// Routes and rules sending what leaves from a secondary NIC's addresses out of that NIC:
/// a default route through the subnet's router and the subnet itself in `table`, and a rule
/// per address. The router is the subnet's first host, where AWS always puts it; cloud-init
/// asks a DHCP server on each NIC instead.
fn policy_routing(m: &NicMeta, table: u32) -> (Vec<Value>, Vec<Value>) {
    let (mut routes, mut rules) = (Vec::new(), Vec::new());
    if let (Some(subnet), false) = (&m.subnet_ipv4, m.local_ipv4s.is_empty()) {
        if let Some(gw) = subnet_router(subnet) {
            routes.push(json!({"to": "0.0.0.0/0", "via": gw.to_string(), "table": table}));
        }
        routes.push(json!({"to": subnet, "table": table}));
        rules.extend(
            m.local_ipv4s
                .iter()
                .map(|ip| json!({"from": ip, "table": table})),
        );
    }
    if !m.subnet_ipv6s.is_empty() && !m.ipv6s.is_empty() {
        routes.extend(
            m.subnet_ipv6s
                .iter()
                .map(|s| json!({"to": s, "table": table})),
        );
        rules.extend(m.ipv6s.iter().map(|ip| json!({"from": ip, "table": table})));
    }
    (routes, rules)
}

/// The first host of an IPv4 subnet: `10.0.1.0/24` → `10.0.1.1`.
fn subnet_router(cidr: &str) -> Option<Ipv4Addr> {
    let (ip, prefix) = cidr.split_once('/')?;
    let (ip, prefix): (Ipv4Addr, u32) = (ip.parse().ok()?, prefix.parse().ok()?);
    if !(1..=30).contains(&prefix) {
        return None;
    }
    let net = u32::from(ip) & (u32::MAX << (32 - prefix));
    Some(Ipv4Addr::from(net + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nic(card: Option<u32>, dev: Option<u32>, v4: &[&str], subnet: &str) -> NicMeta {
        NicMeta {
            device_number: dev,
            network_card: card,
            local_ipv4s: v4.iter().map(|s| s.to_string()).collect(),
            subnet_ipv4: Some(subnet.to_string()),
            ..NicMeta::default()
        }
    }

    #[test]
    fn ordered_by_card_then_device_then_mac() {
        let macs = BTreeMap::from([
            (
                "0a:00:00:00:00:01".to_string(),
                nic(Some(1), Some(0), &[], ""),
            ),
            ("0a:00:00:00:00:02".to_string(), nic(None, Some(1), &[], "")),
            ("0a:00:00:00:00:03".to_string(), nic(None, Some(0), &[], "")),
            (
                "0a:00:00:00:00:04".to_string(),
                nic(Some(0), Some(2), &[], ""),
            ),
            ("0a:00:00:00:00:05".to_string(), nic(None, None, &[], "")),
        ]);
        assert_eq!(
            order(&macs),
            [
                "0a:00:00:00:00:04",
                "0a:00:00:00:00:01",
                "0a:00:00:00:00:03",
                "0a:00:00:00:00:02",
                "0a:00:00:00:00:05"
            ]
        );
    }

    #[test]
    fn two_nics_with_metrics_secondaries_and_policy_routing() {
        let mut second = nic(None, Some(1), &["10.0.2.7", "10.0.2.8"], "10.0.2.0/24");
        second.ipv6s = vec!["2600:1f14::7".into()];
        second.subnet_ipv6s = vec!["2600:1f14::/64".into()];
        let macs = BTreeMap::from([
            ("0a:00:00:00:00:02".to_string(), second),
            (
                "0a:00:00:00:00:01".to_string(),
                nic(None, Some(0), &["10.0.1.5", "10.0.1.6"], "10.0.1.0/20"),
            ),
        ]);
        let names = BTreeMap::from([("0a:00:00:00:00:01".to_string(), "ens5".to_string())]);
        let cfg = convert(&macs, &names, true);
        let want = json!({"version": 2, "ethernets": {
            "ens5": {
                "match": {"macaddress": "0a:00:00:00:00:01"},
                "dhcp4": true, "dhcp6": false,
                "dhcp4-overrides": {"route-metric": 100},
                "addresses": ["10.0.1.6/20"],
            },
            "nic1": {
                "match": {"macaddress": "0a:00:00:00:00:02"},
                "dhcp4": true, "dhcp6": true,
                "dhcp4-overrides": {"route-metric": 200, "use-routes": true},
                "dhcp6-overrides": {"route-metric": 200, "use-routes": true},
                "addresses": ["10.0.2.8/24"],
                "routes": [
                    {"to": "0.0.0.0/0", "via": "10.0.2.1", "table": 101},
                    {"to": "10.0.2.0/24", "table": 101},
                    {"to": "2600:1f14::/64", "table": 101},
                ],
                "routing-policy": [
                    {"from": "10.0.2.7", "table": 101},
                    {"from": "10.0.2.8", "table": 101},
                    {"from": "2600:1f14::7", "table": 101},
                ],
            },
        }});
        assert_eq!(cfg, want);
        // Only the primary, by DHCP, when the image asks for less.
        let primary = convert(&macs, &names, false);
        assert_eq!(
            primary,
            json!({"version": 2, "ethernets": {"ens5": {
                "match": {"macaddress": "0a:00:00:00:00:01"}, "dhcp4": true, "dhcp6": false}}})
        );
    }

    /// Issue 37 (QEMU boot-faults, ifupdown): only the NICs the host has are configured.
    #[test]
    fn nics_the_host_does_not_have_are_left_out() {
        let macs = BTreeMap::from([
            (
                "0a:00:00:00:00:01".to_string(),
                nic(None, Some(0), &["10.0.1.5"], "10.0.1.0/24"),
            ),
            (
                "0a:00:00:00:00:02".to_string(),
                nic(None, Some(1), &["10.0.2.7"], "10.0.2.0/24"),
            ),
        ]);
        let names = BTreeMap::from([("0a:00:00:00:00:01".to_string(), "ens5".to_string())]);
        let here = on_this_host(&macs, &names);
        assert_eq!(here.keys().collect::<Vec<_>>(), ["0a:00:00:00:00:01"]);
        let cfg = convert(&here, &names, true);
        assert_eq!(
            cfg["ethernets"],
            json!({"ens5": {"match": {"macaddress": "0a:00:00:00:00:01"}, "dhcp4": true, "dhcp6": false}})
        );
        // Unknown host NICs, or none of them listed: the metadata's NICs, all of them.
        assert_eq!(on_this_host(&macs, &BTreeMap::new()).len(), 2);
        let other = BTreeMap::from([("0a:ff:00:00:00:09".to_string(), "eth0".to_string())]);
        assert_eq!(on_this_host(&macs, &other).len(), 2);
    }

    #[test]
    fn one_nic_has_no_metric() {
        let macs = BTreeMap::from([(
            "0a:00:00:00:00:01".to_string(),
            nic(None, Some(0), &["10.0.1.5"], "10.0.1.0/24"),
        )]);
        let cfg = convert(&macs, &BTreeMap::new(), true);
        assert_eq!(
            cfg["ethernets"]["nic0"],
            json!({"match": {"macaddress": "0a:00:00:00:00:01"}, "dhcp4": true, "dhcp6": false})
        );
    }

    #[test]
    fn prefixes_default_when_the_subnet_is_unusable() {
        let mut m = nic(None, Some(0), &["10.0.1.5", "10.0.1.9"], "garbage");
        m.ipv6s = vec!["fd00::1".into(), "fd00::2".into()];
        assert_eq!(secondary_addresses(&m), ["10.0.1.9/24", "fd00::2/128"]);
        assert_eq!(
            subnet_router("10.0.16.0/20"),
            Some(Ipv4Addr::new(10, 0, 16, 1))
        );
        assert_eq!(subnet_router("10.0.16.0/32"), None);
        assert_eq!(subnet_router("x"), None);
    }
}

//! `sdc:nics`, `sdc:resolvers`, `sdc:dns_domain` and `sdc:routes` into a network-config v1, as
//! cloud-init's `convert_smartos_network_data` builds it: one physical entry per NIC (named
//! by its `interface`, matched by `mac`), a `dhcp4` subnet for the address `dhcp` and a static
//! one for every other; the first gateway of each address family, from a primary NIC only, on
//! its first static subnet of that family; every `sdc:routes` route on every static subnet;
//! the resolvers and search domain as one nameserver entry. Not here: checking the values
//! (the v1 parser does, naming the key).

use serde_json::{json, Map, Value};

const PHYSICAL_KEYS: [&str; 3] = ["mtu", "params", "subnets"];
const SUBNET_KEYS: [&str; 8] = [
    "broadcast",
    "dns_nameservers",
    "dns_search",
    "metric",
    "pointopoint",
    "routes",
    "scope",
    "address",
];

/// A string, or a list of them, as a list (cloud-init accepts either).
fn list(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(other) => vec![other.clone()],
    }
}

/// The v1 config, or the key path of the first entry that is not a NIC object.
pub fn convert(
    nics: &Value,
    resolvers: Option<&Value>,
    domain: Option<&Value>,
    routes: Option<&Value>,
) -> Result<Value, String> {
    let Value::Array(nics) = nics else {
        return Err("sdc:nics".into());
    };
    let routes = list(routes);
    // One gateway per family for the whole machine, as cloud-init keeps it.
    let (mut gw4, mut gw6): (Option<Value>, Option<Value>) = (None, None);
    let mut config = Vec::new();
    for (i, nic) in nics.iter().enumerate() {
        let Value::Object(nic) = nic else {
            return Err(format!("sdc:nics[{i}]"));
        };
        let mut cfg = Map::new();
        for k in PHYSICAL_KEYS {
            if let Some(v) = nic.get(k) {
                cfg.insert(k.into(), v.clone());
            }
        }
        cfg.insert("type".into(), json!("physical"));
        let Some(name) = nic.get("interface") else {
            return Err(format!("sdc:nics[{i}].interface"));
        };
        cfg.insert("name".into(), name.clone());
        if let Some(mac) = nic.get("mac") {
            cfg.insert("mac_address".into(), mac.clone());
        }
        let primary = nic
            .get("primary")
            .is_some_and(|p| p.as_bool() == Some(true));
        let mut subnets = Vec::new();
        for ip in list(nic.get("ips")) {
            let text = ip.as_str().unwrap_or_default();
            if text == "dhcp" {
                subnets.push(json!({"type": "dhcp4"}));
                continue;
            }
            let mut s = Map::new();
            for k in SUBNET_KEYS {
                if let Some(v) = nic.get(k) {
                    s.insert(k.into(), v.clone());
                }
            }
            s.insert("type".into(), json!("static"));
            s.insert("address".into(), ip.clone());
            let v4 = text.contains('.');
            let slot = if v4 { &mut gw4 } else { &mut gw6 };
            if primary && slot.is_none() {
                let family = |g: &&Value| {
                    let g = g.as_str().unwrap_or_default();
                    if v4 {
                        g.contains('.')
                    } else {
                        g.contains(':')
                    }
                };
                if let Some(gw) = list(nic.get("gateways")).iter().find(family) {
                    *slot = Some(gw.clone());
                    s.insert("gateway".into(), gw.clone());
                }
            }
            let ents: Vec<Value> = routes
                .iter()
                .filter_map(|r| {
                    let mut e = Map::new();
                    e.insert("network".into(), r.get("dst")?.clone());
                    if let Some(g) = r.get("gateway") {
                        e.insert("gateway".into(), g.clone());
                    }
                    Some(Value::Object(e))
                })
                .collect();
            if !ents.is_empty() {
                s.insert("routes".into(), Value::Array(ents));
            }
            subnets.push(Value::Object(s));
        }
        cfg.insert("subnets".into(), Value::Array(subnets));
        config.push(Value::Object(cfg));
    }
    let servers = list(resolvers);
    if !servers.is_empty() {
        config.push(json!({"type": "nameserver", "address": servers, "search": list(domain)}));
    }
    Ok(json!({"version": 1, "config": config}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nics_routes_and_resolvers_as_cloud_init_converts_them() {
        let nics = json!([
            {"interface": "net0", "mac": "90:b8:d0:ae:64:51", "primary": true, "mtu": 1500,
             "ips": ["8.12.42.26/24", "2001:db8::5/64"],
             "gateways": ["2001:db8::1", "8.12.42.1", "8.12.42.2"], "nic_tag": "external"},
            {"interface": "net1", "mac": "90:b8:d0:ae:64:52", "ips": ["10.210.1.27/17", "dhcp"],
             "gateways": ["10.210.1.1"]}
        ]);
        let routes = json!([{"linklocal": false, "dst": "3.0.0.0/8", "gateway": "8.12.42.3"}]);
        let got = convert(
            &nics,
            Some(&json!(["8.8.8.8", "8.8.4.4"])),
            Some(&json!("example.org")),
            Some(&routes),
        )
        .unwrap();
        let route = json!([{"network": "3.0.0.0/8", "gateway": "8.12.42.3"}]);
        let want = json!({"version": 1, "config": [
            {"type": "physical", "name": "net0", "mac_address": "90:b8:d0:ae:64:51", "mtu": 1500,
             "subnets": [
                {"type": "static", "address": "8.12.42.26/24", "gateway": "8.12.42.1", "routes": route},
                {"type": "static", "address": "2001:db8::5/64", "gateway": "2001:db8::1", "routes": route}]},
            {"type": "physical", "name": "net1", "mac_address": "90:b8:d0:ae:64:52",
             "subnets": [
                {"type": "static", "address": "10.210.1.27/17", "routes": route},
                {"type": "dhcp4"}]},
            {"type": "nameserver", "address": ["8.8.8.8", "8.8.4.4"], "search": ["example.org"]}
        ]});
        assert_eq!(got, want);
    }

    #[test]
    fn a_nic_that_is_not_an_object_is_named() {
        assert_eq!(
            convert(&json!([1]), None, None, None),
            Err("sdc:nics[0]".into())
        );
        assert_eq!(
            convert(&json!([{"mac": "x"}]), None, None, None),
            Err("sdc:nics[0].interface".into())
        );
        assert_eq!(
            convert(&json!({}), None, None, None),
            Err("sdc:nics".into())
        );
    }
}

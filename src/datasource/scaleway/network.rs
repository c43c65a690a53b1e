//! Scaleway's network config as cloud-init builds it. Current instances (`private_ip` null):
//! a v2 config for the NIC the service answered on, DHCPv4 for the public address the
//! lease got (with a route to the metadata service via 62.210.0.1), every other public
//! address static, and a default IPv6 route via each IPv6 address's gateway. Older instances:
//! v1, DHCPv4 and the static `ipv6` with its default route.
//! ember matches the NIC by MAC (cloud-init keys it by the name it has at that moment, which
//! an initramfs without udev does not share with the booted system), and, when the network
//! was up before ember (no lease of its own), takes the public address Scaleway provisions
//! by DHCP as the leased one. Pure: values in, a value out.
//! <https://www.scaleway.com/en/docs/instances/how-to/use-boot-modes/>

use serde_json::{json, Map, Value};
use std::net::Ipv4Addr;

/// The NIC the metadata came over: its name and MAC.
pub struct Nic<'a> {
    pub name: &'a str,
    pub mac: Option<&'a str>,
}

pub fn config(md: &Map<String, Value>, nic: &Nic, leased: Option<Ipv4Addr>) -> Value {
    if md.get("private_ip").is_some_and(|p| !p.is_null()) {
        return legacy(md, nic);
    }
    let empty = Vec::new();
    let ips = md
        .get("public_ips")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let text = |ip: &Value, k: &str| match ip.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let dhcp_address = leased.map(|a| a.to_string()).or_else(|| {
        ips.iter()
            .find(|ip| text(ip, "family") == "inet" && text(ip, "provisioning_mode") == "dhcp")
            .map(|ip| text(ip, "address"))
    });
    let mut eth = Map::new();
    let (mut addresses, mut routes) = (Vec::new(), Vec::new());
    for ip in ips {
        let address = text(ip, "address");
        if Some(&address) == dhcp_address.as_ref() {
            eth.insert("dhcp4".into(), json!(true));
            routes.push(json!({"to": "169.254.42.42/32", "via": "62.210.0.1"}));
        } else {
            addresses.push(json!(format!("{address}/{}", text(ip, "netmask"))));
            if text(ip, "family") == "inet6" {
                routes.push(json!({"via": text(ip, "gateway"), "to": "::/0"}));
            }
        }
    }
    if !addresses.is_empty() {
        eth.insert("addresses".into(), Value::Array(addresses));
    }
    if !routes.is_empty() {
        eth.insert("routes".into(), Value::Array(routes));
    }
    if let Some(mac) = nic.mac {
        eth.insert("match".into(), json!({"macaddress": mac}));
    }
    json!({"version": 2, "ethernets": {nic.name: eth}})
}

fn legacy(md: &Map<String, Value>, nic: &Nic) -> Value {
    let mut subnets = vec![json!({"type": "dhcp4"})];
    if let Some(v6) = md.get("ipv6").filter(|v| v.is_object()) {
        let field = |k: &str| {
            v6.get(k).map_or(String::new(), |v| {
                v.as_str().map_or(v.to_string(), str::to_string)
            })
        };
        subnets.push(json!({
            "type": "static",
            "address": field("address"),
            "netmask": field("netmask"),
            "routes": [{"network": "::", "prefix": "0", "gateway": field("gateway")}],
        }));
    }
    let mut phys = json!({"type": "physical", "name": nic.name, "subnets": subnets});
    if let Some(mac) = nic.mac {
        phys["mac_address"] = json!(mac);
    }
    json!({"version": 1, "config": [phys]})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md() -> Map<String, Value> {
        json!({"private_ip": null, "public_ips": [
            {"address": "51.15.20.30", "netmask": "32", "gateway": "62.210.0.1", "family": "inet",
             "provisioning_mode": "dhcp"},
            {"address": "51.15.20.31", "netmask": "32", "family": "inet", "provisioning_mode": "manual"},
            {"address": "2001:bc8:1::1", "netmask": "64", "gateway": "2001:bc8:1::", "family": "inet6",
             "provisioning_mode": "slaac"}]})
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn public_ips_as_cloud_init_builds_them() {
        let nic = Nic {
            name: "eth0",
            mac: Some("de:00:00:11:22:33"),
        };
        let got = config(&md(), &nic, Some(Ipv4Addr::new(51, 15, 20, 30)));
        let want = json!({"version": 2, "ethernets": {"eth0": {
            "dhcp4": true,
            "addresses": ["51.15.20.31/32", "2001:bc8:1::1/64"],
            "routes": [{"to": "169.254.42.42/32", "via": "62.210.0.1"},
                       {"via": "2001:bc8:1::", "to": "::/0"}],
            "match": {"macaddress": "de:00:00:11:22:33"}}}});
        assert_eq!(got, want);
        // No lease of ember's own: the address Scaleway gives by DHCP is the leased one.
        assert_eq!(config(&md(), &nic, None), want);
    }

    #[test]
    fn older_instances_get_v1() {
        let md = json!({"private_ip": "10.1.2.3",
            "ipv6": {"address": "2001:bc8::5", "netmask": "127", "gateway": "2001:bc8::4"}});
        let nic = Nic {
            name: "eth0",
            mac: None,
        };
        let got = config(md.as_object().unwrap(), &nic, None);
        let want = json!({"version": 1, "config": [{"type": "physical", "name": "eth0", "subnets": [
            {"type": "dhcp4"},
            {"type": "static", "address": "2001:bc8::5", "netmask": "127",
             "routes": [{"network": "::", "prefix": "0", "gateway": "2001:bc8::4"}]}]}]});
        assert_eq!(got, want);
    }
}

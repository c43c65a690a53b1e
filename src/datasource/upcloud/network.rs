//! UpCloud's `network` into network-config v1, as cloud-init's helpers/upcloud builds it:
//! each interface `physical`, matched by MAC and named as the host names it; per address a
//! subnet: DHCP (`dhcp` for IPv4, `ipv6_dhcpv6-stateless` for IPv6, UpCloud's SLAAC), or a
//! static one with its gateway, the prefix of its `network` and its own resolvers where they
//! differ from the server's; then the server's resolvers. A MAC the host lacks makes
//! cloud-init refuse the config, and ember too. Pure: values in, a value out.
//! <https://developers.upcloud.com/1.3/8-servers/#metadata-service>

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub fn convert(
    network: &Map<String, Value>,
    macs: &BTreeMap<String, String>,
) -> Result<Value, Diag> {
    let dns = network
        .get("dns")
        .filter(|d| d.as_array().is_some_and(|l| !l.is_empty()));
    let mut config = Vec::new();
    let empty = Vec::new();
    let ifaces = network
        .get("interfaces")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (i, iface) in ifaces.iter().enumerate() {
        let key = format!("network.interfaces.{i}.mac");
        let mac = iface
            .get("mac")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let Some(name) = macs.get(&mac) else {
            let msg = format!("no interface on this machine has the MAC '{mac}': the network config is left to the fallback, as cloud-init refuses it");
            return Err(Diag::warning(Reason::NicMissing, msg).key(key));
        };
        let addresses = iface
            .get("ip_addresses")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        let subnets: Vec<Value> = addresses.iter().map(|a| subnet(a, dns)).collect();
        config.push(
            json!({"type": "physical", "name": name, "mac_address": mac, "subnets": subnets}),
        );
    }
    if let Some(dns) = dns {
        config.push(json!({"type": "nameserver", "address": dns}));
    }
    Ok(json!({"version": 1, "config": config}))
}

fn subnet(a: &Value, server_dns: Option<&Value>) -> Value {
    let v6 = a.get("family").and_then(Value::as_str) == Some("IPv6");
    if a.get("dhcp").and_then(Value::as_bool) == Some(true) {
        return json!({"type": if v6 { "ipv6_dhcpv6-stateless" } else { "dhcp" }});
    }
    let mut s = json!({"type": if v6 { "static6" } else { "static" }, "control": "auto",
        "address": a.get("address").cloned().unwrap_or(Value::Null)});
    if let Some(gw) = a
        .get("gateway")
        .and_then(Value::as_str)
        .filter(|g| !g.is_empty())
    {
        s["gateway"] = json!(gw);
    }
    if let Some((_, prefix)) = a
        .get("network")
        .and_then(Value::as_str)
        .and_then(|n| n.split_once('/'))
    {
        s["netmask"] = json!(prefix);
    }
    let own = a
        .get("dns")
        .filter(|d| d.as_array().is_some_and(|l| !l.is_empty()));
    if let Some(own) = own.filter(|o| Some(*o) != server_dns) {
        s["dns_nameservers"] = own.clone();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interfaces_as_cloud_init_converts_them() {
        let network = json!({"interfaces": [
            {"index": 1, "mac": "32:d5:ba:4a:36:e7", "type": "public", "ip_addresses": [
                {"address": "94.237.105.53", "dhcp": true, "dns": ["94.237.127.9"], "family": "IPv4",
                 "gateway": "94.237.104.1", "network": "94.237.104.0/22"},
                {"address": "94.237.105.50", "dhcp": false, "dns": [], "family": "IPv4",
                 "floating": true, "gateway": "", "network": "94.237.105.50/32"}]},
            {"index": 2, "mac": "32:d5:ba:4a:63:e7", "type": "public", "ip_addresses": [
                {"address": "2a04:3545:1000:720::7", "dhcp": true, "family": "IPv6"},
                {"address": "10.6.3.27", "dhcp": false, "dns": ["10.6.0.2"], "family": "IPv4",
                 "gateway": "10.6.0.1", "network": "10.6.0.0/22"}]}],
            "dns": ["94.237.127.9", "94.237.40.9"]});
        let macs = BTreeMap::from([
            ("32:d5:ba:4a:36:e7".to_string(), "eth0".to_string()),
            ("32:d5:ba:4a:63:e7".to_string(), "eth1".to_string()),
        ]);
        let cfg = convert(network.as_object().unwrap(), &macs).unwrap();
        let want = json!({"version": 1, "config": [
            {"type": "physical", "name": "eth0", "mac_address": "32:d5:ba:4a:36:e7", "subnets": [
                {"type": "dhcp"},
                {"type": "static", "control": "auto", "address": "94.237.105.50", "netmask": "32"}]},
            {"type": "physical", "name": "eth1", "mac_address": "32:d5:ba:4a:63:e7", "subnets": [
                {"type": "ipv6_dhcpv6-stateless"},
                {"type": "static", "control": "auto", "address": "10.6.3.27", "gateway": "10.6.0.1",
                 "netmask": "22", "dns_nameservers": ["10.6.0.2"]}]},
            {"type": "nameserver", "address": ["94.237.127.9", "94.237.40.9"]}]});
        assert_eq!(cfg, want);
        let err = convert(network.as_object().unwrap(), &BTreeMap::new()).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("network.interfaces.0.mac"));
    }
}

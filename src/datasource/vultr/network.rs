//! Vultr's interfaces into network-config v1, as cloud-init's helpers/vultr builds it: Vultr's
//! resolvers first; the first interface (public) DHCPv4 and SLAAC with router advertisements
//! accepted; each further one (private) its static IPv4 unless marked `unconfigured`; on each,
//! the `mtu`, `accept-ra`, `routes` (on the first subnet) and the additional IPv4 and IPv6
//! addresses as static subnets. A ready v1 (`cloud_interfaces`) only gets the host's names.
//! Every NIC is matched by MAC; one the host lacks makes cloud-init refuse the config, and
//! ember too (a warning, then the fallback). Pure: values in, a value out.
//! <https://www.vultr.com/metadata/>

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The resolvers cloud-init writes for every Vultr instance.
const NAMESERVERS: [&str; 2] = ["108.61.10.10", "2001:19f0:300:1704::6"];

type Macs = BTreeMap<String, String>;

/// The v1 config from `interfaces`; `Err` names the key of a NIC the host lacks or of an
/// interface without a usable address.
pub fn generate(interfaces: &[Value], macs: &Macs) -> Result<Value, Diag> {
    let mut config = vec![json!({"type": "nameserver", "address": NAMESERVERS})];
    for (i, nic) in interfaces.iter().enumerate() {
        let primary = i == 0;
        if !primary && nic.get("unconfigured").is_some_and(truthy) {
            continue;
        }
        config.push(interface(nic, primary, macs, &format!("interfaces.{i}"))?);
    }
    Ok(json!({"version": 1, "config": config}))
}

/// A given v1 config with each physical entry named as the host names its MAC.
pub fn with_names(cfg: &Map<String, Value>, macs: &Macs) -> Result<Value, Diag> {
    let mut cfg = cfg.clone();
    if let Some(Value::Array(entries)) = cfg.get_mut("config") {
        for (i, entry) in entries.iter_mut().enumerate() {
            let Some(mac) = entry.get("mac_address").and_then(Value::as_str) else {
                continue;
            };
            let key = format!("cloud_interfaces.config.{i}.mac_address");
            let name = host_name(mac, macs, &key)?;
            entry["name"] = json!(name);
        }
    }
    Ok(Value::Object(cfg))
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false)) && v != &json!(0) && v != &json!("")
}

fn host_name(mac: &str, macs: &Macs, key: &str) -> Result<String, Diag> {
    let mac = mac.to_ascii_lowercase();
    macs.get(&mac).cloned().ok_or_else(|| {
        let msg = format!("no interface on this machine has the MAC {mac}: the network config is left to the fallback, as cloud-init refuses it");
        Diag::warning(Reason::NicMissing, msg).key(key)
    })
}

fn interface(nic: &Value, primary: bool, macs: &Macs, key: &str) -> Result<Value, Diag> {
    let invalid = |k: &str| {
        let msg = "missing or not a string: the network config is left to the fallback";
        Diag::warning(Reason::MetadataInvalid, msg).key(format!("{key}.{k}"))
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mac = text(nic, "mac").ok_or_else(|| invalid("mac"))?;
    let name = host_name(&mac, macs, &format!("{key}.mac"))?;
    let mut subnets = if primary {
        vec![
            json!({"type": "dhcp", "control": "auto"}),
            json!({"type": "ipv6_slaac", "control": "auto"}),
        ]
    } else {
        let v4 = &nic["ipv4"];
        let address = text(v4, "address").ok_or_else(|| invalid("ipv4.address"))?;
        let netmask = text(v4, "netmask").ok_or_else(|| invalid("ipv4.netmask"))?;
        vec![json!({"type": "static", "control": "auto", "address": address, "netmask": netmask})]
    };
    let mut cfg = json!({"name": name, "type": "physical", "mac_address": mac});
    if primary {
        cfg["accept-ra"] = json!(1);
    }
    for k in ["mtu", "accept-ra"] {
        if let Some(v) = nic.get(k) {
            cfg[k] = v.clone();
        }
    }
    if let Some(routes) = nic.get("routes") {
        subnets[0]["routes"] = routes.clone();
    }
    let additional = |family: &str| {
        nic.get(family)
            .and_then(|f| f.get("additional"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for (j, extra) in additional("ipv4").iter().enumerate() {
        let at = |k: &str| format!("ipv4.additional.{j}.{k}");
        let address = text(extra, "address").ok_or_else(|| invalid(&at("address")))?;
        let netmask = text(extra, "netmask").ok_or_else(|| invalid(&at("netmask")))?;
        let mut s =
            json!({"type": "static", "control": "auto", "address": address, "netmask": netmask});
        if let Some(r) = extra.get("routes") {
            s["routes"] = r.clone();
        }
        subnets.push(s);
    }
    for (j, extra) in additional("ipv6").iter().enumerate() {
        let at = |k: &str| format!("ipv6.additional.{j}.{k}");
        let network = text(extra, "network").ok_or_else(|| invalid(&at("network")))?;
        // Vultr gives the prefix as a string ("64"), sometimes as a number.
        let prefix = match extra.get("prefix") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(invalid(&at("prefix"))),
        };
        let mut s =
            json!({"type": "static6", "control": "auto", "address": format!("{network}/{prefix}")});
        if let Some(r) = extra.get("routes") {
            s["routes"] = r.clone();
        }
        subnets.push(s);
    }
    cfg["subnets"] = Value::Array(subnets);
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macs() -> Macs {
        BTreeMap::from([
            ("56:00:03:1b:4e:ca".to_string(), "eth0".to_string()),
            ("5a:00:03:1b:4e:ca".to_string(), "eth1".to_string()),
        ])
    }

    /// cloud-init's test data: a public NIC with an additional IPv6 network, a private one.
    fn interfaces() -> Vec<Value> {
        json!([
            {"ipv4": {"additional": [], "address": "45.76.7.171", "gateway": "45.76.6.1",
                      "netmask": "255.255.254.0"},
             "ipv6": {"additional": [{"network": "2002:19f0:5:28a7::", "prefix": "64"}],
                      "address": "2001:19f0:5:28a7:5400:03ff:fe1b:4eca",
                      "network": "2001:19f0:5:28a7::", "prefix": "64"},
             "mac": "56:00:03:1b:4e:ca", "network-type": "public"},
            {"ipv4": {"additional": [], "address": "10.1.112.3", "gateway": "",
                      "netmask": "255.255.240.0"},
             "ipv6": {"additional": [], "network": "", "prefix": ""},
             "mac": "5a:00:03:1b:4e:ca", "network-type": "private"}
        ])
        .as_array()
        .unwrap()
        .clone()
    }

    fn expected() -> Value {
        json!({"version": 1, "config": [
            {"type": "nameserver", "address": ["108.61.10.10", "2001:19f0:300:1704::6"]},
            {"name": "eth0", "type": "physical", "mac_address": "56:00:03:1b:4e:ca",
             "accept-ra": 1, "subnets": [
                {"type": "dhcp", "control": "auto"},
                {"type": "ipv6_slaac", "control": "auto"},
                {"type": "static6", "control": "auto", "address": "2002:19f0:5:28a7::/64"}]},
            {"name": "eth1", "type": "physical", "mac_address": "5a:00:03:1b:4e:ca",
             "subnets": [{"type": "static", "control": "auto", "address": "10.1.112.3",
                          "netmask": "255.255.240.0"}]}
        ]})
    }

    #[test]
    fn interfaces_as_cloud_init_converts_them() {
        assert_eq!(generate(&interfaces(), &macs()).unwrap(), expected());
        let mut list = interfaces();
        list[1]["unconfigured"] = json!(true);
        let mut want = expected();
        want["config"].as_array_mut().unwrap().pop();
        assert_eq!(generate(&list, &macs()).unwrap(), want);
    }

    #[test]
    fn mtu_routes_and_additional_ipv4() {
        let mut list = interfaces();
        list[1]["mtu"] = json!(1450);
        list[1]["routes"] =
            json!([{"network": "10.2.0.0", "netmask": "255.255.0.0", "gateway": "10.1.112.1"}]);
        list[1]["ipv4"]["additional"] =
            json!([{"address": "10.1.112.9", "netmask": "255.255.255.0"}]);
        let cfg = generate(&list, &macs()).unwrap();
        let private = &cfg["config"][2];
        assert_eq!(private["mtu"], 1450);
        assert_eq!(private["subnets"][0]["routes"][0]["network"], "10.2.0.0");
        assert_eq!(private["subnets"][1]["address"], "10.1.112.9");
    }

    #[test]
    fn a_missing_nic_or_address_is_named() {
        let mut one = BTreeMap::new();
        one.insert("56:00:03:1b:4e:ca".to_string(), "eth0".to_string());
        let err = generate(&interfaces(), &one).unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.key.as_deref()),
            ("nic-missing", Some("interfaces.1.mac"))
        );
        let mut list = interfaces();
        list[1]["ipv4"] = json!({});
        let err = generate(&list, &macs()).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("interfaces.1.ipv4.address"));
    }

    #[test]
    fn cloud_interfaces_get_the_host_names() {
        let mut given = expected();
        for e in given["config"].as_array_mut().unwrap() {
            e.as_object_mut().unwrap().remove("name");
        }
        let cfg = with_names(given.as_object().unwrap(), &macs()).unwrap();
        assert_eq!(cfg, expected());
        let err = with_names(given.as_object().unwrap(), &BTreeMap::new()).unwrap_err();
        assert_eq!(
            err.key.as_deref(),
            Some("cloud_interfaces.config.1.mac_address")
        );
    }
}

//! Oracle Cloud's VNICs document (`/opc/v2/vnics/`) into a network-config v1, as cloud-init's
//! DataSourceOracle builds it: the primary VNIC by DHCP, the secondary ones (only when the
//! image sets `configure_secondary_nics`) with their private address statically, each matched
//! by MAC with OCI's MTU of 9000. A VNIC the host lacks, or one whose entry cannot be read, is
//! skipped with a warning naming its index; the others are still configured.
//! Pure: values in, a value and diagnostics out. Not here: the iSCSI-root decision (mod.rs).
//! <https://docs.oracle.com/en-us/iaas/Content/Compute/Tasks/gettingmetadata.htm>

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::IpAddr;

/// OCI's MTU inside a VCN, which cloud-init sets on every VNIC it configures.
pub const MTU: u32 = 9000;

/// The v1 config of the primary VNIC (and the secondary ones with `secondary`), or `None` when
/// none could be configured.
/// `host_macs` maps lowercase MACs to the host's NIC names; `file` names the document.
pub fn convert(
    vnics: &Value,
    secondary: bool,
    host_macs: &BTreeMap<String, String>,
    file: &str,
    diags: &mut Vec<Diag>,
) -> Option<Value> {
    let warn = |key: String, msg: String| {
        Diag::warning(Reason::MetadataInvalid, msg)
            .file(file)
            .key(key)
    };
    let Some(list) = vnics.as_array() else {
        diags.push(warn(
            String::new(),
            "not a JSON list: no VNIC is configured".into(),
        ));
        return None;
    };
    let mut config = Vec::new();
    for (index, vnic) in list.iter().enumerate() {
        let primary = index == 0;
        if !primary && !secondary {
            break;
        }
        match one(vnic, primary, host_macs) {
            Ok(nic) => config.push(nic),
            Err(Skip::Missing(mac)) => diags.push(
                Diag::warning(
                    Reason::NicMissing,
                    format!("no interface on this machine has the MAC {mac}; VNIC {index} is not configured"),
                )
                .file(file)
                .key(format!("{index}.macAddr")),
            ),
            Err(Skip::Bad(key, why)) => diags.push(warn(
                format!("{index}.{key}"),
                format!("{why}; VNIC {index} is not configured"),
            )),
        }
    }
    (!config.is_empty()).then(|| json!({"version": 1, "config": config}))
}

enum Skip {
    Missing(String),
    Bad(&'static str, String),
}

fn one(vnic: &Value, primary: bool, host_macs: &BTreeMap<String, String>) -> Result<Value, Skip> {
    let text = |k: &'static str| {
        vnic.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| Skip::Bad(k, "missing or not a string".into()))
    };
    let mac = text("macAddr")?.to_ascii_lowercase();
    let prefix = prefix_len(text("subnetCidrBlock")?)
        .ok_or_else(|| Skip::Bad("subnetCidrBlock", "not a CIDR block".into()))?;
    let Some(name) = host_macs.get(&mac) else {
        return Err(Skip::Missing(mac));
    };
    let subnet = if primary {
        json!({"type": "dhcp"})
    } else {
        let ip: IpAddr = text("privateIp")?
            .parse()
            .map_err(|_| Skip::Bad("privateIp", "not an IP address".into()))?;
        json!({"type": "static", "address": format!("{ip}/{prefix}")})
    };
    Ok(json!({
        "name": name,
        "type": "physical",
        "mac_address": mac,
        "mtu": MTU,
        "subnets": [subnet],
    }))
}

/// The prefix length of `10.0.0.0/24`, checked against its address family.
fn prefix_len(cidr: &str) -> Option<u8> {
    let (addr, len) = cidr.split_once('/')?;
    let addr: IpAddr = addr.parse().ok()?;
    let len: u8 = len.parse().ok()?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    (len <= max).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vnics() -> Value {
        json!([
            {"vnicId": "ocid1.vnic.oc1..a", "privateIp": "10.0.0.230", "vlanTag": 1039,
             "macAddr": "02:00:17:05:D1:DB", "virtualRouterIp": "10.0.0.1",
             "subnetCidrBlock": "10.0.0.0/24"},
            {"vnicId": "ocid1.vnic.oc1..b", "privateIp": "10.0.4.5", "vlanTag": 1040,
             "macAddr": "02:00:17:05:D1:DC", "virtualRouterIp": "10.0.4.1",
             "subnetCidrBlock": "10.0.4.0/23"},
        ])
    }

    fn macs() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("02:00:17:05:d1:db".to_string(), "ens3".to_string()),
            ("02:00:17:05:d1:dc".to_string(), "ens4".to_string()),
        ])
    }

    #[test]
    fn primary_by_dhcp_secondary_static_with_the_mtu() {
        let mut diags = Vec::new();
        let cfg = convert(&vnics(), true, &macs(), "vnics", &mut diags).unwrap();
        let want = json!({"version": 1, "config": [
            {"name": "ens3", "type": "physical", "mac_address": "02:00:17:05:d1:db",
             "mtu": 9000, "subnets": [{"type": "dhcp"}]},
            {"name": "ens4", "type": "physical", "mac_address": "02:00:17:05:d1:dc",
             "mtu": 9000, "subnets": [{"type": "static", "address": "10.0.4.5/23"}]},
        ]});
        assert_eq!(cfg, want);
        assert!(diags.is_empty(), "{diags:?}");
        // cloud-init's default: the primary only.
        let cfg = convert(&vnics(), false, &macs(), "vnics", &mut diags).unwrap();
        assert_eq!(cfg["config"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_bad_or_absent_vnic_fails_alone() {
        let mut list = vnics();
        list[1]["subnetCidrBlock"] = json!("10.0.4.0/99");
        let both = true;
        let mut diags = Vec::new();
        let cfg = convert(&list, both, &macs(), "vnics", &mut diags).unwrap();
        assert_eq!(cfg["config"].as_array().unwrap().len(), 1);
        assert_eq!(diags[0].key.as_deref(), Some("1.subnetCidrBlock"));
        let mut diags = Vec::new();
        let one = BTreeMap::from([("02:00:17:05:d1:dc".to_string(), "ens4".to_string())]);
        let cfg = convert(&vnics(), both, &one, "vnics", &mut diags).unwrap();
        assert_eq!(cfg["config"][0]["name"], "ens4");
        assert_eq!(diags[0].code, "nic-missing");
        assert_eq!(diags[0].key.as_deref(), Some("0.macAddr"));
        let mut diags = Vec::new();
        assert!(convert(&json!({}), both, &macs(), "vnics", &mut diags).is_none());
        assert_eq!(diags[0].code, "metadata-invalid");
    }
}

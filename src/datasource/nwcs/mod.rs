//! NWCS servers: detected from DMI (`sys_vendor` "NWCS", cloud-init's `ds_detect`), or
//! `ds=nwcs`, or alone in `datasource_list`. Read as cloud-init's DataSourceNWCS reads it:
//! `/api/v1/metadata` (JSON) at 169.254.169.254 in one request, over ember's own DHCP lease
//! on the first NIC when no route goes there. Into `InstanceData`: the instance id, host name,
//! public keys, `userdata`, `vendordata`, and `network`, a network-config v1 whose entries
//! are renamed as the host names their MAC (an entry whose MAC the host lacks keeps its name).
//! Not here: anything of the document beyond those keys.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/nwcs.html>

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub struct Nwcs;

const DEFAULT_BASE: &str = "http://169.254.169.254";
const DOCUMENT: &str = "api/v1/metadata";
const DEFAULT_RETRIES: u32 = 5;

impl Datasource for Nwcs {
    fn name(&self) -> &'static str {
        "nwcs"
    }
    fn cloud_init_name(&self) -> &'static str {
        "NWCS"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        (dmi.fields.get("sys_vendor")? == "NWCS").then(|| "sys_vendor=NWCS".into())
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "nwcs".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "NWCS", DEFAULT_BASE, DEFAULT_RETRIES);
        let service = client.first_nic_service(env);
        client.reach(env, link, &service, &mut data, |c, d, _| {
            let body = c.get(DOCUMENT, &mut d.reads)?;
            let macs = crate::network::fallback::names_by_mac(env.host);
            read(&body, &c.url(DOCUMENT), &macs, d)
        })?;
        Ok(data)
    }
}

fn read(
    body: &[u8],
    url: &str,
    macs: &BTreeMap<String, String>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let shown = crate::fetch::redact_url(url);
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
    let doc = crate::datasource::common::metadata_get::json_object(body, &shown)?;
    let id = match doc.get("instance-id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err(invalid("missing or not a string".into()).key("instance-id")),
    };
    let warn = |key: &str, msg: &str| {
        Diag::warning(Reason::MetadataInvalid, msg.to_string())
            .file(shown.clone())
            .key(key)
    };
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(id));
    md.insert(
        "public-keys".into(),
        doc.get("public-keys").cloned().unwrap_or(Value::Null),
    );
    match doc.get("hostname") {
        Some(Value::String(h)) if !h.is_empty() => {
            md.insert("local-hostname".into(), json!(h));
        }
        _ => data.diags.push(warn("hostname", "missing or not a string")),
    }
    for (key, slot) in [
        ("userdata", &mut data.user_data),
        ("vendordata", &mut data.vendor_data),
    ] {
        match doc.get(key) {
            Some(Value::String(s)) if !s.is_empty() => {
                *slot = Some(Secret::new(s.clone().into_bytes()))
            }
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => data.diags.push(warn(key, "not a string: left out")),
        }
    }
    match doc.get("network") {
        Some(Value::Object(net))
            if net
                .get("config")
                .and_then(Value::as_array)
                .is_some_and(|c| !c.is_empty()) =>
        {
            let renamed = rename(net, macs);
            md.insert("network".into(), Value::Object(net.clone()));
            data.network_config = Some(("nwcs metadata: network".into(), renamed));
        }
        other => {
            md.insert("network".into(), other.cloned().unwrap_or(Value::Null));
            data.diags.push(warn(
                "network.config",
                "missing or empty: the fallback network applies",
            ));
        }
    }
    data.detail = format!(
        "DataSourceNWCS [{}]",
        crate::fetch::redact_url(url.trim_end_matches(DOCUMENT)).trim_end_matches('/')
    );
    data.subplatform = format!("metadata ({shown})");
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

/// The metadata names interfaces its own way; cloud-init names each entry as the host names
/// its MAC, where the host has it.
fn rename(net: &Map<String, Value>, macs: &BTreeMap<String, String>) -> Value {
    let mut net = net.clone();
    if let Some(Value::Array(entries)) = net.get_mut("config") {
        for e in entries {
            let mac = e
                .get("mac_address")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase);
            if let Some(name) = mac.and_then(|m| macs.get(&m)) {
                e["name"] = json!(name);
            }
        }
    }
    Value::Object(net)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_take_the_host_names_by_mac() {
        let net = json!({"version": 1, "config": [
            {"type": "physical", "name": "eth0", "mac_address": "AA:BB:CC:00:00:01"},
            {"type": "physical", "name": "eth1", "mac_address": "aa:bb:cc:00:00:02"},
            {"type": "nameserver", "address": ["1.1.1.1"]}]});
        let macs = BTreeMap::from([("aa:bb:cc:00:00:01".to_string(), "ens3".to_string())]);
        let out = rename(net.as_object().unwrap(), &macs);
        assert_eq!(out["config"][0]["name"], "ens3");
        assert_eq!(out["config"][1]["name"], "eth1");
        assert!(out["config"][2].get("name").is_none());
    }
}

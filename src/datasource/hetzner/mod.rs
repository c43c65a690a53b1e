//! Hetzner Cloud servers: detected from DMI (`sys_vendor` "Hetzner", ds-identify's test; the
//! system serial is the server id) or named on the command line or alone in the image's
//! `datasource_list`; read from `/hetzner/v1/` at 169.254.169.254 over ember's own DHCP lease
//! when no route goes there, as cloud-init's DataSourceHetzner reads it: `metadata` (YAML),
//! `metadata/private-networks` (YAML) and `userdata` (raw, base64 decoded when it is base64),
//! three requests. Into `InstanceData`: the server id (checked against the serial), host name,
//! public keys, vendor-data, and the metadata's own network-config v1 with the private networks
//! added (network.rs).
//! Not here: the IPv6 link-local address `fe80::a9fe:a9fe%NIC` cloud-init also tries (ember's
//! HTTP client has no scoped addresses; IPv4 answers on every Hetzner server), hotplug.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/hetzner.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::{b64, seed};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use ember_core::sort::IntoMap;
use serde_json::{json, Map, Value};

pub struct Hetzner;

const DEFAULT_BASE: &str = "http://169.254.169.254";
const METADATA: &str = "hetzner/v1/metadata";
const PRIVATE_NETWORKS: &str = "hetzner/v1/metadata/private-networks";
const USERDATA: &str = "hetzner/v1/userdata";
const DEFAULT_RETRIES: u32 = 5;

/// DMI that says Hetzner, with the server id the firmware gives as the system serial.
fn server(dmi: &Dmi) -> Option<Option<String>> {
    (dmi.fields.get("sys_vendor")? == "Hetzner").then(|| {
        let id = dmi.fields.get("product_serial").map(|s| s.trim());
        id.filter(|s| !s.is_empty()).map(str::to_string)
    })
}

impl Datasource for Hetzner {
    fn name(&self) -> &'static str {
        "hetzner"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Hetzner"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        server(dmi).map(|id| {
            let id = id.map_or("no serial".into(), |i| format!("server {i}"));
            format!("sys_vendor=Hetzner ({id})")
        })
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        // cloud-init refuses a Hetzner DMI without the serial: the id cannot be checked.
        let serial = match server(&facts.dmi) {
            Some(None) => {
                let msg = "DMI says Hetzner but gives no system serial (the server id)";
                return Err(Diag::error(Reason::MetadataInvalid, msg).file("dmi: product_serial"));
            }
            Some(Some(serial)) => Some(serial),
            None => None,
        };
        let mut data = InstanceData {
            datasource: "hetzner".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "Hetzner", DEFAULT_BASE, DEFAULT_RETRIES);
        client.reach(env, link, &client.service(env), &mut data, |c, d, _| {
            let md = c.get(METADATA, &mut d.reads)?;
            let private = c.get(PRIVATE_NETWORKS, &mut d.reads);
            let user = c.get(USERDATA, &mut d.reads);
            let files = Files {
                base: &c.base(),
                metadata: &md,
                private,
                user,
            };
            read(env, files, serial.as_deref(), d)
        })?;
        Ok(data)
    }
}

/// What the three GETs brought: the metadata (which must have come), the others maybe.
struct Files<'a> {
    base: &'a str,
    metadata: &'a [u8],
    private: Result<Vec<u8>, Diag>,
    user: Result<Vec<u8>, Diag>,
}

fn read(
    env: &Env,
    files: Files,
    serial: Option<&str>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let shown = |path: &str| crate::fetch::redact_url(&format!("{}/{path}", files.base));
    let md_url = shown(METADATA);
    let doc = seed::parse_mapping_doc(files.metadata, &md_url, env.limits())?;
    let Value::Object(full) = &doc.value else {
        unreachable!("parse_mapping_doc gives a mapping")
    };
    let invalid = |key: &str, msg: &str| {
        Diag::error(Reason::MetadataInvalid, msg.to_string())
            .file(md_url.clone())
            .key(key)
            .line(doc.line_of(key))
    };
    let id = match full.get("instance-id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err(invalid("instance-id", "missing or not a string or number")),
    };
    // cloud-init's guard: the metadata must be this server's.
    if let Some(serial) = serial.filter(|s| *s != id) {
        let msg = format!("the system serial ({serial}) is not the server id of the metadata");
        return Err(invalid("instance-id", &msg));
    }
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(id));
    match full.get("hostname") {
        Some(Value::String(h)) if !h.is_empty() => {
            md.insert("local-hostname".into(), json!(h));
        }
        Some(Value::Number(n)) => {
            md.insert("local-hostname".into(), json!(n.to_string()));
        }
        _ => data
            .diags
            .push(warn(invalid("hostname", "missing or not a string"))),
    }
    md.insert(
        "public-keys".into(),
        full.get("public-keys").cloned().unwrap_or(Value::Null),
    );
    let private = match files.private {
        Ok(body) => network::private_networks(&body, &shown(PRIVATE_NETWORKS), env.limits())
            .unwrap_or_else(|d| {
                data.diags.push(warn(d));
                Vec::new()
            }),
        Err(d) => {
            data.diags.push(warn(d));
            Vec::new()
        }
    };
    md.insert("private-networks".into(), Value::Array(private.clone()));
    match full.get("network-config") {
        Some(Value::Object(cfg)) => {
            md.insert("network-config".into(), Value::Object(cfg.clone()));
            let macs = crate::network::fallback::names_by_mac(env.host);
            let (cfg, diags) = network::config(cfg, &private, &macs);
            data.diags
                .extend(diags.into_iter().map(|d| d.file(md_url.clone())));
            data.network_config =
                Some((format!("hetzner metadata ({md_url}): network-config"), cfg));
            // Lines of the config's keys, so a bad entry is named where the metadata has it.
            data.network_config_lines = doc
                .lines
                .iter()
                .filter_map(|(k, l)| Some((k.strip_prefix("network-config.")?.to_string(), *l)))
                .into_map();
        }
        _ => {
            md.insert("network-config".into(), Value::Null);
            let msg = "no network-config: the fallback network applies";
            data.diags.push(warn(invalid("network-config", msg)));
        }
    }
    match full.get("vendor_data") {
        Some(Value::String(s)) => data.vendor_data = Some(Secret::new(s.clone().into_bytes())),
        None | Some(Value::Null) => {}
        Some(_) => data
            .diags
            .push(warn(invalid("vendor_data", "not a string"))),
    }
    match files.user {
        // Empty (a 204, or nothing in a 200): no user-data.
        Ok(body) => {
            let body = b64::maybe_decode(body);
            data.user_data = (!body.is_empty()).then(|| Secret::new(body));
        }
        Err(d) => data.diags.push(warn(d).key("user-data")),
    }
    data.detail = format!(
        "DataSourceHetzner [{}]",
        crate::fetch::redact_url(files.base)
    );
    data.subplatform = format!("metadata ({md_url})");
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

/// A problem with one file or key, which fails only that.
fn warn(mut d: Diag) -> Diag {
    d.severity = crate::error::Severity::Warning;
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hetzner_by_vendor_with_the_serial() {
        let d = Dmi::from_pairs(&[("sys_vendor", "Hetzner"), ("product_serial", "123456")]);
        assert_eq!(server(&d), Some(Some("123456".into())));
        let bare = Dmi::from_pairs(&[("sys_vendor", "Hetzner")]);
        assert_eq!(server(&bare), Some(None));
        let other = Dmi::from_pairs(&[("sys_vendor", "Hetzner Online GmbH")]);
        assert_eq!(server(&other), None);
        assert_eq!(
            server(&Dmi::from_pairs(&[("board_vendor", "Hetzner")])),
            None
        );
    }
}

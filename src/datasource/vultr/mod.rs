//! Vultr instances: detected as ds-identify does (DMI `sys_vendor` "Vultr", whose system
//! serial is the instance's SUBID; `vultr` as a word on the command line, bare metal's way;
//! the file `/etc/vultr` in the target), or named with `ds=` or alone in `datasource_list`.
//! Read as cloud-init's DataSourceVultr reads it: `/v1.json` at 169.254.169.254 in one request
//! with `Metadata-Token: cloudinit` and a User-Agent naming the OS, over ember's own DHCP lease
//! NIC by NIC (dummies skipped), a lease counting only when its DHCP server routes
//! 169.254.169.254 (Vultr's do; a customer-run server on a private network does not).
//! Into `InstanceData`: `instance-v2-id`, the host name ("guest" when empty), the region,
//! public keys, user-data, vendor-data, and the interfaces as network-config v1 (network.rs).
//! Not here: `startup-script` (cloud-init does not run it either; it is left out of instance
//! data, being a script that may carry secrets), BGP, IPv6-only reach of the service.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/vultr.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::link::METADATA_V4;
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::network::ephemeral::Lease;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use ember_core::sort::IntoMap;
use serde_json::{json, Map, Value};

pub struct Vultr;

const DEFAULT_BASE: &str = "http://169.254.169.254";
const DOCUMENT: &str = "v1.json";
const DEFAULT_RETRIES: u32 = 5;
/// Keys of the document that never go into meta-data: the payloads, kept apart as secrets,
/// and the startup script, which no world-readable copy may hold.
const KEPT_OUT: [&str; 3] = ["user-data", "vendor-data", "startup-script"];

/// DMI that says Vultr, with the SUBID the firmware gives as the system serial.
fn vultr_dmi(dmi: &Dmi) -> Option<String> {
    (dmi.fields.get("sys_vendor")? == "Vultr").then(|| {
        match dmi.fields.get("product_serial").map(|s| s.trim()) {
            Some(id) if !id.is_empty() => format!("sys_vendor=Vultr (SUBID {id})"),
            _ => "sys_vendor=Vultr".into(),
        }
    })
}

impl Datasource for Vultr {
    fn name(&self) -> &'static str {
        "vultr"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Vultr"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        vultr_dmi(dmi)
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, self.dmi(&facts.dmi));
        let add = |ev: &mut Vec<Evidence>, source: &str, detail: &str| {
            ev.push(Evidence {
                source: source.into(),
                detail: detail.into(),
            })
        };
        if env.cmdline.iter().any(|w| w == "vultr") {
            add(&mut ev, "cmdline", "vultr (bare metal)");
        }
        if env.target.as_ref().is_some_and(|t| t.exists("/etc/vultr")) {
            add(&mut ev, "file", "/etc/vultr in the target");
        }
        ev
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "vultr".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "Vultr", DEFAULT_BASE, DEFAULT_RETRIES)
            .header("Metadata-Token", "cloudinit")
            .header("User-Agent", user_agent(env));
        let mut service = client.service(env);
        service.nics.retain(|n| !n.contains("dummy"));
        client.reach(env, link, &service, &mut data, |c, d, via| {
            if let Some(lease) = via.lease {
                routes_metadata(lease)?;
            }
            let doc = c.get_json(DOCUMENT, &mut d.reads)?;
            read(env, doc, &c.url(DOCUMENT), d)
        })?;
        Ok(data)
    }
}

/// cloud-init's `check_route`: Vultr's DHCP servers route 169.254.169.254 (option 121); a
/// lease without that route is a customer's DHCP server, and the metadata is not asked there.
fn routes_metadata(lease: &Lease) -> Result<(), Diag> {
    if lease.routes.iter().any(|r| r.dest == METADATA_V4) {
        return Ok(());
    }
    let msg = format!(
        "the DHCP server ({}) gave no route to {METADATA_V4}: not Vultr's (cloud-init skips such a NIC too)",
        lease.server.map_or("unknown".into(), |s| s.to_string())
    );
    Err(Diag::error(Reason::MetadataUnreachable, msg))
}

/// Vultr tells images apart by the User-Agent (it builds their vendor-data): cloud-init's
/// form, the OS from the target's os-release.
fn user_agent(env: &Env) -> String {
    let os = env
        .target
        .as_ref()
        .and_then(|t| t.read_file("/etc/os-release", 64 * 1024).ok().flatten())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let id = os
        .lines()
        .find_map(|l| l.strip_prefix("ID="))
        .map(|v| v.trim_matches('"').to_string())
        .filter(|v| {
            !v.is_empty()
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        })
        .unwrap_or("linux".into());
    format!(
        "Cloud-Init/ember-{} - OS: Linux Variant: {id}",
        env!("CARGO_PKG_VERSION")
    )
}

fn read(
    env: &Env,
    doc: Map<String, Value>,
    url: &str,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let shown = crate::fetch::redact_url(url);
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
    let Some(id) = doc
        .get("instance-v2-id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        return Err(invalid("missing or not a string".into()).key("instance-v2-id"));
    };
    let id = id.to_string();
    let mut md: Map<String, Value> = doc
        .iter()
        .filter(|(k, _)| !KEPT_OUT.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .into_map();
    md.insert("instance-id".into(), json!(id));
    // A white-label image's empty host name is cloud-init's "guest".
    let host = doc
        .get("hostname")
        .and_then(Value::as_str)
        .unwrap_or_default();
    md.insert(
        "local-hostname".into(),
        json!(if host.is_empty() { "guest" } else { host }),
    );
    let region = doc.get("region").and_then(|r| {
        let code = |k: &str| r.get(k).and_then(Value::as_str);
        code("countrycode").or(code("regioncode"))
    });
    match region {
        Some(r) => {
            md.insert("region".into(), json!(r.to_ascii_lowercase()));
        }
        None => data.diags.push(
            Diag::warning(Reason::MetadataInvalid, "no regioncode or countrycode")
                .file(shown.clone())
                .key("region"),
        ),
    }
    match doc.get("user-data") {
        Some(Value::String(s)) if !s.is_empty() => {
            data.user_data = Some(Secret::new(s.clone().into_bytes()))
        }
        // Vultr sends `[]` for none.
        None | Some(Value::Null | Value::String(_)) => {}
        Some(Value::Array(l)) if l.is_empty() => {}
        Some(_) => data.diags.push(not_a_string(&shown, "user-data")),
    }
    // cloud-init's convert_vendordata: a string, or an object's `cloud-init` string.
    match doc.get("vendor-data") {
        Some(Value::String(s)) if !s.is_empty() => {
            data.vendor_data = Some(Secret::new(s.clone().into_bytes()))
        }
        Some(Value::Object(o)) if o.get("cloud-init").is_some_and(Value::is_string) => {
            let s = o["cloud-init"].as_str().unwrap_or_default();
            data.vendor_data = Some(Secret::new(s.as_bytes().to_vec()));
        }
        None | Some(Value::Null | Value::String(_)) => {}
        Some(Value::Array(l)) if l.is_empty() => {}
        Some(_) => data.diags.push(not_a_string(&shown, "vendor-data")),
    }
    let macs = crate::network::fallback::names_by_mac(env.host);
    let net = match doc.get("cloud_interfaces") {
        Some(Value::Object(cfg)) => {
            network::with_names(cfg, &macs).map(|c| (c, "cloud_interfaces"))
        }
        _ => {
            let list = doc.get("interfaces").and_then(Value::as_array);
            network::generate(list.map_or(&[][..], |l| l), &macs).map(|c| (c, "interfaces"))
        }
    };
    match net {
        Ok((cfg, key)) => data.network_config = Some((format!("vultr metadata: {key}"), cfg)),
        Err(d) => data.diags.push(d.file(shown.clone())),
    }
    data.detail = format!(
        "DataSourceVultr [{}]",
        crate::fetch::redact_url(url.trim_end_matches(DOCUMENT)).trim_end_matches('/')
    );
    data.subplatform = format!("metadata ({shown})");
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

fn not_a_string(file: &str, key: &str) -> Diag {
    Diag::warning(Reason::MetadataInvalid, "not a string: left out")
        .file(file)
        .key(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::ephemeral::packet::Route;
    use std::net::Ipv4Addr;

    #[test]
    fn vultr_by_vendor_with_the_subid() {
        let d = Dmi::from_pairs(&[("sys_vendor", "Vultr"), ("product_serial", "42872224")]);
        assert_eq!(
            vultr_dmi(&d).as_deref(),
            Some("sys_vendor=Vultr (SUBID 42872224)")
        );
        assert!(vultr_dmi(&Dmi::from_pairs(&[("sys_vendor", "Vultr")])).is_some());
        assert!(vultr_dmi(&Dmi::from_pairs(&[("board_vendor", "Vultr")])).is_none());
        assert!(vultr_dmi(&Dmi::from_pairs(&[("sys_vendor", "vultr inc")])).is_none());
    }

    #[test]
    fn only_a_lease_routing_the_metadata_address_counts() {
        let route = |dest: [u8; 4], prefix| Route {
            dest: Ipv4Addr::from(dest),
            prefix,
            gateway: Ipv4Addr::new(10, 0, 0, 1),
        };
        let mut lease = Lease {
            address: Ipv4Addr::new(10, 0, 0, 5),
            prefix: 24,
            routes: vec![route([0, 0, 0, 0], 0)],
            routers: vec![],
            dns: vec![],
            domain: None,
            mtu: None,
            server: Some(Ipv4Addr::new(10, 0, 0, 1)),
            lease_seconds: None,
            site_options: vec![],
            slaac: None,
        };
        let err = routes_metadata(&lease).unwrap_err();
        assert_eq!(err.code, "metadata-unreachable");
        assert!(err.message.contains("10.0.0.1"), "{}", err.message);
        lease.routes.push(route([169, 254, 169, 254], 32));
        assert!(routes_metadata(&lease).is_ok());
    }
}

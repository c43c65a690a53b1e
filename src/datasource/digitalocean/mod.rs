//! DigitalOcean droplets: detected from DMI (`sys_vendor`, the droplet id as the serial) or
//! named on the command line or alone in the image's `datasource_list`; read from
//! `/metadata/v1.json` at 169.254.169.254 in one request, reached as cloud-init reaches it: a
//! random link-local address on the first physical NIC (the droplet's metadata link has no
//! DHCP), unless a route already goes there. Into `InstanceData` as cloud-init's
//! DataSourceDigitalOcean has it: the droplet id, host name, public keys, user-data,
//! vendor-data, and the interfaces as a network-config v1 (digitalocean_network.rs).
//! Not here: floating IPs (DigitalOcean NATs them to the anchor address, which is configured;
//! cloud-init ignores them too), the droplet agent, `use_ip4LL: false`.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/digitalocean.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{json, Map, Value};

pub struct DigitalOcean;

const DEFAULT_BASE: &str = "http://169.254.169.254";
const DOCUMENT: &str = "metadata/v1.json";
const DEFAULT_RETRIES: u32 = 5;

/// DMI that says DigitalOcean, with the droplet id the firmware gives as the system serial,
/// when it does.
fn droplet(dmi: &Dmi) -> Option<Option<String>> {
    (dmi.fields.get("sys_vendor")? == "DigitalOcean").then(|| {
        let id = dmi.fields.get("product_serial").map(|s| s.trim());
        id.filter(|s| !s.is_empty()).map(str::to_string)
    })
}

impl Datasource for DigitalOcean {
    fn name(&self) -> &'static str {
        "digitalocean"
    }
    fn cloud_init_name(&self) -> &'static str {
        "DigitalOcean"
    }

    /// ds-identify's test, `sys_vendor`, with the droplet id when the firmware gives it.
    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        droplet(dmi).map(|id| {
            let id = id.map_or("no droplet id".into(), |i| format!("droplet {i}"));
            format!("sys_vendor=DigitalOcean ({id})")
        })
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "digitalocean".into(),
            ..InstanceData::default()
        };
        // The document: under `ember.metadata-url=`, else the image's `metadata_url`
        // (cloud-init's setting names the document itself), else DigitalOcean's.
        let url = match crate::cmdline::metadata_url(env.cmdline) {
            Some(base) => format!("{}/{DOCUMENT}", base.trim_end_matches('/')),
            None => metadata_get::url(env, "DigitalOcean", "metadata_url", &mut data.diags)
                .unwrap_or_else(|| format!("{DEFAULT_BASE}/{DOCUMENT}")),
        };
        let pause = metadata_get::seconds(env, "DigitalOcean", "wait_retry");
        let client = Client::at(env, "DigitalOcean", &url, DEFAULT_RETRIES).pause(pause);
        let serial = droplet(&facts.dmi).flatten();
        let mut service = client.service(env);
        // cloud-init's way on a droplet: no DHCP, a link-local address on the first NIC.
        service.lease.dhcp = false;
        service.lease.link_local = true;
        by_ifindex(env.host, &mut service.nics);
        service.share = None;
        let result = client.reach(env, link, &service, &mut data, |c, d, _| {
            read(env, c, serial.as_deref(), d)
        });
        result.map(|()| data)
    }
}

/// The NICs by interface index, the lowest (cloud-init's only choice) first.
fn by_ifindex(host: &crate::host::Host, nics: &mut [String]) {
    let index = |n: &String| {
        let path = host.path(&format!("/sys/class/net/{n}/ifindex"));
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.trim().parse::<u32>().unwrap_or(u32::MAX)
    };
    ember_core::sort::sort_by_key(nics, index);
}

fn read(
    env: &Env,
    client: &Client,
    serial: Option<&str>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let doc = client.get_json("", &mut data.reads)?;
    let shown = client.shown("");
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
    let text = |k: &str| match doc.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let Some(id) = text("droplet_id").or(serial.map(str::to_string)) else {
        return Err(invalid("no droplet_id, and no serial in DMI".into()).key("droplet_id"));
    };
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(id));
    md.insert(
        "local-hostname".into(),
        json!(text("hostname").unwrap_or(id.clone())),
    );
    let keys: Vec<&str> = match doc.get("public_keys") {
        Some(Value::Array(l)) => l.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(s)) => vec![s.as_str()],
        _ => Vec::new(),
    };
    md.insert("public-keys".into(), json!(keys));
    md.insert(
        "availability_zone".into(),
        json!(text("region").unwrap_or("default".into())),
    );
    let secret = |k: &str| match doc.get(k) {
        Some(Value::String(s)) => Ok(Some(Secret::new(s.clone().into_bytes()))),
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(Diag::error(Reason::MetadataInvalid, "not a string")
            .file(shown.clone())
            .key(k)),
    };
    for (key, slot) in [
        ("user_data", &mut data.user_data),
        ("vendor_data", &mut data.vendor_data),
    ] {
        match secret(key) {
            Ok(v) => *slot = v,
            Err(d) => data.diags.push(d),
        }
    }
    if let Some(Value::Object(ifaces)) = doc.get("interfaces") {
        md.insert("interfaces".into(), Value::Object(ifaces.clone()));
        let ns: Vec<String> = doc
            .get("dns")
            .and_then(|d| d.get("nameservers"))
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let macs = crate::network::fallback::names_by_mac(env.host);
        match network::convert(ifaces, &ns, &macs) {
            Ok(cfg) => data.network_config = Some(("digitalocean metadata: interfaces".into(), cfg)),
            Err(mac) => data.diags.push(
                Diag::warning(
                    Reason::NicMissing,
                    format!("no interface on this machine has the MAC {mac}: the network config is left to the fallback, as cloud-init does"),
                )
                .file(shown.clone())
                .key("interfaces"),
            ),
        }
    }
    let shown_base = crate::fetch::redact_url(&client.base().replace(DOCUMENT, ""));
    data.detail = format!(
        "DataSourceDigitalOcean [{}]",
        shown_base.trim_end_matches('/')
    );
    data.subplatform = format!("metadata ({shown})");
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digitalocean_by_vendor_with_the_droplet_id() {
        let d = Dmi::from_pairs(&[
            ("sys_vendor", "DigitalOcean"),
            ("product_serial", "2756294"),
        ]);
        assert_eq!(droplet(&d), Some(Some("2756294".into())));
        assert_eq!(
            droplet(&Dmi::from_pairs(&[("sys_vendor", "DigitalOcean")])),
            Some(None)
        );
        assert_eq!(
            droplet(&Dmi::from_pairs(&[("board_vendor", "DigitalOcean")])),
            None
        );
    }
}

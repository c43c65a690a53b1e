//! UpCloud servers: detected from DMI (`sys_vendor` "UpCloud", the system UUID the server's),
//! or `ds=upcloud`, or alone in `datasource_list`. Read as cloud-init's DataSourceUpCloud
//! (its local variant) reads it: `/metadata/v1.json` at 169.254.169.254 in one request, over
//! ember's own DHCP lease on the first NIC when no route goes there. Into `InstanceData`: the
//! instance id (the system UUID when the document has none), host name, public keys, the
//! region as availability zone, user-data, vendor-data, and the `network` as network-config
//! v1 (network.rs).
//! Not here: the `storage` and `tags` of the document beyond meta-data.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/upcloud.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{json, Map, Value};

pub struct UpCloud;

const DEFAULT_BASE: &str = "http://169.254.169.254";
const DOCUMENT: &str = "metadata/v1.json";
const DEFAULT_RETRIES: u32 = 5;

/// DMI that says UpCloud, with the server's UUID.
fn server(dmi: &Dmi) -> Option<Option<String>> {
    (dmi.fields.get("sys_vendor")? == "UpCloud").then(|| {
        let id = dmi
            .fields
            .get("product_uuid")
            .map(|s| s.trim().to_ascii_lowercase());
        id.filter(|s| !s.is_empty())
    })
}

impl Datasource for UpCloud {
    fn name(&self) -> &'static str {
        "upcloud"
    }
    fn cloud_init_name(&self) -> &'static str {
        "UpCloud"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        server(dmi).map(|id| match id {
            Some(id) => format!("sys_vendor=UpCloud (server {id})"),
            None => "sys_vendor=UpCloud".into(),
        })
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        // cloud-init refuses an UpCloud DMI without the UUID.
        let uuid = match server(&facts.dmi) {
            Some(None) => {
                let msg = "DMI says UpCloud but gives no system UUID (the server id)";
                return Err(Diag::error(Reason::MetadataInvalid, msg).file("dmi: product_uuid"));
            }
            other => other.flatten(),
        };
        let mut data = InstanceData {
            datasource: "upcloud".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "UpCloud", DEFAULT_BASE, DEFAULT_RETRIES);
        let service = client.first_nic_service(env);
        client.reach(env, link, &service, &mut data, |c, d, _| {
            let body = c.get(DOCUMENT, &mut d.reads)?;
            read(env, &body, &c.url(DOCUMENT), uuid.as_deref(), d)
        })?;
        Ok(data)
    }
}

fn read(
    env: &Env,
    body: &[u8],
    url: &str,
    uuid: Option<&str>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let shown = crate::fetch::redact_url(url);
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
    let doc = crate::datasource::common::metadata_get::json_object(body, &shown)?;
    let text = |k: &str| doc.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let Some(id) = text("instance_id").or(uuid).map(str::to_string) else {
        return Err(invalid("no instance_id, and no system UUID in DMI".into()).key("instance_id"));
    };
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(id));
    md.insert(
        "local-hostname".into(),
        doc.get("hostname").cloned().unwrap_or(Value::Null),
    );
    md.insert(
        "network".into(),
        doc.get("network").cloned().unwrap_or(Value::Null),
    );
    md.insert(
        "public-keys".into(),
        doc.get("public_keys").cloned().unwrap_or(Value::Null),
    );
    md.insert(
        "availability_zone".into(),
        json!(text("region").unwrap_or("default")),
    );
    for (key, slot) in [
        ("user_data", &mut data.user_data),
        ("vendor_data", &mut data.vendor_data),
    ] {
        match doc.get(key) {
            Some(Value::String(s)) if !s.is_empty() => {
                *slot = Some(Secret::new(s.clone().into_bytes()))
            }
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => data.diags.push(
                Diag::warning(Reason::MetadataInvalid, "not a string: left out")
                    .file(shown.clone())
                    .key(key),
            ),
        }
    }
    match doc.get("network") {
        Some(Value::Object(net)) => {
            let macs = crate::network::fallback::names_by_mac(env.host);
            match network::convert(net, &macs) {
                Ok(cfg) => data.network_config = Some(("upcloud metadata: network".into(), cfg)),
                Err(d) => data.diags.push(d.file(shown.clone())),
            }
        }
        _ => data.diags.push(
            Diag::warning(
                Reason::MetadataInvalid,
                "no network: the fallback network applies",
            )
            .file(shown.clone())
            .key("network"),
        ),
    }
    data.detail = format!(
        "DataSourceUpCloud [{}]",
        crate::fetch::redact_url(url.trim_end_matches(DOCUMENT)).trim_end_matches('/')
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
    fn upcloud_by_vendor_with_the_uuid() {
        let d = Dmi::from_pairs(&[("sys_vendor", "UpCloud"), ("product_uuid", "0012ABCD-0000")]);
        assert_eq!(server(&d), Some(Some("0012abcd-0000".into())));
        assert_eq!(
            server(&Dmi::from_pairs(&[("sys_vendor", "UpCloud")])),
            Some(None)
        );
        assert_eq!(
            server(&Dmi::from_pairs(&[("sys_vendor", "UpCloud Ltd")])),
            None
        );
    }
}

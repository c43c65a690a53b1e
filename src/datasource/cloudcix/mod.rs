//! CloudCIX: detected from DMI `product_name` `CloudCIX` (cloud-init's only test) or named on
//! the command line or alone in the image's `datasource_list`; read from the metadata service
//! at 169.254.169.254 as cloud-init 26 reads it, in two requests: `/v1/metadata` (JSON: the
//! meta-data, its `network` the network config as given) and `/v1/userdata` (base64 decoded
//! when it is base64, else as served). The service is reached over ember's own DHCP lease
//! when no route goes there. Not here: probing for newer metadata versions than v1 (there is
//! none; cloud-init's loop has only v1), and the extra GET cloud-init spends on it.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/cloudcix.html>

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine;
use serde_json::Value;

pub struct CloudCix;

const DEFAULT_BASE: &str = "http://169.254.169.254";
/// cloud-init's CloudCIX retries a read three times.
const DEFAULT_RETRIES: u32 = 3;

impl Datasource for CloudCix {
    fn name(&self) -> &'static str {
        "cloudcix"
    }
    fn cloud_init_name(&self) -> &'static str {
        "CloudCIX"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        (dmi.fields.get("product_name")? == "CloudCIX").then(|| "product_name=CloudCIX".into())
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "cloudcix".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "CloudCIX", DEFAULT_BASE, DEFAULT_RETRIES);
        let result = client.reach(env, link, &client.service(env), &mut data, |c, d, _| {
            let md = c.get("v1/metadata", &mut d.reads)?;
            let ud = c.get("v1/userdata", &mut d.reads)?;
            apply(&md, &ud, &c.base(), d)
        });
        result.map(|()| data)
    }
}

/// The two documents into `data`. `base` names them in diagnostics.
fn apply(md: &[u8], ud: &[u8], base: &str, data: &mut InstanceData) -> Result<(), Diag> {
    let shown = crate::fetch::redact_url(&format!("{base}/v1/metadata")).to_string();
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
    let doc = Value::Object(metadata_get::json_object(md, &shown)?);
    let Some(id) = doc
        .get("instance-id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        return Err(invalid("missing or not a string".into()).key("instance-id"));
    };
    data.instance_id = id.to_string();
    match doc.get("network") {
        Some(net @ Value::Object(_)) => {
            data.network_config = Some((format!("{shown}: network"), net.clone()));
        }
        None | Some(Value::Null) => {}
        Some(_) => data.diags.push(
            Diag::warning(
                Reason::WrongType,
                "must be a mapping: no network config from it",
            )
            .key("network")
            .file(shown.clone()),
        ),
    }
    data.meta_data = doc;
    data.user_data = Some(Secret::new(maybe_base64(ud)));
    let base_shown = crate::fetch::redact_url(base).to_string();
    data.detail = format!("DataSourceCloudCIX [{base_shown}/v1]");
    data.subplatform = format!("metadata ({base_shown}/v1)");
    Ok(())
}

/// cloud-init's `maybe_b64decode`: the decoded bytes when the body is valid base64, else the
/// body as it is.
fn maybe_base64(body: &[u8]) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap_or_else(|_| body.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detected_by_product_name_only() {
        let ds = CloudCix;
        assert!(ds
            .dmi(&Dmi::from_pairs(&[("product_name", "CloudCIX")]))
            .is_some());
        assert!(ds
            .dmi(&Dmi::from_pairs(&[("product_name", "cloudcix")]))
            .is_none());
        assert!(ds
            .dmi(&Dmi::from_pairs(&[("sys_vendor", "CloudCIX")]))
            .is_none());
    }

    #[test]
    fn documents_as_cloud_init_reads_them() {
        let md = json!({"instance-id": "12_34", "local-hostname": "cix",
                        "network": {"version": 2, "ethernets": {}}});
        let mut data = InstanceData::default();
        let ud = b"I2Nsb3VkLWNvbmZpZw==";
        apply(
            md.to_string().as_bytes(),
            ud,
            "http://169.254.169.254",
            &mut data,
        )
        .unwrap();
        assert_eq!(data.instance_id, "12_34");
        assert_eq!(
            data.user_data.unwrap().expose().as_slice(),
            b"#cloud-config"
        );
        assert_eq!(data.network_config.unwrap().1["version"], 2);
        assert_eq!(maybe_base64(b"#!/bin/sh\n"), b"#!/bin/sh\n");
        let err = apply(b"{\"x\": 1}", b"", "http://h", &mut InstanceData::default()).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("instance-id"));
        let err = apply(b"[1", b"", "http://h", &mut InstanceData::default()).unwrap_err();
        assert_eq!(err.code, "metadata-invalid");
    }
}

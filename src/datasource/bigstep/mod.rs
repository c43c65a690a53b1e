//! Bigstep: the image's `/var/lib/cloud/data/seed/bigstep/url` (in the target) names a JSON
//! document, read in one GET as cloud-init's Bigstep datasource reads it: its `metadata` is
//! the meta-data, `userdata_raw` and `vendordata_raw` the user- and vendor-data. The URL is
//! routed (not link-local): when the initramfs has no default route yet, ember takes its own
//! DHCP lease, NIC by NIC, and lets it go afterwards. The URL may carry a token: it is shown
//! redacted and never published. Not here: anything beyond those three keys.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/bigstep.html>

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::Facts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::Value;

pub struct Bigstep;

/// The image's URL file, in cloud-init's cloud dir.
fn url_file() -> String {
    crate::paths::system().cloud("data/seed/bigstep/url")
}
/// cloud-init reads the URL once; 5xx answers get this many more tries here.
const DEFAULT_RETRIES: u32 = 2;
/// cloud-init's instance id when the meta-data has none.
const NO_ID: &str = "iid-datasource";

impl Datasource for Bigstep {
    fn name(&self) -> &'static str {
        "bigstep"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Bigstep"
    }

    /// ds-identify's test: the URL file is there.
    fn detect(&self, env: &Env, _facts: &Facts) -> Vec<Evidence> {
        if !env.target.as_ref().is_some_and(|t| t.exists(&url_file())) {
            return Vec::new();
        }
        vec![Evidence {
            source: "seed-file".into(),
            detail: url_file(),
        }]
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let url = read_url(env)?;
        let shown = crate::fetch::redact_url(&url).to_string();
        let mut data = InstanceData {
            datasource: "bigstep".into(),
            ..InstanceData::default()
        };
        let client = Client::at(env, "Bigstep", &url, DEFAULT_RETRIES);
        let service = client.routed_service(env);
        let result = client.reach(env, link, &service, &mut data, |c, d, _| {
            let body = c.get("", &mut d.reads)?;
            apply(&body, &shown, d)
        });
        result.map(|()| data)
    }
}

/// The URL from its file: one line, http or https.
fn read_url(env: &Env) -> Result<String, Diag> {
    let root = env.target.as_ref().ok_or_else(|| {
        Diag::error(Reason::NoSeed, "no target root to read the URL file from").file(url_file())
    })?;
    let raw = match root.read_file(&url_file(), 8192) {
        Ok(Some(b)) => b,
        Ok(None) => return Err(Diag::error(Reason::NoSeed, "missing").file(url_file())),
        Err(e) => return Err(Diag::from(e).file(url_file())),
    };
    let url = String::from_utf8_lossy(&raw).trim().to_string();
    if !(url.starts_with("http://") || url.starts_with("https://"))
        || url.contains(char::is_whitespace)
    {
        let msg = "not one http(s) URL";
        return Err(Diag::error(Reason::BadValue, msg)
            .file(url_file())
            .line(Some(1)));
    }
    Ok(url)
}

/// The document into `data`: `metadata` must be an object; the two payloads are strings (or
/// null); a payload of another type is left out, named.
fn apply(body: &[u8], shown: &str, data: &mut InstanceData) -> Result<(), Diag> {
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.to_string());
    let doc = Value::Object(metadata_get::json_object(body, shown)?);
    let Some(md) = doc.get("metadata").filter(|m| m.is_object()) else {
        return Err(invalid("missing or not an object".into()).key("metadata"));
    };
    data.instance_id = match md.get("instance-id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => NO_ID.to_string(),
    };
    data.meta_data = md.clone();
    for (key, slot) in [
        ("userdata_raw", &mut data.user_data),
        ("vendordata_raw", &mut data.vendor_data),
    ] {
        match doc.get(key) {
            Some(Value::String(s)) => *slot = Some(Secret::new(s.clone().into_bytes())),
            None | Some(Value::Null) => {}
            Some(_) => data.diags.push(
                Diag::warning(Reason::WrongType, "must be a string: left out")
                    .key(key)
                    .file(shown.to_string()),
            ),
        }
    }
    data.detail = format!("DataSourceBigstep [{shown}]");
    data.subplatform = format!("metadata ({shown})");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn document_as_cloud_init_reads_it() {
        let doc = json!({"metadata": {"instance-id": "bs-1", "local-hostname": "h"},
                         "userdata_raw": "#cloud-config\n", "vendordata_raw": 7});
        let mut data = InstanceData::default();
        apply(doc.to_string().as_bytes(), "http://x/", &mut data).unwrap();
        assert_eq!(data.instance_id, "bs-1");
        assert_eq!(data.meta_data["local-hostname"], "h");
        assert_eq!(
            data.user_data.unwrap().expose().as_slice(),
            b"#cloud-config\n"
        );
        assert!(data.vendor_data.is_none());
        assert_eq!(data.diags[0].key.as_deref(), Some("vendordata_raw"));
        let mut data = InstanceData::default();
        apply(br#"{"metadata": {}}"#, "u", &mut data).unwrap();
        assert_eq!(data.instance_id, NO_ID);
        let err = apply(br#"{"metadata": []}"#, "u", &mut InstanceData::default()).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("metadata"));
    }
}

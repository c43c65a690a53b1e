//! Google Compute Engine: detected from DMI (two fields agreeing) or named on the command line
//! or alone in the image's `datasource_list`; read from the metadata server at
//! 169.254.169.254 in one recursive request with `Metadata-Flavor: Google`, the answer required
//! to carry the same header; through ember's own DHCP lease when no route reaches the server.
//! Into `InstanceData` as cloud-init's DataSourceGCE has it: the instance id, the zone, the
//! host name's first label, the ssh keys (for the default user: gce_keys.rs) and user-data
//! (`user-data-encoding: base64` honoured). Not here: network config (cloud-init uses the
//! fallback on GCE too), the startup script and accounts (the guest agent's), host keys
//! published to guest attributes.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/gce.html>

pub(crate) mod keys;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData, PublicKey};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use base64::Engine as _;
use serde_json::{json, Map, Value};

pub struct Gce;

const DEFAULT_BASE: &str = "http://169.254.169.254";
/// Everything under v1 in one answer: the instance's and the project's attributes included.
const V1: &str = "computeMetadata/v1";
/// The whole tree in one answer, under the v1 tree.
const DOCUMENT: &str = "?recursive=true&alt=json";
const FLAVOR: (&str, &str) = ("Metadata-Flavor", "Google");
const DEFAULT_RETRIES: u32 = 5;

/// DMI that says Google Compute Engine, with why: the product name (cloud-init's test) or a
/// `GoogleCloud-` serial, and a second field agreeing (vendor, BIOS vendor or serial), since
/// any hypervisor can be given one of them.
fn google(dmi: &Dmi) -> Option<String> {
    let field = |f: &str| dmi.fields.get(f).map(String::as_str).unwrap_or("");
    let product = matches!(field("product_name"), "Google Compute Engine" | "Google");
    let serial = field("product_serial").starts_with("GoogleCloud-");
    let signs = [
        ("product_name", product),
        ("sys_vendor", field("sys_vendor") == "Google"),
        ("bios_vendor", field("bios_vendor") == "Google"),
        ("product_serial", serial),
    ];
    let agreeing: Vec<&str> = signs.iter().filter(|s| s.1).map(|s| s.0).collect();
    if !(product || serial) || agreeing.len() < 2 {
        return None;
    }
    let shown: Vec<String> = agreeing[..2]
        .iter()
        .map(|f| format!("{f}={}", field(f)))
        .collect();
    Some(shown.join(" and "))
}

impl Datasource for Gce {
    fn name(&self) -> &'static str {
        "gce"
    }
    fn cloud_init_name(&self) -> &'static str {
        "GCE"
    }
    /// cloud-init's GCE: the network is rendered on every boot.
    fn default_update_events(&self) -> &'static [crate::datasource::events::Event] {
        crate::datasource::events::EVERY_BOOT
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        google(dmi)
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let gce = self
            .dmi(&facts.dmi)
            .map(|why| format!("Google Compute Engine ({why})"));
        crate::datasource::selection_evidence(env, facts, self, gce)
    }

    /// GCE's `user:key` lines, kept in meta-data as cloud-init keeps them.
    fn public_keys(&self, data: &InstanceData) -> Vec<PublicKey> {
        keys::from_meta_data(&data.meta_data)
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "gce".into(),
            ..InstanceData::default()
        };
        // The v1 tree: under `ember.metadata-url=`, else the image's `metadata_url` (cloud-init's
        // setting names the tree itself), else GCE's address.
        let v1 = match crate::cmdline::metadata_url(env.cmdline) {
            Some(base) => format!("{}/{V1}", base.trim_end_matches('/')),
            None => metadata_get::url(env, "GCE", "metadata_url", &mut data.diags)
                .unwrap_or_else(|| format!("{DEFAULT_BASE}/{V1}")),
        };
        let pause = metadata_get::seconds(env, "GCE", "sec_between_retries");
        let client = Client::at(env, "GCE", v1.trim_end_matches('/'), DEFAULT_RETRIES)
            .header(FLAVOR.0, FLAVOR.1)
            .require(FLAVOR)
            .pause(pause);
        let service = client.service(env);
        let result = client.reach(env, link, &service, &mut data, |c, d, _| read(c, d));
        result.map(|()| data)
    }
}

/// The document under the v1 tree.
fn read(client: &Client, data: &mut InstanceData) -> Result<(), Diag> {
    let doc = Value::Object(client.get_json(DOCUMENT, &mut data.reads)?);
    let shown = client.shown(DOCUMENT);
    let (md, user_data, diags) = from_document(&doc).map_err(|key| {
        let msg = "missing or not a string/number: the instance cannot be identified";
        Diag::error(Reason::MetadataInvalid, msg)
            .file(shown.clone())
            .key(key)
    })?;
    data.diags
        .extend(diags.into_iter().map(|d| d.file(shown.clone())));
    data.instance_id = md["instance-id"].as_str().unwrap_or_default().to_string();
    data.meta_data = md;
    data.user_data = user_data;
    let shown = client.shown("");
    let shown_base = shown.strip_suffix(&format!("/{V1}")).unwrap_or(&shown);
    data.detail = format!("DataSourceGCELocal [{shown_base}]");
    data.subplatform = format!("metadata ({shown}/)");
    Ok(())
}

type Parsed = (Value, Option<Secret<Vec<u8>>>, Vec<Diag>);

/// The recursive document into meta-data and user-data; `Err` names the missing key. Pure.
pub fn from_document(doc: &Value) -> Result<Parsed, String> {
    let inst = doc.get("instance").and_then(Value::as_object);
    let scalar = |key: &str| -> Result<String, String> {
        match inst.and_then(|i| i.get(key)) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            // The recursive JSON gives the id as a number.
            Some(Value::Number(n)) => Ok(n.to_string()),
            _ => Err(format!("instance.{key}")),
        }
    };
    let id = scalar("id")?;
    let hostname = scalar("hostname")?;
    let zone = scalar("zone")?;
    let empty = Map::new();
    let attrs = |v: Option<&Value>| v.and_then(|a| a.get("attributes")?.as_object().cloned());
    let i_attrs = attrs(doc.get("instance")).unwrap_or_default();
    let p_attrs = attrs(doc.get("project")).unwrap_or_else(|| empty.clone());
    let zone = zone.rsplit('/').next().unwrap_or_default().to_string();
    // Zones are `us-central1-a`; the region is without the last part.
    let region = zone.rsplit_once('-').map(|(r, _)| r.to_string());
    let lines = keys::key_lines(&i_attrs, &p_attrs);
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(id));
    // cloud-init's host name on GCE: the first label of the long internal name.
    let short = hostname.split('.').next().unwrap_or_default();
    md.insert("local-hostname".into(), json!(short));
    md.insert("availability-zone".into(), json!(zone));
    if let Some(r) = region {
        md.insert("region".into(), json!(r));
    }
    // cloud-init's key: the `user:key` lines, made keys by `public_keys`.
    md.insert(keys::META_KEY.into(), json!(lines));
    let mut diags = Vec::new();
    let user_data = match i_attrs.get("user-data") {
        None => None,
        Some(Value::String(ud)) => {
            let encoding = i_attrs.get("user-data-encoding").and_then(Value::as_str);
            match encoding {
                Some("base64") => {
                    let compact: String = ud.split_whitespace().collect();
                    match base64::engine::general_purpose::STANDARD.decode(compact) {
                        Ok(bytes) => Some(Secret::new(bytes)),
                        Err(_) => {
                            let msg = "user-data-encoding is base64 but the value is not";
                            let d = Diag::error(Reason::UserDataInvalid, msg);
                            diags.push(d.key("instance.attributes.user-data"));
                            None
                        }
                    }
                }
                None | Some("") => Some(Secret::new(ud.clone().into_bytes())),
                Some(_) => {
                    let msg = "unknown user-data-encoding ignored: the user-data is used as is";
                    let d = Diag::warning(Reason::UserDataInvalid, msg);
                    diags.push(d.key("instance.attributes.user-data-encoding"));
                    Some(Secret::new(ud.clone().into_bytes()))
                }
            }
        }
        Some(_) => {
            let d = Diag::error(Reason::UserDataInvalid, "not a string");
            diags.push(d.key("instance.attributes.user-data"));
            None
        }
    };
    Ok((Value::Object(md), user_data, diags))
}

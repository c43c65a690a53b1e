//! Exoscale: detected from DMI `product_name` starting with `Exoscale` (ds-identify's and
//! cloud-init's test), or named on the command line or alone in the image's
//! `datasource_list`; read over ember's own DHCP lease when no route goes to 169.254.169.254,
//! as cloud-init reads it: `user-data` and the EC2-style meta-data tree under API version
//! `1.0` (common/ec2_tree.rs, one request per listing and leaf), then the password server on
//! port 8080 (common/password_server.rs), whose password becomes the default user's as
//! cloud-init sets it (`password`, `chpasswd: {expire: false}`, `ssh_pwauth: true`), held as
//! a `Secret` and handed on only as its crypt hash. The image's `datasource: {Exoscale: …}`
//! settings `metadata_url`, `api_version`, `password_server_port`, `timeout`, `retries` and
//! `max_wait` are honoured. Not here: cloud-init's re-running of `set_passwords` on every
//! boot for a password reset from the console (ember sets a password once per instance).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/exoscale.html>

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::ec2_tree;
use crate::datasource::common::password_server;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;

pub struct Exoscale;

const PRODUCT: &str = "Exoscale";
const DEFAULT_BASE: &str = "http://169.254.169.254";
const API_VERSION: &str = "1.0";
const PASSWORD_PORT: u16 = 8080;
/// cloud-init's `URL_RETRIES`.
const DEFAULT_RETRIES: u32 = 6;

/// The image's settings, with cloud-init's defaults.
struct Settings {
    base: String,
    api: String,
    password_port: u16,
}

fn settings(env: &Env) -> Settings {
    let cfg = env.image.datasource_settings("Exoscale");
    let text = |k: &str| cfg.and_then(|c| c.get(k)).and_then(Value::as_str);
    let base = crate::cmdline::metadata_url(env.cmdline)
        .or(text("metadata_url"))
        .unwrap_or(DEFAULT_BASE);
    let port = cfg
        .and_then(|c| c.get("password_server_port"))
        .and_then(|p| match p {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        });
    Settings {
        base: base.trim_end_matches('/').to_string(),
        api: text("api_version").unwrap_or(API_VERSION).to_string(),
        password_port: port
            .and_then(|p| u16::try_from(p).ok())
            .unwrap_or(PASSWORD_PORT),
    }
}

impl Datasource for Exoscale {
    fn name(&self) -> &'static str {
        "exoscale"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Exoscale"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        let name = dmi.fields.get("product_name")?;
        name.starts_with(PRODUCT)
            .then(|| format!("product_name={name}"))
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "exoscale".into(),
            ..InstanceData::default()
        };
        let s = settings(env);
        let client = Client::at(env, "Exoscale", &s.base, DEFAULT_RETRIES);
        let service = client.service(env);
        let result = client.reach(env, link, &service, &mut data, |c, d, _| read(c, &s, d));
        result.map(|()| data)
    }
}

fn read(client: &Client, s: &Settings, data: &mut InstanceData) -> Result<(), Diag> {
    let mut reads = 0;
    // One GET under the base: 404 is absence.
    let mut get = |path: &str| client.get_optional(path, &mut reads);
    let result = (|| {
        // Over budget, user-data alone is left out: the rest provisions.
        match get(&format!("{}/user-data", s.api)) {
            Ok(ud) => data.user_data = ud.filter(|b| !b.is_empty()).map(Secret::new),
            Err(d) if d.budget.as_deref() == Some("file_bytes") => data.diags.push(d),
            Err(d) => return Err(d),
        }
        let tree = format!("{}/meta-data", s.api);
        ec2_tree::crawl(&mut get, &tree)
    })();
    data.reads += reads;
    let md = result?.unwrap_or(Value::Null);
    let file = crate::fetch::redact_url(&format!("{}/{}/meta-data/", s.base, s.api));
    let Some(id) = md
        .get("instance-id")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
    else {
        return Err(Diag::error(Reason::MetadataInvalid, "no instance-id")
            .file(file)
            .key("instance-id"));
    };
    data.instance_id = id.to_string();
    data.meta_data = md;
    password(client, s, data);
    let base = crate::fetch::redact_url(&s.base);
    data.detail = format!("DataSourceExoscale [{base}]");
    data.subplatform = format!("metadata ({base})");
    Ok(())
}

/// The password server's password into the platform config; a failure is a warning (the
/// instance provisions without it), as cloud-init logs it and goes on.
fn password(client: &Client, s: &Settings, data: &mut InstanceData) {
    let url = password_server::url_on_port(&s.base, s.password_port, &format!("{}/", s.api));
    password_server::apply(client, &url, data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exoscale_by_the_start_of_its_product_name() {
        for (name, found) in [
            ("Exoscale", true),
            ("Exoscale Compute Platform", true),
            ("exoscale", false),
            ("CloudStack KVM Hypervisor", false),
        ] {
            let d = Dmi::from_pairs(&[("product_name", name)]);
            assert_eq!(Exoscale.dmi(&d).is_some(), found, "{name}");
        }
    }
}

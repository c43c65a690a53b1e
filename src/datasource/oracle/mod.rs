//! Oracle Cloud Infrastructure: detected as ds-identify does, by the chassis asset tag
//! `OracleCloud.com` (or named on the command line or alone in the image's
//! `datasource_list`); read from the instance metadata service at 169.254.169.254 over
//! ember's own DHCP lease when no route goes there, as cloud-init does: `/opc/v2/instance/`
//! with `Authorization: Bearer Oracle`, falling back to `/opc/v1/` when v2 does not serve it,
//! then the VNICs document for the network config (network.rs). Two requests in all.
//! Into `InstanceData` as cloud-init's DataSourceOracle has it: the instance id, host name,
//! display name, availability domain, the keys of `metadata.ssh_authorized_keys`, and
//! `metadata.user_data` decoded from base64.
//! iSCSI root (bare metal): the initramfs that mounted the root over iSCSI has configured the
//! network (its klibc `/run/net-*.conf` files say so) and cloud-init keeps that config; ember
//! then gives no network config from the VNICs (ember does not read klibc's files; the
//! command line's `ip=` or the fallback stands) and asks no VNICs.
//! Not here: OCI Classic (an EC2 look-alike, not this datasource), the instance-principal
//! certificates, the IPv6 address of the service (cloud-init does not use it).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/oracle.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData, PublicKey};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine;
use serde_json::{json, Map, Value};

pub struct Oracle;

const ASSET_TAG: &str = "OracleCloud.com";
const DEFAULT_BASE: &str = "http://169.254.169.254";
/// cloud-init's retries of each document: the service may 404 for milliseconds while updated.
const DEFAULT_RETRIES: u32 = 2;
const V2_HEADER: (&str, &str) = ("Authorization", "Bearer Oracle");

impl Datasource for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Oracle"
    }

    /// ds-identify's test: the chassis asset tag, which VMs and bare metal both carry.
    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        (dmi.fields.get("chassis_asset_tag")? == ASSET_TAG)
            .then(|| format!("chassis_asset_tag={ASSET_TAG}"))
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "oracle".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "Oracle", DEFAULT_BASE, DEFAULT_RETRIES);
        let iscsi = iscsi_root(env.host);
        let result = client.reach(env, link, &client.service(env), &mut data, |c, d, _| {
            let at = At {
                client: c,
                base: &c.base(),
            };
            read(env, &at, iscsi, d)
        });
        result.map(|()| data)
    }

    /// cloud-init's `normalize_pubkey_data` of meta-data's `public_keys`.
    fn public_keys(&self, data: &InstanceData) -> Vec<PublicKey> {
        let keys = data.meta_data.get("public_keys").cloned();
        PublicKey::from_meta_data(&json!({"public-keys": keys}))
    }
}

/// The initramfs configured the network to mount an iSCSI root: klibc's ipconfig left its
/// `/run/net-*.conf` (or `net6-*.conf`) behind, which is cloud-init's test too.
fn iscsi_root(host: &crate::host::Host) -> bool {
    let Ok(dir) = std::fs::read_dir(host.path("/run")) else {
        return false;
    };
    dir.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        (name.starts_with("net-") || name.starts_with("net6-")) && name.ends_with(".conf")
    })
}

/// Where the documents are read.
struct At<'a> {
    client: &'a Client,
    base: &'a str,
}

impl At<'_> {
    /// `/opc/v{version}/{doc}/` as JSON, with the v2 header when v2.
    fn get(&self, version: u8, doc: &str, reads: &mut u32) -> Result<Value, Diag> {
        let path = format!("opc/v{version}/{doc}/");
        let v2 = [(V2_HEADER.0.to_string(), V2_HEADER.1.to_string())];
        let headers: &[_] = if version == 2 { &v2 } else { &[] };
        let body = self.client.request_with("GET", &path, headers, reads)?;
        metadata_get::json(&body, &self.client.shown(&path))
    }
}

/// The instance document, by v2 or else v1 as cloud-init falls back: any answer but silence
/// (a 404 or 401 of a service without v2) is worth asking v1.
fn instance(at: &At, reads: &mut u32) -> Result<(u8, Value), Diag> {
    match at.get(2, "instance", reads) {
        Ok(doc) => Ok((2, doc)),
        Err(d) if d.code == Reason::MetadataUnreachable.as_str() => Err(d),
        Err(d) if d.code == Reason::FetchDeadline.as_str() => Err(d),
        // A document that is not JSON was served: cloud-init does not ask v1 then either.
        Err(d) if d.code == Reason::MetadataInvalid.as_str() => Err(d),
        Err(d) if d.code == Reason::NotUtf8.as_str() => Err(d),
        Err(_) => at.get(1, "instance", reads).map(|doc| (1, doc)),
    }
}

fn read(env: &Env, at: &At, iscsi: bool, data: &mut InstanceData) -> Result<(), Diag> {
    let (version, doc) = instance(at, &mut data.reads)?;
    let file = crate::fetch::redact_url(&format!("{}/opc/v{version}/instance/", at.base));
    let invalid = |msg: &str| Diag::error(Reason::MetadataInvalid, msg).file(file.clone());
    let Value::Object(doc) = doc else {
        return Err(invalid("not a JSON object"));
    };
    let text = |k: &str| doc.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let Some(id) = text("id") else {
        return Err(invalid("no instance id").key("id"));
    };
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(id));
    md.insert("launch-index".into(), json!(0));
    for (key, from) in [
        ("availability-zone", "ociAdName"),
        ("local-hostname", "hostname"),
        ("name", "displayName"),
    ] {
        match text(from) {
            Some(v) => drop(md.insert(key.into(), json!(v))),
            None => data.diags.push(
                Diag::warning(
                    Reason::MissingKey,
                    format!("missing or not a string; meta-data {key} left out"),
                )
                .file(file.clone())
                .key(from),
            ),
        }
    }
    if let Some(Value::Object(meta)) = doc.get("metadata") {
        if let Some(keys) = meta.get("ssh_authorized_keys") {
            md.insert("public_keys".into(), keys.clone());
        }
        match meta.get("user_data") {
            None | Some(Value::Null) => {}
            Some(Value::String(b64)) => {
                let b64 = b64.trim();
                match base64::engine::general_purpose::STANDARD.decode(b64) {
                    Ok(bytes) if !bytes.is_empty() => data.user_data = Some(Secret::new(bytes)),
                    Ok(_) => {}
                    Err(_) => data.diags.push(
                        Diag::error(
                            Reason::MetadataInvalid,
                            "not valid base64; user-data left out",
                        )
                        .file(file.clone())
                        .key("metadata.user_data"),
                    ),
                }
            }
            Some(_) => data.diags.push(
                Diag::error(Reason::MetadataInvalid, "not a string; user-data left out")
                    .file(file.clone())
                    .key("metadata.user_data"),
            ),
        }
    }
    // instance-data's `ds` is the instance document, as cloud-init keeps it (`ds.shape`,
    // `ds.canonicalRegionName` for templates), without the user-data.
    for (key, value) in &doc {
        let mut value = value.clone();
        if key == "metadata" {
            value.as_object_mut().map(|m| m.remove("user_data"));
        }
        data.ds.extra.insert(key.clone(), value);
    }
    data.network_config = network_config(env, at, version, iscsi, data);
    let root = crate::fetch::redact_url(&format!("{}/opc/v{version}/", at.base));
    data.detail = format!("DataSourceOracle [{root}]");
    data.subplatform = format!("metadata ({root})");
    data.instance_id = id.to_string();
    data.meta_data = Value::Object(md);
    Ok(())
}

/// The VNICs' network config as cloud-init decides it: none over an iSCSI root (the
/// initramfs's stands), else the primary VNIC, and the secondary ones where the image says
/// `configure_secondary_nics`. A VNICs document that cannot be read is a warning: the
/// fallback network config serves.
fn network_config(
    env: &Env,
    at: &At,
    version: u8,
    iscsi: bool,
    data: &mut InstanceData,
) -> Option<(String, Value)> {
    let secondary = env
        .image
        .datasource_settings("Oracle")
        .and_then(|c| c.get("configure_secondary_nics"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if iscsi {
        if secondary {
            let msg = "the root is on iSCSI and its network is the initramfs's: configure_secondary_nics is not applied (ember does not merge into klibc's config)";
            let d = Diag::warning(Reason::NetworkConfigUnsupported, msg)
                .key("datasource.Oracle.configure_secondary_nics");
            data.diags.push(d);
        }
        return None;
    }
    let vnics = match at.get(version, "vnics", &mut data.reads) {
        Ok(v) => v,
        Err(mut d) => {
            d.severity = Severity::Warning;
            d.message = format!("{}; the network config is left to the fallback", d.message);
            data.diags.push(d);
            return None;
        }
    };
    let file = crate::fetch::redact_url(&format!("{}/opc/v{version}/vnics/", at.base));
    let macs = crate::network::fallback::names_by_mac(env.host);
    let cfg = network::convert(&vnics, secondary, &macs, &file, &mut data.diags)?;
    Some((format!("oracle metadata: {file}"), cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_by_its_chassis_asset_tag() {
        let d = Dmi::from_pairs(&[("chassis_asset_tag", "OracleCloud.com")]);
        assert!(Oracle.dmi(&d).is_some());
        for (field, value) in [
            ("chassis_asset_tag", "oraclecloud.com"),
            ("sys_vendor", "OracleCloud.com"),
            ("chassis_asset_tag", "OracleCloud.com "),
        ] {
            assert!(
                Oracle.dmi(&Dmi::from_pairs(&[(field, value)])).is_none(),
                "{field}={value}"
            );
        }
    }

    #[test]
    fn iscsi_root_by_klibc_files() {
        let dir = std::env::temp_dir().join(format!("ember-oracle-iscsi-{}", std::process::id()));
        let host = crate::host::Host::new(&dir);
        std::fs::create_dir_all(dir.join("run")).unwrap();
        assert!(!iscsi_root(&host));
        std::fs::write(dir.join("run/net-ens3.conf"), "DEVICE=ens3\n").unwrap();
        assert!(iscsi_root(&host));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

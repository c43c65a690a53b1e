//! Akamai Connected Cloud (Linode): detected from DMI (`sys_vendor` "Linode" or "Akamai", the
//! system serial the instance id), or `ds=akamai`, or alone in `datasource_list`. The metadata
//! API as cloud-init's DataSourceAkamai speaks it: `PUT /v1/token` with
//! `Metadata-Token-Expiry-Seconds: 300`, then `GET /v1/instance` (`Accept: application/json`)
//! and `GET /v1/user-data` (base64) with `Metadata-Token`: three requests. Reached at
//! 169.254.169.254 over ember's own DHCP lease on the NIC with a preferred MAC prefix (else
//! the first), or at `[fd00:a9fe:a9fe::1]` when that NIC has no DHCPv4 and comes up by SLAAC;
//! with a network already up, IPv6 first, as cloud-init's init stage. The settings
//! (settings.rs) allow or forbid each way. When the service cannot be reached, or refuses a
//! token, the instance is provisioned from local data only (the serial), as cloud-init does so
//! it is not retried on every boot.
//! Not here: `/v1/network` and `/v1/ssh-keys` (cloud-init reads neither: the network is the
//! fallback, DHCP), an IPv6-only ephemeral network (ember's lease asks DHCPv4 first).
//! <https://techdocs.akamai.com/cloud-computing/docs/overview-of-the-metadata-service>

mod settings;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::{self, Via};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine;
use serde_json::{json, Value};
use settings::Settings;
use std::time::{Duration, Instant};

pub struct Akamai;

const V4_BASE: &str = "http://169.254.169.254";
const V6_BASE: &str = "http://[fd00:a9fe:a9fe::1]";
const TOKEN: &str = "v1/token";
const INSTANCE: &str = "v1/instance";
const USER_DATA: &str = "v1/user-data";
const DEFAULT_RETRIES: u32 = 4;

fn vendor(dmi: &Dmi) -> Option<&str> {
    let v = dmi.fields.get("sys_vendor")?;
    ["Linode", "Akamai"]
        .contains(&v.as_str())
        .then_some(v.as_str())
}

fn serial(dmi: &Dmi) -> Option<String> {
    let s = dmi.fields.get("product_serial")?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

impl Datasource for Akamai {
    fn name(&self) -> &'static str {
        "akamai"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Akamai"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        vendor(dmi).map(|v| match serial(dmi) {
            Some(id) => format!("sys_vendor={v} (instance {id})"),
            None => format!("sys_vendor={v}"),
        })
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let local_id = serial(&facts.dmi);
        let board = facts.dmi.fields.get("board_serial").map(String::as_str);
        let (s, diags) = settings::merge(board, env.image.datasource_settings("Akamai"));
        let mut data = InstanceData {
            datasource: "akamai".into(),
            ..InstanceData::default()
        };
        let client = Client::new(env, "Akamai", V4_BASE, DEFAULT_RETRIES);
        let override_url =
            crate::cmdline::metadata_url(env.cmdline).map(|u| u.trim_end_matches('/').to_string());
        let mut bases = Vec::new();
        if let Some(url) = &override_url {
            bases.push(url.clone());
        } else {
            // cloud-init's order: IPv6 first.
            if s.allow_ipv6 {
                bases.push(V6_BASE.to_string());
            }
            if s.allow_ipv4 {
                bases.push(V4_BASE.to_string());
            }
        }
        let mut service = client.service_to(env, bases.clone());
        let local_stage =
            link::needs_lease(env.host, &[V4_BASE.to_string()]) && override_url.is_none();
        if let Err(why) = allowed(&s, local_stage) {
            let local = local_only(local_id, why, &mut data);
            data.diags.extend(diags);
            return local.map(|()| data);
        }
        service.lease.dhcp = true;
        service.lease.slaac = s.allow_ipv6;
        // One NIC, as cloud-init: the first with a preferred MAC prefix, else the fallback.
        let preferred = crate::network::fallback::names_by_mac(env.host)
            .into_iter()
            .find(|(mac, _)| {
                s.preferred_mac_prefixes
                    .iter()
                    .any(|p| mac.starts_with(p.as_str()))
            })
            .map(|(_, name)| name);
        service.nics = preferred
            .into_iter()
            .chain(service.nics.first().cloned())
            .take(1)
            .collect();
        service.share = None;
        let result = client.reach(env, link, &service, &mut data, |c, d, via| {
            read(
                c,
                &ways(&bases, via, &s),
                via.wait_until,
                local_id.as_deref(),
                d,
            )
        });
        data.diags.extend(diags);
        match result {
            Ok(()) => Ok(data),
            Err(d) if gives_up(&d) => {
                let why = d.message.clone();
                let code = d.code.clone();
                data.diags.push(warning(d));
                local_only(local_id, format!("{why} ({code})"), &mut data).map(|()| data)
            }
            Err(d) => Err(d),
        }
    }
}

/// Whether the settings let ember fetch now: `Err` says why not. ember has cloud-init's
/// local stage only (the initramfs): with a network already up it acts as the init stage.
fn allowed(s: &Settings, local_stage: bool) -> Result<(), String> {
    if (!s.allow_ipv4 && !s.allow_ipv6) || (!s.allow_local_stage && !s.allow_init_stage) {
        return Err("the settings forbid fetching metadata".into());
    }
    if local_stage && !s.allow_local_stage {
        return Err("allow_local_stage is false and no network is up: cloud-init would fetch in its init stage, which ember does not have".into());
    }
    if local_stage && !(s.allow_dhcp && s.allow_ipv4) {
        return Err("without DHCPv4 ember cannot bring up a network (an IPv6-only ephemeral network is not supported)".into());
    }
    if !local_stage && !s.allow_init_stage {
        return Err("allow_init_stage is false and the network is already up".into());
    }
    Ok(())
}

/// Failures after which cloud-init keeps the local data: nothing answered, or no token.
fn gives_up(d: &Diag) -> bool {
    let silent = [
        Reason::MetadataUnreachable,
        Reason::FetchFailed,
        Reason::FetchDeadline,
        Reason::MetadataNotFound,
        Reason::MetadataStatus,
        Reason::DhcpNoNic,
    ];
    silent.iter().any(|r| d.code == r.as_str()) || d.message.starts_with("no network")
}

fn warning(mut d: Diag) -> Diag {
    d.severity = crate::error::Severity::Warning;
    d
}

/// cloud-init's answer when the service cannot be had: the instance id from DMI alone, so the
/// instance is provisioned once (by the image's config) and not looked for on every boot.
fn local_only(id: Option<String>, why: String, data: &mut InstanceData) -> Result<(), Diag> {
    let Some(id) = id else {
        let msg = format!("{why}, and DMI has no system serial to name the instance");
        return Err(Diag::error(Reason::MetadataUnreachable, msg));
    };
    let msg = format!("{why}: the instance is provisioned from local data only (the DMI serial)");
    data.diags
        .push(Diag::warning(Reason::MetadataUnreachable, msg));
    data.meta_data = json!({"instance-id": id});
    data.detail = "DataSourceAkamai [local data only]".into();
    data.subplatform = "dmi (product_serial)".into();
    data.instance_id = id;
    Ok(())
}

/// The bases worth asking over this way: over a SLAAC link the IPv6 one, over a DHCPv4 lease
/// the IPv4 one, over a network already up each in cloud-init's order.
fn ways(bases: &[String], via: &Via, s: &Settings) -> Vec<String> {
    let v6 = |b: &String| b.contains("://[");
    match via.lease {
        None => bases.to_vec(),
        Some(lease) if lease.slaac.is_some() && s.allow_ipv6 => {
            bases.iter().filter(|b| v6(b)).cloned().collect()
        }
        Some(_) => bases.iter().filter(|b| !v6(b)).cloned().collect(),
    }
}

fn read(
    client: &Client,
    bases: &[String],
    wait_until: Instant,
    local_id: Option<&str>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let mut last = Diag::error(
        Reason::MetadataUnreachable,
        "no address of the service may be asked",
    );
    for base in bases {
        // Each way gets its share of the wait, so IPv4 is still tried after a silent IPv6.
        let share =
            wait_until.saturating_duration_since(Instant::now()) / bases.len().max(1) as u32;
        let until = (Instant::now() + share.max(Duration::from_secs(1))).min(wait_until);
        client.set_base(base);
        client.set_wait_until(until);
        match read_at(client, local_id, data) {
            Ok(()) => return Ok(()),
            // Only silence (or no token) moves on to the next address, as in cloud-init.
            Err(d) if gives_up(&d) => last = d,
            Err(d) => return Err(d),
        }
    }
    Err(last)
}

fn read_at(client: &Client, local_id: Option<&str>, data: &mut InstanceData) -> Result<(), Diag> {
    let expiry = [(
        "Metadata-Token-Expiry-Seconds".to_string(),
        "300".to_string(),
    )];
    let token = client.request_with("PUT", TOKEN, &expiry, &mut data.reads)?;
    let token = Secret::new(String::from_utf8_lossy(&token).trim().to_string());
    let auth = ("Metadata-Token".to_string(), token.expose().clone());
    let json_headers = [
        ("Accept".to_string(), "application/json".to_string()),
        auth.clone(),
    ];
    let body = client.request_with("GET", INSTANCE, &json_headers, &mut data.reads)?;
    let shown = client.shown(INSTANCE);
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
    let mut md = metadata_get::json_object(&body, &shown)?;
    let id = match md.get("id") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => match local_id {
            Some(id) => id.to_string(),
            None => return Err(invalid("no id, and no serial in DMI".into()).key("id")),
        },
    };
    md.insert("instance-id".into(), json!(id));
    let auth = std::slice::from_ref(&auth);
    match client.request_with("GET", USER_DATA, auth, &mut data.reads) {
        Ok(raw) if raw.is_empty() => {}
        Ok(raw) => {
            let compact: Vec<u8> = raw
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            match base64::engine::general_purpose::STANDARD.decode(&compact) {
                Ok(decoded) => data.user_data = (!decoded.is_empty()).then(|| Secret::new(decoded)),
                Err(_) => {
                    // cloud-init keeps the text as it came, with a warning.
                    let msg = "not base64: used as it came";
                    let shown = client.shown(USER_DATA);
                    data.diags
                        .push(Diag::warning(Reason::Base64Invalid, msg).file(shown));
                    data.user_data = Some(Secret::new(raw));
                }
            }
        }
        Err(d) => data.diags.push(warning(d)),
    }
    let base = client.shown("");
    data.detail = format!("DataSourceAkamai [{base}]");
    data.subplatform = format!("metadata ({base})");
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linode_or_akamai_by_vendor() {
        let d = Dmi::from_pairs(&[("sys_vendor", "Linode"), ("product_serial", "123")]);
        assert_eq!(
            Akamai.dmi(&d).as_deref(),
            Some("sys_vendor=Linode (instance 123)")
        );
        assert!(Akamai
            .dmi(&Dmi::from_pairs(&[("sys_vendor", "Akamai")]))
            .is_some());
        assert!(Akamai
            .dmi(&Dmi::from_pairs(&[("sys_vendor", "Linode LLC")]))
            .is_none());
    }

    #[test]
    fn the_settings_decide_whether_to_fetch() {
        let all = Settings::default();
        assert!(allowed(&all, true).is_ok() && allowed(&all, false).is_ok());
        let no_local = Settings {
            allow_local_stage: false,
            ..all.clone()
        };
        assert!(allowed(&no_local, true).is_err() && allowed(&no_local, false).is_ok());
        let no_dhcp = Settings {
            allow_dhcp: false,
            ..all.clone()
        };
        assert!(allowed(&no_dhcp, true).is_err() && allowed(&no_dhcp, false).is_ok());
        let none = Settings {
            allow_ipv4: false,
            allow_ipv6: false,
            ..all.clone()
        };
        assert!(allowed(&none, false).is_err());
        let no_init = Settings {
            allow_init_stage: false,
            ..all
        };
        assert!(allowed(&no_init, false).is_err() && allowed(&no_init, true).is_ok());
    }
}

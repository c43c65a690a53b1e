//! Scaleway instances: detected as ds-identify does (DMI `sys_vendor` "Scaleway", `scaleway`
//! as a word on the command line, the file `/var/run/scaleway` Scaleway's initrd leaves), or
//! `ds=scaleway`, or alone in `datasource_list`. Read as cloud-init's DataSourceScaleway reads
//! it: over ember's own DHCPv4 lease on the first NIC (SLAAC when DHCPv4 is silent), the
//! metadata at 169.254.42.42 (`[fd00:42::42]` over IPv6; the image's `metadata_urls` after
//! them): `/conf?format=json`, then `/user_data/cloud-init` and `/vendor_data/cloud-init`
//! from a privileged source port (< 1024: the service's proof the asker is root), the next
//! port when one is held or refused; 404 is "none". Three requests.
//! Into `InstanceData`: the document as meta-data (with `net_in_use`), its `id`, `hostname`,
//! the keys of `ssh_public_keys` and of `AUTHORIZED_KEY=` tags, and the network config
//! (network.rs).
//! Not here: cloud-init's separate reachability probe of each base URL (the document's GET
//! is the probe), hotplug and per-boot network updates.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/scaleway.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::metadata_get;
use crate::datasource::link::Via;
use crate::datasource::{Datasource, InstanceData, Link, PublicKey};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::fetch::{Fetcher, Response};
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::{json, Value};
use std::net::Ipv4Addr;

pub struct Scaleway;

const V4: Ipv4Addr = Ipv4Addr::new(169, 254, 42, 42);
const BASES: [&str; 2] = ["http://169.254.42.42", "http://[fd00:42::42]"];
const CONF: &str = "conf?format=json";
const USER_DATA: &str = "user_data/cloud-init";
const VENDOR_DATA: &str = "vendor_data/cloud-init";
const DEFAULT_RETRIES: u32 = 3;
const KEY_TAG: &str = "AUTHORIZED_KEY=";

impl Datasource for Scaleway {
    fn name(&self) -> &'static str {
        "scaleway"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Scaleway"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        (dmi.fields.get("sys_vendor")? == "Scaleway").then(|| "sys_vendor=Scaleway".into())
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, self.dmi(&facts.dmi));
        let mut add = |source: &str, detail: &str| {
            ev.push(Evidence {
                source: source.into(),
                detail: detail.into(),
            })
        };
        if env.cmdline.iter().any(|w| w == "scaleway") {
            add("cmdline", "scaleway");
        }
        if env.host.path("/var/run/scaleway").exists() {
            add("file", "/var/run/scaleway (left by Scaleway's initrd)");
        }
        ev
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "scaleway".into(),
            ..InstanceData::default()
        };
        let bases = bases(env);
        let client = Client::new(env, "Scaleway", BASES[0], DEFAULT_RETRIES);
        let mut service = client.service_to(env, bases.clone());
        service.lease.metadata = Some(V4);
        // No DHCPv4 on the NIC: an IPv6-only instance, reached by SLAAC.
        service.lease.slaac = true;
        service.nics.truncate(1);
        service.share = None;
        let nic = service.nics.first().cloned();
        let mac = nic
            .as_deref()
            .and_then(|n| crate::network::fallback::mac_of(env.host, n));
        // The privileged source ports' requests: a fetcher of their own.
        let mut ports = Fetcher::with_deadline(env, client.request_timeout(), client.deadline());
        client.reach(env, link, &service, &mut data, |c, d, via| {
            let nic = nic.as_deref().map(|name| network::Nic {
                name,
                mac: mac.as_deref(),
            });
            read(env, c, &mut ports, &bases, via, nic, d)
        })?;
        Ok(data)
    }

    /// cloud-init's `get_public_ssh_keys`: the account's keys and the `AUTHORIZED_KEY=` tags
    /// (their `_` standing for spaces).
    fn public_keys(&self, data: &InstanceData) -> Vec<PublicKey> {
        let md = &data.meta_data;
        let listed = md["ssh_public_keys"].as_array().into_iter().flatten();
        let keys = listed.filter_map(|k| k["key"].as_str()).map(str::to_string);
        let tags = md["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        let tagged = tags
            .filter_map(|t| t.strip_prefix(KEY_TAG))
            .map(|k| k.replace('_', " "));
        keys.chain(tagged)
            .map(|k| PublicKey::for_default_user(&k))
            .collect()
    }
}

/// `ember.metadata-url=`, else cloud-init's two addresses and the image's `metadata_urls`.
fn bases(env: &Env) -> Vec<String> {
    if let Some(url) = crate::cmdline::metadata_url(env.cmdline) {
        return vec![url.trim_end_matches('/').to_string()];
    }
    let mut bases: Vec<String> = BASES.map(String::from).to_vec();
    let cfg = env.image.datasource_settings("Scaleway");
    let more = cfg
        .and_then(|c| c.get("metadata_urls"))
        .and_then(Value::as_array);
    bases.extend(
        more.into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|u| u.trim_end_matches('/').to_string()),
    );
    bases
}

fn read(
    env: &Env,
    client: &Client,
    ports: &mut Fetcher,
    bases: &[String],
    via: &Via,
    nic: Option<network::Nic>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let slaac = via.lease.is_some_and(|l| l.slaac.is_some());
    let v6 = |b: &&String| b.contains("://[");
    // Over a SLAAC link only the IPv6 addresses can answer, over DHCPv4 only the others.
    let usable: Vec<&String> = match via.lease {
        None => bases.iter().collect(),
        Some(_) => bases.iter().filter(|b| v6(b) == slaac).collect(),
    };
    let mut last = Diag::error(
        Reason::MetadataUnreachable,
        "no address of the service to ask",
    );
    for base in usable {
        client.set_base(base);
        let body = match client.get(CONF, &mut data.reads) {
            Ok(body) => body,
            Err(d) if d.code == Reason::MetadataUnreachable.as_str() => {
                last = d;
                continue;
            }
            Err(d) => return Err(d),
        };
        let shown = client.shown(CONF);
        let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(shown.clone());
        let mut md = metadata_get::json_object(&body, &shown)?;
        let Some(id) = md
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            return Err(invalid("missing or not a string".into()).key("id"));
        };
        let id = id.to_string();
        md.insert(
            "net_in_use".into(),
            json!(if slaac { "ipv6" } else { "ipv4" }),
        );
        md.insert("instance-id".into(), json!(id));
        if let Some(h) = md
            .get("hostname")
            .and_then(Value::as_str)
            .map(str::to_string)
        {
            md.insert("local-hostname".into(), json!(h));
        }
        let leased = via.lease.filter(|_| !slaac).map(|l| l.address);
        if let Some(nic) = nic {
            let cfg = network::config(&md, &nic, leased);
            data.network_config = Some(("scaleway metadata: public_ips".into(), cfg));
        }
        for (path, slot) in [
            (USER_DATA, &mut data.user_data),
            (VENDOR_DATA, &mut data.vendor_data),
        ] {
            let url = client.url(path);
            match privileged_get(env, ports, &url, client.retries(), &mut data.reads) {
                Ok(body) => *slot = body.filter(|b| !b.is_empty()).map(Secret::new),
                Err(d) => data.diags.push(d),
            }
        }
        data.detail = format!("DataSourceScaleway [{}]", crate::fetch::redact_url(base));
        data.subplatform = format!("metadata ({shown})");
        data.instance_id = id;
        data.meta_data = Value::Object(md);
        return Ok(());
    }
    Err(last)
}

/// cloud-init's `query_data_api`: one request per privileged source port, 1 up to (not
/// including) `max(retries, 2)`, the next port when one is held, refused, rate-limited or
/// failing; 404 is no data. A failure is a warning naming the URL: the rest provisions.
fn privileged_get(
    env: &Env,
    fetcher: &mut Fetcher,
    url: &str,
    retries: u32,
    reads: &mut u32,
) -> Result<Option<Vec<u8>>, Diag> {
    let shown = crate::fetch::redact_url(url);
    let mut last = String::from("no source port to try");
    for port in 1..retries.max(2) as u16 {
        fetcher.set_source_port(Some(port));
        *reads += 1;
        match fetcher.request("GET", url, &[], env.limits().file_bytes) {
            Ok(Response { status: 200, body }) => return Ok(Some(body)),
            Ok(Response { status: 404, .. }) => return Ok(None),
            Ok(Response { status, .. }) => {
                last = format!("HTTP status {status} from source port {port}")
            }
            Err(e @ crate::fetch::FetchError::TooLarge { .. }) => return Err(e.to_diag(&shown)),
            Err(e) => last = format!("{} (source port {port})", e.reason()),
        }
    }
    let msg = format!("{last}: left out, the rest is used");
    Err(Diag::warning(Reason::FetchFailed, msg).file(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaleway_by_vendor_only() {
        assert!(Scaleway
            .dmi(&Dmi::from_pairs(&[("sys_vendor", "Scaleway")]))
            .is_some());
        assert!(Scaleway
            .dmi(&Dmi::from_pairs(&[("sys_vendor", "Scaleway SAS")]))
            .is_none());
        assert!(Scaleway
            .dmi(&Dmi::from_pairs(&[("board_vendor", "Scaleway")]))
            .is_none());
    }

    #[test]
    fn keys_from_the_account_and_the_tags() {
        let data = InstanceData {
            meta_data: json!({"ssh_public_keys": [{"key": "ssh-ed25519 AAA one", "fingerprint": "x"}],
                "tags": ["web", "AUTHORIZED_KEY=ssh-rsa_BBB_two"]}),
            ..InstanceData::default()
        };
        let keys: Vec<_> = Scaleway
            .public_keys(&data)
            .into_iter()
            .map(|k| k.key)
            .collect();
        assert_eq!(keys, ["ssh-ed25519 AAA one", "ssh-rsa BBB two"]);
    }
}

//! Amazon EC2 and EC2-compatible clouds: detected from DMI (or named on the command line or
//! alone in the image's `datasource_list`), read from the instance metadata service over
//! IMDSv2, reaching it through ember's own DHCP lease when no route does (or, on an IPv6-only
//! subnet, through the kernel's SLAAC and the IPv6 address of the service). Not the whole
//! tree, one request per leaf as cloud-init crawls it: the identity document, instance id,
//! host name, public keys, user-data, the per-MAC network metadata, the block-device-mapping
//! (bdm.rs: `ephemeral0`, `swap` for mounts), and the leaves scripts
//! and templates read (`public-ipv4`, `public-hostname`; `instance-type`, `ami-id`,
//! `local-ipv4`, `placement/availability-zone`, `placement/region` and `mac` only where the
//! identity document or the per-MAC data do not already say them). Those leaves are optional:
//! absent on 404, a warning on any other failure.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/ec2.html>

mod bdm;
mod dmi;
pub mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::ec2_imds::{self as imds, Imds, Settings};
use crate::datasource::link::{Link, Via};
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::network::stack::Stack;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use network::NicMeta;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;

pub struct Ec2;

const DEFAULT_BASES: [&str; 2] = ["http://169.254.169.254", "http://[fd00:ec2::254]"];
const DEFAULT_RETRIES: u32 = 3;
/// Entries of a listing (keys, MACs) read at most: EC2 allows far fewer.
const MAX_ENTRIES: usize = 64;
const MD: &str = "latest/meta-data";

fn settings<'a>(env: &Env<'a>) -> Option<&'a Value> {
    env.image.datasource_settings("Ec2")
}

impl Datasource for Ec2 {
    fn name(&self) -> &'static str {
        "ec2"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Ec2"
    }
    /// cloud-init's EC2: NICs attached later are configured (hotplug).
    fn default_update_events(&self) -> &'static [crate::datasource::events::Event] {
        crate::datasource::events::HOTPLUG
    }

    /// The secondary NICs' policy routing (and `use-routes`) for the stacks that express it:
    /// netplan, as in cloud-init, and networkd, where cloud-init leaves it out only because its
    /// v2 reading has no routing policy. ifupdown and NetworkManager keyfiles cannot say
    /// EC2's rules, which have no priority: left out there, as cloud-init does, rather than
    /// a warning for each that ends a good boot degraded.
    fn network_for_stack<'a>(&self, config: &'a Value, stack: Option<Stack>) -> Cow<'a, Value> {
        match stack {
            Some(Stack::Netplan | Stack::Networkd) => Cow::Borrowed(config),
            _ => Cow::Owned(network::without_policy_routing(config.clone())),
        }
    }

    fn dmi(&self, fields: &Dmi) -> Option<String> {
        dmi::cloud(fields).map(|(_, why)| why)
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let cloud = dmi::cloud(&facts.dmi).map(|(name, why)| format!("{name} ({why})"));
        crate::datasource::selection_evidence(env, facts, self, cloud)
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "ec2".into(),
            // cloud-init's names: AWS, a compatible cloud DMI names, or one it cannot name.
            cloud_name: Some(
                dmi::cloud(&facts.dmi)
                    .map_or("unknown", |(name, _)| name)
                    .into(),
            ),
            ..InstanceData::default()
        };
        let client = imds::client(env, "Ec2", DEFAULT_RETRIES);
        let s = imds_settings(env, facts, &client);
        let mut service = client.service_to(env, s.bases.clone());
        // An IPv6-only subnet: a NIC without DHCPv4 comes up by SLAAC.
        service.lease.slaac = true;
        let result = link.reach(env, &service, &mut data, |attempt, via| {
            read(env, &client, &over(&s, via), attempt)
        });
        result.map(|()| data)
    }
}

/// The service's settings: `ember.metadata-url=` or the image's `metadata_urls`, else EC2's
/// addresses; `max_wait`, `timeout` and `retries` from the image, bounded by ember's limits.
fn imds_settings(env: &Env, facts: &Facts, client: &Client) -> Settings {
    let limits = env.limits();
    let cfg = settings(env);
    let bases = match crate::cmdline::metadata_url(env.cmdline) {
        Some(url) => vec![url.to_string()],
        None => cfg
            .and_then(|c| c.get("metadata_urls"))
            .and_then(Value::as_array)
            .map(|urls| {
                let urls = urls.iter().filter_map(Value::as_str);
                urls.map(str::to_string).collect::<Vec<_>>()
            })
            .filter(|urls| !urls.is_empty())
            .unwrap_or_else(|| DEFAULT_BASES.map(String::from).to_vec()),
    };
    Settings {
        bases,
        wait_until: client.deadline(),
        // AWS, or anything that looks like it, never gets IMDSv1.
        allow_v1: !dmi::ec2_like(&facts.dmi),
        max_bytes: limits.file_bytes,
    }
}

/// The settings for one way to the service: over a SLAAC lease only the IPv6 bases are
/// asked, and no longer than the way's wait.
fn over(s: &Settings, via: &Via) -> Settings {
    let slaac = via.lease.is_some_and(|l| l.slaac.is_some());
    Settings {
        bases: bases_for(&s.bases, slaac),
        wait_until: via.wait_until,
        ..*s
    }
}

/// The bases worth asking over a lease: on a SLAAC link only the IPv6 ones (an IPv4 address
/// has no route there), unless there are none.
fn bases_for(bases: &[String], slaac: bool) -> Vec<String> {
    let v6 = |b: &&String| b.contains("://[");
    match bases.iter().filter(v6).cloned().collect::<Vec<_>>() {
        only_v6 if slaac && !only_v6.is_empty() => only_v6,
        _ => bases.to_vec(),
    }
}

/// Reads everything ember uses into `data`.
fn read(env: &Env, client: &Client, s: &Settings, data: &mut InstanceData) -> Result<(), Diag> {
    let connected = Imds::connect(client, s);
    let mut imds = match connected {
        Ok(imds) => imds,
        Err(e) => return Err(e.diag()),
    };
    let result = read_from(env, &mut imds, data);
    data.reads += imds.reads;
    result.map_err(|e| e.diag())
}

const IDENTITY: &str = "latest/dynamic/instance-identity/document";

/// The identity document, which must be a JSON object; else a warning naming `file` and why
/// (not UTF-8 by the offset of its first invalid byte, never the content), and the document
/// is not used: what it would say (zone, region, type, image, address) is read from the
/// meta-data leaves, as on a cloud without one.
fn identity_document(doc: &[u8], file: String) -> Result<Value, Diag> {
    let unused = "not used: the meta-data leaves are read instead";
    if let Some(why) = crate::datasource::common::metadata_get::not_utf8(doc) {
        return Err(Diag::warning(Reason::NotUtf8, format!("{why}; {unused}")).file(file));
    }
    match serde_json::from_slice::<Value>(doc) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => {
            let msg = format!("not a JSON object; {unused}");
            Err(Diag::warning(Reason::MetadataInvalid, msg).file(file))
        }
    }
}

fn text(body: Vec<u8>) -> String {
    String::from_utf8_lossy(&body).trim().to_string()
}

/// A listing's entries (`0=my-key`, `0a:…:01/`), at most `MAX_ENTRIES`.
fn entries(body: Vec<u8>) -> Vec<String> {
    let t = text(body);
    let lines = t.lines().map(str::trim).filter(|l| !l.is_empty());
    lines.take(MAX_ENTRIES).map(str::to_string).collect()
}

fn read_from(env: &Env, imds: &mut Imds, data: &mut InstanceData) -> Result<(), imds::Error> {
    let mut md = Map::new();
    let identity = imds.get(IDENTITY)?.and_then(|doc| {
        let file = format!("{}/{IDENTITY}", crate::fetch::redact_url(imds.base()));
        identity_document(&doc, file)
            .map_err(|d| data.diags.push(d))
            .ok()
    });
    let id = imds.get(&format!("{MD}/instance-id"))?.map(text);
    let from_doc = |key: &str| identity.as_ref()?.get(key)?.as_str().map(str::to_string);
    let Some(id) = id
        .filter(|i| !i.is_empty())
        .or_else(|| from_doc("instanceId"))
    else {
        return Err(imds::Error::Status {
            path: format!("{}/{MD}/instance-id", imds.base()),
            status: 404,
        });
    };
    md.insert("instance-id".into(), json!(id));
    match imds.get(&format!("{MD}/local-hostname"))? {
        Some(h) => md.insert("local-hostname".into(), json!(text(h))),
        // Only when there is no local name: `hostname` is not used otherwise.
        None => imds
            .get(&format!("{MD}/hostname"))?
            .and_then(|h| md.insert("hostname".into(), json!(text(h)))),
    };
    // cloud-init's zone and region on AWS: the identity document's, else the zone from
    // placement and the region without its last letter.
    let zone = from_doc("availabilityZone");
    data.region = from_doc("region");
    // The leaves scripts and templates read (`ds.meta_data.local_ipv4`). Where the identity
    // document already says the same, it is not asked again.
    let leaves = [
        ("instance-type", from_doc("instanceType")),
        ("ami-id", from_doc("imageId")),
        ("local-ipv4", from_doc("privateIp")),
        ("public-ipv4", None),
        ("public-hostname", None),
        // Which user-data parts are this instance's (`launch-index`, `Launch-Index`).
        ("ami-launch-index", None),
    ];
    for (leaf, known) in leaves {
        let value = known.or_else(|| optional(imds, data, leaf));
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            md.insert(leaf.into(), json!(v));
        }
    }
    let zone = zone.or_else(|| optional(imds, data, "placement/availability-zone"));
    let zone = zone.filter(|z| !z.is_empty());
    // The region as the service says it, else the zone without its last letter.
    if data.region.is_none() {
        let said = optional(imds, data, "placement/region").filter(|r| !r.is_empty());
        let derived = zone.as_deref().and_then(|z| z.get(..z.len() - 1));
        data.region = said.or_else(|| derived.map(str::to_string));
    }
    data.availability_zone = zone.clone();
    // cloud-init's crawled tree has both under `placement`.
    let mut placement = Map::new();
    if let Some(z) = zone {
        placement.insert("availability-zone".into(), json!(z));
    }
    if let Some(r) = &data.region {
        placement.insert("region".into(), json!(r));
    }
    if !placement.is_empty() {
        md.insert("placement".into(), Value::Object(placement));
    }
    let keys = public_keys(imds)?;
    if !keys.is_empty() {
        md.insert("public-keys".into(), Value::Object(keys));
    }
    // The ephemeral and swap disks, for mounts and disk_setup (bdm.rs).
    let mapping = bdm::read(imds, data);
    if !mapping.is_empty() {
        let aliases = bdm::aliases(env.host, &mapping);
        if !aliases.is_empty() {
            data.config = Some(json!({ "device_aliases": aliases }));
        }
        md.insert("block-device-mapping".into(), Value::Object(mapping));
    }
    // Over budget, user-data alone is left out (RELIABILITY rule 8): the rest provisions.
    data.user_data = match imds.get("latest/user-data") {
        Err(e) if e.too_large() => {
            data.diags.push(e.diag());
            None
        }
        other => other?.map(Secret::new),
    };
    let macs = nics(imds)?;
    if !macs.is_empty() {
        let full = settings(env)
            .and_then(|c| c.get("apply_full_imds_network_config"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let names = crate::network::fallback::names_by_mac(env.host);
        let cfg = network::convert(&network::on_this_host(&macs, &names), &names, full);
        data.network_config = Some(("ec2 metadata: network/interfaces/macs".into(), cfg));
        // The instance's `mac` is its device 0's.
        let primary = macs.iter().find(|(_, m)| m.device_number == Some(0));
        if let Some((mac, _)) = primary {
            md.insert("mac".into(), json!(mac));
        }
        md.insert(
            "network".into(),
            json!({"interfaces": {"macs": macs_json(&macs)}}),
        );
    }
    let base = crate::fetch::redact_url(imds.base());
    let version = if imds.v2() { "IMDSv2" } else { "IMDSv1" };
    data.detail = format!("DataSourceEc2 [{base}][{version}]");
    data.subplatform = format!("metadata ({base})");
    if !md.contains_key("mac") {
        if let Some(mac) = optional(imds, data, "mac") {
            md.insert("mac".into(), json!(mac));
        }
    }
    if let Some(doc) = identity {
        let dynamic = json!({"instance-identity": {"document": doc}});
        data.ds.extra.insert("dynamic".into(), dynamic);
    }
    // cloud-init keeps EC2's tree as crawled: `ds["meta-data"]`.
    data.ds.crawled = true;
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

/// A meta-data leaf the instance can do without (`public-ipv4` is absent without a public
/// address): 404 is absence, any other failure a warning naming the leaf, never the
/// datasource's failure.
fn optional(imds: &mut Imds, data: &mut InstanceData, leaf: &str) -> Option<String> {
    match imds.get(&format!("{MD}/{leaf}")) {
        Ok(body) => body.map(text),
        Err(e) => {
            let mut diag = e.diag();
            diag.severity = crate::error::Severity::Warning;
            diag.message = format!("meta-data leaf {leaf} left out: {}", diag.message);
            data.diags.push(diag);
            None
        }
    }
}

/// `public-keys/` lists `N=name`; each key is at `public-keys/N/openssh-key`. In meta-data as
/// cloud-init has them: `{name: [key, …]}`.
fn public_keys(imds: &mut Imds) -> Result<Map<String, Value>, imds::Error> {
    let mut out = Map::new();
    let Some(list) = imds.get(&format!("{MD}/public-keys/"))? else {
        return Ok(out);
    };
    for entry in entries(list) {
        let (index, name) = entry.split_once('=').unwrap_or((&entry, &entry));
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Some(key) = imds.get(&format!("{MD}/public-keys/{index}/openssh-key"))? {
            let keys: Vec<Value> = text(key).lines().map(|l| json!(l.trim())).collect();
            out.insert(name.to_string(), Value::Array(keys));
        }
    }
    Ok(out)
}

/// The per-MAC metadata ember uses, by lowercase MAC.
fn nics(imds: &mut Imds) -> Result<BTreeMap<String, NicMeta>, imds::Error> {
    let mut out = BTreeMap::new();
    let dir = format!("{MD}/network/interfaces/macs");
    let Some(list) = imds.get(&format!("{dir}/"))? else {
        return Ok(out);
    };
    for entry in entries(list) {
        let mac = entry.trim_end_matches('/').to_ascii_lowercase();
        let ok = mac.len() == 17
            && mac.bytes().enumerate().all(|(i, b)| {
                if i % 3 == 2 {
                    b == b':'
                } else {
                    b.is_ascii_hexdigit()
                }
            });
        if !ok {
            continue;
        }
        let mut get = |key: &str| -> Result<Vec<String>, imds::Error> {
            let body = imds.get(&format!("{dir}/{mac}/{key}"))?;
            Ok(body.map(entries).unwrap_or_default())
        };
        let number = |v: Vec<String>| v.first().and_then(|n| n.parse().ok());
        let mut nic = NicMeta {
            device_number: number(get("device-number")?),
            network_card: number(get("network-card")?),
            local_ipv4s: get("local-ipv4s")?,
            subnet_ipv4: get("subnet-ipv4-cidr-block")?.into_iter().next(),
            ipv6s: get("ipv6s")?,
            subnet_ipv6s: Vec::new(),
        };
        // The IPv6 subnets serve only a NIC that has IPv6 addresses.
        if !nic.ipv6s.is_empty() {
            nic.subnet_ipv6s = get("subnet-ipv6-cidr-blocks")?;
        }
        out.insert(mac, nic);
    }
    Ok(out)
}

/// The network metadata in meta-data as cloud-init keeps it: one value a string, several a list.
fn macs_json(macs: &BTreeMap<String, NicMeta>) -> Value {
    let val = |v: &[String]| match v {
        [one] => json!(one),
        many => json!(many),
    };
    let mut out = Map::new();
    for (mac, m) in macs {
        let mut e = Map::new();
        e.insert("mac".into(), json!(mac));
        if let Some(n) = m.device_number {
            e.insert("device-number".into(), json!(n.to_string()));
        }
        if let Some(n) = m.network_card {
            e.insert("network-card".into(), json!(n.to_string()));
        }
        if !m.local_ipv4s.is_empty() {
            e.insert("local-ipv4s".into(), val(&m.local_ipv4s));
        }
        if let Some(s) = &m.subnet_ipv4 {
            e.insert("subnet-ipv4-cidr-block".into(), json!(s));
        }
        if !m.ipv6s.is_empty() {
            e.insert("ipv6s".into(), val(&m.ipv6s));
        }
        if !m.subnet_ipv6s.is_empty() {
            e.insert("subnet-ipv6-cidr-blocks".into(), val(&m.subnet_ipv6s));
        }
        out.insert(mac.clone(), Value::Object(e));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slaac_link_is_asked_at_the_ipv6_bases() {
        let all = DEFAULT_BASES.map(String::from).to_vec();
        assert_eq!(bases_for(&all, true), ["http://[fd00:ec2::254]"]);
        assert_eq!(bases_for(&all, false), all);
        let v4 = vec!["http://10.0.0.1:8080".to_string()];
        assert_eq!(bases_for(&v4, true), v4);
    }

    #[test]
    fn identity_documents_that_are_not_utf8_are_named_and_not_used() {
        let file = "http://169.254.169.254/latest/dynamic/instance-identity/document";
        let good = br#"{"region": "eu-west-1", "availabilityZone": "eu-west-1a"}"#;
        assert_eq!(
            identity_document(good, file.into()).unwrap()["region"],
            "eu-west-1"
        );
        // Invalid bytes inside a string, outside one, a lone continuation byte, Latin-1.
        for doc in [
            &b"{\"region\": \"eu-\xff-1\", \"accountId\": \"SECRET-1\"}"[..],
            b"{\"region\": \"eu-west-1\"}\x80",
            b"\xc3{\"accountId\": \"SECRET-1\"}",
            b"{\"region\": \"S\xe3o Paulo\"}",
        ] {
            let d = identity_document(doc, file.into()).unwrap_err();
            assert_eq!(d.code, "not-utf8", "{d:?}");
            assert!(!d.is_error(), "a warning: {d:?}");
            assert_eq!(d.file.as_deref(), Some(file));
            assert!(d.message.contains("offset") && d.message.contains("not used"));
            assert!(
                !d.message.contains("SECRET") && !d.message.contains("eu-"),
                "{d:?}"
            );
        }
        let d = identity_document(b"[1]", file.into()).unwrap_err();
        assert_eq!(d.code, "metadata-invalid");
    }

    #[test]
    fn listings_are_bounded() {
        let body = (0..100).map(|i| format!("{i}=k{i}\n")).collect::<String>();
        assert_eq!(entries(body.into_bytes()).len(), MAX_ENTRIES);
        assert_eq!(entries(b"\n a \n\n".to_vec()), ["a"]);
    }
}

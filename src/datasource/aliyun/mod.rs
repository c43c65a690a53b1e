//! Alibaba Cloud ECS (AliYun): detected from DMI `product_name` `Alibaba Cloud ECS`, as
//! ds-identify and cloud-init do (cloud-init reads nothing elsewhere, even when named: neither
//! does ember); read from the EC2-style metadata service at 100.100.100.200, over ember's own
//! DHCP lease when no route goes there, in cloud-init's way: a token from `PUT
//! /latest/api/token` (`X-aliyun-ecs-metadata-token-ttl-seconds`, EC2's IMDSv2 under AliYun's
//! header names: ec2/imds.rs speaks it), then under API version 2016-01-01 `user-data`,
//! `vendor-data` and the whole meta-data as one JSON document `meta-data/all` (the tree
//! crawled leaf by leaf only where that document is missing: common/ec2_tree.rs). Four requests.
//! Into `InstanceData`: meta-data as served (instance id, `hostname`, `public-keys`, the
//! per-MAC `network`), user-data, vendor-data, and the network config cloud-init builds
//! from the per-MAC data (network.rs), rendered again on every boot as cloud-init's AliYun
//! asks (`updates.network.when: [boot-new-instance, boot]`). A service that gives no token gives nothing, as in
//! cloud-init (ECS always answers the PUT). Not here: the ECS RAM role credentials.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/aliyun.html>

mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::ec2_imds::{self as imds, Imds, Settings, TokenHeaders};
use crate::datasource::common::ec2_tree as tree;
use crate::datasource::link::{Link, Via};
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;
use std::net::Ipv4Addr;

pub struct AliYun;

const PRODUCT: &str = "Alibaba Cloud ECS";
const ADDRESS: Ipv4Addr = Ipv4Addr::new(100, 100, 100, 200);
/// cloud-init's `min_metadata_version`: the dated API it reads.
const VERSION: &str = "2016-01-01";
const DEFAULT_RETRIES: u32 = 5;
/// AliYun's names for EC2's token headers ("security hardening mode").
const TOKEN: TokenHeaders = TokenHeaders {
    ttl: "X-aliyun-ecs-metadata-token-ttl-seconds",
    token: "X-aliyun-ecs-metadata-token",
};

impl Datasource for AliYun {
    fn name(&self) -> &'static str {
        "aliyun"
    }
    fn cloud_init_name(&self) -> &'static str {
        "AliYun"
    }
    /// cloud-init's AliYun renders the network again on every boot (NICs can be attached to
    /// a stopped instance); the image or user-data can still say otherwise.
    fn default_update_events(&self) -> &'static [crate::datasource::events::Event] {
        crate::datasource::events::EVERY_BOOT
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        (dmi.fields.get("product_name")? == PRODUCT).then(|| format!("product_name={PRODUCT}"))
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        if self.dmi(&facts.dmi).is_none() {
            let msg = format!("DMI product_name is not {PRODUCT}: cloud-init reads AliYun's metadata only there, and so does ember");
            return Err(Diag::error(Reason::NoDatasource, msg));
        }
        let mut data = InstanceData {
            datasource: "aliyun".into(),
            ..InstanceData::default()
        };
        let base = settings_base(env);
        let client = imds::client(env, "AliYun", DEFAULT_RETRIES);
        let mut service = client.service_to(env, vec![base.clone()]);
        service.lease.metadata = Some(ADDRESS);
        let s = Settings {
            bases: vec![base],
            wait_until: client.deadline(),
            allow_v1: false,
            max_bytes: env.limits().file_bytes,
        };
        let result = link.reach(env, &service, &mut data, |d, via| {
            read(env, &client, &s, via, d)
        });
        result.map(|()| data)
    }
}

/// `ember.metadata-url=`, else the image's first `metadata_urls`, else AliYun's address.
fn settings_base(env: &Env) -> String {
    let configured = env
        .image
        .datasource_settings("AliYun")
        .and_then(|c| c.get("metadata_urls"))
        .and_then(Value::as_array)
        .and_then(|l| l.first())
        .and_then(Value::as_str);
    let base = crate::cmdline::metadata_url(env.cmdline)
        .or(configured)
        .map_or_else(|| format!("http://{ADDRESS}"), str::to_string);
    base.trim_end_matches('/').to_string()
}

fn read(
    env: &Env,
    client: &Client,
    s: &Settings,
    via: &Via,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let s = Settings {
        bases: s.bases.clone(),
        wait_until: via.wait_until,
        ..*s
    };
    let mut imds = match Imds::connect_with(client, &s, &TOKEN) {
        Ok(imds) => imds,
        Err(imds::Error::TokenRefused { base, status }) => {
            let msg = format!("the metadata service refused a token (HTTP {status}); AliYun is read only with one, as cloud-init does");
            let d =
                Diag::error(Reason::ImdsTokenRefused, msg).file(crate::fetch::redact_url(&base));
            return Err(d);
        }
        Err(e) => return Err(e.diag()),
    };
    let result = read_from(env, &mut imds, data);
    data.reads += imds.reads;
    result.map_err(|e| e.diag())
}

fn read_from(env: &Env, imds: &mut Imds, data: &mut InstanceData) -> Result<(), imds::Error> {
    // 404 is no user-data, as cloud-init skips it; too large is that key's failure alone.
    for (item, slot) in [
        ("user-data", &mut data.user_data),
        ("vendor-data", &mut data.vendor_data),
    ] {
        match imds.get(&format!("{VERSION}/{item}")) {
            Ok(body) => *slot = body.filter(|b| !b.is_empty()).map(Secret::new),
            Err(e) if e.too_large() => data.diags.push(e.diag()),
            Err(e) => return Err(e),
        }
    }
    let base = crate::fetch::redact_url(imds.base());
    let all = format!("{VERSION}/meta-data/all");
    let mut not_utf8_at = None;
    let md = match imds.get(&all)?.map(|b| {
        not_utf8_at = crate::datasource::common::metadata_get::not_utf8(&b);
        serde_json::from_slice::<Value>(&b)
    }) {
        Some(Ok(v @ Value::Object(_))) => tree::decode_all(v),
        found => {
            if let Some(found) = found {
                let instead = "the meta-data tree is crawled instead, as cloud-init does";
                // serde_json refuses invalid UTF-8: say so, by offset, rather than "not JSON".
                let (code, why) = match found.as_ref().err().and(not_utf8_at.take()) {
                    Some(why) => (Reason::NotUtf8, why),
                    None => (Reason::MetadataInvalid, "not a JSON object".to_string()),
                };
                data.diags.push(
                    Diag::warning(code, format!("{why}; {instead}")).file(format!("{base}/{all}")),
                );
            }
            tree::crawl(&mut |p: &str| imds.get(p), &format!("{VERSION}/meta-data"))?
                .unwrap_or(Value::Null)
        }
    };
    let file = format!("{base}/{VERSION}/meta-data");
    let Some(id) = md
        .get("instance-id")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
    else {
        return Err(imds::Error::Status {
            path: format!("{file}/instance-id"),
            status: 404,
        });
    };
    data.instance_id = id.to_string();
    if let Some(net) = md.get("network") {
        match net
            .get("interfaces")
            .and_then(|i| i.get("macs"))
            .and_then(Value::as_object)
        {
            Some(macs) => {
                let full = env
                    .image
                    .datasource_settings("AliYun")
                    .and_then(|c| c.get("apply_full_imds_network_config"))
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let names = crate::network::fallback::names_by_mac(env.host);
                let candidates = crate::network::ephemeral::fallback_candidates(env.host);
                let cfg =
                    network::convert(macs, &names, candidates.first().map(String::as_str), full);
                data.network_config =
                    Some(("aliyun metadata: network/interfaces/macs".into(), cfg));
            }
            None => data.diags.push(
                Diag::warning(
                    Reason::MetadataInvalid,
                    "no interfaces.macs mapping; the network config is left to the fallback",
                )
                .file(file.clone())
                .key("network"),
            ),
        }
    }
    data.detail = format!("DataSourceAliYun [{base}]");
    data.subplatform = format!("metadata ({base})");
    // cloud-init keeps the crawl as `ds["meta-data"]`.
    data.ds.crawled = true;
    data.meta_data = md;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliyun_by_its_product_name_only() {
        let d = Dmi::from_pairs(&[("product_name", "Alibaba Cloud ECS")]);
        assert!(AliYun.dmi(&d).is_some());
        for (field, value) in [
            ("product_name", "Alibaba Cloud"),
            ("sys_vendor", "Alibaba Cloud ECS"),
            ("product_name", "alibaba cloud ecs"),
        ] {
            assert!(
                AliYun.dmi(&Dmi::from_pairs(&[(field, value)])).is_none(),
                "{field}"
            );
        }
    }
}

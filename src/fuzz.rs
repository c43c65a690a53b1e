//! Entry points for the fuzz targets (fuzz/fuzz_targets/, cargo-fuzz on nightly) and for
//! their corpus replay on stable (tests/library/fuzz_replay.rs): each takes arbitrary bytes and runs
//! a parser the way ember runs it on untrusted input. Results are dropped: only a panic, a
//! hang or a runaway allocation is a finding. Not part of ember's behaviour.
#![doc(hidden)]

use crate::disk::io::Mem;
use crate::fetch::{FetchError, UrlReader};
use crate::limits::Limits;
use std::collections::BTreeMap;
use std::io::Cursor;

/// A target: the name of its fuzz/fuzz_targets file and fuzz/seeds directory, and its entry.
pub type Target = (&'static str, fn(&[u8]));

/// Every target.
pub const TARGETS: &[Target] = &[
    ("cmdline", cmdline),
    ("cloud_config", cloud_config),
    ("userdata", userdata),
    ("network_config", network_config),
    ("network_data_json", network_data_json),
    ("seedfs", seedfs),
    ("disk_table", disk_table),
    ("dhcp_packet", crate::network::ephemeral::packet::fuzz),
    ("dhcp6_packet", crate::network::ephemeral::dhcp6::fuzz),
    ("proc_ipv6", crate::network::ephemeral::slaac::fuzz),
    ("ovf_env", ovf_env),
    ("http_response", crate::fetch::fuzz_response),
    ("dns_answer", crate::fetch::fuzz_dns),
    #[cfg(any(
        feature = "ds-aliyun",
        feature = "ds-exoscale",
        feature = "ds-cloudstack"
    ))]
    ("metadata_tree", crate::datasource::common::ec2_tree::fuzz),
];

/// The kernel command line and everything ember reads from it.
pub fn cmdline(data: &[u8]) {
    use crate::cmdline as c;
    let params = c::split(&String::from_utf8_lossy(data));
    let _ = (
        c::toggle(&params),
        c::ds_hint(&params),
        c::metadata_url(&params),
    );
    let _ = (
        c::metadata_timeout_ms(&params),
        c::inline_cloud_config(&params),
    );
    let _ = c::network_config(&params);
    let _ = crate::network::parse("fuzz", crate::network::Input::Cmdline(&params));
}

/// A cloud-config document: YAML 1.1 under the default budgets, then `schema`'s checks and
/// its annotated copy, as user-data and as image config.
pub fn cloud_config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let limits = Limits::default();
    let _ = crate::yaml::parse(&text, &limits);
    for kind in [
        crate::schema::Kind::UserData,
        crate::schema::Kind::ImageConfig,
    ] {
        let report = crate::schema::check(&text, kind, &limits);
        let _ = crate::schema::annotate::annotate(&text, &report, &limits);
    }
}

struct NoUrls;

impl UrlReader for NoUrls {
    fn read(&self, url: &str, _max: u64) -> Result<Vec<u8>, FetchError> {
        Err(FetchError::NotFound { url: url.into() })
    }
}

/// User-data as the local stage processes it: MIME, gzip, includes (never fetched here),
/// Jinja, cloud-config, under the default budgets.
pub fn userdata(data: &[u8]) {
    let limits = Limits::default();
    let parse = |text: &str| crate::yaml::parse(text, &limits);
    let instance_data = serde_json::json!({"v1": {"instance_id": "i-fuzz"}});
    let ctx = crate::userdata::Context {
        limits: &limits,
        urls: &NoUrls,
        parse_yaml: &parse,
        instance_data: &instance_data,
        once_cache: &crate::userdata::NoOnceCache,
    };
    let _ = crate::userdata::process(data, "user-data", &ctx);
}

/// network-config v1 or v2, then every renderer over what parsed.
pub fn network_config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(parsed) = crate::network_text("fuzz", &text, &Limits::default()) {
        render_all(&parsed.model);
    }
}

fn render_all(net: &crate::network::model::Network) {
    use crate::network::stack::Stack;
    for stack in [
        Stack::Eni,
        Stack::Netplan,
        Stack::NetworkManager,
        Stack::Networkd,
    ] {
        let _ = stack.render(net);
    }
}

/// OpenStack's network_data.json.
pub fn network_data_json(data: &[u8]) {
    let Ok(value) = serde_json::from_slice(data) else {
        return;
    };
    let macs = BTreeMap::from([("fa:16:3e:00:00:01".to_string(), "eth0".to_string())]);
    if let Ok(parsed) = crate::network::parse_network_data("fuzz", &value, &macs) {
        render_all(&parsed.model);
    }
}

/// A seed volume (ISO9660, VFAT, ext): probe, then read what a datasource would.
pub fn seedfs(data: &[u8]) {
    let _ = crate::seedfs::probe(&mut Cursor::new(data));
    let Ok(mut fs) = crate::seedfs::open(Cursor::new(data.to_vec())) else {
        return;
    };
    let names = fs.list_dir("").unwrap_or_default();
    for name in names
        .iter()
        .take(64)
        .map(String::as_str)
        .chain(["meta-data", "user-data"])
    {
        let _ = fs.read_file(name, 1 << 20);
    }
}

/// A disk's partition table: read, probed for signatures, grown (in memory).
pub fn disk_table(data: &[u8]) {
    use crate::disk::{signature, table};
    for ss in [512, 4096] {
        let mut disk = Mem {
            data: data.to_vec(),
            ss,
        };
        let _ = signature::probe(&mut disk, 0);
        if let Ok(parts) = table::partitions(&mut disk) {
            for p in parts.iter().take(4) {
                let _ = table::grow(&mut disk, p.number);
            }
        }
    }
}

/// Azure's XML: ovf-env.xml parsed and sanitized (the copy must parse again, with no
/// password), and the wireserver's goal state with the health report made from it; with
/// ds-vmware, the same bytes as an OVF environment and as VMware guestinfo metadata.
pub fn ovf_env(data: &[u8]) {
    use crate::datasource::azure::{ovf as azure_ovf, wireserver as wire};
    let _ = azure_ovf::parse(data);
    if let Ok(clean) = azure_ovf::sanitize(data) {
        assert!(azure_ovf::sanitize(&clean).is_ok_and(|again| again == clean));
        if let Ok(ovf) = azure_ovf::parse(&clean) {
            assert!(ovf.password.is_none(), "sanitize left a password");
        }
    }
    #[cfg(feature = "ds-vmware")]
    crate::datasource::vmware::fuzz(data);
    if let Ok(goal) = wire::parse_goal_state(data) {
        let description = String::from_utf8_lossy(data).into_owned();
        for health in [wire::Health::Ready, wire::Health::NotReady { description }] {
            let doc = wire::health_document(&goal, &health);
            assert!(
                roxmltree::Document::parse(&doc).is_ok(),
                "a malformed report"
            );
        }
    }
}

//! An Alibaba Cloud ECS metadata service: a token from `PUT /latest/api/token` (with
//! `X-aliyun-ecs-metadata-token-ttl-seconds`), required as `X-aliyun-ecs-metadata-token` on
//! every GET (the hardened mode; 401 without it), `/2016-01-01/user-data`, `vendor-data`,
//! the JSON `meta-data/all`, and the same meta-data as an EC2-style tree
//! (`/2016-01-01/meta-data/…`, `public-keys/` as `0=name`); fixture data modelled on ECS's
//! documented keys; scripted faults per path, the last repeating.
//! <https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata>

use super::scripted;
pub use super::scripted::Server;
use super::{ok, Answer, Request};
use serde_json::{json, Value};

pub const TOKEN_PATH: &str = "/latest/api/token";
pub const USER_DATA_PATH: &str = "/2016-01-01/user-data";
pub const VENDOR_DATA_PATH: &str = "/2016-01-01/vendor-data";
pub const ALL: &str = "/2016-01-01/meta-data/all";
pub const TREE: &str = "/2016-01-01/meta-data";
pub const TOKEN: &str = "AQAEAAliyunEmulatorTokenForTests==";
pub const ID: &str = "i-bp1emulatoraliyun00";
pub const HOSTNAME: &str = "iZbp1emulatorZ";
pub const MAC: &str = "00:16:3e:0a:0b:0c";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAliyunKeyForTestsOnly ecs-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/ecs-secret\n    content: user-data-secret-5c1f\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nbootcmd: [echo vendor-secret-77aa]\n";

/// The meta-data of an instance in cn-hangzhou with one NIC.
pub fn metadata() -> Value {
    json!({
        "instance-id": ID,
        "hostname": HOSTNAME,
        "image-id": "aliyun_3_x64_20G_alibase_20240528.vhd",
        "region-id": "cn-hangzhou",
        "zone-id": "cn-hangzhou-i",
        "mac": MAC,
        "private-ipv4": "172.16.181.225",
        "network-type": "vpc",
        "vpc-id": "vpc-bp171csbkbnjhg1bj3npw",
        "serial-number": "af401694-c1ec-44d6-971a-2d9a1270f472",
        "dns-conf": {"nameservers": "100.100.2.136\n100.100.2.138"},
        "public-keys": {"skp-bp1key": {"openssh-key": KEY}},
        "network": {"interfaces": {"macs": {MAC: {
            "network-interface-id": "eni-bp1emulator",
            "netmask": "255.255.240.0",
            "gateway": "172.16.191.253",
            "primary-ip-address": "172.16.181.225",
            "vpc-cidr-block": "172.16.0.0/12",
            "vswitch-cidr-block": "172.16.176.0/20",
            "ipv6s": "[2408:4005:3ff:1300::1]",
        }}}},
    })
}

/// The EC2-style tree under `rest` (`public-keys/0/openssh-key`) of `md`.
fn tree(md: &Value, rest: &str) -> Option<String> {
    let rest = rest.trim_matches('/');
    if let Some(keys) = rest.strip_prefix("public-keys") {
        let map = md["public-keys"].as_object()?;
        let keys = keys.trim_start_matches('/');
        if keys.is_empty() {
            let list: Vec<String> = map
                .keys()
                .enumerate()
                .map(|(i, k)| format!("{i}={k}"))
                .collect();
            return Some(list.join("\n"));
        }
        let (index, leaf) = keys.split_once('/')?;
        let (_, key) = map.iter().nth(index.parse().ok()?)?;
        return key.get(leaf)?.as_str().map(str::to_string);
    }
    let mut node = md;
    for part in rest.split('/').filter(|p| !p.is_empty()) {
        node = node.get(part)?;
    }
    match node {
        Value::Object(m) => Some(
            m.iter()
                .map(|(k, v)| {
                    if v.is_object() {
                        format!("{k}/")
                    } else {
                        k.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn route(md: &Value, req: &Request) -> Answer {
    let has_token = req.header("x-aliyun-ecs-metadata-token") == Some(TOKEN);
    match (req.method.as_str(), req.path.as_str()) {
        ("PUT", TOKEN_PATH) => match req.header("x-aliyun-ecs-metadata-token-ttl-seconds") {
            Some(_) => ok(TOKEN),
            None => Answer::Body(400, Vec::new()),
        },
        ("GET", _) if !has_token => Answer::Body(401, Vec::new()),
        ("GET", USER_DATA_PATH) => ok(USER_DATA),
        ("GET", VENDOR_DATA_PATH) => ok(VENDOR_DATA),
        ("GET", ALL) => ok(&md.to_string()),
        ("GET", p) if p.starts_with(TREE) => match tree(md, &p[TREE.len()..]) {
            Some(body) => ok(&body),
            None => Answer::Body(404, Vec::new()),
        },
        ("GET", _) => Answer::Body(404, Vec::new()),
        _ => Answer::Body(405, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let md = metadata();
    scripted::start(move |req| route(&md, req))
}

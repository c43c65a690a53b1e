//! A Scaleway metadata service: `/conf?format=json` (modelled on Scaleway's answer: an id,
//! host name, account keys and an `AUTHORIZED_KEY=` tag, the public IPs of a current
//! instance), `/user_data/cloud-init` and `/vendor_data/cloud-init`, which, as Scaleway's,
//! answer 403 to a source port of 1024 or more. GET only; faults are scripted.
//! <https://www.scaleway.com/en/developers/api/instance/#path-user-data-list-user-data>

use super::scripted::{self, Server, PEER_PORT};
use super::{ok, Answer, Request};
use serde_json::{json, Value};

pub const CONF: &str = "/conf";
pub const USER_DATA: &str = "/user_data/cloud-init";
pub const VENDOR_DATA: &str = "/vendor_data/cloud-init";
pub const ID: &str = "6a1c4d2e-5b7f-4c1a-9d3e-2f8b0c7a9e11";
pub const MAC: &str = "de:00:00:51:0f:1e";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIScalewayKeyForTestsOnly scw-key";
pub const TAG_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITaggedKeyForTestsOnly tagged-key";
pub const USER_DATA_TEXT: &str = "#cloud-config\nwrite_files:\n  - path: /etc/scaleway-secret\n    content: user-data-secret-2aa9\n    permissions: '0600'\n";
pub const VENDOR_DATA_TEXT: &str = "#cloud-config\nmanage_etc_hosts: true\n";

pub fn conf() -> Value {
    json!({
        "id": ID,
        "name": "scw-test",
        "hostname": "scw-test",
        "commercial_type": "DEV1-S",
        "organization": "11111111-2222-3333-4444-555555555555",
        "tags": ["web", format!("AUTHORIZED_KEY={}", TAG_KEY.replace(' ', "_"))],
        "ssh_public_keys": [{"key": KEY, "fingerprint": "256 SHA256:x scw-key (ssh-ed25519)"}],
        "private_ip": null,
        "ipv6": null,
        "location": {"zone_id": "par1", "platform_id": "14", "cluster_id": "23"},
        "public_ips": [
            {"address": "51.15.20.30", "netmask": "32", "gateway": "62.210.0.1", "family": "inet",
             "provisioning_mode": "dhcp", "dynamic": false},
            {"address": "2001:bc8:710:1::1", "netmask": "64", "gateway": "2001:bc8:710:1::",
             "family": "inet6", "provisioning_mode": "slaac", "dynamic": false}
        ],
    })
}

fn privileged(req: &Request, body: &str) -> Answer {
    let port: u32 = req
        .header(PEER_PORT)
        .and_then(|p| p.parse().ok())
        .unwrap_or(u32::MAX);
    if port >= 1024 {
        return Answer::Body(403, Vec::new());
    }
    ok(body)
}

fn route(req: &Request) -> Answer {
    if req.method != "GET" {
        return Answer::Body(405, Vec::new());
    }
    match req.path.as_str() {
        "/conf?format=json" => ok(&conf().to_string()),
        USER_DATA => privileged(req, USER_DATA_TEXT),
        VENDOR_DATA => privileged(req, VENDOR_DATA_TEXT),
        _ => Answer::Body(404, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    scripted::start(route)
}

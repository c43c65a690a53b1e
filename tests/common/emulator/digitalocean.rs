//! A DigitalOcean metadata service: `/metadata/v1.json` (and `/metadata/v1/id`, `hostname`)
//! with fixture data modelled on DigitalOcean's documented example (a public NIC with IPv6 and
//! an anchor address, a private NIC, nameservers, a key, user-data and vendor-data), and
//! scripted faults: answers per path in order, the last repeating.
//! <https://docs.digitalocean.com/reference/api/metadata/>

use super::scripted;
pub use super::scripted::Server;
use super::{ok, Answer};
use serde_json::{json, Value};

pub const DOCUMENT: &str = "/metadata/v1.json";
pub const DROPLET_ID: u64 = 2756294;
pub const PUBLIC_MAC: &str = "04:01:2a:0f:2a:01";
pub const PRIVATE_MAC: &str = "04:01:2a:0f:2a:02";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDoDropletKeyForTestsOnly droplet-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/do-secret\n    content: user-data-secret-3b7d\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nmanage_etc_hosts: true\n";

/// The document of a droplet in nyc3 with a public and a private interface.
pub fn document() -> Value {
    json!({
        "droplet_id": DROPLET_ID,
        "hostname": "sample-droplet",
        "user_data": USER_DATA,
        "vendor_data": VENDOR_DATA,
        "public_keys": [KEY],
        "auth_key": "droplet-agent-auth-7c4e",
        "region": "nyc3",
        "interfaces": {
            "public": [{
                "ipv4": {"ip_address": "104.131.20.105", "netmask": "255.255.192.0",
                         "gateway": "104.131.0.1"},
                "ipv6": {"ip_address": "2604:a880:800:10::17d:2001", "cidr": 64,
                         "gateway": "2604:a880:800:10::1"},
                "anchor_ipv4": {"ip_address": "10.17.0.5", "netmask": "255.255.0.0",
                                "gateway": "10.17.0.1"},
                "mac": PUBLIC_MAC,
                "type": "public",
            }],
            "private": [{
                "ipv4": {"ip_address": "10.132.255.113", "netmask": "255.255.0.0",
                         "gateway": "10.132.0.1"},
                "mac": PRIVATE_MAC,
                "type": "private",
            }],
        },
        "floating_ip": {"ipv4": {"active": false}},
        "dns": {"nameservers": ["2001:4860:4860::8844", "2001:4860:4860::8888", "8.8.8.8"]},
        "tags": ["web"],
        "features": {"dhcp_enabled": false},
    })
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let doc = document().to_string();
    scripted::start_guarded(scripted::get_only, move |req| match req.path.as_str() {
        DOCUMENT => ok(&doc),
        "/metadata/v1/id" => ok(&DROPLET_ID.to_string()),
        "/metadata/v1/hostname" => ok("sample-droplet"),
        _ => Answer::Body(404, Vec::new()),
    })
}

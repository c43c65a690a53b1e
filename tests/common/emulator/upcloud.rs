//! An UpCloud metadata service: `/metadata/v1.json`, modelled on UpCloud's documented answer
//! and cloud-init's helper's example (a public NIC with DHCP and a floating address, a
//! private NIC with a static address, resolvers), GET only; faults are scripted.
//! <https://developers.upcloud.com/1.3/8-servers/#metadata-service>

use super::scripted::{self, Server};
use super::{ok, Answer, Request};
use serde_json::{json, Value};

pub const DOCUMENT: &str = "/metadata/v1.json";
pub const UUID: &str = "00d6b6b3-a4c0-4b0d-9ab5-a7c2b1e0c9f1";
pub const PUBLIC_MAC: &str = "32:d5:ba:4a:36:e7";
pub const PRIVATE_MAC: &str = "32:d5:ba:4a:8a:e1";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIUpCloudKeyForTestsOnly upcloud-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/upcloud-secret\n    content: user-data-secret-40c7\n    permissions: '0600'\n";

pub fn document() -> Value {
    json!({
        "cloud_name": "upcloud",
        "instance_id": UUID,
        "hostname": "upcloud-test",
        "platform": "servers",
        "subplatform": "metadata (http://169.254.169.254)",
        "public_keys": [KEY],
        "region": "fi-hel2",
        "network": {
            "interfaces": [
                {"index": 1, "mac": PUBLIC_MAC, "type": "public",
                 "network_id": "031457f4-0f8c-483c-96f2-eccede02909c",
                 "ip_addresses": [
                    {"address": "94.237.105.53", "dhcp": true, "dns": ["94.237.127.9", "94.237.40.9"],
                     "family": "IPv4", "floating": false, "gateway": "94.237.104.1",
                     "network": "94.237.104.0/22"},
                    {"address": "94.237.105.50", "dhcp": false, "dns": [], "family": "IPv4",
                     "floating": true, "gateway": "", "network": "94.237.105.50/32"}]},
                {"index": 2, "mac": PRIVATE_MAC, "type": "private",
                 "network_id": "035a0a4a-77b4-4de5-820d-189fc8135714",
                 "ip_addresses": [
                    {"address": "172.30.1.10", "dhcp": false, "dns": ["172.30.1.2"], "family": "IPv4",
                     "floating": false, "gateway": "172.30.1.1", "network": "172.30.1.0/24"}]}
            ],
            "dns": ["94.237.127.9", "94.237.40.9"]
        },
        "storage": {"disks": [{"id": "01c0e6f0", "serial": "01c0e6f0", "size": 25600, "type": "disk", "tier": "maxiops"}]},
        "tags": [],
        "user_data": USER_DATA,
        "vendor_data": "",
    })
}

fn route(req: &Request) -> Answer {
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", DOCUMENT) => ok(&document().to_string()),
        ("GET", _) => Answer::Body(404, Vec::new()),
        _ => Answer::Body(405, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    scripted::start(route)
}

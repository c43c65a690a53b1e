//! A Vultr metadata service: `/v1.json` (modelled on Vultr's documented answer and
//! cloud-init's test data: a public NIC with an additional IPv6 network, a private NIC, a
//! key, user-data, vendor-data, a startup script), GET only; it answers 401 without
//! `Metadata-Token`, as a metadata proxy would not send one. Faults are scripted (`scripted`).
//! <https://www.vultr.com/metadata/>

use super::scripted::{self, Server};
use super::{ok, Answer, Request};
use serde_json::{json, Value};

pub const DOCUMENT: &str = "/v1.json";
pub const INSTANCE_ID: &str = "29bea708-2e6e-480a-90ad-0e6b5d5ad62f";
pub const SUBID: &str = "42872224";
pub const PUBLIC_MAC: &str = "56:00:03:1b:4e:ca";
pub const PRIVATE_MAC: &str = "5a:00:03:1b:4e:ca";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIVultrKeyForTestsOnly vultr-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/vultr-secret\n    content: user-data-secret-5c2e\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nmanage_etc_hosts: true\n";
pub const STARTUP_SCRIPT: &str = "#!/bin/sh\necho startup-secret-77ab\n";

pub fn document() -> Value {
    json!({
        "bgp": {"ipv4": {"my-address": "", "my-asn": "", "peer-address": "", "peer-asn": ""}},
        "hostname": "vultr-guest",
        "instance-v2-id": INSTANCE_ID,
        "instanceid": SUBID,
        "interfaces": [
            {"ipv4": {"additional": [], "address": "45.76.7.171", "gateway": "45.76.6.1",
                      "netmask": "255.255.254.0"},
             "ipv6": {"additional": [{"network": "2002:19f0:5:28a7::", "prefix": "64"}],
                      "address": "2001:19f0:5:28a7:5400:03ff:fe1b:4eca",
                      "network": "2001:19f0:5:28a7::", "prefix": "64"},
             "mac": PUBLIC_MAC, "network-type": "public"},
            {"ipv4": {"additional": [], "address": "10.1.112.3", "gateway": "",
                      "netmask": "255.255.240.0"},
             "ipv6": {"additional": [], "network": "", "prefix": ""},
             "mac": PRIVATE_MAC, "network-type": "private",
             "network-v2-id": "fbbe2b5b-b986-4396-87f5-7246660ccb64",
             "networkid": "net5e7155329d730"}
        ],
        "public-keys": [KEY],
        "region": {"regioncode": "EWR", "countrycode": "US"},
        "user-defined": [],
        "startup-script": STARTUP_SCRIPT,
        "user-data": USER_DATA,
        "vendor-data": VENDOR_DATA,
    })
}

fn route(req: &Request) -> Answer {
    if req.method != "GET" {
        return Answer::Body(405, Vec::new());
    }
    if req.header("metadata-token").is_none() {
        return Answer::Body(401, Vec::new());
    }
    match req.path.as_str() {
        DOCUMENT => ok(&document().to_string()),
        _ => Answer::Body(404, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    scripted::start(route)
}

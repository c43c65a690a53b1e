//! A CloudCIX metadata service: `/v1/metadata` (JSON with the instance id, host name, keys
//! and a netplan v2 `network`) and `/v1/userdata` (base64, as the platform serves it), with
//! scripted faults: answers per path in order, the last repeating.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/cloudcix.html>

use super::scripted;
pub use super::scripted::Server;
use super::{ok, Answer};
use base64::Engine;
use serde_json::{json, Value};

pub const METADATA: &str = "/v1/metadata";
pub const USERDATA: &str = "/v1/userdata";
pub const INSTANCE_ID: &str = "cix-1234_5678";
pub const MAC: &str = "52:54:00:c1:c1:01";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICloudCixKeyForTestsOnly cix-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/cix-secret\n    content: cix-user-data-secret-91a\n    permissions: '0600'\n";

/// The metadata of a CloudCIX VM with one NIC and a static address.
pub fn metadata() -> Value {
    json!({
        "instance-id": INSTANCE_ID,
        "local-hostname": "cix-vm",
        "public-keys": [KEY],
        "network": {
            "version": 2,
            "ethernets": {
                "eth0": {
                    "match": {"macaddress": MAC},
                    "addresses": ["10.254.3.5/24"],
                    "routes": [{"to": "default", "via": "10.254.3.1"}],
                    "nameservers": {"addresses": ["10.254.3.2"], "search": ["cix.example"]}
                }
            }
        }
    })
}

pub fn userdata() -> String {
    base64::engine::general_purpose::STANDARD.encode(USER_DATA)
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let (md, ud) = (metadata().to_string(), userdata());
    scripted::start_guarded(scripted::get_only, move |req| match req.path.as_str() {
        METADATA => ok(&md),
        USERDATA => ok(&ud),
        _ => Answer::Body(404, Vec::new()),
    })
}

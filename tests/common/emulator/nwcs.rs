//! An NWCS metadata service: `/api/v1/metadata` (JSON with the instance id, host name, keys,
//! a v1 `network` naming its own interfaces, user-data), GET only; faults are scripted.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/nwcs.html>

use super::scripted::{self, Server};
use super::{ok, Answer, Request};
use serde_json::{json, Value};

pub const DOCUMENT: &str = "/api/v1/metadata";
pub const ID: &str = "nwcs-4f1a9c";
pub const MAC: &str = "52:54:00:4e:57:01";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINwcsKeyForTestsOnly nwcs-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/nwcs-secret\n    content: user-data-secret-b17d\n    permissions: '0600'\n";

pub fn document() -> Value {
    json!({
        "instance-id": ID,
        "hostname": "nwcs-test",
        "public-keys": [KEY],
        "network": {"version": 1, "config": [
            {"type": "physical", "name": "eth0", "mac_address": MAC, "subnets": [
                {"type": "static", "address": "192.0.2.10/24", "gateway": "192.0.2.1"}]},
            {"type": "nameserver", "address": ["192.0.2.53"]}]},
        "userdata": USER_DATA,
        "vendordata": null,
    })
}

fn route(req: &Request) -> Answer {
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", DOCUMENT) => ok(&document().to_string()),
        ("GET", "/api/v1/metadata/instance-id") => ok(ID),
        ("GET", _) => Answer::Body(404, Vec::new()),
        _ => Answer::Body(405, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    scripted::start(route)
}

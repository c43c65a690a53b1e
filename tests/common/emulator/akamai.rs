//! An Akamai (Linode) metadata service: `PUT /v1/token` (needs
//! `Metadata-Token-Expiry-Seconds`, answers a token), then `GET /v1/instance` (JSON only with
//! `Accept: application/json`), `/v1/network` and `/v1/user-data` (base64), each only with
//! that token (401 otherwise), modelled on Akamai's documented answers. Faults are scripted.
//! <https://techdocs.akamai.com/linode-api/reference/get-instance>

use super::scripted::{self, Server};
use super::{ok, Answer, Request};
use base64::Engine;
use serde_json::{json, Value};

pub const TOKEN_PATH: &str = "/v1/token";
pub const INSTANCE: &str = "/v1/instance";
pub const USER_DATA: &str = "/v1/user-data";
pub const TOKEN: &str = "akamai-token-secret-0d3f";
pub const ID: u64 = 51423587;
pub const MAC: &str = "f2:3c:94:12:34:56";
pub const USER_DATA_TEXT: &str = "#cloud-config\nhostname: linode-host\nwrite_files:\n  - path: /etc/akamai-secret\n    content: user-data-secret-e81b\n    permissions: '0600'\n";

pub fn instance() -> Value {
    json!({
        "id": ID,
        "host_uuid": "3a3ddd59d9a78bb8de041391075df44de62bfec8",
        "label": "linode51423587",
        "region": "us-ord",
        "type": "g6-nanode-1",
        "specs": {"vcpus": 1, "memory": 1024, "gpus": 0, "transfer": 1000, "disk": 25600},
        "backups": {"enabled": false, "status": null},
        "tags": ["web"],
    })
}

pub fn user_data_b64() -> String {
    base64::engine::general_purpose::STANDARD.encode(USER_DATA_TEXT)
}

fn route(req: &Request) -> Answer {
    let path = req.path.as_str();
    if path == TOKEN_PATH {
        let expiry = req
            .header("metadata-token-expiry-seconds")
            .and_then(|v| v.parse::<u32>().ok());
        return match (req.method.as_str(), expiry) {
            ("PUT", Some(1..=86400)) => ok(TOKEN),
            ("PUT", _) => Answer::Body(400, Vec::new()),
            _ => Answer::Body(405, Vec::new()),
        };
    }
    if req.method != "GET" {
        return Answer::Body(405, Vec::new());
    }
    if req.header("metadata-token") != Some(TOKEN) {
        return Answer::Body(401, Vec::new());
    }
    let json_asked = req.header("accept") == Some("application/json");
    match path {
        INSTANCE if json_asked => ok(&instance().to_string()),
        // The service's default is its text form, which cloud-init does not read.
        INSTANCE => ok("id: 51423587\nlabel: linode51423587\n"),
        "/v1/network" => ok(&json!({"interfaces": [], "ipv4": {}, "ipv6": {}}).to_string()),
        USER_DATA => ok(&user_data_b64()),
        _ => Answer::Body(404, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    scripted::start(route)
}

//! A CloudCIX metadata service: `/v1/metadata` (JSON with the instance id, host name, keys
//! and a netplan v2 `network`) and `/v1/userdata` (base64, as the platform serves it), with
//! scripted faults: answers per path in order, the last repeating.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/cloudcix.html>

use super::{ok, read_request, write_answer, Answer, Request};
use base64::Engine;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

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

pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    /// Answers per path, in order; the last one repeats. They replace the fixture's.
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    pub fn paths(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.path.clone())
            .collect()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        self.answers
            .lock()
            .unwrap()
            .insert(path.to_string(), answers);
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let answers = Arc::new(Mutex::new(HashMap::<String, Vec<Answer>>::new()));
    let (seen, scripted) = (log.clone(), answers.clone());
    std::thread::spawn(move || {
        let (md, ud) = (metadata().to_string(), userdata());
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let Some(req) = read_request(&mut s) else {
                continue;
            };
            seen.lock().unwrap().push(req.clone());
            let mut sc = scripted.lock().unwrap();
            let reply = if req.method != "GET" {
                Answer::Body(405, Vec::new())
            } else if let Some(list) = sc.get_mut(&req.path) {
                if list.len() > 1 {
                    list.remove(0)
                } else {
                    list[0].clone()
                }
            } else {
                match req.path.as_str() {
                    METADATA => ok(&md),
                    USERDATA => ok(&ud),
                    _ => Answer::Body(404, Vec::new()),
                }
            };
            drop(sc);
            write_answer(&mut s, &reply);
        }
    });
    Server { port, log, answers }
}

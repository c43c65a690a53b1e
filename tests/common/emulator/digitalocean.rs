//! A DigitalOcean metadata service: `/metadata/v1.json` (and `/metadata/v1/id`, `hostname`)
//! with fixture data modelled on DigitalOcean's documented example (a public NIC with IPv6 and
//! an anchor address, a private NIC, nameservers, a key, user-data and vendor-data), and
//! scripted faults: answers per path in order, the last repeating.
//! <https://docs.digitalocean.com/reference/api/metadata/>

use super::{ok, read_request, write_answer, Answer, Request};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

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
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
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
        let doc = document();
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
                    DOCUMENT => ok(&doc.to_string()),
                    "/metadata/v1/id" => ok(&DROPLET_ID.to_string()),
                    "/metadata/v1/hostname" => ok("sample-droplet"),
                    _ => Answer::Body(404, Vec::new()),
                }
            };
            drop(sc);
            write_answer(&mut s, &reply);
        }
    });
    Server { port, log, answers }
}

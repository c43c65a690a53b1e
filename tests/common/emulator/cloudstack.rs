//! A CloudStack-style metadata service and its password server, as Apache CloudStack's
//! virtual router serves them and Exoscale copied them: `/{version}/meta-data/` listing the
//! leaves (`instance-id`, `local-hostname`, `public-keys`, …), `/{version}/user-data`
//! (`latest` on CloudStack, `1.0` on Exoscale); and on a port of its own the password server,
//! which answers `DomU_Request: send_my_password` with the password until it is told
//! `saved_password`, then with `saved_password`, and `bad_request` to anything else.
//! Scripted faults per path (the last repeating) on the metadata side; the password server's
//! answers can be replaced in order too. Every request of both is logged.
//! <https://docs.cloudstack.apache.org/en/latest/adminguide/virtual_machines/user-data.html>

use super::scripted::{self, Spec};
use super::{ok, Answer, Request};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const ID: &str = "1e7ad4ac-2a1a-4e3c-9d9d-emulatorvm01";
pub const HOSTNAME: &str = "cs-vm-1";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICloudStackKeyForTests cs-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/cs-secret\n    content: user-data-secret-4d8b\n    permissions: '0600'\n";
pub const PASSWORD: &str = "Pw-emulator-7f3e9a";

/// The meta-data leaves, in the listing's order.
pub fn leaves() -> Vec<(&'static str, &'static str)> {
    vec![
        ("service-offering", "Small"),
        ("availability-zone", "ch-gva-2"),
        ("local-ipv4", "10.1.1.23"),
        ("local-hostname", HOSTNAME),
        ("public-ipv4", "194.182.160.9"),
        ("public-hostname", "194-182-160-9.emulator"),
        ("instance-id", ID),
        ("vm-id", ID),
        ("public-keys", KEY),
        ("cloud-identifier", "CloudStack-{emulator}"),
    ]
}

pub struct Server {
    pub port: u16,
    /// The password server's port.
    pub password_port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    pub password_log: Arc<Mutex<Vec<Request>>>,
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
    /// Replaces the password server's answers, in order, the last repeating.
    pub password_answers: Arc<Mutex<Vec<Answer>>>,
    pub version: &'static str,
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
    /// The `DomU_Request` of each request the password server got.
    pub fn password_requests(&self) -> Vec<String> {
        let log = self.password_log.lock().unwrap();
        log.iter()
            .map(|r| r.header("domu_request").unwrap_or("-").to_string())
            .collect()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        let path = format!("/{}/{}", self.version, path);
        self.answers.lock().unwrap().insert(path, answers);
    }
    pub fn set_password_answers(&self, answers: Vec<Answer>) {
        *self.password_answers.lock().unwrap() = answers;
    }
}

/// CloudStack's: `latest`.
pub fn start() -> Server {
    start_version("latest")
}

/// Exoscale's: API version `1.0`.
pub fn start_exoscale() -> Server {
    start_version("1.0")
}

fn start_version(version: &'static str) -> Server {
    let md = format!("/{version}/meta-data/");
    let ud = format!("/{version}/user-data");
    let route = move |req: &Request| {
        if req.method != "GET" {
            Answer::Body(405, Vec::new())
        } else if req.path == md || req.path == md.trim_end_matches('/') {
            let names: Vec<&str> = leaves().iter().map(|(k, _)| *k).collect();
            ok(&names.join("\n"))
        } else if req.path == ud {
            ok(USER_DATA)
        } else if let Some(leaf) = req.path.strip_prefix(&md) {
            match leaves().iter().find(|(k, _)| *k == leaf) {
                Some((_, v)) => ok(v),
                None => Answer::Body(404, Vec::new()),
            }
        } else {
            Answer::Body(404, Vec::new())
        }
    };
    let metadata = scripted::serve(
        scripted::loopback(),
        Spec::new(route).key(scripted::with_query),
    );
    let password_answers = Arc::new(Mutex::new(Vec::new()));
    let replaced = password_answers.clone();
    let saved = Mutex::new(false);
    // The password server's faults are one list for every request.
    let password = scripted::start(move |req| {
        if let Some(a) = scripted::next(&mut replaced.lock().unwrap()) {
            return a;
        }
        let mut saved = saved.lock().unwrap();
        match req.header("domu_request") {
            Some("send_my_password") if *saved => ok("saved_password"),
            Some("send_my_password") => ok(PASSWORD),
            Some("saved_password") => {
                *saved = true;
                ok("saved_password")
            }
            _ => ok("bad_request"),
        }
    });
    Server {
        port: metadata.port,
        password_port: password.port,
        log: metadata.log,
        password_log: password.log,
        answers: metadata.answers,
        password_answers,
        version,
    }
}

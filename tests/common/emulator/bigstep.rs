//! A Bigstep metadata endpoint: one JSON document (`metadata`, `userdata_raw`,
//! `vendordata_raw`) at a path carrying a token, as the URL file in a Bigstep image names it,
//! with scripted faults: answers per path in order, the last repeating.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/bigstep.html>

use super::scripted;
use super::{ok, Answer, Request};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The token rides in the query, which ember never shows.
pub const PATH: &str = "/v1/instance.json?token=bs-token-5e1c90";
pub const INSTANCE_ID: &str = "bigstep-instance-4411";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/bs-secret\n    content: bigstep-user-data-secret-2d8\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nruncmd:\n  - echo bigstep-vendor-ran\n";

pub fn document() -> Value {
    json!({
        "metadata": {"instance-id": INSTANCE_ID, "local-hostname": "bs-node"},
        "userdata_raw": USER_DATA,
        "vendordata_raw": VENDOR_DATA,
    })
}

/// The shared scripted server's parts, with the URL and faults of the one document.
pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
}

impl Server {
    /// The URL the image's url file holds.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{PATH}", self.port)
    }
    pub fn paths(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.iter().map(|r| r.path.clone()).collect()
    }
    /// Faults are kept by path without the query (`scripted`).
    pub fn set(&self, answers: Vec<Answer>) {
        let path = PATH.split('?').next().unwrap();
        self.answers.lock().unwrap().insert(path.into(), answers);
    }
}

/// Starts the endpoint; it serves until the process ends.
pub fn start() -> Server {
    let doc = document().to_string();
    let s = scripted::start_guarded(scripted::get_only, move |req| match req.path.as_str() {
        PATH => ok(&doc),
        _ => Answer::Body(404, Vec::new()),
    });
    let (port, log, answers) = (s.port, s.log, s.answers);
    Server { port, log, answers }
}

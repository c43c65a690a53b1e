//! A Bigstep metadata endpoint: one JSON document (`metadata`, `userdata_raw`,
//! `vendordata_raw`) at a path carrying a token, as the URL file in a Bigstep image names it,
//! with scripted faults: answers per path in order, the last repeating.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/bigstep.html>

use super::{ok, read_request, write_answer, Answer, Request};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::TcpListener;
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
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.path.clone())
            .collect()
    }
    pub fn set(&self, answers: Vec<Answer>) {
        self.answers.lock().unwrap().insert(PATH.into(), answers);
    }
}

/// Starts the endpoint; it serves until the process ends.
pub fn start() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let answers = Arc::new(Mutex::new(HashMap::<String, Vec<Answer>>::new()));
    let (seen, scripted) = (log.clone(), answers.clone());
    std::thread::spawn(move || {
        let doc = document().to_string();
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let Some(req) = read_request(&mut s) else {
                continue;
            };
            seen.lock().unwrap().push(req.clone());
            let mut sc = scripted.lock().unwrap();
            let reply = match sc.get_mut(&req.path) {
                _ if req.method != "GET" => Answer::Body(405, Vec::new()),
                Some(list) if list.len() > 1 => list.remove(0),
                Some(list) => list[0].clone(),
                None if req.path == PATH => ok(&doc),
                None => Answer::Body(404, Vec::new()),
            };
            drop(sc);
            write_answer(&mut s, &reply);
        }
    });
    Server { port, log, answers }
}

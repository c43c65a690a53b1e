//! Azure's wireserver for the ready report: the goal state (`GET /machine/?comp=goalstate`,
//! modelled on WALinuxAgent's wire protocol fixtures) and the health report
//! (`POST /machine?comp=health`), recorded with its body. Both want `x-ms-agent-name` and
//! `x-ms-version` (400 without). Scripted faults: answers per path in order (500 then 200,
//! slow, garbage XML, not HTTP at all).
//! <https://github.com/Azure/WALinuxAgent/blob/master/azurelinuxagent/common/protocol/wire.py>

use super::scripted::{self, Spec};
use super::{Answer, Request};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const GOAL_STATE_PATH: &str = "/machine/?comp=goalstate";
pub const HEALTH_PATH: &str = "/machine?comp=health";
pub const GOAL_STATE: &str = include_str!("../../../fuzz/seeds/ovf_env/goalstate.xml");
pub const INCARNATION: &str = "1";
pub const CONTAINER_ID: &str = "2b9c0a3e-5c62-4d5b-a0f6-3d8e7c1b2a90";
pub const INSTANCE_ID: &str = "c6d5e9a1-0b7f-4e36-9b1d-2f4a8c3e5d71.web-01";

/// A request with its body.
#[derive(Clone, Debug)]
pub struct Posted {
    pub request: Request,
    pub body: Vec<u8>,
}

#[derive(Clone)]
pub struct Server {
    /// 0 for a `detached` server, which answers through another emulator's port.
    pub port: u16,
    pub log: Arc<Mutex<Vec<Posted>>>,
    /// Answers per path, in order; the last one repeats. They replace the default answers.
    pub script: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    pub fn requests(&self) -> Vec<Posted> {
        self.log.lock().unwrap().clone()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        self.script
            .lock()
            .unwrap()
            .insert(path.to_string(), answers);
    }
    /// The bodies of the health reports received.
    pub fn reports(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|p| p.request.path == HEALTH_PATH)
            .map(|p| String::from_utf8(p.body).unwrap())
            .collect()
    }
}

fn default_answer(req: &Request) -> Answer {
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", GOAL_STATE_PATH) => Answer::Body(200, GOAL_STATE.as_bytes().to_vec()),
        ("POST", HEALTH_PATH) => Answer::Body(200, Vec::new()),
        (_, GOAL_STATE_PATH | HEALTH_PATH) => Answer::Body(405, Vec::new()),
        _ => Answer::Body(404, Vec::new()),
    }
}

impl Server {
    /// Logs the request and chooses the answer: the script's, else the default.
    pub fn answer(&self, posted: Posted) -> Answer {
        let req = posted.request.clone();
        self.log.lock().unwrap().push(posted);
        let agent = req.header("x-ms-agent-name") == Some("WALinuxAgent")
            && req.header("x-ms-version") == Some("2012-11-30");
        if !agent {
            return Answer::Body(400, b"missing x-ms-agent-name or x-ms-version".to_vec());
        }
        let mut sc = self.script.lock().unwrap();
        match sc.get_mut(&req.path) {
            Some(list) if list.len() > 1 => list.remove(0),
            Some(list) if !list.is_empty() => list[0].clone(),
            _ => default_answer(&req),
        }
    }
}

/// A wireserver without a listener of its own (the Azure IMDS emulator serves both).
pub fn detached() -> Server {
    Server {
        port: 0,
        log: Arc::new(Mutex::new(Vec::new())),
        script: Arc::new(Mutex::new(HashMap::new())),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let listener = scripted::loopback();
    let server = Server {
        port: listener.local_addr().unwrap().port(),
        ..detached()
    };
    let handle = server.clone();
    // The faults are the wireserver's own (`set`), which `answer` lays over its defaults.
    let route = move |request: &Request, body: &[u8]| {
        let body = body.to_vec();
        let request = request.clone();
        handle.answer(Posted { request, body })
    };
    // Slow answers on threads of their own, so one does not hold the next request.
    scripted::serve(listener, Spec::with_body(route).concurrent());
    server
}

//! A metadata server whose fixture answers come from a function of the request, with
//! scripted faults per path laid over them (answers in order, the last repeating) and every
//! request logged: the VPS clouds' emulators (Hetzner, Vultr, …) are each a fixture and a
//! routing function on top of it. A guard, where a platform checks a request before anything
//! else (method, authorisation), answers ahead of the faults. Not here: any one platform's
//! protocol.

use super::{read_request, write_answer, Answer, Request};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// The pseudo-header holding the client's source port.
pub const PEER_PORT: &str = ":peer-port";

pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    /// Answers per path (without the query), in order; the last one repeats. They replace
    /// the fixture's.
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
    pub fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        self.answers
            .lock()
            .unwrap()
            .insert(path.to_string(), answers);
    }
}

/// Starts a server answering with `route` where no fault is scripted; it serves until the
/// process ends.
pub fn start(route: impl Fn(&Request) -> Answer + Send + 'static) -> Server {
    start_guarded(|_| None, route)
}

/// `start`, with `guard` answering first where it has an answer: a request it refuses never
/// reaches the scripted faults.
pub fn start_guarded(
    guard: impl Fn(&Request) -> Option<Answer> + Send + 'static,
    route: impl Fn(&Request) -> Answer + Send + 'static,
) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let answers = Arc::new(Mutex::new(HashMap::<String, Vec<Answer>>::new()));
    let (seen, scripted) = (log.clone(), answers.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let peer = s.peer_addr().map(|a| a.port()).unwrap_or(0);
            let Some(mut req) = read_request(&mut s) else {
                continue;
            };
            // The client's source port, under a name no header line can carry (a line
            // starting with ':' has an empty name): Scaleway answers privileged ports only.
            req.headers.push((PEER_PORT.into(), peer.to_string()));
            seen.lock().unwrap().push(req.clone());
            let reply = guard(&req)
                .or_else(|| next_fault(&scripted, &req))
                .unwrap_or_else(|| route(&req));
            write_answer(&mut s, &reply);
        }
    });
    Server { port, log, answers }
}

/// The next scripted answer for the request's path, if any: the first of several is used up,
/// the last repeats.
fn next_fault(scripted: &Mutex<HashMap<String, Vec<Answer>>>, req: &Request) -> Option<Answer> {
    let path = req.path.split('?').next().unwrap_or_default();
    let mut scripted = scripted.lock().unwrap();
    let list = scripted.get_mut(path)?;
    Some(if list.len() > 1 {
        list.remove(0)
    } else {
        list[0].clone()
    })
}

/// The guard of a platform that answers GET only.
pub fn get_only(req: &Request) -> Option<Answer> {
    (req.method != "GET").then(|| Answer::Body(405, Vec::new()))
}

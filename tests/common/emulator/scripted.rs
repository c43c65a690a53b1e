//! A metadata server whose fixture answers come from a function of the request, with
//! scripted faults per path laid over them (answers in order, the last repeating) and every
//! request logged: each cloud's emulator is a fixture and a routing function on top of it.
//! A guard, where a platform checks a request before anything else (method, authorisation, a
//! token it hands out), answers ahead of the faults; state a platform keeps lives in the
//! guard's and the route's captures. Not here: any one platform's protocol.

use super::{read_request_body, write_answer_headed, Answer, Request};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};

/// The pseudo-header holding the client's source port.
pub const PEER_PORT: &str = ":peer-port";

pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    /// Answers per path (without the query, unless the spec keys them with it), in order;
    /// the last one repeats. They replace the fixture's.
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

type Guard = Box<dyn Fn(&Request, &[u8]) -> Option<Answer> + Send>;
type Route = Box<dyn Fn(&Request, &[u8]) -> Answer + Send>;

/// How one platform answers.
pub struct Spec {
    /// Answers first, where it has an answer; it sees the request's body (GCE's PUTs).
    pub guard: Guard,
    /// The fixture's answer, where neither the guard nor a fault answered; it sees the
    /// request's body too.
    pub route: Route,
    /// The path a request's fault is looked up by.
    pub key: fn(&str) -> String,
    /// Header lines every answer with a body carries (and its Content-Type), as of the
    /// answer: GCE's `Metadata-Flavor`, which a test can take away.
    pub headers: Box<dyn Fn() -> String + Send>,
    /// Slow and large answers go out on threads of their own, so they hold no other
    /// request (OpenStack's).
    pub concurrent: bool,
}

impl Spec {
    /// Answers from `route`, faults by the path without its query, no guard.
    pub fn new(route: impl Fn(&Request) -> Answer + Send + 'static) -> Spec {
        Spec::with_body(move |req, _| route(req))
    }
    /// `new`, with a route that reads the request's body (GCE's guest attributes).
    pub fn with_body(route: impl Fn(&Request, &[u8]) -> Answer + Send + 'static) -> Spec {
        Spec {
            guard: Box::new(|_, _| None),
            route: Box::new(route),
            key: without_query,
            headers: Box::new(|| "Content-Type: text/plain\r\n".into()),
            concurrent: false,
        }
    }
    pub fn guard(
        mut self,
        guard: impl Fn(&Request, &[u8]) -> Option<Answer> + Send + 'static,
    ) -> Spec {
        self.guard = Box::new(guard);
        self
    }
    pub fn key(mut self, key: fn(&str) -> String) -> Spec {
        self.key = key;
        self
    }
    pub fn headers(mut self, headers: impl Fn() -> String + Send + 'static) -> Spec {
        self.headers = Box::new(headers);
        self
    }
    pub fn concurrent(mut self) -> Spec {
        self.concurrent = true;
        self
    }
}

pub fn without_query(path: &str) -> String {
    path.split('?').next().unwrap_or_default().to_string()
}

pub fn with_query(path: &str) -> String {
    path.to_string()
}

/// Starts a server answering with `route` where no fault is scripted; it serves until the
/// process ends.
pub fn start(route: impl Fn(&Request) -> Answer + Send + 'static) -> Server {
    serve(loopback(), Spec::new(route))
}

/// `start`, with `guard` answering first where it has an answer: a request it refuses never
/// reaches the scripted faults.
pub fn start_guarded(
    guard: impl Fn(&Request) -> Option<Answer> + Send + 'static,
    route: impl Fn(&Request) -> Answer + Send + 'static,
) -> Server {
    serve(loopback(), Spec::new(route).guard(move |req, _| guard(req)))
}

pub fn loopback() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").unwrap()
}

/// Serves `spec` on `listener` until the process ends.
pub fn serve(listener: TcpListener, spec: Spec) -> Server {
    let port = listener.local_addr().unwrap().port();
    let (handler, log, answers) = Handler::new(spec);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(s) = stream else { continue };
            let peer = s.peer_addr().map(|a| a.port()).unwrap_or(0);
            handler.handle(s, Some(peer));
        }
    });
    Server { port, log, answers }
}

/// `serve` on a unix socket (LXD's devlxd): the server's port is 0.
pub fn serve_unix(listener: UnixListener, spec: Spec) -> Server {
    let (handler, log, answers) = Handler::new(spec);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(s) = stream else { continue };
            handler.handle(s, None);
        }
    });
    Server {
        port: 0,
        log,
        answers,
    }
}

type Log = Arc<Mutex<Vec<Request>>>;
type Faults = Arc<Mutex<HashMap<String, Vec<Answer>>>>;

/// Answers one connection after another.
struct Handler {
    spec: Spec,
    log: Log,
    answers: Faults,
}

impl Handler {
    fn new(spec: Spec) -> (Handler, Log, Faults) {
        let (log, answers) = (Log::default(), Faults::default());
        let handler = Handler {
            spec,
            log: log.clone(),
            answers: answers.clone(),
        };
        (handler, log, answers)
    }

    fn handle<S: Read + Write + Send + 'static>(&self, mut s: S, peer: Option<u16>) {
        let Some((mut req, body)) = read_request_body(&mut s) else {
            return;
        };
        // The client's source port, under a name no header line can carry (a line starting
        // with ':' has an empty name): Scaleway answers privileged ports only.
        if let Some(peer) = peer {
            req.headers.push((PEER_PORT.into(), peer.to_string()));
        }
        self.log.lock().unwrap().push(req.clone());
        let spec = &self.spec;
        let reply = (spec.guard)(&req, &body)
            .or_else(|| next_fault(&self.answers, &(spec.key)(&req.path)))
            .unwrap_or_else(|| (spec.route)(&req, &body));
        let headers = (spec.headers)();
        if spec.concurrent && !small(&reply) {
            std::thread::spawn(move || write_answer_headed(&mut s, &reply, &headers));
        } else {
            write_answer_headed(&mut s, &reply, &headers);
        }
    }
}

/// An answer written at once: a body of at most 64 KiB (a thread per answer costs
/// milliseconds of scheduling on a busy machine, which scripts/bench-clouds would measure).
fn small(answer: &Answer) -> bool {
    matches!(answer, Answer::Body(_, b) if b.len() <= 64 * 1024)
}

/// The next scripted answer for `key`, if any.
fn next_fault(scripted: &Mutex<HashMap<String, Vec<Answer>>>, key: &str) -> Option<Answer> {
    next(scripted.lock().unwrap().get_mut(key)?)
}

/// The next of scripted `answers`: the first of several is used up, the last repeats; none
/// leaves the answer to the fixture.
pub fn next(answers: &mut Vec<Answer>) -> Option<Answer> {
    match answers.len() {
        0 => None,
        1 => Some(answers[0].clone()),
        _ => Some(answers.remove(0)),
    }
}

/// The guard of a platform that answers GET only.
pub fn get_only(req: &Request) -> Option<Answer> {
    (req.method != "GET").then(|| Answer::Body(405, Vec::new()))
}

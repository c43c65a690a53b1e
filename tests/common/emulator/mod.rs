//! Metadata service emulators for the integration tests: small servers on loopback (std
//! `TcpListener`, a thread) that speak each platform's documented protocol, with scriptable
//! faults, and log every request they receive.
#![allow(dead_code)] // each test binary, the scaling bench and examples/imds use a subset

pub mod akamai;
pub mod aliyun;
pub mod azure;
pub mod azure_wire;
pub mod bigstep;
pub mod cloudcix;
pub mod cloudsigma;
pub mod cloudstack;
pub mod digitalocean;
pub mod ec2;
pub mod gce;
pub mod hetzner;
pub mod lxd;
pub mod maas;
pub mod nwcs;
pub mod openstack;
pub mod oracle;
pub mod scaleway;
pub mod scripted;
pub mod smartos;
pub mod upcloud;
pub mod vmware;
pub mod vultr;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How to answer one request.
#[derive(Clone, Debug)]
pub enum Answer {
    Body(u16, Vec<u8>),
    /// The answer, after a pause.
    Slow(Duration, Box<Answer>),
    /// A `Content-Length` larger than the body, then the connection closed.
    Truncated(Vec<u8>),
    /// Bytes that are not HTTP.
    Garbage(Vec<u8>),
    /// The answer with more header lines, each ending in CRLF (MAAS's `Date`).
    Headed(String, Box<Answer>),
}

pub fn ok(body: &str) -> Answer {
    Answer::Body(200, body.as_bytes().to_vec())
}

pub fn status(code: u16) -> Answer {
    Answer::Body(code, Vec::new())
}

/// Reads a request head (the emulated protocols send no request bodies).
pub fn read_request(s: &mut TcpStream) -> Option<Request> {
    read_request_body(s).map(|(req, _)| req)
}

/// Reads a request and its body (GCE's guest attributes are written with PUT), off a TCP or
/// a unix socket.
pub fn read_request_body(s: &mut impl Read) -> Option<(Request, Vec<u8>)> {
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':')?;
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len.min(1 << 20)];
    r.read_exact(&mut body).ok()?;
    let req = Request {
        method,
        path,
        headers,
    };
    Some((req, body))
}

pub fn write_answer(s: &mut impl Write, answer: &Answer) {
    write_answer_headed(s, answer, "Content-Type: text/plain\r\n");
}

/// `write_answer`, an answer with a body carrying the header lines `headers` (each ending in
/// CRLF) instead of the plain text type.
pub fn write_answer_headed(s: &mut impl Write, answer: &Answer, headers: &str) {
    match answer {
        Answer::Body(code, body) => {
            let head = format!(
                "HTTP/1.1 {code} X\r\nContent-Length: {}\r\n{headers}Connection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(body);
        }
        Answer::Slow(pause, inner) => {
            std::thread::sleep(*pause);
            write_answer_headed(s, inner, headers);
        }
        Answer::Headed(extra, inner) => write_answer_headed(s, inner, &format!("{extra}{headers}")),
        Answer::Truncated(body) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len() * 2
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(body);
        }
        Answer::Garbage(bytes) => {
            let _ = s.write_all(bytes);
        }
    }
}

/// A pty for a serial-port emulator: its master (the host's side), its slave held open (so
/// the master never reads EIO between a guest's opens) and raw (so nothing is echoed back),
/// and the slave's path, which the guest opens as its serial port.
pub fn pty() -> (std::fs::File, std::fs::File, std::path::PathBuf) {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let path = std::path::PathBuf::from(name.to_str().unwrap());
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut tio = rustix::termios::tcgetattr(&slave).unwrap();
    tio.make_raw();
    rustix::termios::tcsetattr(&slave, rustix::termios::OptionalActions::Now, &tio).unwrap();
    (std::fs::File::from(master), slave, path)
}

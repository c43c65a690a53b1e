//! A small blocking HTTP/1.1 client: GET, PUT and POST (with a body and its Content-Length) over TCP, rustls or a local unix socket, one connection per request
//! (`Connection: close`), a deadline over connect, TLS, request and every read, a body cap,
//! bounded response heads; redirects only when no request headers are sent, or (for
//! `exchange`, which reports every status) within the same origin.
//! No proxy, no cookies, no compression, no keep-alive.
//!
//! This file keeps the public surface (`get`, `exchange`, `Error`) and the request flow:
//! the request head, sending it, and the redirect policy. The parts each own one concern:
//! `url` the URL and redirect targets, `conn` the socket, TLS and the deadline, `response`
//! the status line, headers and body, with the limits on what a server may send.

mod conn;
mod response;
mod url;

use base64::Engine as _;
pub(super) use conn::Dial;
use conn::{connect, Stream};
use std::io::{self, BufReader, Write};
use std::sync::Arc;
use std::time::Instant;

pub(super) use conn::tls_config;
pub(super) use response::{fuzz, read_body, read_head, Head};
/// Only the tests name the host type; the fetcher goes through `Url`.
#[cfg(test)]
pub(super) use url::Host;
pub(super) use url::Url;

/// Redirects followed for a request without headers.
const MAX_REDIRECTS: usize = 5;

#[derive(Debug, PartialEq)]
pub(super) enum Error {
    /// 404 or 410.
    NotFound,
    /// A body over the cap.
    TooLarge,
    /// Worth another attempt: connection failures, timeouts, 5xx.
    Transient(String),
    /// Anything else: other statuses, TLS, a malformed response, a refused redirect.
    Failed(String),
}

fn failed(reason: impl Into<String>) -> Error {
    Error::Failed(reason.into())
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        let tls = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
        match (tls, e.kind()) {
            (Some(tls), _) => failed(format!("tls: {tls}")),
            (_, io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                Error::Transient("timed out".into())
            }
            _ => Error::Transient(e.to_string()),
        }
    }
}

/// One GET, following redirects when `headers` is empty, until `deadline`.
pub(super) fn get(
    url: &str,
    headers: &[(String, String)],
    max_bytes: u64,
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
    dial: &Dial,
) -> Result<Vec<u8>, Error> {
    let mut url = Url::parse(url)?;
    for _ in 0..=MAX_REDIRECTS {
        let out = Outgoing {
            method: "GET",
            url: "",
            headers,
            body: &[],
            source_port: None,
        };
        let (head, mut stream) = send(&out, &url, deadline, tls, dial)?;
        match head.status {
            200..=299 => return read_body(&mut stream, &head, max_bytes),
            301 | 302 | 303 | 307 | 308 if headers.is_empty() => {
                url = url.redirect(location(&head)?)?;
            }
            code @ 301..=308 if !headers.is_empty() => {
                let why = "redirects are not followed for requests with headers";
                return Err(failed(format!("HTTP status {code} ({why})")));
            }
            404 | 410 => return Err(Error::NotFound),
            code @ 500..=599 => return Err(Error::Transient(format!("HTTP status {code}"))),
            code => return Err(failed(format!("HTTP status {code}"))),
        }
    }
    Err(failed("too many redirects"))
}

/// Response headers, names lowercased.
pub(super) type Headers = Vec<(String, String)>;

/// What `exchange` sends: method, URL, headers and a body (empty for none).
pub(super) struct Outgoing<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    /// The local port to send from (`None`: any): Scaleway's privileged source port.
    pub source_port: Option<u16>,
}

/// One request whose every final status is an answer: `(status, headers, body)`, the body
/// read (within `max_bytes`) only for 2xx, header names lowercased. Redirects are followed
/// only within the same origin (scheme, host and port), so the headers, often a token, never
/// reach another host, and never for a request with a body (a redirect is its answer).
pub(super) fn exchange(
    out: &Outgoing,
    max_bytes: u64,
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
    dial: &Dial,
) -> Result<(u16, Headers, Vec<u8>), Error> {
    let mut url = Url::parse(out.url)?;
    for _ in 0..=MAX_REDIRECTS {
        let (head, mut stream) = send(out, &url, deadline, tls, dial)?;
        match head.status {
            200..=299 => {
                let body = read_body(&mut stream, &head, max_bytes)?;
                return Ok((head.status, head.headers, body));
            }
            301 | 302 | 303 | 307 | 308 if out.body.is_empty() => {
                let next = url.redirect(location(&head)?)?;
                if (next.tls, &next.host, next.port) != (url.tls, &url.host, url.port) {
                    return Err(failed("redirect to another host refused"));
                }
                url = next;
            }
            code => return Ok((code, head.headers, Vec::new())),
        }
    }
    Err(failed("too many redirects"))
}

fn location(head: &Head) -> Result<&str, Error> {
    head.get("location")
        .ok_or_else(|| failed(format!("HTTP status {} without a Location", head.status)))
}

/// Sends one request of `out` (head, then body) to `url` (`out.url` or where a redirect
/// led) and reads the response head.
fn send(
    out: &Outgoing,
    url: &Url,
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
    dial: &Dial,
) -> Result<(Head, BufReader<Box<dyn Stream>>), Error> {
    let req = request(out.method, url, out.headers, out.body.len())?;
    let mut stream = BufReader::new(connect(url, deadline, tls, dial, out.source_port)?);
    stream.get_mut().write_all(&req)?;
    stream.get_mut().write_all(out.body)?;
    stream.get_mut().flush()?;
    let head = read_head(&mut stream)?;
    Ok((head, stream))
}

/// The request head for a body of `body_len` bytes. Header names must be tokens and values
/// free of line breaks; the caller's `User-Agent`, `Accept` or `Authorization` replace ember's.
pub(super) fn request(
    method: &str,
    url: &Url,
    headers: &[(String, String)],
    body_len: usize,
) -> Result<Vec<u8>, Error> {
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    let mut out = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\n",
        url.target,
        url.host_header()
    );
    let given = |name: &str| headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    for (name, value) in [("User-Agent", "ember"), ("Accept", "*/*")] {
        if !given(name) {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if let (Some(userinfo), false) = (&url.userinfo, given("Authorization")) {
        let auth = base64::engine::general_purpose::STANDARD.encode(userinfo);
        out.push_str(&format!("Authorization: Basic {auth}\r\n"));
    }
    out.push_str("Connection: close\r\n");
    if method != "GET" || body_len > 0 {
        // A PUT or POST says how long its body is, even when it has none.
        out.push_str(&format!("Content-Length: {body_len}\r\n"));
    }
    for (name, value) in headers {
        if name.is_empty()
            || !name.bytes().all(token)
            || value.bytes().any(|b| b"\r\n\0".contains(&b))
        {
            return Err(failed("a request header name or value is malformed"));
        }
        let framing = ["host", "connection", "content-length", "transfer-encoding"];
        if framing.iter().any(|f| name.eq_ignore_ascii_case(f)) {
            return Err(failed(format!("request header {name} is ember's to set")));
        }
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    Ok(out.into_bytes())
}

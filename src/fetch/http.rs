//! A small blocking HTTP/1.1 client: GET, PUT and POST (with a body and its Content-Length) over TCP or rustls, one connection per request
//! (`Connection: close`), a deadline over connect, TLS, request and every read, a body cap,
//! bounded response heads; redirects only when no request headers are sent, or (for
//! `exchange`, which reports every status) within the same origin.
//! No proxy, no cookies, no compression, no keep-alive.

use base64::Engine as _;
use rustls::pki_types::{CertificateDer, ServerName};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Redirects followed for a request without headers.
const MAX_REDIRECTS: usize = 5;
/// Budget of a response head (and of a chunked body's trailers): header lines and bytes.
const MAX_HEADERS: usize = 100;
const MAX_HEAD_BYTES: usize = 64 * 1024;

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

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Host {
    Name(String),
    Ip(IpAddr),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Url {
    pub tls: bool,
    /// Percent-decoded `user:password`, sent as Basic auth.
    pub userinfo: Option<String>,
    pub host: Host,
    pub port: u16,
    /// Path and query, percent-encoded where a request line needs it; no fragment.
    pub target: String,
}

impl Url {
    pub fn parse(url: &str) -> Result<Url, Error> {
        let bad = |what: &str| failed(format!("invalid URL: {what}"));
        let url = url.split('#').next().unwrap_or_default();
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no scheme"))?;
        let tls = match scheme.to_ascii_lowercase().as_str() {
            "http" => false,
            "https" => true,
            _ => return Err(bad("scheme not http or https")),
        };
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, target) = rest.split_at(end);
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((user, host)) => (
                Some(crate::percent::decode(user)).filter(|u| !u.is_empty()),
                host,
            ),
            None => (None, authority),
        };
        let (host, port) = match hostport.strip_prefix('[') {
            Some(v6) => {
                let (ip, port) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
                let ip = ip.parse().map_err(|_| bad("bad IPv6 address"))?;
                (Host::Ip(IpAddr::V6(ip)), port)
            }
            None => {
                let cut = hostport.find(':').unwrap_or(hostport.len());
                let (name, port) = hostport.split_at(cut);
                let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
                if name.is_empty() || !name.chars().all(ok) {
                    return Err(bad("bad host"));
                }
                match name.parse() {
                    Ok(ip) => (Host::Ip(IpAddr::V4(ip)), port),
                    Err(_) => (Host::Name(name.to_ascii_lowercase()), port),
                }
            }
        };
        let port = match port {
            "" | ":" => {
                if tls {
                    443
                } else {
                    80
                }
            }
            p => p
                .strip_prefix(':')
                .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|p| p.parse().ok())
                .filter(|&p| p != 0)
                .ok_or_else(|| bad("bad port"))?,
        };
        let target = if target.starts_with('/') {
            target.to_string()
        } else {
            format!("/{target}")
        };
        Ok(Url {
            tls,
            userinfo,
            host,
            port,
            target: percent_encode(&target),
        })
    }

    fn default_port(&self) -> u16 {
        if self.tls {
            443
        } else {
            80
        }
    }

    /// The `Host` header: the name or bracketed IPv6 literal, with the port when not default.
    pub fn host_header(&self) -> String {
        let host = match &self.host {
            Host::Name(n) => n.clone(),
            Host::Ip(IpAddr::V4(ip)) => ip.to_string(),
            Host::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
        };
        if self.port == self.default_port() {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// The URL a `Location` names, relative to this one; user info kept only on this origin,
    /// and never from https to http.
    pub fn redirect(&self, location: &str) -> Result<Url, Error> {
        let next = self.join(location)?;
        if self.tls && !next.tls {
            return Err(failed("redirect from https to http refused"));
        }
        Ok(next)
    }

    fn join(&self, location: &str) -> Result<Url, Error> {
        let location = location.split('#').next().unwrap_or_default();
        let scheme_end = location.find("://").filter(|&i| {
            location[..i]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        });
        if scheme_end.is_some() {
            return Url::parse(location);
        }
        if location.starts_with("//") {
            return Url::parse(&format!(
                "{}:{location}",
                if self.tls { "https" } else { "http" }
            ));
        }
        let path = self.target.split('?').next().unwrap_or("/");
        let target = if location.starts_with('/') {
            location.to_string()
        } else if location.starts_with('?') {
            format!("{path}{location}")
        } else {
            let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{location}")
        };
        Ok(Url {
            target: percent_encode(&target),
            ..self.clone()
        })
    }
}

/// Escapes what cannot stand in a request line: controls, spaces, non-ASCII, and `"<>\^`{|}`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b <= b' ' || b >= 0x7f || b"\"<>\\^`{|}".contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// One GET, following redirects when `headers` is empty, until `deadline`.
pub(super) fn get(
    url: &str,
    headers: &[(String, String)],
    max_bytes: u64,
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
) -> Result<Vec<u8>, Error> {
    let mut url = Url::parse(url)?;
    for _ in 0..=MAX_REDIRECTS {
        let (head, mut stream) = send("GET", &url, headers, &[], deadline, tls)?;
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
) -> Result<(u16, Headers, Vec<u8>), Error> {
    let mut url = Url::parse(out.url)?;
    for _ in 0..=MAX_REDIRECTS {
        let (head, mut stream) = send(out.method, &url, out.headers, out.body, deadline, tls)?;
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

/// Sends one request (head, then `body`) and reads the response head.
fn send(
    method: &str,
    url: &Url,
    headers: &[(String, String)],
    body: &[u8],
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
) -> Result<(Head, BufReader<Box<dyn Stream>>), Error> {
    let req = request(method, url, headers, body.len())?;
    let mut stream = BufReader::new(connect(url, deadline, tls)?);
    stream.get_mut().write_all(&req)?;
    stream.get_mut().write_all(body)?;
    stream.get_mut().flush()?;
    let head = read_head(&mut stream)?;
    Ok((head, stream))
}

/// The time left before `deadline`, or a timeout.
fn left(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    Ok(left)
}

/// A socket whose every read and write is bounded by what is left before the deadline, so a
/// server that drips bytes cannot hold a request past it.
struct Timed {
    tcp: TcpStream,
    deadline: Instant,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.tcp.set_read_timeout(Some(left(self.deadline)?))?;
        self.tcp.read(buf)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.set_write_timeout(Some(left(self.deadline)?))?;
        self.tcp.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

fn connect(
    url: &Url,
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
) -> Result<Box<dyn Stream>, Error> {
    let addrs: Vec<SocketAddr> = match &url.host {
        Host::Ip(ip) => vec![SocketAddr::new(*ip, url.port)],
        Host::Name(name) => (name.as_str(), url.port)
            .to_socket_addrs()
            .map_err(|e| Error::Transient(format!("resolving the host: {e}")))?
            .collect(),
    };
    let mut last = Error::Transient("the host has no address".into());
    let mut tcp = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, left(deadline)?) {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = Error::from(e),
        }
    }
    let tcp = Timed {
        tcp: tcp.ok_or(last)?,
        deadline,
    };
    if !url.tls {
        return Ok(Box::new(tcp));
    }
    let name = match &url.host {
        Host::Ip(ip) => ServerName::from(*ip),
        Host::Name(n) => {
            ServerName::try_from(n.clone()).map_err(|e| failed(format!("tls: {e}")))?
        }
    };
    let conn = rustls::ClientConnection::new(tls().map_err(failed)?, name)
        .map_err(|e| failed(format!("tls: {e}")))?;
    Ok(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

/// A client configuration trusting `roots`, with the ring provider (no process default).
pub(super) fn tls_config(
    roots: Vec<CertificateDer<'static>>,
) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut store = rustls::RootCertStore::empty();
    store.add_parsable_certificates(roots);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls: {e}"))?
        .with_root_certificates(store)
        .with_no_client_auth();
    Ok(Arc::new(config))
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

#[derive(Debug)]
pub(super) struct Head {
    pub status: u16,
    /// Names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Head {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One line (without CR LF) out of `budget` bytes.
fn line(r: &mut impl BufRead, budget: &mut usize) -> Result<String, Error> {
    let mut buf = Vec::new();
    let n = r.take(*budget as u64).read_until(b'\n', &mut buf)?;
    if !buf.ends_with(b"\n") {
        return Err(failed(if n == *budget {
            "response head or trailers too large"
        } else {
            "connection closed in the response head"
        }));
    }
    *budget -= n;
    buf.pop();
    if buf.ends_with(b"\r") {
        buf.pop();
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Header lines up to the empty line, at most `MAX_HEADERS` of them.
fn header_lines(r: &mut impl BufRead, budget: &mut usize) -> Result<Vec<(String, String)>, Error> {
    let mut headers = Vec::new();
    loop {
        let line = line(r, budget)?;
        if line.is_empty() {
            return Ok(headers);
        }
        if headers.len() == MAX_HEADERS {
            return Err(failed("more than 100 response headers"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| failed("malformed response header"))?;
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(failed("malformed response header"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
}

/// The status line and headers of the final response, skipping interim 1xx ones.
pub(super) fn read_head(r: &mut impl BufRead) -> Result<Head, Error> {
    let mut budget = MAX_HEAD_BYTES;
    loop {
        let status_line = line(r, &mut budget)?;
        let mut parts = status_line.splitn(3, ' ');
        let version = parts.next().unwrap_or_default();
        let code = parts.next().unwrap_or_default();
        if !version.starts_with("HTTP/1.")
            || code.len() != 3
            || !code.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(failed("malformed response status line"));
        }
        let status: u16 = code
            .parse()
            .map_err(|_| failed("malformed response status line"))?;
        let headers = header_lines(r, &mut budget)?;
        if !(100..200).contains(&status) {
            return Ok(Head { status, headers });
        }
    }
}

/// Appends at most `n` bytes to `body`, growing it to no more than `cap` bytes; returns the
/// count read (fewer than `n` only at the end of the stream).
fn append(r: &mut impl Read, body: &mut Vec<u8>, n: u64, cap: usize) -> Result<u64, Error> {
    let (mut buf, mut done) = ([0u8; 8192], 0u64);
    while done < n {
        let want = (n - done).min(buf.len() as u64) as usize;
        let got = match r.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if body.capacity() - body.len() < got {
            let grown = (body.len() * 2).max(body.len() + got).max(4096).min(cap);
            body.reserve_exact(grown.saturating_sub(body.len()).max(got));
        }
        body.extend_from_slice(&buf[..got]);
        done += got as u64;
    }
    Ok(done)
}

/// The body, framed by `Transfer-Encoding: chunked`, `Content-Length` or the end of the stream.
pub(super) fn read_body(
    r: &mut impl BufRead,
    head: &Head,
    max_bytes: u64,
) -> Result<Vec<u8>, Error> {
    let cap = usize::try_from(max_bytes.saturating_add(1)).unwrap_or(usize::MAX);
    let mut body = Vec::new();
    if head.status == 204 {
        return Ok(body);
    }
    if let Some(te) = head.get("transfer-encoding") {
        if !te.eq_ignore_ascii_case("chunked") {
            return Err(failed("unsupported transfer-encoding"));
        }
        return read_chunked(r, max_bytes, cap);
    }
    let lengths: Vec<&str> = head
        .headers
        .iter()
        .filter(|(n, _)| n == "content-length")
        .map(|(_, v)| v.as_str())
        .collect();
    if let Some(first) = lengths.first() {
        let len: u64 = match first.parse() {
            Ok(len)
                if first.bytes().all(|b| b.is_ascii_digit())
                    && lengths.iter().all(|l| l == first) =>
            {
                len
            }
            _ => return Err(failed("malformed content-length")),
        };
        if len > max_bytes {
            return Err(Error::TooLarge);
        }
        if append(r, &mut body, len, cap)? < len {
            return Err(failed("connection closed before the end of the body"));
        }
        return Ok(body);
    }
    append(r, &mut body, max_bytes.saturating_add(1), cap)?;
    if body.len() as u64 > max_bytes {
        return Err(Error::TooLarge);
    }
    Ok(body)
}

fn read_chunked(r: &mut impl BufRead, max_bytes: u64, cap: usize) -> Result<Vec<u8>, Error> {
    let mut body = Vec::new();
    loop {
        let mut budget = 1024;
        let size_line = line(r, &mut budget)?;
        let hex = size_line.split(';').next().unwrap_or_default().trim();
        let size = match u64::from_str_radix(hex, 16) {
            Ok(size) if hex.len() <= 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => size,
            _ => return Err(failed("malformed chunk size")),
        };
        if size == 0 {
            let mut budget = MAX_HEAD_BYTES;
            header_lines(r, &mut budget)?;
            return Ok(body);
        }
        if (body.len() as u64).saturating_add(size) > max_bytes {
            return Err(Error::TooLarge);
        }
        if append(r, &mut body, size, cap)? < size {
            return Err(failed("connection closed in a chunk"));
        }
        match line(r, &mut 2) {
            Ok(end) if end.is_empty() => {}
            Err(e @ Error::Transient(_)) => return Err(e),
            _ => return Err(failed("malformed chunk")),
        }
    }
}

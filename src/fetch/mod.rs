//! Reading a URL with a size budget and deadlines: `file://` and plain paths (under the host
//! prefix), and http(s) with retries. Never through a proxy from the environment.

mod dns;
mod http;
#[cfg(test)]
mod tests;

use crate::context::Env;
use crate::host::Host;
use crate::limits::{Tally, TALLY_BUDGET};
use crate::retry::{Policy, Retry};
use rustls::pki_types::{pem::PemObject, CertificateDer};
use std::io::Read;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub use ember_core::url_read::{FetchError, HeaderUrlReader, UrlReader};

/// Fuzz entry (src/fuzz.rs): an HTTP answer read as the client reads one.
#[doc(hidden)]
pub fn fuzz_response(data: &[u8]) {
    http::fuzz(data)
}

/// Fuzz entry (src/fuzz.rs): a DNS answer read as the resolver reads one.
#[doc(hidden)]
pub fn fuzz_dns(data: &[u8]) {
    dns::fuzz(data)
}

pub use crate::redact::redact_url;

/// Attempts per URL for errors worth retrying (connection failures, timeouts, 5xx).
const ATTEMPTS: u32 = ember_core::bounds::FETCH_ATTEMPTS;

/// CA bundles looked for, first in the target root, then in the initramfs.
const CA_BUNDLES: [&str; 3] = [
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
];

/// Seconds since the epoch of 2026-01-01: a clock before it cannot validate certificates.
const PLAUSIBLE_EPOCH: u64 = 1_767_225_600;

pub struct Fetcher {
    host: Host,
    target: std::path::PathBuf,
    request_timeout: Duration,
    deadline: Instant,
    /// Built on the first https request, from the CA bundle found then.
    tls: OnceLock<Result<Arc<rustls::ClientConfig>, String>>,
    dial: http::Dial,
    /// Requests leave from this local port (`set_source_port`).
    source_port: Option<u16>,
    /// What every answer and file read is charged to: the datasource's (`None`: user-data's
    /// includes and write_files sources, which have budgets of their own).
    tally: Option<Arc<Tally>>,
}

/// A request that was answered: any status, and the body of a 2xx.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Fetcher {
    pub fn new(env: &Env) -> Fetcher {
        let limits = env.limits();
        let deadline = Instant::now() + Duration::from_millis(limits.datasource_timeout_ms);
        Fetcher::with_deadline(
            env,
            Duration::from_millis(limits.request_timeout_ms),
            deadline,
        )
    }

    /// A fetcher with the caller's per-request timeout and overall deadline (a datasource's
    /// own settings, already bounded by the limits).
    pub fn with_deadline(env: &Env, request_timeout: Duration, deadline: Instant) -> Fetcher {
        Fetcher {
            host: env.host.clone(),
            target: env.target_path.to_path_buf(),
            request_timeout,
            deadline,
            tls: OnceLock::new(),
            dial: http::Dial::Tcp(dns::Resolver::new(env.host, env.cmdline)),
            source_port: None,
            tally: Some(env.fetched.clone()),
        }
    }

    /// This fetcher without the datasource's tally: for what user-data asks for (includes,
    /// write_files sources), bounded by `include_bytes` and `file_bytes` instead, and for a
    /// report to the platform (Azure's ready report), which must go out whatever was fetched.
    pub fn unmetered(mut self) -> Fetcher {
        self.tally = None;
        self
    }

    /// `read` with at most `max_bytes`, or what is left of the datasource's total when less;
    /// what it got is charged. A read the total stopped says `datasource_bytes`; once the
    /// total is spent, nothing more is asked for.
    fn metered<T>(
        &self,
        url: &str,
        max_bytes: u64,
        len: fn(&T) -> usize,
        read: impl FnOnce(u64) -> Result<T, FetchError>,
    ) -> Result<T, FetchError> {
        let Some(tally) = &self.tally else {
            return read(max_bytes);
        };
        let over = || FetchError::TooLarge {
            url: url.into(),
            max_bytes: tally.limit(),
            budget: TALLY_BUDGET,
        };
        let (cap, capped) = tally.cap(max_bytes);
        if cap == 0 && capped {
            return Err(over());
        }
        match read(cap) {
            Ok(got) => {
                tally.charge(len(&got));
                Ok(got)
            }
            Err(FetchError::TooLarge { .. }) if capped => Err(over()),
            Err(e) => Err(e),
        }
    }

    /// Sends every later request from local port `port` (`None`: any): a service that
    /// answers only a privileged port (< 1024, which only root may bind: Scaleway's
    /// user-data) can be asked. A port another socket holds fails the request ("in use").
    pub fn set_source_port(&mut self, port: Option<u16>) {
        self.source_port = port;
    }

    /// A fetcher whose every http:// request goes to the local unix socket `socket` (a host
    /// path, under the host prefix), the URL's host serving only as the Host header: for a
    /// platform API served on a socket (LXD's /dev/lxd/sock). Made only by a datasource, so
    /// no URL from user-data can reach a local socket.
    pub fn over_unix_socket(
        env: &Env,
        socket: &str,
        request_timeout: Duration,
        deadline: Instant,
    ) -> Fetcher {
        let mut fetcher = Fetcher::with_deadline(env, request_timeout, deadline);
        fetcher.dial = http::Dial::Unix(env.host.path(socket));
        fetcher
    }

    /// One http(s) request, no retries (the caller has its own policy): every status is an
    /// answer, so 401, 403 and 404 can be told apart. Redirects are followed only within the
    /// same origin, so `headers` (a token) never reach another host. `Err` means no answer:
    /// `Deadline` when the overall deadline had passed, else `Failed`.
    pub fn request(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
    ) -> Result<Response, FetchError> {
        self.request_with_headers(method, url, headers, max_bytes)
            .map(|(r, _)| r)
    }

    /// `request`, also giving the answer's headers (names lowercased): a service that must
    /// say who it is (GCE's `Metadata-Flavor`) can be checked.
    pub fn request_with_headers(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
    ) -> Result<(Response, Vec<(String, String)>), FetchError> {
        let out = http::Outgoing {
            method,
            url,
            headers,
            body: &[],
            source_port: self.source_port,
        };
        self.exchange(&out, max_bytes)
    }

    /// `request` sending `body` with its `Content-Length` (the caller gives `Content-Type`):
    /// the wireserver's health report. A redirect is not followed but answered, since the body
    /// is not for another place.
    pub fn request_with_body(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        max_bytes: u64,
    ) -> Result<Response, FetchError> {
        let out = http::Outgoing {
            method,
            url,
            headers,
            body,
            source_port: self.source_port,
        };
        self.exchange(&out, max_bytes).map(|(r, _)| r)
    }

    fn exchange(
        &self,
        out: &http::Outgoing,
        max_bytes: u64,
    ) -> Result<(Response, Vec<(String, String)>), FetchError> {
        let url = out.url;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(FetchError::Unsupported { url: url.into() });
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FetchError::Deadline { url: url.into() });
        }
        let tls = || {
            self.tls
                .get_or_init(|| http::tls_config(self.ca_certificates()))
                .clone()
        };
        let deadline = Instant::now() + self.request_timeout.min(left);
        let len = |(r, _): &(Response, Vec<(String, String)>)| r.body.len();
        self.metered(url, max_bytes, len, |max_bytes| {
            self.exchange_within(out, max_bytes, deadline, &tls)
        })
    }

    fn exchange_within(
        &self,
        out: &http::Outgoing,
        max_bytes: u64,
        deadline: Instant,
        tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
    ) -> Result<(Response, Vec<(String, String)>), FetchError> {
        let url = out.url;
        match http::exchange(out, max_bytes, deadline, tls, &self.dial) {
            Ok((status, got, body)) => Ok((Response { status, body }, got)),
            Err(http::Error::TooLarge) => Err(FetchError::TooLarge {
                url: url.into(),
                max_bytes,
                budget: "file_bytes",
            }),
            Err(http::Error::Transient(reason) | http::Error::Failed(reason)) => {
                Err(FetchError::Failed {
                    url: url.into(),
                    reason: self.explain(reason),
                })
            }
            Err(http::Error::NotFound) => Err(FetchError::NotFound { url: url.into() }),
        }
    }

    /// The overall deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// `name`'s addresses by the resolver requests use, by `until` (and the overall
    /// deadline): for a datasource that finds its service by name (CloudStack's
    /// `data-server`) and must know whether the name exists before it asks anything.
    pub fn resolve(&self, name: &str, until: Instant) -> Option<Vec<std::net::IpAddr>> {
        match &self.dial {
            http::Dial::Tcp(dns) => dns.resolve(name, until.min(self.deadline)).ok(),
            http::Dial::Unix(_) => None,
        }
    }

    fn read_path(&self, url: &str, path: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError> {
        let full = self.host.path(path);
        // Regular files only: `#include file:///dev/console` or a FIFO would block for ever.
        let file = crate::regular::open_regular(&full).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => FetchError::NotFound { url: url.into() },
            _ => FetchError::Failed {
                url: url.into(),
                reason: e.to_string(),
            },
        })?;
        self.metered(url, max_bytes, Vec::len, |max| read_capped(file, url, max))
    }

    fn read_http(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError> {
        self.read_http_with(url, &[], max_bytes)
    }

    fn read_http_with(
        &self,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
    ) -> Result<Vec<u8>, FetchError> {
        self.metered(url, max_bytes, Vec::len, |max| {
            self.read_http_within(url, headers, max)
        })
    }

    fn read_http_within(
        &self,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
    ) -> Result<Vec<u8>, FetchError> {
        let tls = || {
            self.tls
                .get_or_init(|| http::tls_config(self.ca_certificates()))
                .clone()
        };
        let mut retry = Retry::new(Policy::metadata(Some(ATTEMPTS), self.deadline));
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(FetchError::Deadline { url: url.into() });
            }
            // The request's own deadline, never past the datasource's.
            let deadline = Instant::now() + self.request_timeout.min(left);
            let failed = |reason: String| FetchError::Failed {
                url: url.into(),
                reason: self.explain(reason),
            };
            match http::get(url, headers, max_bytes, deadline, &tls, &self.dial) {
                Ok(body) => return Ok(body),
                Err(http::Error::NotFound) => return Err(FetchError::NotFound { url: url.into() }),
                Err(http::Error::TooLarge) => {
                    return Err(FetchError::TooLarge {
                        url: url.into(),
                        max_bytes,
                        budget: "file_bytes",
                    })
                }
                Err(http::Error::Failed(reason)) => return Err(failed(reason)),
                Err(http::Error::Transient(reason)) => {
                    if let Err(stop) = retry.any_failure(self.explain(reason)) {
                        return Err(match stop.deadline {
                            true => FetchError::Deadline { url: url.into() },
                            false => FetchError::Failed {
                                url: url.into(),
                                reason: stop.to_string(),
                            },
                        });
                    }
                }
            }
        }
    }

    /// Certificates of the first CA bundle found in the target, else in the initramfs.
    fn ca_certificates(&self) -> Vec<CertificateDer<'static>> {
        let roots = [self.target.clone(), self.host.prefix().to_path_buf()];
        for root in roots {
            for bundle in CA_BUNDLES {
                let Ok(pem) = std::fs::read(root.join(bundle.trim_start_matches('/'))) else {
                    continue;
                };
                let certs: Vec<_> = CertificateDer::pem_slice_iter(&pem)
                    .filter_map(Result::ok)
                    .collect();
                if !certs.is_empty() {
                    return certs;
                }
            }
        }
        Vec::new()
    }

    /// Adds the likely cause when the clock cannot be right for TLS.
    fn explain(&self, reason: String) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if now < PLAUSIBLE_EPOCH && reason.contains("tls") {
            format!("{reason} (the clock is implausible: {now} s since 1970, before this build, so certificates cannot be validated)")
        } else {
            reason
        }
    }
}

/// Reads at most `max_bytes`, failing rather than truncating.
fn read_capped(file: impl Read, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError> {
    let mut data = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| FetchError::Failed {
            url: url.into(),
            reason: e.to_string(),
        })?;
    if data.len() as u64 > max_bytes {
        return Err(FetchError::TooLarge {
            url: url.into(),
            max_bytes,
            budget: "file_bytes",
        });
    }
    Ok(data)
}

impl HeaderUrlReader for Fetcher {
    fn read_with_headers(
        &self,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
    ) -> Result<Vec<u8>, FetchError> {
        if url.starts_with("http://") || url.starts_with("https://") {
            self.read_http_with(url, headers, max_bytes)
        } else {
            self.read(url, max_bytes)
        }
    }
}

impl UrlReader for Fetcher {
    fn read(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError> {
        if let Some(path) = url.strip_prefix("file://") {
            self.read_path(url, path, max_bytes)
        } else if url.starts_with('/') {
            self.read_path(url, url, max_bytes)
        } else if url.starts_with("http://") || url.starts_with("https://") {
            self.read_http(url, max_bytes)
        } else {
            Err(FetchError::Unsupported { url: url.into() })
        }
    }
}

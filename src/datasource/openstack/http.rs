//! The OpenStack metadata service over HTTP: plain GETs (no token, no header), the version
//! listing at `/openstack` as the sign that the service answers, retries with backoff on 5xx
//! and unanswered requests under one deadline, a size budget per file and a request count.
//! Not here: which files are read (openstack_files.rs) or how the network is reached.
//! <https://docs.openstack.org/nova/latest/user/metadata.html#metadata-service>

use crate::datasource::common::seed::FileRead;
use crate::error::Diag;
use crate::fetch::{redact_url, FetchError, Fetcher, Response};
use crate::reason::Reason;
use crate::retry::{Policy, Retry};
use std::time::{Duration, Instant};

/// The version listing is a few hundred bytes.
const LISTING_MAX_BYTES: u64 = 64 * 1024;

pub struct Settings {
    /// Base URLs tried in turn: `http://169.254.169.254`.
    pub bases: Vec<String>,
    /// Waiting for the service to answer ends here.
    pub wait_until: Instant,
    /// Everything ends here.
    pub deadline: Instant,
    pub request_timeout: Duration,
    /// Further attempts of one GET after a 5xx or no answer.
    pub retries: u32,
    pub max_bytes: u64,
}

/// The code of the error `connect` gives when no base answered: another NIC may do better.
pub const UNREACHABLE: Reason = Reason::MetadataUnreachable;

pub struct Service {
    fetcher: Fetcher,
    base: String,
    retries: u32,
    max_bytes: u64,
    /// Requests sent.
    pub reads: u32,
}

impl Service {
    /// Finds a base whose `/openstack` listing answers; returns the service and the listing.
    /// Each try of the listing counts in `reads`, even when it fails.
    pub fn connect(
        fetcher: Fetcher,
        s: &Settings,
        reads: &mut u32,
    ) -> Result<(Service, String), Diag> {
        let mut retry = Retry::new(Policy::metadata(None, s.wait_until));
        let mut last = String::from("no attempt");
        loop {
            for base in &s.bases {
                let base = base.trim_end_matches('/');
                let url = format!("{base}/openstack");
                *reads += 1;
                let why = match fetcher.request("GET", &url, &[], LISTING_MAX_BYTES) {
                    Ok(Response { status: 200, body }) => {
                        let listing = String::from_utf8_lossy(&body).into_owned();
                        let service = Service {
                            fetcher,
                            base: base.to_string(),
                            retries: s.retries,
                            max_bytes: s.max_bytes,
                            reads: 0,
                        };
                        return Ok((service, listing));
                    }
                    // Something answers at the address but it is no Nova: no use waiting.
                    Ok(Response { status, .. }) if (400..500).contains(&status) => {
                        let msg =
                            format!("HTTP status {status}: no OpenStack metadata service here");
                        return Err(Diag::error(Reason::MetadataStatus, msg).file(redact_url(&url)));
                    }
                    Ok(Response { status, .. }) => format!("HTTP status {status}"),
                    Err(FetchError::Deadline { .. }) => break,
                    Err(e) => e.reason(),
                };
                last = format!("{}: {why}", redact_url(&url));
            }
            if let Err(stop) = retry.unanswered(last.clone()) {
                let msg = format!("no OpenStack metadata service answered: {stop}");
                return Err(Diag::error(UNREACHABLE, msg).budget("datasource_timeout_ms"));
            }
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// `path` under the base (`openstack/2018-08-27/user_data`): found, absent on 404, or
    /// failed with the path (never the body) in the diagnostic.
    pub fn get(&mut self, path: &str) -> FileRead {
        let url = format!("{}/{path}", self.base);
        let shown = redact_url(&url);
        let policy = Policy::metadata(Some(self.retries + 1), self.fetcher.deadline());
        let mut retry = Retry::new(policy);
        loop {
            self.reads += 1;
            let why = match self.fetcher.request("GET", &url, &[], self.max_bytes) {
                Ok(Response { status: 200, body }) => return FileRead::Found(body),
                Ok(Response { status: 404, .. }) => return FileRead::Absent,
                Ok(Response { status, .. }) if status >= 500 => format!("HTTP status {status}"),
                Ok(Response { status, .. }) => {
                    let d = Diag::error(Reason::MetadataStatus, format!("HTTP status {status}"));
                    return FileRead::Failed(d.file(shown));
                }
                Err(e @ (FetchError::TooLarge { .. } | FetchError::Deadline { .. })) => {
                    return FileRead::Failed(e.to_diag(&shown));
                }
                Err(e) => e.reason(),
            };
            if let Err(stop) = retry.any_failure(why) {
                let code = if stop.deadline {
                    Reason::FetchDeadline
                } else {
                    Reason::FetchFailed
                };
                return FileRead::Failed(Diag::error(code, stop.to_string()).file(shown));
            }
        }
    }
}

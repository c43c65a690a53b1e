//! One file from the MAAS metadata service by one signed GET, as cloud-init's
//! `OauthUrlHelper.readurl` reads it: a fresh OAuth header per request; a 401 or 403 whose
//! `Date` differs from our clock is retried once with the timestamp moved by the difference
//! (the skew is kept for the rest of the fetch, in memory only); 5xx and silence retried under
//! the datasource's deadline; 404 is "absent". Errors name the URL, never the header.

use super::oauth::{self, Creds};
use crate::error::Diag;
use crate::fetch::{FetchError, Fetcher, Response};
use crate::reason::Reason;
use crate::retry::{Policy, Retry};
use std::time::Instant;

pub struct Client<'a> {
    pub fetcher: &'a Fetcher,
    pub creds: Option<&'a Creds>,
    /// Our clock's distance to the service's, learnt from a refusal.
    pub skew: Option<i64>,
    pub retries: u32,
    pub max_bytes: u64,
    pub wait_until: Instant,
    pub reads: u32,
}

impl Client<'_> {
    /// The body of a 200, or None for a 404.
    pub fn get(&mut self, url: &str) -> Result<Option<Vec<u8>>, Diag> {
        let shown = crate::fetch::redact_url(url);
        let policy = Policy::metadata(Some(self.retries + 1), self.wait_until);
        let mut retry = Retry::new(policy);
        let mut skew_tried = false;
        loop {
            let headers: Vec<(String, String)> = self
                .creds
                .map(|c| {
                    let h = c.header(oauth::timestamp(self.skew.unwrap_or(0)));
                    vec![("Authorization".to_string(), h.into_inner())]
                })
                .unwrap_or_default();
            self.reads += 1;
            let next = match self
                .fetcher
                .request_with_headers("GET", url, &headers, self.max_bytes)
            {
                Ok((Response { status: 200, body }, _)) => return Ok(Some(body)),
                Ok((Response { status: 404, .. }, _)) => return Ok(None),
                Ok((
                    Response {
                        status: status @ (401 | 403),
                        ..
                    },
                    answer,
                )) => {
                    let date = answer
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case("date"))
                        .map(|(_, v)| v.as_str());
                    let skew = date.and_then(oauth::skew_from_date);
                    // A refusal is worth a second try only when the clocks disagree.
                    if let (false, Some(s), Some(_)) = (skew_tried, skew, self.creds) {
                        if s.abs() > 5 || self.skew.is_some() {
                            skew_tried = true;
                            self.skew = Some(s);
                            continue;
                        }
                    }
                    let msg = format!(
                        "HTTP status {status}: the OAuth credentials were refused (clock skew {})",
                        skew.map_or("unknown: no Date header".into(), |s| format!("{s} s"))
                    );
                    return Err(Diag::error(Reason::MetadataStatus, msg).file(shown));
                }
                Ok((
                    Response {
                        status: status @ 500..,
                        ..
                    },
                    _,
                )) => retry.failed(format!("HTTP status {status}")),
                Ok((Response { status, .. }, _)) => {
                    let msg = format!("HTTP status {status}");
                    return Err(Diag::error(Reason::MetadataStatus, msg).file(shown));
                }
                Err(e @ FetchError::TooLarge { .. }) => return Err(e.to_diag(&shown)),
                Err(FetchError::Deadline { .. }) => {
                    let stop = retry.deadline_passed();
                    return Err(Diag::error(Reason::FetchDeadline, stop.to_string())
                        .file(shown)
                        .budget("datasource_timeout_ms"));
                }
                Err(e) => retry.unanswered(e.reason()),
            };
            if let Err(stop) = next {
                let code = if stop.answered > 0 {
                    Reason::FetchFailed
                } else {
                    Reason::MetadataUnreachable
                };
                return Err(Diag::error(code, stop.to_string()).file(shown));
            }
        }
    }
}

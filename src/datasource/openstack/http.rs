//! The OpenStack metadata service over HTTP: plain GETs (no token, no header), the version
//! listing at `/openstack` as the sign that the service answers, tried at each base in turn
//! until the wait ends; the files then through the cloud's `Client` (its retries, its budget).
//! Not here: which files are read (openstack_files.rs) or how the network is reached.
//! <https://docs.openstack.org/nova/latest/user/metadata.html#metadata-service>

use crate::datasource::common::client::Client;
use crate::datasource::common::seed::FileRead;
use crate::error::Diag;
use crate::fetch::{redact_url, FetchError, Fetcher, Response};
use crate::reason::Reason;
use crate::retry::{Policy, Retry};
use std::time::Instant;

/// The version listing is a few hundred bytes.
const LISTING_MAX_BYTES: u64 = 64 * 1024;

/// The code of the error `connect` gives when no base answered: another NIC may do better.
pub const UNREACHABLE: Reason = Reason::MetadataUnreachable;

/// Finds a base whose `/openstack` listing answers, trying every base once a round until
/// `wait_until` (a probe of several candidates, unlike one document's retries); returns the
/// base and the listing. Each try of the listing counts in `reads`, even when it fails.
pub fn connect(
    fetcher: &Fetcher,
    bases: &[String],
    wait_until: Instant,
    reads: &mut u32,
) -> Result<(String, String), Diag> {
    let mut retry = Retry::new(Policy::metadata(None, wait_until));
    let mut last = String::from("no attempt");
    loop {
        for base in bases {
            let base = base.trim_end_matches('/');
            let url = format!("{base}/openstack");
            *reads += 1;
            let why = match fetcher.request("GET", &url, &[], LISTING_MAX_BYTES) {
                Ok(Response { status: 200, body }) => {
                    let listing = String::from_utf8_lossy(&body).into_owned();
                    return Ok((base.to_string(), listing));
                }
                // Something answers at the address but it is no Nova: no use waiting.
                Ok(Response { status, .. }) if (400..500).contains(&status) => {
                    let msg = format!("HTTP status {status}: no OpenStack metadata service here");
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

/// `path` under the client's base (`openstack/2018-08-27/user_data`): found, absent on 404,
/// or failed with the path (never the body) in the diagnostic.
pub fn get(client: &Client, path: &str, reads: &mut u32) -> FileRead {
    match client.get_optional(path, reads) {
        Ok(Some(body)) => FileRead::Found(body),
        Ok(None) => FileRead::Absent,
        Err(d) => FileRead::Failed(d),
    }
}

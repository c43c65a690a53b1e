//! One metadata document by one GET, as GCE and DigitalOcean serve theirs: retried with
//! backoff while the service does not answer or answers 5xx, until the wait ends; a 404 or
//! another 4xx ends it at once; an answer can be required to carry a header (GCE's
//! `Metadata-Flavor: Google`, which a proxy or another service would not send). A cloud may
//! sign each attempt (MAAS), answer a 401/403 itself (MAAS's clock skew, EC2's expired
//! token) or count every attempt (OpenStack's and EC2's files). Errors name the URL
//! (redacted), never a body. Not here: parsing the document.

use crate::error::Diag;
use crate::fetch::{FetchError, Fetcher, Response};
use crate::reason::Reason;
use crate::retry::{Policy, Retry};
use std::time::{Duration, Instant};

/// The code of a 400 answer: Azure's IMDS says so of an api-version it does not know.
pub const BAD_REQUEST: Reason = Reason::MetadataBadRequest;

pub struct Get<'a> {
    pub url: &'a str,
    pub headers: &'a [(String, String)],
    /// A header and value every answer must carry.
    pub require: Option<(&'a str, &'a str)>,
    /// Retrying ends here (the deadline of the fetcher ends everything).
    pub wait_until: Instant,
    /// Further attempts after 5xx answers (a silent service is retried until `wait_until`).
    pub retries: u32,
    pub max_bytes: u64,
    /// The code of "nothing answered", so the caller can try another NIC.
    pub unreachable: Reason,
    /// A fixed pause between attempts (cloud-init's `sec_between_retries`, `wait_retry`)
    /// instead of the doubling backoff.
    pub pause: Option<Duration>,
    /// Headers made afresh for every attempt, after `headers` (MAAS's OAuth signature, whose
    /// timestamp and nonce change).
    pub signed: Option<&'a Signed>,
    /// What the cloud makes of a 401 or 403 (none: a status error like any 4xx).
    pub refused: Option<&'a Refused>,
    /// Every attempt counts against `retries`, answered or not, and running out is
    /// `FetchFailed` (`FetchDeadline` at the deadline), never `unreachable`: a file of a
    /// service already found (OpenStack's, EC2's), where silence is a fault, not absence.
    pub every_attempt: bool,
}

/// A cloud's headers for one attempt.
pub type Signed = dyn Fn() -> Vec<(String, String)>;

/// A cloud's answer to a 401 or 403 (its status, the answer's headers, whether this request
/// was already sent again after one): `Ok` sends it again at once, uncounted (MAAS's clock
/// corrected), at most once a request; `Err` is the refusal in the cloud's words (the URL is
/// added).
pub type Refused = dyn Fn(u16, &[(String, String)], bool) -> Result<(), Diag>;

/// The body of a 200 (or 204) to `method` with no body (a GET; the PUT of a session token),
/// counting each request sent in `reads`.
pub fn request(fetcher: &Fetcher, method: &str, g: &Get, reads: &mut u32) -> Result<Vec<u8>, Diag> {
    let shown = crate::fetch::redact_url(g.url);
    let mut policy = Policy::metadata(Some(g.retries + 1), g.wait_until);
    if let Some(pause) = g.pause {
        (policy.first, policy.max) = (pause, pause);
    }
    let mut retry = Retry::new(policy);
    let mut sent_again = false;
    loop {
        let sent = match g.signed {
            Some(sign) => std::borrow::Cow::Owned([g.headers, &sign()[..]].concat()),
            None => std::borrow::Cow::Borrowed(g.headers),
        };
        *reads += 1;
        let next = match fetcher.request_with_headers(method, g.url, &sent, g.max_bytes) {
            Ok((Response { status, body }, headers)) => {
                if let Some((name, want)) = g.require {
                    let has = headers
                        .iter()
                        .any(|(n, v)| n.eq_ignore_ascii_case(name) && v == want);
                    if !has {
                        let msg = format!(
                            "the answer (HTTP {status}) lacks the header {name}: {want}, so it is not the metadata service"
                        );
                        return Err(Diag::error(Reason::MetadataImpostor, msg).file(shown));
                    }
                }
                match status {
                    // 204: an empty document (Hetzner's user-data when there is none).
                    200 | 204 => return Ok(body),
                    404 => {
                        let msg = "not found (HTTP 404): the service has no such document";
                        return Err(Diag::error(Reason::MetadataNotFound, msg).file(shown));
                    }
                    400 => {
                        let msg = "bad request (HTTP 400)";
                        return Err(Diag::error(BAD_REQUEST, msg).file(shown));
                    }
                    401 | 403 if g.refused.is_some() => {
                        let refused = g.refused.expect("checked");
                        // The answer's headers: its `Date` tells MAAS's clock skew.
                        match refused(status, &headers, sent_again) {
                            Ok(()) if !sent_again => {
                                sent_again = true;
                                continue;
                            }
                            Ok(()) => {
                                let msg = format!("HTTP status {status}");
                                return Err(Diag::error(Reason::MetadataStatus, msg).file(shown));
                            }
                            Err(d) => return Err(d.file(shown)),
                        }
                    }
                    500.. if g.every_attempt => retry.any_failure(format!("HTTP status {status}")),
                    500.. => retry.failed(format!("HTTP status {status}")),
                    _ => {
                        let msg = format!("HTTP status {status}");
                        return Err(Diag::error(Reason::MetadataStatus, msg).file(shown));
                    }
                }
            }
            Err(e @ FetchError::TooLarge { .. }) => return Err(e.to_diag(&shown)),
            Err(FetchError::Deadline { .. }) => {
                let stop = retry.deadline_passed();
                return Err(Diag::error(Reason::FetchDeadline, stop.to_string())
                    .file(shown)
                    .budget("datasource_timeout_ms"));
            }
            Err(e) if g.every_attempt => retry.any_failure(e.reason()),
            Err(e) => retry.unanswered(e.reason()),
        };
        if let Err(stop) = next {
            // Only silence makes the service unreachable, so the caller may try another NIC.
            let code = match (g.every_attempt, stop.deadline) {
                (true, true) => Reason::FetchDeadline,
                (false, _) if stop.answered == 0 => g.unreachable,
                _ => Reason::FetchFailed,
            };
            let diag = Diag::error(code, stop.to_string()).file(shown);
            return Err(match stop.deadline {
                true => diag.budget("datasource_timeout_ms"),
                false => diag,
            });
        }
    }
}

/// Why `body` is not UTF-8 text, naming the offset of its first invalid byte (never the
/// bytes). JSON is UTF-8 (RFC 8259): a document that is not is refused whole, never decoded
/// lossily, since U+FFFD would stand in ids, regions and names that name files and fill
/// templates, and a service that sends such bytes is broken or is not the service.
pub fn not_utf8(body: &[u8]) -> Option<String> {
    std::str::from_utf8(body).err().map(|e| {
        let at = e.valid_up_to();
        format!("not UTF-8 text (the first invalid byte at offset {at})")
    })
}

/// A metadata document that must be JSON. The error names `shown` (the URL, already redacted)
/// and the line and column, never the content.
pub fn json(body: &[u8], shown: &str) -> Result<serde_json::Value, Diag> {
    if let Some(msg) = not_utf8(body) {
        return Err(Diag::error(Reason::NotUtf8, msg).file(shown.to_string()));
    }
    serde_json::from_slice(body).map_err(|e| {
        let msg = format!("not JSON (line {}, column {})", e.line(), e.column());
        Diag::error(Reason::MetadataInvalid, msg).file(shown.to_string())
    })
}

/// A metadata document that must be a JSON object (`json`, then its kind).
pub fn json_object(
    body: &[u8],
    shown: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, Diag> {
    match json(body, shown)? {
        serde_json::Value::Object(map) => Ok(map),
        _ => Err(Diag::error(Reason::MetadataInvalid, "not a JSON object").file(shown.to_string())),
    }
}

/// Per-request timeout, overall deadline and retries of a datasource: `ember.metadata-timeout=`
/// or the image's `max_wait`, `timeout` and `retries` under `datasource: {NAME: …}`, bounded by
/// ember's limits.
pub fn timing(env: &crate::context::Env, ds: &str, retries: u32) -> (Duration, Instant, u32) {
    use serde_json::Value;
    let limits = env.limits();
    let cfg = env.image.datasource_settings(ds);
    let ms = |key: &str| {
        cfg.and_then(|c| c.get(key))
            .and_then(Value::as_f64)
            .filter(|v| *v > 0.0)
            .map(|v| (v * 1000.0) as u64)
    };
    let total = crate::cmdline::metadata_timeout_ms(env.cmdline)
        .or_else(|| ms("max_wait"))
        .unwrap_or(limits.datasource_timeout_ms)
        .min(limits.datasource_timeout_ms);
    let request = ms("timeout")
        .unwrap_or(limits.request_timeout_ms)
        .min(limits.request_timeout_ms);
    let retries = cfg
        .and_then(|c| c.get("retries"))
        .and_then(Value::as_u64)
        .map_or(retries, |r| r.min(crate::bounds::RETRIES_CAP as u64) as u32);
    let deadline = Instant::now() + Duration::from_millis(total);
    (Duration::from_millis(request), deadline, retries)
}

/// A number of seconds in the image's `datasource: {NAME: {KEY: …}}` (`wait_retry: 2`,
/// `sec_between_retries: 0.5`), bounded to a minute; none when absent or not a number.
pub fn seconds(env: &crate::context::Env, ds: &str, key: &str) -> Option<Duration> {
    let v = env.image.datasource_settings(ds)?.get(key)?.as_f64()?;
    let cap = crate::bounds::RETRY_PAUSE_CAP.as_secs_f64();
    (v >= 0.0).then(|| Duration::from_secs_f64(v.min(cap)))
}

/// An http(s) URL in the image's `datasource: {NAME: {KEY: …}}` (`metadata_url`); a value of
/// another kind is left out with a warning naming the key, and the default is used.
pub fn url(
    env: &crate::context::Env,
    ds: &str,
    key: &str,
    diags: &mut Vec<Diag>,
) -> Option<String> {
    let v = env.image.datasource_settings(ds)?.get(key)?;
    match v.as_str() {
        Some(u) if u.starts_with("http://") || u.starts_with("https://") => Some(u.to_string()),
        _ => {
            let msg = "not an http(s) URL: the default address is used";
            let key = format!("datasource.{ds}.{key}");
            diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            None
        }
    }
}

//! What a module or a datasource reads URLs through: the reader traits and their one error.
//! The http(s) client that implements them (TLS, DNS, retries) is the initramfs side's
//! `ember::fetch`; a module sees only these traits, so the runner links no TLS.

use crate::reason::Reason;
use crate::redact::redact_url;

/// Anything that can read a URL into memory, refusing more than `max_bytes`.
pub trait UrlReader {
    fn read(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError>;
}

/// A reader that can also send request headers (`write_files` `source.headers`). A separate
/// trait, not a provided method, so no reader silently drops the headers.
pub trait HeaderUrlReader: UrlReader {
    /// Like `read`, with `headers` sent on http(s) requests (ignored for files). Redirects are
    /// not followed, so the headers (often tokens) never reach another host.
    fn read_with_headers(
        &self,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
    ) -> Result<Vec<u8>, FetchError>;
}

#[derive(Debug, Clone, PartialEq)]
pub enum FetchError {
    /// 404 or a missing file: absent, which callers may treat as "no data".
    NotFound { url: String },
    /// More than `max_bytes`, the image's budget `budget` (`file_bytes`, or
    /// `datasource_bytes` when the datasource's total stopped it).
    TooLarge {
        url: String,
        max_bytes: u64,
        budget: &'static str,
    },
    /// The datasource deadline passed before an answer.
    Deadline { url: String },
    /// Anything else: connection refused, timeout, TLS, HTTP status, I/O.
    Failed { url: String, reason: String },
    /// A scheme ember does not read.
    Unsupported { url: String },
}

impl FetchError {
    /// The one diagnostic for a failed read of `file` (a redacted URL or a seed file's name):
    /// the budget or the deadline that stopped it, else the cause.
    pub fn to_diag(&self, file: &str) -> crate::error::Diag {
        use crate::error::Diag;
        match self {
            FetchError::TooLarge { budget, .. } => {
                Diag::error(Reason::BudgetExceeded, self.reason())
                    .file(file)
                    .budget(*budget)
            }
            FetchError::Deadline { .. } => Diag::error(Reason::FetchDeadline, self.reason())
                .file(file)
                .budget("datasource_timeout_ms"),
            _ => Diag::error(Reason::FetchFailed, self.reason()).file(file),
        }
    }

    /// The cause without the URL (callers name the URL themselves, redacted), with any URL
    /// it quotes redacted too.
    pub fn reason(&self) -> String {
        match self {
            FetchError::NotFound { .. } => "not found".into(),
            FetchError::TooLarge {
                max_bytes, budget, ..
            } if *budget == crate::limits::TALLY_BUDGET => format!(
                "past the {max_bytes} bytes the datasource may fetch in all (answers and seed files together); left out"
            ),
            FetchError::TooLarge { max_bytes, .. } => format!("larger than {max_bytes} bytes"),
            FetchError::Deadline { .. } => "deadline passed".into(),
            FetchError::Failed { reason, .. } => crate::redact::reason(reason),
            FetchError::Unsupported { .. } => "unsupported URL scheme".into(),
        }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = match self {
            FetchError::NotFound { url }
            | FetchError::TooLarge { url, .. }
            | FetchError::Deadline { url }
            | FetchError::Failed { url, .. }
            | FetchError::Unsupported { url } => url,
        };
        write!(f, "{}: {}", redact_url(url), self.reason())
    }
}

//! Reading a URL with a size budget: `file://`, plain paths under the host prefix, and http(s).
//! (Implementation below the trait; the trait lets parsers be tested without a network.)

/// Anything that can read a URL into memory, refusing more than `max_bytes`.
pub trait UrlReader {
    fn read(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError>;
}

#[derive(Debug, Clone, PartialEq)]
pub enum FetchError {
    /// 404 or a missing file: absent, which callers may treat as "no data".
    NotFound { url: String },
    /// More than `max_bytes`: names the budget that stopped it.
    TooLarge { url: String, max_bytes: u64 },
    /// Anything else: connection refused, timeout, TLS, HTTP status, I/O.
    Failed { url: String, reason: String },
    /// A scheme ember does not read.
    Unsupported { url: String },
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::NotFound { url } => write!(f, "{url}: not found"),
            FetchError::TooLarge { url, max_bytes } => {
                write!(f, "{url}: larger than {max_bytes} bytes")
            }
            FetchError::Failed { url, reason } => write!(f, "{url}: {reason}"),
            FetchError::Unsupported { url } => write!(f, "{url}: unsupported URL scheme"),
        }
    }
}

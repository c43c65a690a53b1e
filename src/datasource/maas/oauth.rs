//! OAuth 1.0 `PLAINTEXT` request signing for the MAAS metadata service, as cloud-init's
//! `url_helper.oauth_headers` (oauthlib) makes the header: a fresh nonce and timestamp per
//! request, the signature `consumer_secret&token_secret` percent-encoded, every parameter
//! percent-encoded again in the header; and the clock skew taken from a refusal's `Date`
//! header, as cloud-init's `OauthUrlHelper` takes it. The header is a secret: it is handed to
//! the fetcher and never shown. Not here: HMAC-SHA1 (MAAS signs with PLAINTEXT).
//! <https://oauth.net/core/1.0/#anchor22>

use crate::secret::Secret;
use std::time::{SystemTime, UNIX_EPOCH};

/// The four credentials of `datasource: {MAAS: {…}}`.
pub struct Creds {
    pub consumer_key: String,
    pub consumer_secret: Secret<String>,
    pub token_key: Secret<String>,
    pub token_secret: Secret<String>,
}

/// RFC 5849's percent-encoding: all but the unreserved characters.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Thirty random digits, as oauthlib's nonces.
fn nonce() -> String {
    let mut b = [0u8; 30];
    let _ = rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty());
    b.iter().map(|x| char::from(b'0' + x % 10)).collect()
}

/// Seconds since the epoch, moved by the skew the service's clock showed.
pub fn timestamp(skew: i64) -> i64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    now + skew
}

impl Creds {
    /// The `Authorization` header's value for one request.
    pub fn header(&self, timestamp: i64) -> Secret<String> {
        self.header_with(timestamp, &nonce())
    }

    fn header_with(&self, timestamp: i64, nonce: &str) -> Secret<String> {
        let signature = format!(
            "{}&{}",
            escape(self.consumer_secret.expose()),
            escape(self.token_secret.expose())
        );
        let params = [
            ("oauth_nonce", nonce),
            ("oauth_timestamp", &timestamp.to_string()),
            ("oauth_version", "1.0"),
            ("oauth_signature_method", "PLAINTEXT"),
            ("oauth_consumer_key", &self.consumer_key),
            ("oauth_token", self.token_key.expose()),
            ("oauth_signature", &signature),
        ]
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect::<Vec<_>>()
        .join(", ");
        Secret::new(format!("OAuth {params}"))
    }
}

/// The skew of the service's clock against ours, from an HTTP date (`Sun, 06 Nov 1994
/// 08:49:37 GMT`, RFC 7231's IMF-fixdate), in seconds; None when it is not one.
pub fn skew_from_date(date: &str) -> Option<i64> {
    let t = parse_http_date(date)?;
    Some(t - timestamp(0))
}

fn parse_http_date(date: &str) -> Option<i64> {
    let mut p = date.split_whitespace();
    let (_wday, day, mon, year, time, zone) = (
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
    );
    if zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let m = MONTHS.iter().position(|x| *x == mon)? as i64 + 1;
    let days = crate::date::days(year.parse().ok()?, m, day.parse().ok()?)?;
    let mut hms = time.split(':').map(|x| x.parse::<i64>().ok());
    let (h, mi, s) = (hms.next()??, hms.next()??, hms.next()??);
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(days * 86400 + h * 3600 + mi * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds() -> Creds {
        Creds {
            consumer_key: "ck".into(),
            consumer_secret: Secret::new(String::new()),
            token_key: Secret::new("tk".into()),
            token_secret: Secret::new("t/s&".into()),
        }
    }

    #[test]
    fn plaintext_header_as_oauthlib_makes_it() {
        let h = creds().header_with(1700000000, "123");
        assert_eq!(
            h.expose(),
            "OAuth oauth_nonce=\"123\", oauth_timestamp=\"1700000000\", oauth_version=\"1.0\", \
             oauth_signature_method=\"PLAINTEXT\", oauth_consumer_key=\"ck\", oauth_token=\"tk\", \
             oauth_signature=\"%26t%252Fs%2526\""
        );
        assert!(!format!("{h:?}").contains("t%252Fs"), "redacted");
        assert_eq!(nonce().len(), 30);
    }

    #[test]
    fn http_dates() {
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784111777)
        );
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 CET"), None);
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), None);
        assert_eq!(parse_http_date("garbage"), None);
        assert!(skew_from_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap() < -100_000_000);
    }
}

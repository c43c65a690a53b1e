//! The EC2 instance metadata service client: IMDSv2 as cloud-init speaks it on AWS (a token
//! from `PUT /latest/api/token`, sent on every GET, renewed once when a GET says 401), IMDSv1
//! only where the caller allows it, retries with backoff under a total deadline, and a count
//! of requests. The token lives in memory only, inside a `Secret`; the fetch layer never
//! follows a redirect to another host with it. EC2's and Aliyun's (which serves the same
//! protocol). Not here: what is read (each cloud's folder).
//! <https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-instance-metadata-service.html>

use super::client::Client;
use crate::context::Env;
use crate::error::Diag;
use crate::fetch::{FetchError, Response};
use crate::reason::Reason;
use crate::retry::{Policy, Retry};
use crate::secret::Secret;
use std::time::Instant;

const TOKEN_PATH: &str = "latest/api/token";

/// The headers of a service's IMDSv2-style token: the PUT's TTL header and the GET's token
/// header. EC2-compatible services that copied the protocol renamed them (AliYun).
pub struct TokenHeaders {
    pub ttl: &'static str,
    pub token: &'static str,
}

/// AWS's.
pub const AWS: TokenHeaders = TokenHeaders {
    ttl: "X-aws-ec2-metadata-token-ttl-seconds",
    token: "X-aws-ec2-metadata-token",
};
/// cloud-init's TTL: six hours.
const TOKEN_TTL: &str = "21600";
/// Tokens are about 56 characters; anything much longer is not one.
const TOKEN_MAX_BYTES: u64 = 4096;

/// How to reach the service.
pub struct Settings {
    /// Base URLs tried in turn: `http://169.254.169.254`.
    pub bases: Vec<String>,
    /// Waiting for the service to answer ends here (the timing of reads is the client's).
    pub wait_until: Instant,
    /// IMDSv1 (GETs without a token) when the token PUT is refused with a 4xx other than 403
    /// or not answered: only where DMI shows a cloud that is not AWS.
    pub allow_v1: bool,
    pub max_bytes: u64,
}

#[derive(Debug, PartialEq)]
pub enum Error {
    /// 403 on the token PUT: the instance's metadata service is turned off.
    Disabled { base: String },
    /// Another 4xx on the token PUT where IMDSv1 is not allowed.
    TokenRefused { base: String, status: u16 },
    /// No base URL answered before the wait ended.
    Unreachable { reason: String },
    /// A GET answered with a status that is neither data nor absence.
    Status { path: String, status: u16 },
    /// A GET failed as the shared client words it (no answer in its attempts, the budget,
    /// the deadline).
    Read(Diag),
}

impl Error {
    pub fn diag(&self) -> Diag {
        match self {
            Error::Disabled { base } => Diag::error(
                Reason::ImdsDisabled,
                "the instance metadata service refused a token (HTTP 403): it is disabled for this instance",
            )
            .file(crate::fetch::redact_url(base)),
            Error::TokenRefused { base, status } => Diag::error(
                Reason::ImdsTokenRefused,
                format!("the instance metadata service refused a token (HTTP {status}); IMDSv1 is never used on AWS"),
            )
            .file(crate::fetch::redact_url(base)),
            Error::Unreachable { reason } => Diag::error(
                Reason::MetadataUnreachable,
                format!("no instance metadata service answered: {reason}"),
            )
            .budget("datasource_timeout_ms"),
            Error::Status { path, status } => {
                Diag::error(Reason::MetadataStatus, format!("HTTP status {status}")).file(path.clone())
            }
            Error::Read(d) => d.clone(),
        }
    }

    /// A document over the byte budget: that document's failure alone, where the cloud
    /// says so.
    pub fn too_large(&self) -> bool {
        matches!(self, Error::Read(d) if d.code == Reason::BudgetExceeded.as_str())
    }
}

/// `cloud`'s client for the documents once a base answered: every attempt counted (as
/// cloud-init's), a 401 told apart so the token can be renewed.
pub fn client(env: &Env, cloud: &str, retries: u32) -> Client {
    Client::at(env, cloud, "", retries)
        .every_attempt()
        .on_refused(|status, _, _| {
            let code = match status {
                401 => Reason::ImdsTokenRefused,
                _ => Reason::MetadataStatus,
            };
            Err(Diag::error(code, format!("HTTP status {status}")))
        })
}

/// A connection to the service: the base that answered, and the token if IMDSv2.
pub struct Imds<'c> {
    /// Its fetcher probes; once connected, it reads the documents at `base`.
    client: &'c Client,
    base: String,
    token: Option<Secret<String>>,
    headers: &'static TokenHeaders,
    max_bytes: u64,
    /// Requests sent, the token's included.
    pub reads: u32,
}

enum TokenAnswer {
    Token(Secret<String>),
    /// An answer without a token (4xx other than 403): no IMDSv2 there.
    Refused(u16),
    /// 403.
    Disabled,
    /// No answer, a 5xx, or an unusable body: worth another try.
    NoAnswer(String),
    Deadline,
}

impl<'c> Imds<'c> {
    /// Finds a base URL that answers, getting a token (or, where allowed, settling for IMDSv1).
    pub fn connect(client: &'c Client, s: &Settings) -> Result<Imds<'c>, Error> {
        Imds::connect_with(client, s, &AWS)
    }

    /// `connect` to a service whose token goes by other header names.
    pub fn connect_with(
        client: &'c Client,
        s: &Settings,
        headers: &'static TokenHeaders,
    ) -> Result<Imds<'c>, Error> {
        let mut imds = Imds {
            client,
            base: String::new(),
            token: None,
            headers,
            max_bytes: s.max_bytes,
            reads: 0,
        };
        imds.probe(s, &mut Retry::new(Policy::metadata(None, s.wait_until)))?;
        // Once the service answered, a document's attempts may take the whole deadline.
        client.set_base(&imds.base);
        client.set_wait_until(client.deadline());
        Ok(imds)
    }

    /// Asks each base in turn for a token until one answers or the wait ends.
    fn probe(&mut self, s: &Settings, retry: &mut Retry) -> Result<(), Error> {
        let mut last = String::from("no attempt");
        loop {
            for base in &s.bases {
                self.base = base.trim_end_matches('/').to_string();
                match self.put_token() {
                    TokenAnswer::Token(t) => {
                        self.token = Some(t);
                        return Ok(());
                    }
                    TokenAnswer::Disabled => return Err(Error::Disabled { base: base.clone() }),
                    TokenAnswer::Refused(_) if s.allow_v1 => return Ok(()),
                    TokenAnswer::Refused(status) => {
                        return Err(Error::TokenRefused {
                            base: base.clone(),
                            status,
                        })
                    }
                    TokenAnswer::NoAnswer(why) => {
                        // A service that ignores PUT may still answer plain GETs (IMDSv1).
                        if s.allow_v1 && self.v1_answers() {
                            return Ok(());
                        }
                        last = format!("{}: {why}", crate::fetch::redact_url(base));
                    }
                    TokenAnswer::Deadline => {
                        let reason = retry.deadline_passed().to_string();
                        return Err(Error::Unreachable { reason });
                    }
                }
            }
            if let Err(stop) = retry.unanswered(last.clone()) {
                let reason = stop.to_string();
                return Err(Error::Unreachable { reason });
            }
        }
    }

    /// The base URL in use, and whether a token is (IMDSv2).
    pub fn base(&self) -> &str {
        &self.base
    }
    pub fn v2(&self) -> bool {
        self.token.is_some()
    }

    fn put_token(&mut self) -> TokenAnswer {
        let url = format!("{}/{TOKEN_PATH}", self.base);
        let headers = [(self.headers.ttl.to_string(), TOKEN_TTL.to_string())];
        self.reads += 1;
        match self
            .client
            .fetcher()
            .request("PUT", &url, &headers, TOKEN_MAX_BYTES)
        {
            Ok(Response { status: 200, body }) => {
                let printable = |b: &u8| b.is_ascii_graphic();
                if !body.is_empty() && body.iter().all(printable) {
                    let token = String::from_utf8_lossy(&body).into_owned();
                    TokenAnswer::Token(Secret::new(token))
                } else {
                    TokenAnswer::NoAnswer("the token answer holds no token".into())
                }
            }
            Ok(Response { status: 403, .. }) => TokenAnswer::Disabled,
            Ok(Response { status, .. }) if (400..500).contains(&status) => {
                TokenAnswer::Refused(status)
            }
            Ok(Response { status, .. }) => TokenAnswer::NoAnswer(format!("HTTP status {status}")),
            Err(FetchError::Deadline { .. }) => TokenAnswer::Deadline,
            Err(e) => TokenAnswer::NoAnswer(e.reason()),
        }
    }

    /// Whether a plain GET of the instance id answers (a service without IMDSv2).
    fn v1_answers(&mut self) -> bool {
        let url = format!("{}/latest/meta-data/instance-id", self.base);
        self.reads += 1;
        matches!(
            self.client
                .fetcher()
                .request("GET", &url, &[], self.max_bytes),
            Ok(Response { status: 200, .. })
        )
    }

    /// `path` under the base (`latest/meta-data/instance-id`): its body, `None` on 404.
    /// 5xx and unanswered requests are retried with backoff; a 401 gets a new token, once.
    pub fn get(&mut self, path: &str) -> Result<Option<Vec<u8>>, Error> {
        let refused = |d: &Diag| d.code == Reason::ImdsTokenRefused.as_str();
        match self.read(path) {
            Err(d) if refused(&d) && self.token.is_some() => {
                // The token expired: one new one, then the same request again.
                match self.put_token() {
                    TokenAnswer::Token(t) => self.token = Some(t),
                    _ => return Err(self.unauthorized(path)),
                }
                match self.read(path) {
                    Err(d) if refused(&d) => Err(self.unauthorized(path)),
                    other => other.map_err(Error::Read),
                }
            }
            Err(d) if refused(&d) => Err(self.unauthorized(path)),
            other => other.map_err(Error::Read),
        }
    }

    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, Diag> {
        let token: Vec<(String, String)> = self
            .token
            .iter()
            .map(|t| (self.headers.token.to_string(), t.expose().clone()))
            .collect();
        match self
            .client
            .request_with("GET", path, &token, &mut self.reads)
        {
            Err(d) if d.code == Reason::MetadataNotFound.as_str() => Ok(None),
            other => other.map(Some),
        }
    }

    fn unauthorized(&self, path: &str) -> Error {
        let path = self.client.shown(path);
        Error::Status { path, status: 401 }
    }
}

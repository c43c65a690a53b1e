//! The metadata client of an HTTP cloud: built once per fetch from the env and the cloud's
//! defaults (base URL, which `ember.metadata-url=` overrides; headers; a header every answer
//! must carry; timing, retries and pause from the image's `datasource: {<Cloud>: {…}}`; the
//! byte budget; the code of "nothing answered"), so a cloud's fetch reads a document a line.
//! `metadata_get::request` stays the one retry loop underneath; every body check here is
//! `metadata_get`'s, so every cloud words a bad document alike.

use super::metadata_get::{self, Get};
use crate::context::Env;
use crate::datasource::link::{Link, Service, Via};
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::fetch::Fetcher;
use crate::reason::Reason;
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

pub struct Client {
    /// Set again by a cloud that learns its service's address only over the link (CloudStack).
    base: RefCell<String>,
    headers: Vec<(String, String)>,
    require: Option<(&'static str, &'static str)>,
    fetcher: Fetcher,
    request: Duration,
    deadline: Instant,
    /// Until when a read retries: the fetch's deadline, or the part of it `reach` gives.
    wait_until: Cell<Instant>,
    retries: u32,
    pause: Option<Duration>,
    max_bytes: u64,
    unreachable: Reason,
    signed: Option<Box<metadata_get::Signed>>,
    refused: Option<Box<metadata_get::Refused>>,
    every_attempt: bool,
}

impl Client {
    /// `cloud`'s client (its cloud-init name: the key of its settings) at `ember.metadata-url=`,
    /// else `default_base`, retrying `retries` times unless the image says otherwise.
    pub fn new(env: &Env, cloud: &str, default_base: &str, retries: u32) -> Client {
        let base = crate::cmdline::metadata_url(env.cmdline).unwrap_or(default_base);
        Client::at(env, cloud, base.trim_end_matches('/'), retries)
    }

    /// A client over a platform's local unix socket (LXD's devlxd): no link to reach, `base`
    /// only names the requests.
    pub fn over_unix_socket(
        env: &Env,
        cloud: &str,
        socket: &str,
        base: &str,
        retries: u32,
    ) -> Client {
        let mut client = Client::at(env, cloud, base, retries);
        client.fetcher = Fetcher::over_unix_socket(env, socket, client.request, client.deadline);
        client
    }

    /// `new` at a base the cloud found itself (Bigstep's URL file, GCE's `metadata_url`),
    /// taken as it is: `url("")` is that URL.
    pub fn at(env: &Env, cloud: &str, base: &str, retries: u32) -> Client {
        let (request, deadline, retries) = metadata_get::timing(env, cloud, retries);
        Client {
            base: RefCell::new(base.to_string()),
            headers: Vec::new(),
            require: None,
            fetcher: Fetcher::with_deadline(env, request, deadline),
            request,
            deadline,
            wait_until: Cell::new(deadline),
            retries,
            pause: None,
            max_bytes: env.limits().file_bytes,
            unreachable: Reason::MetadataUnreachable,
            signed: None,
            refused: None,
            every_attempt: false,
        }
    }

    /// A header sent with every request.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Client {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    /// A header and value every answer must carry, else it is not the metadata service.
    pub fn require(mut self, header: (&'static str, &'static str)) -> Client {
        self.require = Some(header);
        self
    }

    /// Headers made afresh for every attempt (`metadata_get::Signed`: MAAS's OAuth).
    pub fn signed(mut self, sign: impl Fn() -> Vec<(String, String)> + 'static) -> Client {
        self.signed = Some(Box::new(sign));
        self
    }

    /// The cloud's answer to a 401 or 403 (`metadata_get::Refused`: MAAS's clock skew).
    pub fn on_refused(
        mut self,
        refused: impl Fn(u16, &[(String, String)], bool) -> Result<(), Diag> + 'static,
    ) -> Client {
        self.refused = Some(Box::new(refused));
        self
    }

    /// Every attempt counts against the retries (`metadata_get::Get::every_attempt`).
    pub fn every_attempt(mut self) -> Client {
        self.every_attempt = true;
        self
    }

    /// A fixed pause between attempts instead of the doubling backoff.
    pub fn pause(mut self, pause: Option<Duration>) -> Client {
        self.pause = pause;
        self
    }

    /// The metadata address over DHCP on any NIC (`Service::metadata`) at this base.
    pub fn service(&self, env: &Env) -> Service {
        self.service_to(env, vec![self.base()])
    }

    /// `service` over the first NIC alone with the whole wait, as cloud-init's
    /// `find_fallback_nic` (UpCloud, NWCS).
    pub fn first_nic_service(&self, env: &Env) -> Service {
        let mut service = self.service(env);
        service.nics.truncate(1);
        service.share = None;
        service
    }

    /// `service` at other bases (none: the lease tells the address; several: each tried).
    pub fn service_to(&self, env: &Env, bases: Vec<String>) -> Service {
        Service::metadata(env, bases, self.request, self.deadline)
    }

    /// A routed service at this base (`Service::routed`).
    pub fn routed_service(&self, env: &Env) -> Service {
        Service::routed(env, vec![self.base()], self.request, self.deadline)
    }

    /// `link.reach` with this client's reads waiting as long as the way found allows.
    pub fn reach(
        &self,
        env: &Env,
        link: &mut Link,
        service: &Service,
        data: &mut InstanceData,
        mut read: impl FnMut(&Client, &mut InstanceData, &Via) -> Result<(), Diag>,
    ) -> Result<(), Diag> {
        link.reach(env, service, data, |d, via| {
            self.wait_until.set(via.wait_until);
            read(self, d, via)
        })
    }

    /// For a protocol of its own beside the documents (the password server's).
    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    pub fn retries(&self) -> u32 {
        self.retries
    }

    pub fn wait_until(&self) -> Instant {
        self.wait_until.get()
    }

    /// Reads wait until `until` from now on: a part of the wait for one of several ways to
    /// the service (Akamai's IPv6, then IPv4).
    pub fn set_wait_until(&self, until: Instant) {
        self.wait_until.set(until);
    }

    pub fn base(&self) -> String {
        self.base.borrow().clone()
    }

    /// Reads go to `base` from now on (trailing slashes dropped).
    pub fn set_base(&self, base: &str) {
        *self.base.borrow_mut() = base.trim_end_matches('/').to_string();
    }

    /// When the fetch ends, for a fetcher of the cloud's own beside this one.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// How long the service may take, for a look-up of its own (a resolver's rounds).
    pub fn request_timeout(&self) -> Duration {
        self.request
    }

    /// The URL of `path` under the base; the base itself for "".
    pub fn url(&self, path: &str) -> String {
        let base = self.base.borrow();
        match path {
            "" => base.clone(),
            _ => format!("{base}/{path}"),
        }
    }

    /// `url(path)` as errors and status show it (credentials redacted).
    pub fn shown(&self, path: &str) -> String {
        crate::fetch::redact_url(&self.url(path)).to_string()
    }

    /// The body of a 200 (or 204) at `path`; a 404 is `Err` with `MetadataNotFound`.
    pub fn get(&self, path: &str, reads: &mut u32) -> Result<Vec<u8>, Diag> {
        self.request("GET", path, reads)
    }

    /// `get` with another method and no body (a session token's PUT).
    pub fn request(&self, method: &str, path: &str, reads: &mut u32) -> Result<Vec<u8>, Diag> {
        self.request_with(method, path, &[], reads)
    }

    /// `request` with `extra` headers besides the client's (Oracle's v2 header, a token).
    pub fn request_with(
        &self,
        method: &str,
        path: &str,
        extra: &[(String, String)],
        reads: &mut u32,
    ) -> Result<Vec<u8>, Diag> {
        let url = self.url(path);
        let headers = match extra {
            [] => std::borrow::Cow::Borrowed(&self.headers[..]),
            _ => std::borrow::Cow::Owned([&self.headers[..], extra].concat()),
        };
        let get = Get {
            url: &url,
            headers: &headers,
            require: self.require,
            wait_until: self.wait_until.get(),
            retries: self.retries,
            max_bytes: self.max_bytes,
            unreachable: self.unreachable,
            pause: self.pause,
            signed: self.signed.as_deref(),
            refused: self.refused.as_deref(),
            every_attempt: self.every_attempt,
        };
        metadata_get::request(&self.fetcher, method, &get, reads)
    }

    /// A GET of `url` on a service beside this one (CloudStack's password server), with this
    /// client's timing and retries but none of its headers or checks: `headers` and the
    /// budget `max_bytes` are that service's.
    pub fn get_beside(
        &self,
        url: &str,
        headers: &[(String, String)],
        max_bytes: u64,
        reads: &mut u32,
    ) -> Result<Vec<u8>, Diag> {
        let get = Get {
            url,
            headers,
            require: None,
            wait_until: self.wait_until.get(),
            retries: self.retries,
            max_bytes,
            unreachable: self.unreachable,
            pause: None,
            signed: None,
            refused: None,
            every_attempt: false,
        };
        metadata_get::request(&self.fetcher, "GET", &get, reads)
    }

    /// `get`, with a 404 as `None`: a document the service may not have.
    pub fn get_optional(&self, path: &str, reads: &mut u32) -> Result<Option<Vec<u8>>, Diag> {
        match self.get(path, reads) {
            Err(e) if e.code == Reason::MetadataNotFound.as_str() => Ok(None),
            other => other.map(Some),
        }
    }

    /// `get` of a document that must be a JSON object (`metadata_get::json_object`).
    pub fn get_json(&self, path: &str, reads: &mut u32) -> Result<Map<String, Value>, Diag> {
        let body = self.get(path, reads)?;
        metadata_get::json_object(&body, &self.shown(path))
    }
}

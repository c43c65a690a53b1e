//! A MAAS metadata service: `/MAAS/metadata/2012-03-01/meta-data/{instance-id,local-hostname,
//! public-keys,vendor-data}` and `user-data`, each behind OAuth 1.0 PLAINTEXT as MAAS checks
//! it (consumer key, token, signature, a timestamp within five minutes of its own clock, a
//! nonce not seen before); a refusal is 401 with the service's `Date`. Its clock can be set
//! off ours, and answers can be scripted per path (500 then 200, slow, …).
//! <https://maas.io/docs/about-cloud-init-in-maas>

use super::scripted::{self, Spec};
use super::{Answer, Request};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

pub const BASE: &str = "/MAAS/metadata";
pub const CONSUMER_KEY: &str = "Xh4nFhQyYMbzKjqXmz";
pub const CONSUMER_SECRET: &str = "";
pub const TOKEN_KEY: &str = "Lm9g3fc2x8KhxT7Ryc";
pub const TOKEN_SECRET: &str = "token-secret-9d4e/NQZ";
pub const INSTANCE_ID: &str = "node-4y3h7n";
pub const HOSTNAME: &str = "node-4y3h7n.maas";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMaasKeyForTestsOnly maas-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/maas-secret\n    content: maas-user-data-6c1b\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str =
    "cloud-init: |\n  #cloud-config\n  bootcmd: [echo maas-vendor-03aa]\n";

pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
    /// The service's clock minus ours, in seconds.
    pub clock_offset: Arc<AtomicI64>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{BASE}", self.port)
    }
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
    /// Answers for `path` (under the version), in order; the last repeats.
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        let full = format!("{BASE}/2012-03-01/{path}");
        self.answers.lock().unwrap().insert(full, answers);
    }
}

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The OAuth header's parameters, unescaped.
fn params(header: &str) -> Option<HashMap<String, String>> {
    let rest = header.strip_prefix("OAuth ")?;
    let mut out = HashMap::new();
    for part in rest.split(',') {
        let (k, v) = part.trim().split_once('=')?;
        let v = v.strip_prefix('"')?.strip_suffix('"')?;
        out.insert(unescape(k), unescape(v));
    }
    Some(out)
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// An IMF-fixdate of `t` seconds since the epoch.
pub fn http_date(t: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (days, secs) = (t.div_euclid(86400), t.rem_euclid(86400));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{}, {d:02} {} {y} {:02}:{:02}:{:02} GMT",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(m - 1) as usize],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Why MAAS would refuse this request, or None.
fn refused(req: &Request, service_now: i64, nonces: &mut HashSet<String>) -> Option<&'static str> {
    let Some(p) = req.header("authorization").and_then(params) else {
        return Some("no OAuth header");
    };
    let get = |k: &str| p.get(k).map(String::as_str);
    if get("oauth_signature_method") != Some("PLAINTEXT") || get("oauth_version") != Some("1.0") {
        return Some("not PLAINTEXT 1.0");
    }
    if get("oauth_consumer_key") != Some(CONSUMER_KEY) || get("oauth_token") != Some(TOKEN_KEY) {
        return Some("unknown consumer or token");
    }
    // The signature is `consumer_secret&token_secret`, each percent-encoded.
    let sig = get("oauth_signature")?;
    let (cs, ts) = sig.split_once('&')?;
    if unescape(cs) != CONSUMER_SECRET || unescape(ts) != TOKEN_SECRET {
        return Some("bad signature");
    }
    let ts: i64 = get("oauth_timestamp")?.parse().ok()?;
    if (ts - service_now).abs() > 300 {
        return Some("stale timestamp");
    }
    if !nonces.insert(get("oauth_nonce")?.to_string()) {
        return Some("nonce replayed");
    }
    None
}

pub fn start() -> Server {
    let clock_offset = Arc::new(AtomicI64::new(0));
    let offset = clock_offset.clone();
    let nonces = Mutex::new(HashSet::new());
    // A refusal is answered before any fault, with the service's clock.
    let guard = move |req: &Request, _: &[u8]| {
        let service_now = now() + offset.load(Ordering::SeqCst);
        let why = refused(req, service_now, &mut nonces.lock().unwrap())?;
        let date = format!("Date: {}\r\n", http_date(service_now));
        let refusal = Answer::Body(401, why.as_bytes().to_vec());
        Some(Answer::Headed(date, Box::new(refusal)))
    };
    let v = format!("{BASE}/2012-03-01");
    let route = move |req: &Request| {
        let body = |b: &str| Answer::Body(200, b.as_bytes().to_vec());
        match req.path.strip_prefix(&v).unwrap_or_default() {
            "/meta-data/instance-id" => body(INSTANCE_ID),
            "/meta-data/local-hostname" => body(HOSTNAME),
            "/meta-data/public-keys" => body(KEY),
            "/meta-data/vendor-data" => body(VENDOR_DATA),
            "/user-data" => body(USER_DATA),
            _ => Answer::Body(404, Vec::new()),
        }
    };
    let spec = Spec::new(route).guard(guard).key(scripted::with_query);
    let server = scripted::serve(scripted::loopback(), spec);
    Server {
        port: server.port,
        log: server.log,
        answers: server.answers,
        clock_offset,
    }
}

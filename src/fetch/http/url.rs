//! The URL of a request: parsing an http(s) URL into scheme, user info, host, port and a
//! request target; the `Host` header; and resolving a redirect's `Location` against it.
//! Kept apart from the connection and the response because it is pure text handling (no I/O),
//! and because the redirect rules here (no https to http) are what keep user info and tokens
//! from leaking.

use super::{failed, Error};
use std::net::IpAddr;

#[derive(Debug, Clone, PartialEq)]
pub(in crate::fetch) enum Host {
    Name(String),
    Ip(IpAddr),
}

#[derive(Debug, Clone, PartialEq)]
pub(in crate::fetch) struct Url {
    pub tls: bool,
    /// Percent-decoded `user:password`, sent as Basic auth.
    pub userinfo: Option<String>,
    pub host: Host,
    pub port: u16,
    /// Path and query, percent-encoded where a request line needs it; no fragment.
    pub target: String,
}

impl Url {
    pub fn parse(url: &str) -> Result<Url, Error> {
        let bad = |what: &str| failed(format!("invalid URL: {what}"));
        let url = url.split('#').next().unwrap_or_default();
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no scheme"))?;
        let tls = match scheme.to_ascii_lowercase().as_str() {
            "http" => false,
            "https" => true,
            _ => return Err(bad("scheme not http or https")),
        };
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, target) = rest.split_at(end);
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((user, host)) => (
                Some(crate::percent::decode(user)).filter(|u| !u.is_empty()),
                host,
            ),
            None => (None, authority),
        };
        let (host, port) = match hostport.strip_prefix('[') {
            Some(v6) => {
                let (ip, port) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
                let ip = ip.parse().map_err(|_| bad("bad IPv6 address"))?;
                (Host::Ip(IpAddr::V6(ip)), port)
            }
            None => {
                let cut = hostport.find(':').unwrap_or(hostport.len());
                let (name, port) = hostport.split_at(cut);
                let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
                if name.is_empty() || !name.chars().all(ok) {
                    return Err(bad("bad host"));
                }
                match name.parse() {
                    Ok(ip) => (Host::Ip(IpAddr::V4(ip)), port),
                    Err(_) => (Host::Name(name.to_ascii_lowercase()), port),
                }
            }
        };
        let port = match port {
            "" | ":" => {
                if tls {
                    443
                } else {
                    80
                }
            }
            p => p
                .strip_prefix(':')
                .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|p| p.parse().ok())
                .filter(|&p| p != 0)
                .ok_or_else(|| bad("bad port"))?,
        };
        let target = if target.starts_with('/') {
            target.to_string()
        } else {
            format!("/{target}")
        };
        Ok(Url {
            tls,
            userinfo,
            host,
            port,
            target: percent_encode(&target),
        })
    }

    fn default_port(&self) -> u16 {
        if self.tls {
            443
        } else {
            80
        }
    }

    /// The `Host` header: the name or bracketed IPv6 literal, with the port when not default.
    pub fn host_header(&self) -> String {
        let host = match &self.host {
            Host::Name(n) => n.clone(),
            Host::Ip(IpAddr::V4(ip)) => ip.to_string(),
            Host::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
        };
        if self.port == self.default_port() {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// The URL a `Location` names, relative to this one; user info kept only on this origin,
    /// and never from https to http.
    pub fn redirect(&self, location: &str) -> Result<Url, Error> {
        let next = self.join(location)?;
        if self.tls && !next.tls {
            return Err(failed("redirect from https to http refused"));
        }
        Ok(next)
    }

    fn join(&self, location: &str) -> Result<Url, Error> {
        let location = location.split('#').next().unwrap_or_default();
        let scheme_end = location.find("://").filter(|&i| {
            location[..i]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        });
        if scheme_end.is_some() {
            return Url::parse(location);
        }
        if location.starts_with("//") {
            return Url::parse(&format!(
                "{}:{location}",
                if self.tls { "https" } else { "http" }
            ));
        }
        let path = self.target.split('?').next().unwrap_or("/");
        let target = if location.starts_with('/') {
            location.to_string()
        } else if location.starts_with('?') {
            format!("{path}{location}")
        } else {
            let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{location}")
        };
        Ok(Url {
            target: percent_encode(&target),
            ..self.clone()
        })
    }
}

/// Escapes what cannot stand in a request line: controls, spaces, non-ASCII, and `"<>\^`{|}`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b <= b' ' || b >= 0x7f || b"\"<>\\^`{|}".contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

//! A throwaway IPv4 lease inside ember, for datasources that must reach a metadata service
//! from the initramfs: no dhclient, no `ip` binary. `Session` brings each candidate NIC up in
//! turn, obtains a lease (DHCP, or link-local when asked), applies the address and routes,
//! lets the caller try its request, and on `down()` or drop removes exactly what it added and
//! sets the link down again if it was down, so the real network stack starts from a clean
//! link. What happened is kept as `Attempt`s, one status step each. When asked, a NIC with no
//! DHCPv4 answer comes up by SLAAC instead (slaac.rs), or by stateful DHCPv6 when its router
//! says Managed (dhcp6/).
//! Not here: renewal (leases live for seconds), the target's network config.
//!
//! A datasource uses it like this:
//!
//! ```ignore
//! let mut opts = Options::new(deadline);
//! opts.metadata = Some(Ipv4Addr::new(169, 254, 169, 254));
//! let mut session = Session::new(&fallback_candidates(&ctx.host), opts)?;
//! let mut data = None;
//! let used = session.try_each(|_lease| {
//!     data = read_metadata().ok(); // the next NIC is tried when this gives nothing
//!     data.is_some()
//! });
//! steps.extend(session.record().iter().map(Attempt::step));
//! let warnings = session.down(); // or let it drop
//! ```

pub mod cli;
pub mod client;
pub mod dhcp6;
pub mod linklocal;
pub mod netlink;
pub mod nics;
pub mod packet;
mod session;
mod session6;
pub mod slaac;

use crate::reason::Reason;
use crate::status::Step;
pub use client::Lease;
use client::{Ignored, Timing};
use netlink::RouteSpec;
use rustix::io::Errno;
use serde::Serialize;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use nics::fallback_candidates;
pub use session::Session;

/// The DNS servers (option 6) and domain (option 15) of the lease a session holds now: ember's
/// name resolver (src/fetch/dns) asks them first, since nothing writes a resolv.conf for a
/// lease ember made itself. Process-wide because the lease is: its address and routes are the
/// kernel's, seen by every request while it is up.
static LEASE_DNS: std::sync::Mutex<Option<LeaseDns>> = std::sync::Mutex::new(None);

/// The lease's DNS servers and domain.
pub type LeaseDns = (Vec<Ipv4Addr>, Option<String>);

/// The DNS servers and domain of the lease up now, if any.
pub fn lease_dns() -> Option<LeaseDns> {
    LEASE_DNS.lock().map_or(None, |l| l.clone())
}

fn set_lease_dns(dns: Option<LeaseDns>) {
    if let Ok(mut l) = LEASE_DNS.lock() {
        *l = dns;
    }
}

/// What a datasource asks of a session.
#[derive(Clone, Debug)]
pub struct Options {
    /// Every NIC's attempt ends by this instant (the datasource's deadline).
    pub deadline: Instant,
    /// One NIC gets at most this long, so a silent first NIC leaves time for the next.
    pub per_nic: Duration,
    /// The metadata service: given a host route on the link when no lease route reaches it.
    pub metadata: Option<Ipv4Addr>,
    /// A NIC without DHCP gets a link-local address instead (RFC 3927).
    pub link_local: bool,
    /// Ask DHCP first. Without it (DigitalOcean, whose metadata link has no DHCP server) a
    /// NIC goes straight to a link-local address; `link_local` must then be set.
    pub dhcp: bool,
    /// A NIC without DHCPv4 waits for the kernel's SLAAC, or asks DHCPv6 when the router
    /// says Managed (EC2's IPv6-only subnets).
    pub slaac: bool,
    /// Site-specific DHCP options (224-254) the datasource reads from the lease (Azure's 245).
    pub site_options: Vec<u8>,
    /// `/proc` under the host: SLAAC's sysctls and the kernel's IPv6 state.
    pub proc: PathBuf,
    pub timing: Timing,
}

impl Options {
    pub fn new(deadline: Instant) -> Options {
        Options {
            deadline,
            per_nic: ember_core::bounds::DHCP_PER_NIC,
            metadata: None,
            link_local: false,
            dhcp: true,
            slaac: false,
            site_options: Vec::new(),
            proc: PathBuf::from("/proc"),
            timing: client::TIMING,
        }
    }
}

/// One NIC tried: for status.json.
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    pub nic: String,
    /// `dhcp`, `dhcp6`, `link-local`, `slaac`, or the reason code of the error that stopped it.
    pub outcome: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<Ipv4Addr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_seconds: Option<u32>,
    pub ignored: Ignored,
    pub elapsed_ms: u64,
    /// The caller's request went through this lease.
    pub used: bool,
    /// Routes the kernel refused, teardown steps that failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Seconds since boot when it began.
    #[serde(skip)]
    pub start: f64,
}

impl Attempt {
    /// One line: `dhcp 10.0.0.5/24 from 10.0.0.1, lease 3600 s, 0 replies ignored`.
    pub fn summary(&self) -> String {
        let mut s = match &self.address {
            Some(a) => format!("{} {a}", self.outcome),
            None => self.outcome.clone(),
        };
        if let Some(server) = self.server {
            s += &format!(" from {server}");
        }
        if let Some(t) = self.lease_seconds {
            s += &format!(", lease {t} s");
        }
        s += &format!(", {} replies ignored", self.ignored.total());
        if self.ignored.naks > 0 {
            s += &format!(", {} NAKs", self.ignored.naks);
        }
        if !self.warnings.is_empty() {
            s += &format!(", {} warnings", self.warnings.len());
        }
        s
    }

    /// The attempt as a status step.
    pub fn step(&self) -> Step {
        let ok = self.address.is_some() && self.warnings.is_empty();
        Step {
            name: format!("ephemeral network {}", self.nic),
            start: Some(self.start),
            duration_us: self.elapsed_ms.saturating_mul(1000),
            result: format!("{} ({})", if ok { "ok" } else { "error" }, self.summary()),
        }
    }
}

#[derive(Debug, PartialEq)]
pub enum Error {
    /// No candidate NIC to try.
    NoNic,
    /// Netlink refused to open, or to read or change a link.
    Link {
        nic: String,
        op: &'static str,
        errno: Errno,
    },
    /// Not an Ethernet link: DHCP here speaks only Ethernet.
    NotEthernet { nic: String },
    /// The sockets of the exchange could not be opened.
    Socket { op: &'static str, errno: Errno },
    /// No lease before the NIC's deadline.
    NoLease {
        nic: String,
        offered: bool,
        ignored: u32,
    },
    /// Every link-local candidate was in use.
    LinkLocal { nic: String },
    /// Neither DHCPv4 nor SLAAC before the NIC's deadline; `router`: a router advertised
    /// itself, but no prefix to take an address from.
    NoSlaac { nic: String, router: bool },
    /// The deadline passed before the next NIC could be tried.
    Deadline,
    /// Every candidate was tried: none gave a lease the caller could use.
    Exhausted { tried: usize },
}

impl Error {
    /// A stable reason code for status.json.
    pub fn code(&self) -> Reason {
        match self {
            Error::NoNic => Reason::DhcpNoNic,
            Error::Link { .. } => Reason::DhcpLink,
            Error::NotEthernet { .. } => Reason::DhcpNotEthernet,
            Error::Socket { .. } => Reason::DhcpSocket,
            Error::NoLease { .. } => Reason::DhcpNoLease,
            Error::LinkLocal { .. } => Reason::LinkLocalInUse,
            Error::NoSlaac { .. } => Reason::SlaacNoAddress,
            Error::Deadline => Reason::DhcpDeadline,
            Error::Exhausted { .. } => Reason::DhcpExhausted,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoNic => write!(f, "no network interface to bring up"),
            Error::Link { nic, op, errno } => write!(f, "{nic}: {op}: {errno}"),
            Error::NotEthernet { nic } => write!(f, "{nic}: not an Ethernet link"),
            Error::Socket { op, errno } => write!(f, "{op}: {errno}"),
            Error::NoLease {
                nic,
                offered,
                ignored,
            } => write!(
                f,
                "{nic}: no DHCP lease before the deadline ({}; {ignored} replies ignored)",
                if *offered {
                    "offered, never acknowledged"
                } else {
                    "no offer"
                }
            ),
            Error::LinkLocal { nic } => {
                write!(f, "{nic}: every link-local address tried was in use")
            }
            Error::NoSlaac { nic, router: false } => write!(
                f,
                "{nic}: no DHCPv4 lease and no IPv6 router advertisement before the deadline"
            ),
            Error::NoSlaac { nic, router: true } => write!(
                f,
                "{nic}: no DHCPv4 lease; an IPv6 router advertised no prefix for an address \
and DHCPv6 gave none"
            ),
            Error::Deadline => write!(f, "the deadline passed before the next interface"),
            Error::Exhausted { tried } => {
                write!(f, "no usable lease on any of {tried} interface(s)")
            }
        }
    }
}

/// Whether `dest/prefix` contains `ip`.
fn covers(dest: Ipv4Addr, prefix: u8, ip: Ipv4Addr) -> bool {
    prefix == 0 || (u32::from(dest) ^ u32::from(ip)) >> (32 - prefix.min(32) as u32) == 0
}

/// The routes for a lease on link `index`, in the order to add them: on-link destinations
/// first, a gateway outside the subnet marked on-link, and a host route to `metadata` when no
/// route and not the subnet reaches it.
pub fn plan_routes(lease: &Lease, index: u32, metadata: Option<Ipv4Addr>) -> Vec<RouteSpec> {
    let in_subnet = |ip| covers(lease.address, lease.prefix, ip);
    let mut routes: Vec<RouteSpec> = lease
        .routes
        .iter()
        .map(|r| {
            let gateway = Some(r.gateway).filter(|g| !g.is_unspecified());
            RouteSpec {
                index,
                dest: r.dest,
                prefix: r.prefix,
                gateway,
                source: Some(lease.address),
                onlink: gateway.is_some_and(|g| !in_subnet(g)),
            }
        })
        .collect();
    ember_core::sort::sort_by_key(&mut routes, |r| r.gateway.is_some());
    if let Some(ip) = metadata {
        let reached = in_subnet(ip) || routes.iter().any(|r| covers(r.dest, r.prefix, ip));
        if !reached {
            routes.push(RouteSpec {
                index,
                dest: ip,
                prefix: 32,
                gateway: None,
                source: Some(lease.address),
                onlink: false,
            });
        }
    }
    routes
}

#[cfg(test)]
mod tests;

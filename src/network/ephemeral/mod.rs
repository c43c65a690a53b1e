//! A throwaway IPv4 lease inside ember, for datasources that must reach a metadata service
//! from the initramfs: no dhclient, no `ip` binary. `Session` brings each candidate NIC up in
//! turn, obtains a lease (DHCP, or link-local when asked), applies the address and routes,
//! lets the caller try its request, and on `down()` or drop removes exactly what it added and
//! sets the link down again if it was down, so the real network stack starts from a clean
//! link. What happened is kept as `Attempt`s, one status step each.
//! Not here: IPv6, renewal (leases live for seconds), the target's network config.

pub mod cli;
pub mod client;
pub mod linklocal;
pub mod netlink;
pub mod nics;
pub mod packet;

use crate::status::Step;
use client::{Failure, Ignored, Lease, RawTransport, Timing};
use netlink::{Address, Netlink, RouteSpec};
use rustix::io::Errno;
use serde::Serialize;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

pub use nics::fallback_candidates;

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
    pub timing: Timing,
}

impl Options {
    pub fn new(deadline: Instant) -> Options {
        Options {
            deadline,
            per_nic: Duration::from_secs(20),
            metadata: None,
            link_local: false,
            timing: client::TIMING,
        }
    }
}

/// One NIC tried: for status.json.
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    pub nic: String,
    /// `dhcp`, `link-local`, or the reason code of the error that stopped it.
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
    /// One line: `10.0.0.5/24 from 10.0.0.1, lease 3600 s, 0 replies ignored`.
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
    /// The deadline passed before the next NIC could be tried.
    Deadline,
    /// Every candidate was tried: none gave a lease the caller could use.
    Exhausted { tried: usize },
}

impl Error {
    /// A stable reason code for status.json.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NoNic => "dhcp-no-nic",
            Error::Link { .. } => "dhcp-link",
            Error::NotEthernet { .. } => "dhcp-not-ethernet",
            Error::Socket { .. } => "dhcp-socket",
            Error::NoLease { .. } => "dhcp-no-lease",
            Error::LinkLocal { .. } => "link-local-in-use",
            Error::Deadline => "dhcp-deadline",
            Error::Exhausted { .. } => "dhcp-exhausted",
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
            Error::Deadline => write!(f, "the deadline passed before the next interface"),
            Error::Exhausted { tried } => {
                write!(f, "no usable lease on any of {tried} interface(s)")
            }
        }
    }
}

/// What ember added to one link, to be removed in reverse.
struct Applied {
    nic: String,
    index: u32,
    link_was_up: bool,
    addresses: Vec<Address>,
    routes: Vec<RouteSpec>,
}

impl Applied {
    fn add_route(&mut self, nl: &mut Netlink, r: RouteSpec) -> Result<(), Errno> {
        match nl.add_route(&r) {
            Ok(()) => {
                self.routes.push(r);
                Ok(())
            }
            // Already there: someone else's, so not ours to remove.
            Err(Errno::EXIST) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Removes everything added, in reverse; what is already gone is not an error.
    fn teardown(&mut self, nl: &mut Netlink) -> Vec<String> {
        let mut failed = Vec::new();
        let gone = |e: &Errno| {
            matches!(
                *e,
                Errno::SRCH | Errno::NOENT | Errno::NODEV | Errno::ADDRNOTAVAIL
            )
        };
        while let Some(r) = self.routes.pop() {
            if let Err(e) = nl
                .del_route(&r)
                .or_else(|e| if gone(&e) { Ok(()) } else { Err(e) })
            {
                failed.push(format!(
                    "removing the route to {}/{}: {e}",
                    r.dest, r.prefix
                ));
            }
        }
        while let Some(a) = self.addresses.pop() {
            if let Err(e) = nl
                .del_address(&a)
                .or_else(|e| if gone(&e) { Ok(()) } else { Err(e) })
            {
                failed.push(format!("removing {}/{}: {e}", a.addr, a.prefix));
            }
        }
        if !self.link_was_up {
            self.link_was_up = true;
            if let Err(e) =
                nl.set_up(self.index, false)
                    .or_else(|e| if gone(&e) { Ok(()) } else { Err(e) })
            {
                failed.push(format!("setting {} down: {e}", self.nic));
            }
        }
        failed
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
    routes.sort_by_key(|r| r.gateway.is_some());
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

struct Active {
    lease: Lease,
    applied: Applied,
    attempt: usize,
}

pub struct Session {
    nl: Netlink,
    opts: Options,
    candidates: Vec<String>,
    next: usize,
    current: Option<Active>,
    record: Vec<Attempt>,
}

impl Session {
    /// A session over `candidates` (tried in order); nothing is touched yet.
    pub fn new(candidates: &[String], opts: Options) -> Result<Session, Error> {
        if candidates.is_empty() {
            return Err(Error::NoNic);
        }
        let nl = Netlink::open().map_err(|errno| Error::Link {
            nic: String::new(),
            op: "opening rtnetlink",
            errno,
        })?;
        Ok(Session {
            nl,
            opts,
            candidates: candidates.to_vec(),
            next: 0,
            current: None,
            record: Vec::new(),
        })
    }

    /// A session with the first lease any candidate gives.
    pub fn up(candidates: &[String], opts: Options) -> Result<Session, Error> {
        let mut s = Session::new(candidates, opts)?;
        s.advance()?;
        Ok(s)
    }

    /// The lease in use, if any.
    pub fn lease(&self) -> Option<&Lease> {
        self.current.as_ref().map(|a| &a.lease)
    }

    /// The NIC in use, if any.
    pub fn nic(&self) -> Option<&str> {
        self.current.as_ref().map(|a| a.applied.nic.as_str())
    }

    /// What happened so far, one entry per NIC tried.
    pub fn record(&self) -> &[Attempt] {
        &self.record
    }

    /// Calls `f` with the current lease (bringing up the first candidate if none is up); while
    /// `f` says the lease is no good (the metadata service did not answer), tears it down and
    /// moves on to the next candidate. Keeps and returns the lease `f` accepted.
    pub fn try_each(&mut self, mut f: impl FnMut(&Lease) -> bool) -> Result<&Lease, Error> {
        if self.current.is_none() {
            self.advance()?;
        }
        loop {
            let Some(active) = &self.current else {
                return Err(Error::Exhausted { tried: self.next });
            };
            if f(&active.lease) {
                let i = active.attempt;
                self.record[i].used = true;
                break;
            }
            self.advance()?;
        }
        self.lease().ok_or(Error::Exhausted { tried: self.next })
    }

    /// Removes what the session added; the warnings say what could not be removed.
    pub fn down(mut self) -> Vec<String> {
        self.release()
    }

    /// Leaves the current lease in place (the `--keep` of the test command).
    pub fn keep(mut self) {
        self.current = None;
    }

    fn release(&mut self) -> Vec<String> {
        let Some(mut active) = self.current.take() else {
            return Vec::new();
        };
        let failed = active.applied.teardown(&mut self.nl);
        self.record[active.attempt]
            .warnings
            .extend(failed.iter().cloned());
        failed
    }

    /// Releases the current lease and brings up the next candidate that gives one.
    fn advance(&mut self) -> Result<(), Error> {
        self.release();
        let mut last = None;
        while let Some(nic) = self.candidates.get(self.next).cloned() {
            self.next += 1;
            if Instant::now() >= self.opts.deadline {
                return Err(Error::Deadline);
            }
            let started = Instant::now();
            let mut attempt = Attempt {
                nic: nic.clone(),
                outcome: String::new(),
                address: None,
                server: None,
                lease_seconds: None,
                ignored: Ignored::default(),
                elapsed_ms: 0,
                used: false,
                warnings: Vec::new(),
                start: crate::stages::record::boot_seconds(),
            };
            let result = self.bring_up(&nic, &mut attempt);
            attempt.elapsed_ms = started.elapsed().as_millis() as u64;
            match result {
                Ok((lease, applied)) => {
                    attempt.address = Some(format!("{}/{}", lease.address, lease.prefix));
                    attempt.server = lease.server;
                    attempt.lease_seconds = lease.lease_seconds;
                    self.record.push(attempt);
                    self.current = Some(Active {
                        lease,
                        applied,
                        attempt: self.record.len() - 1,
                    });
                    return Ok(());
                }
                Err(e) => {
                    attempt.outcome = e.code().into();
                    attempt.warnings.push(e.to_string());
                    self.record.push(attempt);
                    last = Some(e);
                }
            }
        }
        match last {
            Some(e) if self.candidates.len() == 1 => Err(e),
            _ => Err(Error::Exhausted {
                tried: self.candidates.len(),
            }),
        }
    }

    /// One NIC: link up, lease, address and routes. On failure everything added is removed.
    fn bring_up(&mut self, nic: &str, attempt: &mut Attempt) -> Result<(Lease, Applied), Error> {
        let link_err = |op, errno| Error::Link {
            nic: nic.into(),
            op,
            errno,
        };
        let link = self
            .nl
            .link(nic)
            .map_err(|e| link_err("reading the link", e))?;
        let mac = link
            .mac
            .ok_or_else(|| Error::NotEthernet { nic: nic.into() })?;
        let mut applied = Applied {
            nic: nic.into(),
            index: link.index,
            link_was_up: link.up,
            addresses: Vec::new(),
            routes: Vec::new(),
        };
        let result = self.lease_and_apply(&mut applied, mac, attempt);
        if result.is_err() {
            attempt.warnings.extend(applied.teardown(&mut self.nl));
        }
        result.map(|(lease, outcome)| {
            attempt.outcome = outcome.into();
            (lease, applied)
        })
    }

    fn lease_and_apply(
        &mut self,
        applied: &mut Applied,
        mac: [u8; 6],
        attempt: &mut Attempt,
    ) -> Result<(Lease, &'static str), Error> {
        let nic = applied.nic.clone();
        let link_err = |op, errno| Error::Link {
            nic: nic.clone(),
            op,
            errno,
        };
        if !applied.link_was_up {
            self.nl
                .set_up(applied.index, true)
                .map_err(|e| link_err("setting the link up", e))?;
        }
        let now = Instant::now();
        let reserve = if self.opts.link_local {
            linklocal::LISTEN * 2
        } else {
            Duration::ZERO
        };
        let until =
            (now + self.opts.per_nic).min(self.opts.deadline.checked_sub(reserve).unwrap_or(now));
        let (lease, outcome) = match self.dhcp(applied, mac, until, attempt) {
            Ok(lease) => (lease, "dhcp"),
            Err(Error::NoLease { .. }) if self.opts.link_local => {
                let until = self.opts.deadline.max(Instant::now() + linklocal::LISTEN);
                let address = linklocal::choose(mac, until)
                    .map_err(|errno| Error::Socket {
                        op: "ARP socket",
                        errno,
                    })?
                    .ok_or_else(|| Error::LinkLocal { nic: nic.clone() })?;
                (linklocal::lease(address), "link-local")
            }
            Err(e) => return Err(e),
        };
        let address = Address {
            index: applied.index,
            addr: lease.address,
            prefix: lease.prefix,
            link_scope: lease.server.is_none(),
            // A zero lease time would make the kernel refuse the address.
            valid_seconds: Some(
                lease
                    .lease_seconds
                    .unwrap_or(linklocal::LIFETIME_SECONDS)
                    .max(60),
            ),
        };
        match self.nl.add_address(&address) {
            Ok(()) => applied.addresses.push(address),
            Err(Errno::EXIST) => {}
            Err(e) => return Err(link_err("adding the address", e)),
        }
        for r in plan_routes(&lease, applied.index, self.opts.metadata) {
            let what = format!("route to {}/{}", r.dest, r.prefix);
            if let Err(e) = applied.add_route(&mut self.nl, r) {
                attempt.warnings.push(format!("{what}: {e}"));
            }
        }
        Ok((lease, outcome))
    }

    /// The DHCP exchange, with a temporary route that sends 255.255.255.255 out of this link
    /// (the link has no address yet, so the kernel has no other way to pick it).
    fn dhcp(
        &mut self,
        applied: &mut Applied,
        mac: [u8; 6],
        until: Instant,
        attempt: &mut Attempt,
    ) -> Result<Lease, Error> {
        let broadcast = RouteSpec {
            index: applied.index,
            dest: Ipv4Addr::BROADCAST,
            prefix: 32,
            gateway: None,
            source: None,
            onlink: false,
        };
        let routes_before = applied.routes.len();
        applied
            .add_route(&mut self.nl, broadcast)
            .map_err(|errno| Error::Link {
                nic: applied.nic.clone(),
                op: "routing 255.255.255.255 to the link",
                errno,
            })?;
        let result = RawTransport::open()
            .map_err(|(op, errno)| Error::Socket { op, errno })
            .and_then(|mut t| {
                client::obtain(&mut t, mac, until, &self.opts.timing, &mut attempt.ignored).map_err(
                    |f| match f {
                        Failure::Deadline { offered } => Error::NoLease {
                            nic: applied.nic.clone(),
                            offered,
                            ignored: attempt.ignored.total(),
                        },
                        Failure::Io(op, errno) => Error::Socket { op, errno },
                    },
                )
            });
        // The broadcast route has done its job: gone before the lease's routes go in.
        if applied.routes.len() > routes_before {
            if let Some(r) = applied.routes.pop() {
                if let Err(e) = self.nl.del_route(&r) {
                    attempt
                        .warnings
                        .push(format!("removing the route to {}: {e}", r.dest));
                    // Left for the teardown to try again.
                    applied.routes.push(r);
                }
            }
        }
        result
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests;

//! `Session`: one candidate NIC after another brought up with a lease, what was added to
//! each recorded so that `down()` or drop removes exactly that, and the link put back down if
//! it was down. The decisions (which routes, which order) are in mod.rs; the bytes on the
//! wire in client.rs and netlink.rs.

use super::client::{self, Failure, Ignored, Lease, RawTransport};
use super::netlink::{Address, Netlink, RouteSpec};
use super::{linklocal, plan_routes, set_lease_dns, slaac, Attempt, Error, Options};
use rustix::io::Errno;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::{Duration, Instant};

/// What ember added to one link, to be removed in reverse.
pub(super) struct Applied {
    pub(super) nic: String,
    pub(super) index: u32,
    link_was_up: bool,
    addresses: Vec<Address>,
    routes: Vec<RouteSpec>,
    /// What SLAAC needed: sysctls to restore, the kernel's additions to delete.
    pub(super) six: Option<slaac::Applied6>,
    /// The DHCPv6 address, a /128.
    pub(super) addresses6: Vec<Ipv6Addr>,
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
        let gone = |e: &Errno| {
            matches!(
                *e,
                Errno::SRCH | Errno::NOENT | Errno::NODEV | Errno::ADDRNOTAVAIL
            )
        };
        let mut failed = Vec::new();
        while let Some(a) = self.addresses6.pop() {
            match nl.del_address6(self.index, a, 128) {
                Err(e) if !gone(&e) => failed.push(format!("removing {a}/128: {e}")),
                _ => {}
            }
        }
        if let Some(mut six) = self.six.take() {
            failed.extend(six.teardown(nl, self.index));
        }
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

/// The lease in use, what it added, and its entry in the record.
struct Active {
    lease: Lease,
    applied: Applied,
    attempt: usize,
}

pub struct Session {
    pub(super) nl: Netlink,
    pub(super) opts: Options,
    candidates: Vec<String>,
    next: usize,
    current: Option<Active>,
    record: Vec<Attempt>,
    /// Links the session brought up to look for a carrier; each goes down again after its
    /// attempt, or when the session ends.
    raised: Vec<(String, u32)>,
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
            raised: Vec::new(),
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
        let mut failed = self.release();
        failed.extend(self.lower_raised());
        failed
    }

    /// Leaves the current lease in place (the `--keep` of the test command).
    pub fn keep(mut self) {
        let kept = self.current.take().map(|a| a.applied.index);
        self.raised.retain(|(_, index)| Some(*index) != kept);
        self.lower_raised();
    }

    /// With several candidates, brings them all up and waits (up to `CARRIER_WAIT`) for the
    /// first to get a carrier; then those with one are tried first, in their order. A NIC with
    /// no cable would otherwise cost its whole DHCP wait before the next is tried. cloud-init
    /// orders by carrier too, but reads it while the links are still down, when no link has
    /// one.
    fn prefer_carrier(&mut self) {
        if self.candidates.len() < 2 {
            return;
        }
        let until = (Instant::now() + ember_core::bounds::CARRIER_WAIT).min(self.opts.deadline);
        for nic in &self.candidates {
            if let Ok(link) = self.nl.link(nic) {
                if !link.up && self.nl.set_up(link.index, true).is_ok() {
                    self.raised.push((nic.clone(), link.index));
                }
            }
        }
        let mut carrier;
        loop {
            carrier = self
                .candidates
                .iter()
                .map(|nic| self.nl.link(nic).is_ok_and(|l| l.carrier))
                .collect::<Vec<bool>>();
            if carrier[0] || Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let (with, without): (Vec<_>, Vec<_>) = self
            .candidates
            .drain(..)
            .zip(carrier)
            .partition(|(_, c)| *c);
        self.candidates = with.into_iter().chain(without).map(|(n, _)| n).collect();
    }

    /// Puts down the links `prefer_carrier` brought up that are still up because of it.
    fn lower_raised(&mut self) -> Vec<String> {
        let mut failed = Vec::new();
        for (nic, index) in std::mem::take(&mut self.raised) {
            match self.nl.set_up(index, false) {
                Ok(()) | Err(Errno::NODEV) => {}
                Err(e) => failed.push(format!("setting {nic} down: {e}")),
            }
        }
        failed
    }

    fn release(&mut self) -> Vec<String> {
        let Some(mut active) = self.current.take() else {
            return Vec::new();
        };
        set_lease_dns(None);
        let failed = active.applied.teardown(&mut self.nl);
        self.record[active.attempt]
            .warnings
            .extend(failed.iter().cloned());
        failed
    }

    /// Releases the current lease and brings up the next candidate that gives one.
    fn advance(&mut self) -> Result<(), Error> {
        self.release();
        if self.next == 0 {
            self.prefer_carrier();
        }
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
                start: crate::clock::boot_seconds(),
            };
            let result = self.bring_up(&nic, &mut attempt);
            attempt.elapsed_ms = started.elapsed().as_millis() as u64;
            match result {
                Ok((lease, applied)) => {
                    attempt.address = Some(match &lease.slaac {
                        Some(f) => format!("{}/{}", f.address, f.prefix),
                        None => format!("{}/{}", lease.address, lease.prefix),
                    });
                    attempt.server = lease.server;
                    attempt.lease_seconds = lease.lease_seconds;
                    self.record.push(attempt);
                    set_lease_dns(Some((lease.dns.clone(), lease.domain.clone())));
                    self.current = Some(Active {
                        lease,
                        applied,
                        attempt: self.record.len() - 1,
                    });
                    return Ok(());
                }
                Err(e) => {
                    attempt.outcome = e.code().as_str().into();
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
            // A link raised only to look for its carrier goes down again after its attempt.
            link_was_up: link.up && !self.raised.iter().any(|(n, _)| n == nic),
            addresses: Vec::new(),
            routes: Vec::new(),
            six: None,
            addresses6: Vec::new(),
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
        if self.opts.slaac {
            // Before the link comes up, so that the kernel solicits a router at once; a link
            // `prefer_carrier` raised goes down for it, and up again below.
            if self.raised.iter().any(|(n, _)| *n == nic) {
                self.nl
                    .set_up(applied.index, false)
                    .map_err(|e| link_err("setting the link down", e))?;
            }
            applied.six = slaac::Applied6::prepare(&self.opts.proc, &nic, &mut attempt.warnings);
        }
        if !applied.link_was_up {
            self.nl
                .set_up(applied.index, true)
                .map_err(|e| link_err("setting the link up", e))?;
        }
        let now = Instant::now();
        let reserve = if self.opts.link_local {
            linklocal::LISTEN * 2
        } else if applied.six.is_some() {
            slaac::LAST_LOOK
        } else {
            Duration::ZERO
        };
        let until =
            (now + self.opts.per_nic).min(self.opts.deadline.checked_sub(reserve).unwrap_or(now));
        let asked = if self.opts.dhcp {
            self.dhcp(applied, mac, until, attempt)
        } else {
            Err(Error::NoLease {
                nic: nic.clone(),
                offered: false,
                ignored: 0,
            })
        };
        let six_found = applied
            .six
            .as_ref()
            .map(|six| six.state().found().is_some());
        if matches!(asked, Err(Error::NoLease { .. })) {
            if let Some(found) = six_found {
                return self.ipv6(applied, mac, until, found, attempt);
            }
        }
        let (lease, outcome) = match asked {
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
            .and_then(|t| {
                let six = applied.six.as_ref();
                let mut t = slaac::Watching {
                    inner: t,
                    six,
                    grace_until: Instant::now() + slaac::DHCP_GRACE,
                    // Without a socket of its own, the handover to DHCPv6 waits for the share's end.
                    flags: six
                        .and_then(|_| Netlink::open().ok())
                        .map(|nl| (nl, applied.nic.as_str())),
                };
                client::obtain(
                    &mut t,
                    mac,
                    until,
                    &self.opts.timing,
                    &self.opts.site_options,
                    &mut attempt.ignored,
                )
                .map_err(|f| match f {
                    Failure::Deadline { offered } => Error::NoLease {
                        nic: applied.nic.clone(),
                        offered,
                        ignored: attempt.ignored.total(),
                    },
                    // SLAAC is done: the link is the IPv6 one's.
                    Failure::Io(_, Errno::CANCELED) => Error::NoLease {
                        nic: applied.nic.clone(),
                        offered: false,
                        ignored: attempt.ignored.total(),
                    },
                    Failure::Io(op, errno) => Error::Socket { op, errno },
                })
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
        self.lower_raised();
    }
}

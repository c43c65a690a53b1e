//! SLAAC for a link that gives no DHCPv4 lease (EC2's IPv6-only subnets). The kernel does the
//! work: ember turns on the link's acceptance of router advertisements before the link comes
//! up (the kernel then solicits a router itself), watches /proc/net/if_inet6 and
//! /proc/net/ipv6_route for a usable global (or ULA) address and a default route, and at the
//! end deletes what appeared meanwhile and puts the sysctls back.
//! When the advertisement says Managed, the addresses come by DHCPv6 instead (dhcp6/), which
//! the DHCPv4 wait hands over to as it does to SLAAC.
//! Not here: soliciting a router on a link that was already up (ember waits for
//! the router's own periodic advertisement there).

use super::client::{Incoming, Lease, Transport};
use super::netlink::Netlink;
use rustix::io::Errno;
use serde::Serialize;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// if_inet6 flags: the address is still being checked for duplicates, or the check failed.
/// Scopes in /proc/net/if_inet6 (ULAs count as global).
const SCOPE_GLOBAL: u32 = 0x00;
const SCOPE_LINK: u32 = 0x20;
const IFA_F_DADFAILED: u32 = 0x08;
const IFA_F_TENTATIVE: u32 = 0x40;
/// ipv6_route flags: through a gateway; learnt from a router advertisement.
const RTF_GATEWAY: u32 = 0x2;
const RTF_ADDRCONF: u32 = 0x40000;
/// How often the kernel's state is looked at while waiting.
const POLL: Duration = Duration::from_millis(100);
/// DHCPv4 keeps the link this long even when SLAAC is done sooner: a dual-stack network's
/// DHCP server answers well within it, and its lease is preferred.
pub const DHCP_GRACE: Duration = Duration::from_secs(3);
/// Kept from the NIC's share for a last look after DHCP gave up.
pub const LAST_LOOK: Duration = Duration::from_secs(1);

/// One line of /proc/net/if_inet6.
#[derive(Clone, Debug, PartialEq)]
pub struct Addr6 {
    pub addr: Ipv6Addr,
    pub index: u32,
    pub prefix: u8,
    pub scope: u32,
    pub flags: u32,
    pub nic: String,
}

/// One line of /proc/net/ipv6_route.
#[derive(Clone, Debug, PartialEq)]
pub struct Route6 {
    pub dest: Ipv6Addr,
    pub prefix: u8,
    pub gateway: Ipv6Addr,
    pub metric: u32,
    pub flags: u32,
    pub nic: String,
}

/// What SLAAC gave: an address to speak from and the router that advertised itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Found {
    pub address: Ipv6Addr,
    pub prefix: u8,
    pub router: Ipv6Addr,
}

fn hex_addr(s: &str) -> Option<Ipv6Addr> {
    (s.len() == 32)
        .then(|| u128::from_str_radix(s, 16).ok())
        .flatten()
        .map(Ipv6Addr::from)
}

fn hex(s: &str, max_len: usize) -> Option<u32> {
    (s.len() <= max_len).then(|| u32::from_str_radix(s, 16).ok())?
}

/// The addresses in /proc/net/if_inet6; malformed lines are skipped.
pub fn parse_if_inet6(text: &str) -> Vec<Addr6> {
    let line = |l: &str| {
        let c: Vec<&str> = l.split_whitespace().collect();
        let [addr, index, prefix, scope, flags, nic] = c[..] else {
            return None;
        };
        Some(Addr6 {
            addr: hex_addr(addr)?,
            index: hex(index, 8)?,
            prefix: u8::try_from(hex(prefix, 2)?).ok().filter(|p| *p <= 128)?,
            scope: hex(scope, 8)?,
            flags: hex(flags, 8)?,
            nic: nic.to_string(),
        })
    };
    text.lines().filter_map(line).collect()
}

/// The routes in /proc/net/ipv6_route; malformed lines are skipped.
pub fn parse_ipv6_route(text: &str) -> Vec<Route6> {
    let line = |l: &str| {
        let c: Vec<&str> = l.split_whitespace().collect();
        let [dest, prefix, _, _, gateway, metric, _, _, flags, nic] = c[..] else {
            return None;
        };
        Some(Route6 {
            dest: hex_addr(dest)?,
            prefix: u8::try_from(hex(prefix, 2)?).ok().filter(|p| *p <= 128)?,
            gateway: hex_addr(gateway)?,
            metric: hex(metric, 8)?,
            flags: hex(flags, 8)?,
            nic: nic.to_string(),
        })
    };
    text.lines().filter_map(line).collect()
}

/// The kernel's IPv6 state of one link.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub addresses: Vec<Addr6>,
    pub routes: Vec<Route6>,
}

impl State {
    /// Reads `proc`/net for `nic`; a missing file (no IPv6 in the kernel) reads as empty.
    pub fn read(proc: &Path, nic: &str) -> State {
        let read = |f: &str| std::fs::read_to_string(proc.join("net").join(f)).unwrap_or_default();
        State {
            addresses: parse_if_inet6(&read("if_inet6"))
                .into_iter()
                .filter(|a| a.nic == nic)
                .collect(),
            routes: parse_ipv6_route(&read("ipv6_route"))
                .into_iter()
                .filter(|r| r.nic == nic)
                .collect(),
        }
    }

    /// A usable global-scope address (ULAs are global to the kernel) and a default route.
    pub fn found(&self) -> Option<Found> {
        self.found_in_scope(SCOPE_GLOBAL)
    }

    /// A default route and only the link-local address: the last resort when DHCPv6 (EC2's
    /// way of handing out IPv6 addresses) gave nothing while the router advertises the default
    /// route. Requests then leave from the link-local address, as cloud-init's ephemeral IPv6
    /// does.
    pub fn found_link_local(&self) -> Option<Found> {
        self.found_in_scope(SCOPE_LINK)
    }

    fn found_in_scope(&self, scope: u32) -> Option<Found> {
        let router = self.router()?;
        let a = self
            .addresses
            .iter()
            .find(|a| a.scope == scope && a.flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED) == 0)?;
        Some(Found {
            address: a.addr,
            prefix: a.prefix,
            router,
        })
    }

    /// Whether a router advertised itself as a default router.
    pub fn has_router(&self) -> bool {
        self.router().is_some()
    }

    /// The default router, when one advertised itself.
    pub fn router(&self) -> Option<Ipv6Addr> {
        let r = self.routes.iter();
        r.filter(|r| r.prefix == 0 && r.flags & RTF_GATEWAY != 0)
            .map(|r| r.gateway)
            .next()
    }

    /// What is here now and was not in `before`: global addresses, and routes from router
    /// advertisements. The rest (the link-local address) goes with the link.
    pub fn added_since(&self, before: &State) -> (Vec<Addr6>, Vec<Route6>) {
        let addresses = self.addresses.iter().filter(|a| a.scope == 0);
        let routes = self.routes.iter().filter(|r| r.flags & RTF_ADDRCONF != 0);
        (
            addresses
                .filter(|a| !before.addresses.iter().any(|b| b.addr == a.addr))
                .cloned()
                .collect(),
            routes
                .filter(|r| !before.routes.contains(r))
                .cloned()
                .collect(),
        )
    }
}

/// The sysctl values SLAAC needs, given the current ones: IPv6 on, addresses from
/// advertisements, and advertisements accepted (2 when the link forwards, as the kernel
/// ignores them otherwise). `None` where the value is right already.
fn wanted(
    disable: &str,
    accept_ra: &str,
    autoconf: &str,
    forwarding: &str,
) -> [Option<&'static str>; 3] {
    let accept = if forwarding == "1" { "2" } else { "1" };
    let ra_ok = accept_ra == accept || accept_ra == "2";
    [
        (disable != "0").then_some("0"),
        (!ra_ok).then_some(accept),
        (autoconf != "1").then_some("1"),
    ]
}

/// What ember changed on one link for SLAAC, and the link's state before.
#[derive(Debug)]
pub struct Applied6 {
    proc: PathBuf,
    nic: String,
    /// Sysctl files and the values to write back, in the order to write them.
    sysctls: Vec<(PathBuf, String)>,
    before: State,
}

impl Applied6 {
    /// Sets the link's sysctls for SLAAC and notes the state to return to.
    pub fn start(proc: &Path, nic: &str) -> Result<Applied6, Errno> {
        let conf = proc.join("sys/net/ipv6/conf").join(nic);
        let get = |f: &str| -> Result<String, Errno> {
            let v = std::fs::read_to_string(conf.join(f)).map_err(|e| errno(&e))?;
            Ok(v.trim().to_string())
        };
        let mut applied = Applied6 {
            proc: proc.to_path_buf(),
            nic: nic.into(),
            sysctls: Vec::new(),
            before: State::read(proc, nic),
        };
        let names = ["disable_ipv6", "accept_ra", "autoconf"];
        let now = [get(names[0])?, get(names[1])?, get(names[2])?];
        let want = wanted(&now[0], &now[1], &now[2], &get("forwarding")?);
        for ((name, old), new) in names.iter().zip(now).zip(want) {
            let Some(new) = new else { continue };
            let path = conf.join(name);
            if let Err(e) = std::fs::write(&path, new) {
                applied.restore();
                return Err(errno(&e));
            }
            applied.sysctls.insert(0, (path, old));
        }
        Ok(applied)
    }

    /// `start`, or none without IPv6 in the kernel (DHCPv4 only, silently) or when a sysctl
    /// cannot be set (a warning).
    pub fn prepare(proc: &Path, nic: &str, warnings: &mut Vec<String>) -> Option<Applied6> {
        match Applied6::start(proc, nic) {
            Ok(six) => Some(six),
            Err(Errno::NOENT) => None,
            Err(e) => {
                warnings.push(format!("IPv6 settings: {e}; no SLAAC"));
                None
            }
        }
    }

    /// Writes the old sysctl values back; the failures, if any.
    fn restore(&mut self) -> Vec<String> {
        let mut failed = Vec::new();
        for (path, old) in self.sysctls.drain(..) {
            if let Err(e) = std::fs::write(&path, &old) {
                failed.push(format!("restoring {}: {e}", path.display()));
            }
        }
        failed
    }

    /// The kernel's state of the link now.
    pub fn state(&self) -> State {
        State::read(&self.proc, &self.nic)
    }

    /// Waits until SLAAC is done or `until` passes; then a router with only the link-local
    /// address will do. `Err` says whether a router was seen.
    pub fn wait(&self, until: Instant) -> Result<Found, bool> {
        loop {
            let state = self.state();
            if let Some(found) = state.found() {
                return Ok(found);
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return state.found_link_local().ok_or(state.has_router());
            }
            std::thread::sleep(left.min(POLL));
        }
    }

    /// Puts the sysctls back (so no new advertisement is taken), then deletes the addresses
    /// and routes that appeared. What is already gone is not an error.
    pub fn teardown(&mut self, nl: &mut Netlink, index: u32) -> Vec<String> {
        let mut failed = self.restore();
        let gone = |e: &Errno| matches!(*e, Errno::SRCH | Errno::NOENT | Errno::ADDRNOTAVAIL);
        let (addresses, routes) = self.state().added_since(&self.before);
        for r in routes {
            match nl.del_route6(index, r.dest, r.prefix, r.gateway, r.metric) {
                Err(e) if !gone(&e) => failed.push(format!(
                    "removing the route to {}/{}: {e}",
                    r.dest, r.prefix
                )),
                _ => {}
            }
        }
        for a in addresses {
            match nl.del_address6(index, a.addr, a.prefix) {
                Err(e) if !gone(&e) => {
                    failed.push(format!("removing {}/{}: {e}", a.addr, a.prefix))
                }
                _ => {}
            }
        }
        failed
    }
}

fn errno(e: &std::io::Error) -> Errno {
    Errno::from_io_error(e).unwrap_or(Errno::IO)
}

/// The lease-shaped record of a SLAAC link: no IPv4 address, no routes of ember's.
pub fn lease(found: Found) -> Lease {
    Lease {
        address: Ipv4Addr::UNSPECIFIED,
        prefix: 0,
        routes: Vec::new(),
        routers: Vec::new(),
        dns: Vec::new(),
        domain: None,
        mtu: None,
        server: None,
        lease_seconds: None,
        site_options: Vec::new(),
        slaac: Some(found),
    }
}

/// Whether the last router advertisement on `nic` said Managed: addresses by DHCPv6.
pub fn managed(nl: &mut Netlink, nic: &str) -> bool {
    use super::netlink::{IF_RA_MANAGED, IF_RA_RCVD};
    let flags = nl.link(nic).map_or(0, |l| l.ra_flags);
    flags & (IF_RA_RCVD | IF_RA_MANAGED) == IF_RA_RCVD | IF_RA_MANAGED
}

/// A DHCP transport that gives up (`ECANCELED`) once `grace_until` has passed and SLAAC is
/// done or the router said Managed (DHCPv6's turn), so an IPv6-only link does not wait out
/// the whole DHCP share. Without `six`, the inner transport as it is.
pub struct Watching<'a, T: Transport> {
    pub inner: T,
    pub six: Option<&'a Applied6>,
    pub grace_until: Instant,
    /// A netlink socket of its own and the link's name, to read the advertisement's flags.
    pub flags: Option<(Netlink, &'a str)>,
}

impl<T: Transport> Transport for Watching<'_, T> {
    fn send(&mut self, message: &[u8]) -> Result<(), Errno> {
        self.inner.send(message)
    }

    fn recv(&mut self, until: Instant) -> Result<Option<Incoming>, Errno> {
        let Some(six) = self.six else {
            return self.inner.recv(until);
        };
        loop {
            let slice = (Instant::now() + POLL).min(until);
            if let Some(incoming) = self.inner.recv(slice)? {
                return Ok(Some(incoming));
            }
            if Instant::now() >= until {
                return Ok(None);
            }
            if Instant::now() >= self.grace_until {
                let mut managed = || match &mut self.flags {
                    Some((nl, nic)) => managed(nl, nic),
                    None => false,
                };
                if six.state().found().is_some() || managed() {
                    return Err(Errno::CANCELED);
                }
            }
        }
    }
}

/// The fuzz entry (src/fuzz.rs): both /proc tables from the same bytes, and the decisions.
#[doc(hidden)]
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let state = State {
        addresses: parse_if_inet6(&text),
        routes: parse_ipv6_route(&text),
    };
    let _ = state.found();
    let _ = state.added_since(&State::default());
}

#[cfg(test)]
mod tests;

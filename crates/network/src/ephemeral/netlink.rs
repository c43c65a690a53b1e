//! rtnetlink over a rustix socket: a link's state (with the flags of the last IPv6 router
//! advertisement), bringing it up or down, adding and removing IPv4 addresses and routes in
//! the main table, adding a DHCPv6 address, removing what SLAAC added for IPv6. Requests are built as bytes and every request
//! waits for the kernel's acknowledgement; replies are read only from the kernel (port 0) and
//! bounds-checked. No unsafe code, no `ip` binary. Not here: deciding what to add (mod.rs).

use rustix::fd::OwnedFd;
use rustix::io::Errno;
use rustix::net::netlink::SocketAddrNetlink;
use rustix::net::{self, AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::Duration;

const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const RTM_NEWLINK: u16 = 16;
const RTM_GETLINK: u16 = 18;
const RTM_NEWADDR: u16 = 20;
const RTM_DELADDR: u16 = 21;
const RTM_NEWROUTE: u16 = 24;
const RTM_DELROUTE: u16 = 25;
const F_REQUEST: u16 = 0x1;
const F_ACK: u16 = 0x4;
const F_EXCL: u16 = 0x200;
const F_CREATE: u16 = 0x400;
const AF_INET: u8 = 2;
const AF_INET6: u8 = 10;
const IFF_UP: u32 = 0x1;
const ARPHRD_ETHER: u16 = 1;
const IFLA_ADDRESS: u16 = 1;
const IFLA_IFNAME: u16 = 3;
const IFA_ADDRESS: u16 = 1;
const IFA_LOCAL: u16 = 2;
const IFA_BROADCAST: u16 = 4;
const IFA_CACHEINFO: u16 = 6;
const IFA_FLAGS: u16 = 8;
/// The address needs no duplicate detection: the DHCPv6 server assigned it to this client.
const IFA_F_NODAD: u32 = 0x02;
const IFLA_AF_SPEC: u16 = 26;
const IFLA_CARRIER: u16 = 33;
const IFLA_INET6_FLAGS: u16 = 1;
/// In IFLA_INET6_FLAGS: an advertisement came, and it said Managed (M: addresses by DHCPv6).
pub const IF_RA_RCVD: u32 = 0x20;
pub const IF_RA_MANAGED: u32 = 0x40;
const RTA_DST: u16 = 1;
const RTA_OIF: u16 = 4;
const RTA_GATEWAY: u16 = 5;
const RTA_PRIORITY: u16 = 6;
const RTA_PREFSRC: u16 = 7;
const RT_TABLE_MAIN: u8 = 254;
/// Routes ember adds are marked as DHCP's, so `ip route` shows where they came from.
const RTPROT_DHCP: u8 = 16;
const RT_SCOPE_UNIVERSE: u8 = 0;
const RT_SCOPE_LINK: u8 = 253;
const RTN_UNICAST: u8 = 1;
const RTNH_F_ONLINK: u32 = 4;
/// The kernel answers at once; this only bounds a wait that should never happen.
const REPLY_TIMEOUT: Duration = ember_core::bounds::NETLINK_REPLY;

/// What ember needs to know about a link.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub index: u32,
    pub up: bool,
    /// The hardware address, when it is an Ethernet one.
    pub mac: Option<[u8; 6]>,
    /// The kernel's IPv6 flags of the link (`IF_RA_*`); 0 without IPv6.
    pub ra_flags: u32,
    /// Whether the link has a carrier (a cable, a peer): only known once it is up.
    pub carrier: bool,
}

/// An IPv4 address on a link.
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    pub index: u32,
    pub addr: Ipv4Addr,
    pub prefix: u8,
    /// Link scope (169.254/16), else global.
    pub link_scope: bool,
    /// The kernel removes the address after this many seconds (the lease time, which ember
    /// never renews): the last line of defence should ember die before its teardown.
    pub valid_seconds: Option<u32>,
}

/// A route in the main table through one link.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteSpec {
    pub index: u32,
    pub dest: Ipv4Addr,
    pub prefix: u8,
    /// None: the destination is on the link.
    pub gateway: Option<Ipv4Addr>,
    /// The preferred source; routes with it go away with the address.
    pub source: Option<Ipv4Addr>,
    /// The gateway is on the link although outside the address's subnet.
    pub onlink: bool,
}

pub struct Netlink {
    fd: OwnedFd,
    seq: u32,
    buf: Vec<u8>,
}

/// Appends a netlink attribute, padded to 4 bytes.
fn attr(out: &mut Vec<u8>, kind: u16, data: &[u8]) {
    out.extend_from_slice(&((4 + data.len()) as u16).to_ne_bytes());
    out.extend_from_slice(&kind.to_ne_bytes());
    out.extend_from_slice(data);
    out.resize(out.len().next_multiple_of(4), 0);
}

/// Attributes of a reply: (kind, data) pairs, bounds-checked.
fn attrs(mut b: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    std::iter::from_fn(move || {
        let len = u16::from_ne_bytes([*b.first()?, *b.get(1)?]) as usize;
        let kind = u16::from_ne_bytes([*b.get(2)?, *b.get(3)?]) & 0x3fff;
        let data = b.get(4..len).filter(|_| len >= 4)?;
        b = b.get(len.next_multiple_of(4)..).unwrap_or(&[]);
        Some((kind, data))
    })
}

fn ne_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

impl Netlink {
    pub fn open() -> Result<Netlink, Errno> {
        let fd = net::socket_with(
            AddressFamily::NETLINK,
            SocketType::RAW,
            SocketFlags::CLOEXEC,
            None, // NETLINK_ROUTE is protocol 0
        )?;
        net::bind(&fd, &SocketAddrNetlink::new(0, 0))?;
        net::sockopt::set_socket_timeout(&fd, net::sockopt::Timeout::Recv, Some(REPLY_TIMEOUT))?;
        Ok(Netlink {
            fd,
            seq: 0,
            buf: vec![0; 32 * 1024],
        })
    }

    /// Sends one request and waits for its acknowledgement; `on_reply` sees the messages that
    /// answer it before the acknowledgement.
    fn call(
        &mut self,
        kind: u16,
        flags: u16,
        body: &[u8],
        mut on_reply: impl FnMut(u16, &[u8]),
    ) -> Result<(), Errno> {
        self.seq = self.seq.wrapping_add(1);
        let mut msg = Vec::with_capacity(16 + body.len());
        msg.extend_from_slice(&((16 + body.len()) as u32).to_ne_bytes());
        msg.extend_from_slice(&kind.to_ne_bytes());
        msg.extend_from_slice(&(flags | F_REQUEST | F_ACK).to_ne_bytes());
        msg.extend_from_slice(&self.seq.to_ne_bytes());
        msg.extend_from_slice(&0u32.to_ne_bytes());
        msg.extend_from_slice(body);
        net::sendto(
            &self.fd,
            &msg,
            SendFlags::empty(),
            &SocketAddrNetlink::new(0, 0),
        )?;
        loop {
            let (n, len, from) = net::recvfrom(&self.fd, &mut self.buf[..], RecvFlags::TRUNC)?;
            let from_kernel = from
                .and_then(|a| SocketAddrNetlink::try_from(a).ok())
                .is_some_and(|a| a.pid() == 0);
            if !from_kernel {
                continue;
            }
            if len > n {
                return Err(Errno::MSGSIZE);
            }
            let mut rest = &self.buf[..n];
            while rest.len() >= 16 {
                let mlen = ne_u32(rest, 0).unwrap_or(0) as usize;
                if mlen < 16 || mlen > rest.len() {
                    return Err(Errno::PROTO);
                }
                let mtype = u16::from_ne_bytes([rest[4], rest[5]]);
                let seq = ne_u32(rest, 8).unwrap_or(0);
                let payload = &rest[16..mlen];
                if seq == self.seq {
                    match mtype {
                        NLMSG_ERROR => {
                            let code = ne_u32(payload, 0).ok_or(Errno::PROTO)? as i32;
                            return match code {
                                0 => Ok(()),
                                c => Err(Errno::from_raw_os_error(c.saturating_neg())),
                            };
                        }
                        NLMSG_DONE => return Ok(()),
                        _ => on_reply(mtype, payload),
                    }
                }
                rest = rest.get(mlen.next_multiple_of(4)..).unwrap_or(&[]);
            }
        }
    }

    /// The link called `name`.
    pub fn link(&mut self, name: &str) -> Result<Link, Errno> {
        let mut body = vec![0u8; 16];
        attr(&mut body, IFLA_IFNAME, &[name.as_bytes(), &[0]].concat());
        let mut found = None;
        self.call(RTM_GETLINK, 0, &body, |mtype, p| {
            if mtype != RTM_NEWLINK || p.len() < 16 {
                return;
            }
            let ethernet = u16::from_ne_bytes([p[2], p[3]]) == ARPHRD_ETHER;
            let mac = attrs(&p[16..])
                .find(|(k, _)| *k == IFLA_ADDRESS)
                .and_then(|(_, d)| <[u8; 6]>::try_from(d).ok())
                .filter(|_| ethernet);
            let ra_flags = attrs(&p[16..])
                .filter(|(k, _)| *k == IFLA_AF_SPEC)
                .flat_map(|(_, d)| attrs(d))
                .filter(|(family, _)| *family == AF_INET6 as u16)
                .flat_map(|(_, d)| attrs(d))
                .find(|(k, _)| *k == IFLA_INET6_FLAGS)
                .and_then(|(_, d)| ne_u32(d, 0))
                .unwrap_or(0);
            let carrier = attrs(&p[16..])
                .find(|(k, _)| *k == IFLA_CARRIER)
                .is_some_and(|(_, d)| d.first() == Some(&1));
            found = Some(Link {
                carrier,
                index: ne_u32(p, 4).unwrap_or(0),
                up: ne_u32(p, 8).unwrap_or(0) & IFF_UP != 0,
                mac,
                ra_flags,
            });
        })?;
        found.filter(|l| l.index != 0).ok_or(Errno::NODEV)
    }

    pub fn set_up(&mut self, index: u32, up: bool) -> Result<(), Errno> {
        let mut body = vec![0u8; 16];
        body[4..8].copy_from_slice(&index.to_ne_bytes());
        body[8..12].copy_from_slice(&(if up { IFF_UP } else { 0 }).to_ne_bytes());
        body[12..16].copy_from_slice(&IFF_UP.to_ne_bytes());
        self.call(RTM_NEWLINK, 0, &body, |_, _| {})
    }

    fn address_body(a: &Address, with_lifetime: bool) -> Vec<u8> {
        let scope = if a.link_scope {
            RT_SCOPE_LINK
        } else {
            RT_SCOPE_UNIVERSE
        };
        let mut body = vec![AF_INET, a.prefix, 0, scope];
        body.extend_from_slice(&a.index.to_ne_bytes());
        attr(&mut body, IFA_LOCAL, &a.addr.octets());
        attr(&mut body, IFA_ADDRESS, &a.addr.octets());
        if a.prefix < 31 {
            let host = u32::MAX.checked_shr(a.prefix as u32).unwrap_or(0);
            let broadcast = Ipv4Addr::from(u32::from(a.addr) | host);
            attr(&mut body, IFA_BROADCAST, &broadcast.octets());
        }
        if let Some(valid) = a.valid_seconds.filter(|_| with_lifetime) {
            let mut info = Vec::with_capacity(16);
            for v in [valid, valid, 0, 0] {
                info.extend_from_slice(&v.to_ne_bytes());
            }
            attr(&mut body, IFA_CACHEINFO, &info);
        }
        body
    }

    /// Adds an address; `EEXIST` when the link already had it (then it is not ember's to remove).
    pub fn add_address(&mut self, a: &Address) -> Result<(), Errno> {
        let body = Self::address_body(a, true);
        self.call(RTM_NEWADDR, F_CREATE | F_EXCL, &body, |_, _| {})
    }

    pub fn del_address(&mut self, a: &Address) -> Result<(), Errno> {
        let body = Self::address_body(a, false);
        self.call(RTM_DELADDR, 0, &body, |_, _| {})
    }

    fn route_body(r: &RouteSpec, delete: bool) -> Vec<u8> {
        let scope = if r.gateway.is_some() {
            RT_SCOPE_UNIVERSE
        } else {
            RT_SCOPE_LINK
        };
        let flags = if r.onlink { RTNH_F_ONLINK } else { 0 };
        let mut body = vec![AF_INET, r.prefix, 0, 0, RT_TABLE_MAIN, RTPROT_DHCP, scope];
        body.push(RTN_UNICAST);
        body.extend_from_slice(&flags.to_ne_bytes());
        if r.prefix > 0 {
            attr(&mut body, RTA_DST, &r.dest.octets());
        }
        attr(&mut body, RTA_OIF, &r.index.to_ne_bytes());
        if let Some(gw) = r.gateway {
            attr(&mut body, RTA_GATEWAY, &gw.octets());
        }
        if let Some(src) = r.source.filter(|_| !delete) {
            attr(&mut body, RTA_PREFSRC, &src.octets());
        }
        body
    }

    /// Adds a route; `EEXIST` when an equal one is there (then it is not ember's to remove).
    pub fn add_route(&mut self, r: &RouteSpec) -> Result<(), Errno> {
        let body = Self::route_body(r, false);
        self.call(RTM_NEWROUTE, F_CREATE | F_EXCL, &body, |_, _| {})
    }

    pub fn del_route(&mut self, r: &RouteSpec) -> Result<(), Errno> {
        let body = Self::route_body(r, true);
        self.call(RTM_DELROUTE, 0, &body, |_, _| {})
    }

    /// Adds a DHCPv6 address as a /128 (the on-link prefix is the router advertisement's), with
    /// its lifetimes, so the kernel drops it should ember die before its teardown. `EEXIST`
    /// when the link had it already.
    pub fn add_address6(
        &mut self,
        index: u32,
        addr: Ipv6Addr,
        preferred: u32,
        valid: u32,
    ) -> Result<(), Errno> {
        let mut body = vec![AF_INET6, 128, 0, RT_SCOPE_UNIVERSE];
        body.extend_from_slice(&index.to_ne_bytes());
        attr(&mut body, IFA_LOCAL, &addr.octets());
        attr(&mut body, IFA_FLAGS, &IFA_F_NODAD.to_ne_bytes());
        let mut info = Vec::with_capacity(16);
        for v in [preferred, valid, 0, 0] {
            info.extend_from_slice(&v.to_ne_bytes());
        }
        attr(&mut body, IFA_CACHEINFO, &info);
        self.call(RTM_NEWADDR, F_CREATE | F_EXCL, &body, |_, _| {})
    }

    /// Removes an IPv6 address the kernel configured from a router advertisement.
    pub fn del_address6(&mut self, index: u32, addr: Ipv6Addr, prefix: u8) -> Result<(), Errno> {
        let mut body = vec![AF_INET6, prefix, 0, 0];
        body.extend_from_slice(&index.to_ne_bytes());
        attr(&mut body, IFA_ADDRESS, &addr.octets());
        self.call(RTM_DELADDR, 0, &body, |_, _| {})
    }

    /// Removes an IPv6 route of the main table, matched by destination, link, gateway (unless
    /// unspecified) and metric.
    pub fn del_route6(
        &mut self,
        index: u32,
        dest: Ipv6Addr,
        prefix: u8,
        gateway: Ipv6Addr,
        metric: u32,
    ) -> Result<(), Errno> {
        let mut body = vec![AF_INET6, prefix, 0, 0, RT_TABLE_MAIN, 0, RT_SCOPE_UNIVERSE];
        body.push(RTN_UNICAST);
        body.extend_from_slice(&0u32.to_ne_bytes());
        if prefix > 0 {
            attr(&mut body, RTA_DST, &dest.octets());
        }
        attr(&mut body, RTA_OIF, &index.to_ne_bytes());
        if !gateway.is_unspecified() {
            attr(&mut body, RTA_GATEWAY, &gateway.octets());
        }
        attr(&mut body, RTA_PRIORITY, &metric.to_ne_bytes());
        self.call(RTM_DELROUTE, 0, &body, |_, _| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_padded_and_read_back() {
        let mut b = Vec::new();
        attr(&mut b, IFLA_IFNAME, b"eth0\0");
        attr(&mut b, IFLA_ADDRESS, &[1, 2, 3, 4, 5, 6]);
        assert_eq!(b.len(), 12 + 12);
        let got: Vec<_> = attrs(&b).collect();
        assert_eq!(
            got,
            [
                (IFLA_IFNAME, &b"eth0\0"[..]),
                (IFLA_ADDRESS, &[1, 2, 3, 4, 5, 6][..])
            ]
        );
        // A length past the end, or shorter than the header, ends the walk without a panic.
        assert_eq!(attrs(&[200, 0, 1, 0, 9]).count(), 0);
        assert_eq!(attrs(&[2, 0, 1, 0]).count(), 0);
        assert_eq!(attrs(&[4, 0, 1, 0]).count(), 1);
        assert_eq!(attrs(&[1, 0]).count(), 0);
    }

    #[test]
    fn route_requests_carry_what_delete_must_match() {
        let r = RouteSpec {
            index: 7,
            dest: Ipv4Addr::new(10, 1, 0, 0),
            prefix: 16,
            gateway: Some(Ipv4Addr::new(192, 168, 1, 1)),
            source: Some(Ipv4Addr::new(192, 168, 1, 5)),
            onlink: true,
        };
        let add = Netlink::route_body(&r, false);
        let del = Netlink::route_body(&r, true);
        assert_eq!(
            &add[..8],
            &[
                AF_INET,
                16,
                0,
                0,
                RT_TABLE_MAIN,
                RTPROT_DHCP,
                0,
                RTN_UNICAST
            ]
        );
        let kinds = |b: &[u8]| attrs(&b[12..]).map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(kinds(&add), [RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PREFSRC]);
        assert_eq!(kinds(&del), [RTA_DST, RTA_OIF, RTA_GATEWAY]);
        let default = RouteSpec {
            prefix: 0,
            gateway: None,
            ..r
        };
        assert_eq!(
            kinds(&Netlink::route_body(&default, false)),
            [RTA_OIF, RTA_PREFSRC]
        );
    }
}

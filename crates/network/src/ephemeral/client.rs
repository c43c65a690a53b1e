//! The DHCP exchange of RFC 2131 §4.4.1: DISCOVER until a valid OFFER, REQUEST until its
//! server's ACK (or a NAK, which starts over), retransmitted on an exponential backoff with
//! jitter, all under one deadline. Replies that are malformed, too large, for another exchange
//! (xid) or client (chaddr), from a server other than the one requested, or of the wrong type
//! are ignored and counted. The network sits behind `Transport`, so tests script the server.
//! Not here: renewal (an ephemeral lease lives for seconds and is never renewed), the ARP
//! check and DECLINE of RFC 2131 §4.4.1, INIT-REBOOT.

use super::packet::{self, Frame, Kind, Message, Route, CLIENT_PORT, MAX_MESSAGE, SERVER_PORT};
use rustix::fd::OwnedFd;
use rustix::io::Errno;
use rustix::net::{self, sockopt, AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};
use serde::Serialize;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::{Duration, Instant};

/// One DHCP datagram received for the client port, or why it was unusable.
#[derive(Debug)]
pub enum Incoming {
    Dhcp(Vec<u8>),
    Malformed,
    TooLarge,
}

/// Where DHCP messages go and come from.
pub trait Transport {
    /// Broadcasts one message to the servers.
    fn send(&mut self, message: &[u8]) -> Result<(), Errno>;
    /// The next datagram for the client port, or `None` once `until` has passed.
    fn recv(&mut self, until: Instant) -> Result<Option<Incoming>, Errno>;
}

/// Replies ignored, by reason; reported in status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ignored {
    pub malformed: u32,
    pub too_large: u32,
    pub wrong_xid: u32,
    pub wrong_chaddr: u32,
    pub wrong_server: u32,
    /// A request from another client, an ACK while selecting, an OFFER while requesting.
    pub unexpected: u32,
    /// NAKs from the server asked, each starting the exchange over (not counted in `total`).
    pub naks: u32,
}

impl Ignored {
    pub fn total(&self) -> u32 {
        [
            self.malformed,
            self.too_large,
            self.wrong_xid,
            self.wrong_chaddr,
            self.wrong_server,
            self.unexpected,
        ]
        .iter()
        .fold(0u32, |a, b| a.saturating_add(*b))
    }
}

/// Retransmission: the first wait, doubling up to `max`, each ±25 % at random. RFC 2131
/// §4.1 starts at 4 s; ember starts at 1 s because a boot waits on it and cloud DHCP servers
/// answer in milliseconds.
#[derive(Clone, Debug)]
pub struct Timing {
    pub first: Duration,
    pub max: Duration,
    /// REQUESTs sent without an answer before starting over with a DISCOVER.
    pub request_tries: u32,
}

pub const TIMING: Timing = Timing {
    first: Duration::from_secs(1),
    max: Duration::from_secs(16),
    request_tries: 3,
};

/// A lease as ember applies it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lease {
    pub address: Ipv4Addr,
    pub prefix: u8,
    /// What to install: option 121 when the server sent it (RFC 3442 §1: it then overrides
    /// option 3), else a default route through the first router.
    pub routes: Vec<Route>,
    pub routers: Vec<Ipv4Addr>,
    pub dns: Vec<Ipv4Addr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u16>,
    /// The DHCP server; none for a link-local address.
    pub server: Option<Ipv4Addr>,
    pub lease_seconds: Option<u32>,
    /// Site-specific options the datasource asked for, as the server sent them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub site_options: Vec<(u8, Vec<u8>)>,
    /// The link came up by SLAAC instead: `address` is then 0.0.0.0 and nothing of IPv4 was
    /// applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slaac: Option<super::slaac::Found>,
}

/// An address a host may hold: not 0/8, loopback, multicast, 240/4 or broadcast.
pub fn usable_address(a: Ipv4Addr) -> bool {
    let first = a.octets()[0];
    first != 0 && first != 127 && first < 224
}

impl Lease {
    /// The site-specific option `code` as the server sent it, when it did.
    pub fn site_option(&self, code: u8) -> Option<&[u8]> {
        let found = self.site_options.iter().find(|(c, _)| *c == code);
        found.map(|(_, v)| v.as_slice())
    }

    /// The lease an ACK grants, or `None` when it grants nothing usable.
    pub fn from_ack(m: &Message) -> Option<Lease> {
        let o = &m.options;
        if !usable_address(m.yiaddr) {
            return None;
        }
        let prefix = match o.subnet_mask {
            Some(mask) => {
                let bits = u32::from(mask);
                if bits.leading_ones() + bits.trailing_zeros() != 32 || bits == 0 {
                    return None;
                }
                bits.leading_ones() as u8
            }
            // No mask: the address's old class, as other clients assume.
            None => match m.yiaddr.octets()[0] {
                0..=127 => 8,
                128..=191 => 16,
                _ => 24,
            },
        };
        let routes = match &o.classless_routes {
            Some(routes) => routes.clone(),
            None => o
                .routers
                .iter()
                .find(|r| usable_address(**r))
                .map(|gw| Route {
                    dest: Ipv4Addr::UNSPECIFIED,
                    prefix: 0,
                    gateway: *gw,
                })
                .into_iter()
                .collect(),
        };
        Some(Lease {
            address: m.yiaddr,
            prefix,
            routes,
            routers: o.routers.clone(),
            dns: o.dns.clone(),
            domain: o.domain.clone(),
            mtu: o.mtu,
            server: o.server_id,
            lease_seconds: o.lease_seconds,
            site_options: o.site.clone(),
            slaac: None,
        })
    }
}

#[derive(Clone, Copy)]
enum Want {
    Offer,
    Reply { server: Ipv4Addr },
}

#[derive(Debug, PartialEq)]
enum Verdict {
    Offer { address: Ipv4Addr, server: Ipv4Addr },
    Ack(Lease),
    Nak,
    Ignore,
}

/// What one datagram means to an exchange (`xid`, `mac`) waiting for `want`; ignored ones
/// are counted in `ignored`.
fn judge(b: &[u8], xid: u32, mac: [u8; 6], want: Want, ignored: &mut Ignored) -> Verdict {
    let count = |n: &mut u32| {
        *n = n.saturating_add(1);
        Verdict::Ignore
    };
    let m = match packet::decode(b) {
        Ok(m) => m,
        Err(packet::Malformed::TooLarge) => return count(&mut ignored.too_large),
        Err(_) => return count(&mut ignored.malformed),
    };
    if m.op != 2 {
        return count(&mut ignored.unexpected);
    }
    if m.xid != xid {
        return count(&mut ignored.wrong_xid);
    }
    if m.chaddr != mac {
        return count(&mut ignored.wrong_chaddr);
    }
    match (want, m.options.kind) {
        (_, None) => count(&mut ignored.malformed),
        (Want::Offer, Some(Kind::Offer)) => match m.options.server_id {
            Some(server) if usable_address(m.yiaddr) => Verdict::Offer {
                address: m.yiaddr,
                server,
            },
            _ => count(&mut ignored.malformed),
        },
        (Want::Reply { server }, Some(kind @ (Kind::Ack | Kind::Nak))) => {
            if m.options.server_id != Some(server) {
                return count(&mut ignored.wrong_server);
            }
            if kind == Kind::Nak {
                return Verdict::Nak;
            }
            match Lease::from_ack(&m) {
                Some(lease) => Verdict::Ack(lease),
                None => count(&mut ignored.malformed),
            }
        }
        _ => count(&mut ignored.unexpected),
    }
}

/// Why no lease came.
#[derive(Debug, PartialEq)]
pub enum Failure {
    /// The deadline passed; `offered` says whether any server answered at all.
    Deadline { offered: bool },
    /// Sending or receiving failed.
    Io(&'static str, Errno),
}

pub fn random_u32() -> u32 {
    let mut b = [0u8; 4];
    if rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty()).is_err() {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        return t.tv_nsec as u32 ^ (t.tv_sec as u32).rotate_left(16);
    }
    u32::from_ne_bytes(b)
}

/// `interval` ±25 %, from a random `r`.
fn jitter(interval: Duration, r: u32) -> Duration {
    let ms = interval.as_millis() as u64;
    Duration::from_millis(ms * 3 / 4 + (r as u64 % (ms / 2 + 1)))
}

struct Exchange<'a, T: Transport> {
    t: &'a mut T,
    mac: [u8; 6],
    deadline: Instant,
    timing: &'a Timing,
    site: &'a [u8],
    started: Instant,
    ignored: &'a mut Ignored,
    offered: bool,
}

impl<T: Transport> Exchange<'_, T> {
    fn secs(&self) -> u16 {
        self.started.elapsed().as_secs().min(u16::MAX as u64) as u16
    }

    fn deadline(&self) -> Failure {
        Failure::Deadline {
            offered: self.offered,
        }
    }

    /// Waits until `until` for a verdict other than `Ignore`.
    fn wait(&mut self, until: Instant, xid: u32, want: Want) -> Result<Option<Verdict>, Failure> {
        // The clock is checked here too: a transport fed a flood may never report silence.
        while Instant::now() < until {
            let Some(incoming) = self.t.recv(until).map_err(|e| Failure::Io("recv", e))? else {
                break;
            };
            let verdict = match incoming {
                Incoming::Dhcp(b) if b.len() > MAX_MESSAGE => {
                    self.ignored.too_large = self.ignored.too_large.saturating_add(1);
                    continue;
                }
                Incoming::Dhcp(b) => judge(&b, xid, self.mac, want, self.ignored),
                Incoming::Malformed => {
                    self.ignored.malformed = self.ignored.malformed.saturating_add(1);
                    continue;
                }
                Incoming::TooLarge => {
                    self.ignored.too_large = self.ignored.too_large.saturating_add(1);
                    continue;
                }
            };
            if verdict != Verdict::Ignore {
                return Ok(Some(verdict));
            }
        }
        Ok(None)
    }

    /// SELECTING: DISCOVER until an OFFER; returns the offered address and its server.
    fn select(&mut self, xid: u32) -> Result<(Ipv4Addr, Ipv4Addr), Failure> {
        let mut interval = self.timing.first;
        loop {
            if Instant::now() >= self.deadline {
                return Err(self.deadline());
            }
            let discover =
                packet::request(Kind::Discover, xid, self.mac, self.secs(), None, self.site);
            self.t.send(&discover).map_err(|e| Failure::Io("send", e))?;
            let until = (Instant::now() + jitter(interval, random_u32())).min(self.deadline);
            if let Some(Verdict::Offer { address, server }) = self.wait(until, xid, Want::Offer)? {
                self.offered = true;
                return Ok((address, server));
            }
            interval = (interval * 2).min(self.timing.max);
        }
    }

    /// REQUESTING: the lease, or `None` after a NAK or silence (start over).
    fn request(
        &mut self,
        xid: u32,
        address: Ipv4Addr,
        server: Ipv4Addr,
    ) -> Result<Option<Lease>, Failure> {
        let mut interval = self.timing.first;
        for _ in 0..self.timing.request_tries {
            if Instant::now() >= self.deadline {
                return Err(self.deadline());
            }
            let req = packet::request(
                Kind::Request,
                xid,
                self.mac,
                self.secs(),
                Some((address, server)),
                self.site,
            );
            self.t.send(&req).map_err(|e| Failure::Io("send", e))?;
            let until = (Instant::now() + jitter(interval, random_u32())).min(self.deadline);
            match self.wait(until, xid, Want::Reply { server })? {
                Some(Verdict::Ack(lease)) => return Ok(Some(lease)),
                Some(Verdict::Nak) => {
                    self.ignored.naks = self.ignored.naks.saturating_add(1);
                    return Ok(None);
                }
                _ => interval = (interval * 2).min(self.timing.max),
            }
        }
        Ok(None)
    }
}

/// Runs exchanges until one gives a lease or `deadline` passes.
pub fn obtain(
    t: &mut impl Transport,
    mac: [u8; 6],
    deadline: Instant,
    timing: &Timing,
    site: &[u8],
    ignored: &mut Ignored,
) -> Result<Lease, Failure> {
    let mut x = Exchange {
        t,
        mac,
        deadline,
        timing,
        site,
        started: Instant::now(),
        ignored,
        offered: false,
    };
    loop {
        let xid = random_u32();
        let (address, server) = x.select(xid)?;
        if let Some(lease) = x.request(xid, address, server)? {
            return Ok(lease);
        }
    }
}

/// The real transport: requests go out through a UDP socket bound to port 68 and broadcast to
/// 255.255.255.255 (the caller routes that address to the link, since the link has no address
/// yet); replies are read from a packet socket, which sees them before the IP layer could drop
/// them (no address, reverse-path filtering, unicast to the offered address).
/// The packet socket is not bound to the link: that needs a `sockaddr_ll`, which rustix has no
/// safe type for. The xid and chaddr checks stand in for it: one exchange runs at a time.
pub struct RawTransport {
    udp: OwnedFd,
    packet: OwnedFd,
    buf: Vec<u8>,
}

impl RawTransport {
    pub fn open() -> Result<RawTransport, (&'static str, Errno)> {
        let packet = net::socket_with(
            AddressFamily::PACKET,
            SocketType::DGRAM,
            SocketFlags::CLOEXEC,
            Some(net::eth::IP),
        )
        .map_err(|e| ("packet socket", e))?;
        let udp = net::socket_with(
            AddressFamily::INET,
            SocketType::DGRAM,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| ("udp socket", e))?;
        sockopt::set_socket_reuseaddr(&udp, true).map_err(|e| ("SO_REUSEADDR", e))?;
        sockopt::set_socket_broadcast(&udp, true).map_err(|e| ("SO_BROADCAST", e))?;
        net::bind(&udp, &SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, CLIENT_PORT))
            .map_err(|e| ("bind to port 68", e))?;
        Ok(RawTransport {
            udp,
            packet,
            // An IP header with options, UDP, and one byte past the largest accepted message.
            buf: vec![0; 60 + 8 + MAX_MESSAGE + 1],
        })
    }
}

impl Transport for RawTransport {
    fn send(&mut self, message: &[u8]) -> Result<(), Errno> {
        let to = SocketAddrV4::new(Ipv4Addr::BROADCAST, SERVER_PORT);
        net::sendto(&self.udp, message, SendFlags::empty(), &to).map(|_| ())
    }

    fn recv(&mut self, until: Instant) -> Result<Option<Incoming>, Errno> {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left < Duration::from_millis(1) {
                return Ok(None);
            }
            sockopt::set_socket_timeout(&self.packet, sockopt::Timeout::Recv, Some(left))?;
            let (n, len) = match net::recv(&self.packet, &mut self.buf[..], RecvFlags::TRUNC) {
                Ok(r) => r,
                Err(Errno::AGAIN | Errno::INTR) => continue,
                Err(e) => return Err(e),
            };
            return Ok(Some(match packet::frame(&self.buf[..n], len) {
                Frame::NotOurs => continue,
                Frame::Malformed => Incoming::Malformed,
                Frame::TooLarge => Incoming::TooLarge,
                Frame::Dhcp { payload, .. } => Incoming::Dhcp(payload.to_vec()),
            }));
        }
    }
}

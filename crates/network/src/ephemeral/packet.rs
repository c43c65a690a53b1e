//! DHCPv4 messages (RFC 2131) and the options ember reads (RFC 2132, classless routes of
//! RFC 3442, long options of RFC 3396, site-specific options of RFC 3942 kept raw for the
//! datasource that asks for them), decoded from untrusted
//! bytes: every read is bounds-checked and a message over `MAX_MESSAGE` is refused.
//! Also the IPv4/UDP framing of what a packet socket hands over. No sockets, no timing here.

use std::net::Ipv4Addr;

pub const SERVER_PORT: u16 = 67;
pub const CLIENT_PORT: u16 = 68;
const MAGIC: [u8; 4] = [99, 130, 83, 99];
/// The BOOTP header before the magic cookie.
const FIXED: usize = 236;
/// Largest DHCP message accepted. We announce 1500-byte IP packets (option 57); a server on a
/// jumbo-frame link may send more, so allow some room, but never an unbounded amount.
pub const MAX_MESSAGE: usize = 4096;
/// Option 57: the largest IP packet we accept, as RFC 2132 9.10 counts it.
const MAX_ANNOUNCED: u16 = 1500;
/// BOOTP relays and old servers drop requests shorter than this.
const MIN_REQUEST: usize = 300;
/// The options a lease needs, in option 55: mask, router, DNS, domain, MTU, lease time,
/// server id, classless routes. A datasource adds the site-specific ones it reads.
const WANTED: [u8; 8] = [1, 3, 6, 15, 26, 51, 54, 121];
/// Site-specific options (RFC 3942): kept as sent, for the datasource that asked for them.
pub const SITE_SPECIFIC: std::ops::RangeInclusive<u8> = 224..=254;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Discover = 1,
    Offer = 2,
    Request = 3,
    Ack = 5,
    Nak = 6,
}

impl Kind {
    fn from_u8(v: u8) -> Option<Kind> {
        Some(match v {
            1 => Kind::Discover,
            2 => Kind::Offer,
            3 => Kind::Request,
            5 => Kind::Ack,
            6 => Kind::Nak,
            _ => return None,
        })
    }
}

/// One route of option 121; a gateway of 0.0.0.0 means the destination is on the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Route {
    pub dest: Ipv4Addr,
    pub prefix: u8,
    pub gateway: Ipv4Addr,
}

/// The options of a reply that ember uses; unknown ones are skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub kind: Option<Kind>,
    pub subnet_mask: Option<Ipv4Addr>,
    pub routers: Vec<Ipv4Addr>,
    pub dns: Vec<Ipv4Addr>,
    pub domain: Option<String>,
    pub mtu: Option<u16>,
    pub lease_seconds: Option<u32>,
    pub server_id: Option<Ipv4Addr>,
    /// Option 121, when present (even empty): it overrides option 3 (RFC 3442).
    pub classless_routes: Option<Vec<Route>>,
    /// Site-specific options (224-254) as sent, in the order they came.
    pub site: Vec<(u8, Vec<u8>)>,
}

/// A decoded DHCP message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// 1 request, 2 reply.
    pub op: u8,
    pub xid: u32,
    pub flags: u16,
    pub yiaddr: Ipv4Addr,
    /// Only Ethernet (htype 1, hlen 6) is accepted.
    pub chaddr: [u8; 6],
    pub options: Options,
}

/// Why bytes are not a usable DHCP message. Callers only count these; the name is for tests
/// and debugging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Malformed {
    TooLarge,
    Short,
    NotEthernet,
    NoCookie,
    /// An option's length runs past its field.
    Truncated,
    /// A known option with an impossible length or value.
    BadOption(u8),
}

fn ip(b: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(b[0], b[1], b[2], b[3])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Decodes a message: header, cookie, options (with option 52 overload into `file` and
/// `sname`, and RFC 3396 concatenation of repeated codes).
pub fn decode(b: &[u8]) -> Result<Message, Malformed> {
    if b.len() > MAX_MESSAGE {
        return Err(Malformed::TooLarge);
    }
    if b.len() < FIXED + MAGIC.len() {
        return Err(Malformed::Short);
    }
    if b[1] != 1 || b[2] != 6 {
        return Err(Malformed::NotEthernet);
    }
    if b[FIXED..FIXED + 4] != MAGIC {
        return Err(Malformed::NoCookie);
    }
    let mut raw = RawOptions::default();
    raw.scan(&b[FIXED + 4..])?;
    // Option 52: 1 = `file` also holds options, 2 = `sname`, 3 = both, read in that order.
    let overload = match raw.get(52) {
        None => 0,
        Some([v @ 1..=3]) => *v,
        Some(_) => return Err(Malformed::BadOption(52)),
    };
    if overload & 1 != 0 {
        raw.scan(&b[108..236])?;
    }
    if overload & 2 != 0 {
        raw.scan(&b[44..108])?;
    }
    let mut chaddr = [0; 6];
    chaddr.copy_from_slice(&b[28..34]);
    Ok(Message {
        op: b[0],
        xid: be32(&b[4..]),
        flags: u16::from_be_bytes([b[10], b[11]]),
        yiaddr: ip(&b[16..]),
        chaddr,
        options: raw.interpret()?,
    })
}

/// Option codes with their data, repeated codes concatenated (RFC 3396).
#[derive(Default)]
struct RawOptions {
    items: Vec<(u8, Vec<u8>)>,
}

impl RawOptions {
    fn scan(&mut self, mut area: &[u8]) -> Result<(), Malformed> {
        while let Some((&code, rest)) = area.split_first() {
            match code {
                0 => area = rest,
                255 => return Ok(()),
                _ => {
                    let (&len, rest) = rest.split_first().ok_or(Malformed::Truncated)?;
                    let data = rest.get(..len as usize).ok_or(Malformed::Truncated)?;
                    match self.items.iter_mut().find(|(c, _)| *c == code) {
                        Some((_, v)) => v.extend_from_slice(data),
                        None => self.items.push((code, data.to_vec())),
                    }
                    area = &rest[len as usize..];
                }
            }
        }
        // Running off the end without the End option: accepted, as most clients do.
        Ok(())
    }

    fn get(&self, code: u8) -> Option<&[u8]> {
        self.items
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, v)| v.as_slice())
    }

    fn interpret(&self) -> Result<Options, Malformed> {
        let mut o = Options::default();
        for (code, v) in &self.items {
            let code = *code;
            let bad = Malformed::BadOption(code);
            let one_ip = || if v.len() == 4 { Ok(ip(v)) } else { Err(bad) };
            let ips = || {
                if v.is_empty() || v.len() % 4 != 0 {
                    return Err(bad);
                }
                Ok(v.chunks(4).map(ip).collect())
            };
            match code {
                1 => o.subnet_mask = Some(one_ip()?),
                3 => o.routers = ips()?,
                6 => o.dns = ips()?,
                15 => o.domain = domain(v),
                26 => {
                    let [a, b] = v[..] else { return Err(bad) };
                    o.mtu = Some(u16::from_be_bytes([a, b])).filter(|m| *m >= 68);
                }
                51 => o.lease_seconds = Some(u32::from(one_ip()?)),
                53 => {
                    let [k] = v[..] else { return Err(bad) };
                    o.kind = Some(Kind::from_u8(k).ok_or(bad)?);
                }
                54 => o.server_id = Some(one_ip()?),
                121 => o.classless_routes = Some(classless_routes(v).ok_or(bad)?),
                c if SITE_SPECIFIC.contains(&c) => o.site.push((c, v.to_vec())),
                _ => {}
            }
        }
        Ok(o)
    }
}

/// A domain name of printable ASCII, else nothing (it is only reported, never trusted).
fn domain(v: &[u8]) -> Option<String> {
    let v = v.strip_suffix(&[0]).unwrap_or(v);
    let ok = !v.is_empty() && v.iter().all(|c| c.is_ascii_graphic());
    ok.then(|| String::from_utf8_lossy(v).into_owned())
}

/// Option 121: width, the significant octets of the destination, the router (RFC 3442 §3).
/// Any malformed descriptor makes the whole option invalid.
pub fn classless_routes(mut v: &[u8]) -> Option<Vec<Route>> {
    let mut routes = Vec::new();
    if v.is_empty() {
        return None;
    }
    while let Some((&width, rest)) = v.split_first() {
        if width > 32 {
            return None;
        }
        let significant = (width as usize).div_ceil(8);
        let dest_bytes = rest.get(..significant)?;
        let gateway = rest.get(significant..significant + 4)?;
        let mut dest = [0u8; 4];
        dest[..significant].copy_from_slice(dest_bytes);
        // Bits past the width must be zero; mask them rather than trust them.
        let mask = if width == 0 {
            0
        } else {
            u32::MAX << (32 - width)
        };
        routes.push(Route {
            dest: Ipv4Addr::from(u32::from_be_bytes(dest) & mask),
            prefix: width,
            gateway: ip(gateway),
        });
        v = &rest[significant + 4..];
    }
    Some(routes)
}

/// Encodes option 121 (for tests and the fuzz corpus).
pub fn encode_classless_routes(routes: &[Route]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in routes {
        let significant = (r.prefix as usize).div_ceil(8);
        out.push(r.prefix);
        out.extend_from_slice(&r.dest.octets()[..significant]);
        out.extend_from_slice(&r.gateway.octets());
    }
    out
}

/// A client's DISCOVER or REQUEST, broadcast, asking for broadcast replies (the client has no
/// address to receive unicast on). `secs` is the time since the exchange began.
pub fn request(
    kind: Kind,
    xid: u32,
    mac: [u8; 6],
    secs: u16,
    requested: Option<(Ipv4Addr, Ipv4Addr)>,
    site: &[u8],
) -> Vec<u8> {
    let mut b = vec![0u8; FIXED];
    b[0] = 1; // BOOTREQUEST
    b[1] = 1; // Ethernet
    b[2] = 6;
    b[4..8].copy_from_slice(&xid.to_be_bytes());
    b[8..10].copy_from_slice(&secs.to_be_bytes());
    b[10] = 0x80; // broadcast flag
    b[28..34].copy_from_slice(&mac);
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&[53, 1, kind as u8]);
    if let Some((address, server)) = requested {
        b.extend_from_slice(&[50, 4]);
        b.extend_from_slice(&address.octets());
        b.extend_from_slice(&[54, 4]);
        b.extend_from_slice(&server.octets());
    }
    b.extend_from_slice(&[57, 2]);
    b.extend_from_slice(&MAX_ANNOUNCED.to_be_bytes());
    let site: Vec<u8> = site
        .iter()
        .copied()
        .filter(|c| SITE_SPECIFIC.contains(c))
        .take(32)
        .collect();
    b.extend_from_slice(&[55, (WANTED.len() + site.len()) as u8]);
    b.extend_from_slice(&WANTED);
    b.extend_from_slice(&site);
    b.push(255);
    if b.len() < MIN_REQUEST {
        b.resize(MIN_REQUEST, 0);
    }
    b
}

/// What a packet socket delivered, seen as IPv4/UDP.
#[derive(Debug, PartialEq)]
pub enum Frame<'a> {
    /// Not UDP to the DHCP client port: someone else's traffic, not counted.
    NotOurs,
    /// To the client port, but its IP or UDP header is broken.
    Malformed,
    /// To the client port, and larger than `MAX_MESSAGE`.
    TooLarge,
    Dhcp {
        from: Ipv4Addr,
        payload: &'a [u8],
    },
}

/// Reads an IPv4 packet (no link header) as a packet socket of type `SOCK_DGRAM` gives it.
/// `len` is the packet's real length, which may exceed `b.len()` when it was truncated.
/// The UDP checksum is not checked: with checksum offload, packets read from a packet socket
/// often carry an unfinished one (the Ethernet FCS has checked the frame).
pub fn frame(b: &[u8], len: usize) -> Frame<'_> {
    if b.len() < 20 || b[0] >> 4 != 4 || b[9] != 17 {
        return Frame::NotOurs;
    }
    let ihl = (b[0] & 0x0f) as usize * 4;
    let Some(udp) = b.get(ihl..ihl + 8).filter(|_| ihl >= 20) else {
        return Frame::NotOurs;
    };
    if u16::from_be_bytes([udp[2], udp[3]]) != CLIENT_PORT {
        return Frame::NotOurs;
    }
    let total = u16::from_be_bytes([b[2], b[3]]) as usize;
    let udp_len = u16::from_be_bytes([udp[4], udp[5]]) as usize;
    if total.max(len) > MAX_MESSAGE + ihl + 8 {
        return Frame::TooLarge;
    }
    // Fragments (MF set or an offset) are refused: a DHCP reply fits one packet.
    let fragment = u16::from_be_bytes([b[6], b[7]]) & 0x3fff != 0;
    if fragment || checksum(&b[..ihl]) != 0 || total > b.len() || total < ihl + 8 {
        return Frame::Malformed;
    }
    if udp_len < 8 || ihl + udp_len > total {
        return Frame::Malformed;
    }
    Frame::Dhcp {
        from: ip(&b[12..]),
        payload: &b[ihl + 8..ihl + udp_len],
    }
}

/// The Internet checksum; 0 over a header that carries a correct one.
fn checksum(b: &[u8]) -> u16 {
    let mut sum: u32 = b
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Wraps a DHCP payload in IPv4/UDP headers (tests and the fuzz corpus).
pub fn ipv4_udp(from: Ipv4Addr, to: Ipv4Addr, dport: u16, payload: &[u8]) -> Vec<u8> {
    let total = 28 + payload.len();
    let mut b = vec![0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0];
    b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    b.extend_from_slice(&from.octets());
    b.extend_from_slice(&to.octets());
    let sum = checksum(&b);
    b[10..12].copy_from_slice(&sum.to_be_bytes());
    b.extend_from_slice(&SERVER_PORT.to_be_bytes());
    b.extend_from_slice(&dport.to_be_bytes());
    b.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(payload);
    b
}

/// Every parser here on one input, with the invariants that must hold: the fuzz target
/// (`fuzz/fuzz_targets/dhcp_packet.rs`) and the corpus replay test call it.
#[doc(hidden)]
pub fn fuzz(data: &[u8]) {
    let _ = decode(data);
    if let Frame::Dhcp { payload, .. } = frame(data, data.len()) {
        assert!(payload.len() <= MAX_MESSAGE);
        let _ = decode(payload);
    }
    if let Some(routes) = classless_routes(data) {
        // Encoding what was decoded gives it back (destinations come out masked).
        assert_eq!(
            classless_routes(&encode_classless_routes(&routes)),
            Some(routes)
        );
    }
}

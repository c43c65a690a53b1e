//! DHCPv6 messages (RFC 8415) as ember's stateful client speaks them: Solicit and Request
//! built with a DUID-LL, one IA_NA, Elapsed Time, Rapid Commit and an option request for DNS;
//! Advertise and Reply decoded from untrusted bytes, every read bounds-checked, a message over
//! `MAX_MESSAGE` refused, options nested at most one level deep (IA_NA, then IAADDR and its
//! status). Not here: sockets, timing, prefix delegation (IA_PD), temporary addresses (IA_TA),
//! Renew/Rebind/Release (an ephemeral address lives for seconds), authentication.

use std::net::Ipv6Addr;

pub const CLIENT_PORT: u16 = 546;
pub const SERVER_PORT: u16 = 547;
/// All_DHCP_Relay_Agents_and_Servers (RFC 8415 §7.1), reached on the link itself.
pub const ALL_SERVERS: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 1, 2);
/// Largest message accepted: a reply carries a few addresses and DNS servers, never more.
pub const MAX_MESSAGE: usize = 4096;

const OPT_CLIENTID: u16 = 1;
const OPT_SERVERID: u16 = 2;
const OPT_IA_NA: u16 = 3;
const OPT_IAADDR: u16 = 5;
const OPT_ORO: u16 = 6;
const OPT_PREFERENCE: u16 = 7;
const OPT_ELAPSED_TIME: u16 = 8;
const OPT_STATUS_CODE: u16 = 13;
const OPT_RAPID_COMMIT: u16 = 14;
const OPT_DNS_SERVERS: u16 = 23;
const OPT_DOMAIN_LIST: u16 = 24;
/// DUID-LL (RFC 8415 §11.4) over Ethernet (hardware type 1): stable per NIC, needs no clock
/// and no state on disk, which an initramfs does not have.
const DUID_LL: u16 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Solicit = 1,
    Advertise = 2,
    Request = 3,
    Reply = 7,
}

impl Kind {
    fn from_u8(v: u8) -> Option<Kind> {
        Some(match v {
            1 => Kind::Solicit,
            2 => Kind::Advertise,
            3 => Kind::Request,
            7 => Kind::Reply,
            _ => return None,
        })
    }
}

/// One address of an IA_NA with its lifetimes in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IaAddr {
    pub addr: Ipv6Addr,
    pub preferred: u32,
    pub valid: u32,
}

/// A decoded Advertise or Reply: what the client checks and uses; unknown options skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Message {
    pub kind: Option<Kind>,
    pub xid: u32,
    pub client_id: Option<Vec<u8>>,
    pub server_id: Option<Vec<u8>>,
    /// The message's own status (0 when absent: success).
    pub status: u16,
    pub preference: u8,
    pub rapid_commit: bool,
    /// The IA_NA with our IAID: its status and addresses (valid lifetime above zero).
    pub ia_status: u16,
    pub ia_found: bool,
    pub addresses: Vec<IaAddr>,
    pub dns: Vec<Ipv6Addr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Malformed {
    Short,
    TooLarge,
    /// An option's length runs past its container.
    Truncated,
    UnknownKind,
}

/// The client's DUID for a NIC.
pub fn duid(mac: [u8; 6]) -> Vec<u8> {
    let mut d = DUID_LL.to_be_bytes().to_vec();
    d.extend_from_slice(&1u16.to_be_bytes());
    d.extend_from_slice(&mac);
    d
}

/// The IAID for a NIC: the MAC's last four bytes, stable across boots as RFC 8415 §12 wants.
pub fn iaid(mac: [u8; 6]) -> u32 {
    u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]])
}

fn option(out: &mut Vec<u8>, code: u16, data: &[u8]) {
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(&(data.len() as u16).to_be_bytes());
    out.extend_from_slice(data);
}

/// What the client sends. `server`: the chosen server's DUID and the address it offered (a
/// Request); none for a Solicit. `hundredths`: time since the exchange began.
pub fn request(
    kind: Kind,
    xid: u32,
    mac: [u8; 6],
    hundredths: u16,
    server: Option<(&[u8], Ipv6Addr)>,
) -> Vec<u8> {
    let mut b = vec![kind as u8];
    b.extend_from_slice(&xid.to_be_bytes()[1..]);
    option(&mut b, OPT_CLIENTID, &duid(mac));
    let mut ia = iaid(mac).to_be_bytes().to_vec();
    // T1 and T2 zero: the server's choice (RFC 8415 §21.4); never used, as nothing renews.
    ia.extend_from_slice(&[0; 8]);
    match server {
        Some((id, addr)) => {
            option(&mut b, OPT_SERVERID, id);
            let mut a = addr.octets().to_vec();
            a.extend_from_slice(&[0; 8]);
            option(&mut ia, OPT_IAADDR, &a);
        }
        // Rapid Commit: a server that allows it answers a Solicit with the Reply at once.
        None => option(&mut b, OPT_RAPID_COMMIT, &[]),
    }
    option(&mut b, OPT_IA_NA, &ia);
    option(&mut b, OPT_ELAPSED_TIME, &hundredths.to_be_bytes());
    let mut oro = OPT_DNS_SERVERS.to_be_bytes().to_vec();
    oro.extend_from_slice(&OPT_DOMAIN_LIST.to_be_bytes());
    option(&mut b, OPT_ORO, &oro);
    b
}

/// The options in `b`: (code, data), or `Truncated` when one runs past the end.
fn options(mut b: &[u8]) -> impl Iterator<Item = Result<(u16, &[u8]), Malformed>> {
    std::iter::from_fn(move || {
        if b.is_empty() {
            return None;
        }
        let (Some(head), rest) = (b.get(..4), b.get(4..).unwrap_or(&[])) else {
            b = &[];
            return Some(Err(Malformed::Truncated));
        };
        let code = u16::from_be_bytes([head[0], head[1]]);
        let len = u16::from_be_bytes([head[2], head[3]]) as usize;
        let Some(data) = rest.get(..len) else {
            b = &[];
            return Some(Err(Malformed::Truncated));
        };
        b = &rest[len..];
        Some(Ok((code, data)))
    })
}

fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A Status Code option's code (its message text is not kept: it is the server's prose).
fn status(data: &[u8]) -> Result<u16, Malformed> {
    let b = data.get(..2).ok_or(Malformed::Truncated)?;
    Ok(u16::from_be_bytes([b[0], b[1]]))
}

/// An address a server may grant a host, as DHCPv4's `usable_address`: not unspecified,
/// loopback, multicast, link-local (the NIC has its own), nor an IPv4-mapped or -compatible
/// one (`::/96`, `::ffff:0:0/96`): a hostile server would otherwise put `::1` or a multicast
/// group on the NIC.
fn host_address(a: Ipv6Addr) -> bool {
    let s = a.segments();
    let v4_embedded = s[..5] == [0; 5] && (s[5] == 0 || s[5] == 0xffff);
    let link_local = s[0] & 0xffc0 == 0xfe80;
    !a.is_multicast() && !link_local && !v4_embedded
}

/// Reads an IA_NA into `m` when it is ours (`iaid`).
fn ia_na(m: &mut Message, data: &[u8], iaid: u32) -> Result<(), Malformed> {
    let id = be_u32(data, 0).ok_or(Malformed::Truncated)?;
    let (t1, t2) = (be_u32(data, 4), be_u32(data, 8));
    if id != iaid || t1.is_none() || t2.is_none() {
        return Ok(());
    }
    m.ia_found = true;
    for o in options(&data[12..]) {
        let (code, d) = o?;
        match code {
            OPT_STATUS_CODE => m.ia_status = status(d)?,
            OPT_IAADDR => {
                let octets: [u8; 16] = d.get(..16).ok_or(Malformed::Truncated)?.try_into().unwrap();
                let preferred = be_u32(d, 16).ok_or(Malformed::Truncated)?;
                let valid = be_u32(d, 20).ok_or(Malformed::Truncated)?;
                // An address with its own failing status is not granted (RFC 8415 §21.6).
                let ok = options(&d[24..]).all(|o| {
                    o.is_ok_and(|(c, s)| c != OPT_STATUS_CODE || status(s).is_ok_and(|s| s == 0))
                });
                // RFC 8415 §18.2.10.1: a preferred lifetime above the valid one is discarded.
                let addr = Ipv6Addr::from(octets);
                if ok && valid > 0 && preferred <= valid && host_address(addr) {
                    m.addresses.push(IaAddr {
                        addr,
                        preferred,
                        valid,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Decodes a server's message for the IA `iaid`.
pub fn decode(b: &[u8], iaid: u32) -> Result<Message, Malformed> {
    if b.len() > MAX_MESSAGE {
        return Err(Malformed::TooLarge);
    }
    if b.len() < 4 {
        return Err(Malformed::Short);
    }
    let mut m = Message {
        kind: Some(Kind::from_u8(b[0]).ok_or(Malformed::UnknownKind)?),
        xid: u32::from_be_bytes([0, b[1], b[2], b[3]]),
        ..Message::default()
    };
    for o in options(&b[4..]) {
        let (code, data) = o?;
        match code {
            OPT_CLIENTID => m.client_id = Some(data.to_vec()),
            OPT_SERVERID => m.server_id = Some(data.to_vec()),
            OPT_STATUS_CODE => m.status = status(data)?,
            OPT_PREFERENCE => m.preference = *data.first().ok_or(Malformed::Truncated)?,
            OPT_RAPID_COMMIT => m.rapid_commit = true,
            OPT_IA_NA => ia_na(&mut m, data, iaid)?,
            OPT_DNS_SERVERS => m.dns.extend(
                data.chunks_exact(16)
                    .map(|c| Ipv6Addr::from(<[u8; 16]>::try_from(c).unwrap()))
                    .filter(|a| !a.is_unspecified() && !a.is_multicast() && !a.is_loopback()),
            ),
            _ => {}
        }
    }
    Ok(m)
}

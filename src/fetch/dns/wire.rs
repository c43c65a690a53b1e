//! DNS messages as a stub resolver needs them (RFC 1035 §4): a recursive query for one name
//! and type, and the answer to it, matched by id and question, its CNAME chain followed from
//! the name asked. Pure bytes, no I/O; every read is bounds-checked, so a hostile packet is
//! "not an answer", never a panic. Not here: EDNS, DNSSEC, any type but A, AAAA and CNAME.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub const A: u16 = 1;
pub const AAAA: u16 = 28;
const CNAME: u16 = 5;
const IN: u16 = 1;
/// A chain longer than this is a loop or a trap, not a real alias.
const MAX_CHAIN: usize = 8;

/// What a server said about the name asked.
#[derive(Debug, PartialEq)]
pub enum Answer {
    Addresses(Vec<IpAddr>),
    /// The name exists without an address of this type (or the chain ends without one).
    NoData,
    /// NXDOMAIN: the name does not exist.
    NoName,
    /// The answer did not fit a datagram: ask again over TCP.
    Truncated,
    /// Any other response code (SERVFAIL 2, REFUSED 5, …).
    Failed(u8),
}

/// A recursive query for `name` (dotted, no trailing dot) of `qtype`; `None` when the name
/// cannot be one (an empty label, a label over 63 bytes, over 253 bytes in all).
pub fn query(id: u16, name: &str, qtype: u16) -> Option<Vec<u8>> {
    if name.is_empty() || name.len() > 253 {
        return None;
    }
    let mut q = Vec::with_capacity(name.len() + 18);
    // Id, flags (RD), one question, no other records.
    q.extend_from_slice(&id.to_be_bytes());
    q.extend_from_slice(&[1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return None;
        }
        q.push(label.len() as u8);
        q.extend_from_slice(label.as_bytes());
    }
    q.push(0);
    q.extend_from_slice(&qtype.to_be_bytes());
    q.extend_from_slice(&IN.to_be_bytes());
    Some(q)
}

fn u16_at(m: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(m.get(at..at + 2)?.try_into().ok()?))
}

/// The name at `at`, lowercased and dotted, and where the bytes after it begin. Compression
/// pointers must point backwards, so no packet can make a loop; 255 bytes at most.
pub fn name(m: &[u8], mut at: usize) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut after = None;
    loop {
        let len = *m.get(at)? as usize;
        match len {
            0 => {
                return Some((out, after.unwrap_or(at + 1)));
            }
            0xc0.. => {
                let to = (u16_at(m, at)? & 0x3fff) as usize;
                if to >= at {
                    return None;
                }
                after.get_or_insert(at + 2);
                at = to;
            }
            64.. => return None,
            _ => {
                let label = m.get(at + 1..at + 1 + len)?;
                // A dot inside a label would make two names compare equal.
                if label.contains(&b'.') || out.len() + len + 1 > 255 {
                    return None;
                }
                if !out.is_empty() {
                    out.push('.');
                }
                out.extend(label.iter().map(|b| b.to_ascii_lowercase() as char));
                at += 1 + len;
            }
        }
    }
}

/// One resource record: owner, type, class and its data's place.
struct Record {
    owner: String,
    rtype: u16,
    class: u16,
    data: std::ops::Range<usize>,
}

/// `msg` read as the answer to query `id` for `qname` (lowercase) of `qtype`; `None` when it
/// is not one (another id or question, not a response, malformed), to be ignored.
pub fn answer(msg: &[u8], id: u16, qname: &str, qtype: u16) -> Option<Answer> {
    let flags = u16_at(msg, 2)?;
    if u16_at(msg, 0)? != id || flags & 0x8000 == 0 || u16_at(msg, 4)? != 1 {
        return None;
    }
    let (asked, at) = name(msg, 12)?;
    if asked != qname || u16_at(msg, at)? != qtype || u16_at(msg, at + 2)? != IN {
        return None;
    }
    if flags & 0x0200 != 0 {
        return Some(Answer::Truncated);
    }
    match (flags & 0xf) as u8 {
        0 => {}
        3 => return Some(Answer::NoName),
        code => return Some(Answer::Failed(code)),
    }
    let mut at = at + 4;
    let mut records = Vec::new();
    for _ in 0..u16_at(msg, 6)? {
        let (owner, next) = name(msg, at)?;
        let len = u16_at(msg, next + 8)? as usize;
        let data = next + 10..next + 10 + len;
        msg.get(data.clone())?;
        at = data.end;
        records.push(Record {
            owner,
            rtype: u16_at(msg, next)?,
            class: u16_at(msg, next + 2)?,
            data,
        });
    }
    // Only records on the chain from the name asked count: others are not this answer's.
    let mut current = qname.to_string();
    for _ in 0..MAX_CHAIN {
        let on = |r: &&Record| r.owner == current && r.class == IN;
        let found: Vec<IpAddr> = records
            .iter()
            .filter(on)
            .filter(|r| r.rtype == qtype)
            .filter_map(|r| address(&msg[r.data.clone()]))
            .filter(|ip| ip.is_ipv4() == (qtype == A))
            .collect();
        if !found.is_empty() {
            return Some(Answer::Addresses(found));
        }
        match records.iter().filter(on).find(|r| r.rtype == CNAME) {
            Some(r) => current = name(msg, r.data.start)?.0,
            None => return Some(Answer::NoData),
        }
    }
    Some(Answer::NoData)
}

fn address(data: &[u8]) -> Option<IpAddr> {
    match data.len() {
        4 => Some(IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(data).ok()?))),
        16 => Some(IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(data).ok()?))),
        _ => None,
    }
}

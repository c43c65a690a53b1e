//! Stateful DHCPv6 (RFC 8415 §18) for a link whose router advertisement says Managed (EC2's
//! IPv6-only subnets): Solicit until an Advertise (collecting them for the first
//! retransmission time and taking the most preferred, or at once one of preference 255),
//! Request until the chosen server's Reply; a Reply to the Solicit itself when the server
//! allows Rapid Commit. Retransmission and deadlines are DHCPv4's (`client::Timing`, the NIC's
//! share). Replies for another exchange (transaction id) or client (DUID), from another server,
//! granting nothing, or malformed are ignored and counted as for DHCPv4.
//! Not here: Renew/Rebind/Release and Confirm (the address lives for seconds and carries a
//! valid lifetime the kernel enforces), Information-request, IA_PD/IA_TA, IPv6 DNS servers for
//! ember's resolver (which asks IPv4 servers only), the Reconfigure message.

pub mod packet;
mod transport;

use super::client::{random_u32, Failure, Ignored, Incoming, Timing, Transport};
use packet::{IaAddr, Kind, Message};
use serde::Serialize;
use std::net::Ipv6Addr;
use std::time::{Duration, Instant};
pub use transport::RawTransport6;

/// Status codes of RFC 8415 §21.13 that mean "start over": anything but Success.
const SUCCESS: u16 = 0;

/// What a DHCPv6 server granted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lease6 {
    pub address: Ipv6Addr,
    pub preferred: u32,
    pub valid: u32,
    /// The server's DUID, in hex: which server answered, for status.
    pub server: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dns: Vec<Ipv6Addr>,
}

fn lease(m: &Message, first: IaAddr) -> Lease6 {
    let server = m.server_id.as_deref().unwrap_or_default();
    Lease6 {
        address: first.addr,
        preferred: first.preferred,
        valid: first.valid,
        server: server.iter().map(|b| format!("{b:02x}")).collect(),
        dns: m.dns.clone(),
    }
}

/// What one message means to the exchange.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// An Advertise that offers an address: its server, address and preference.
    Advertise {
        server: Vec<u8>,
        addr: Ipv6Addr,
        preference: u8,
    },
    /// A Reply that grants an address.
    Granted(Lease6),
    /// A Reply of the server asked, refusing (a status other than Success): start over.
    Refused,
    Ignore,
}

/// Judges one datagram for the exchange `xid` of client `mac`; `server`: the DUID a Request
/// went to (none while soliciting, where a rapid-commit Reply is what counts).
fn judge(b: &[u8], xid: u32, mac: [u8; 6], server: Option<&[u8]>, ig: &mut Ignored) -> Verdict {
    let count = |n: &mut u32| {
        *n = n.saturating_add(1);
        Verdict::Ignore
    };
    let m = match packet::decode(b, packet::iaid(mac)) {
        Ok(m) => m,
        Err(packet::Malformed::TooLarge) => return count(&mut ig.too_large),
        Err(_) => return count(&mut ig.malformed),
    };
    if m.xid != xid {
        return count(&mut ig.wrong_xid);
    }
    if m.client_id.as_deref() != Some(&packet::duid(mac)[..]) {
        return count(&mut ig.wrong_chaddr);
    }
    let Some(id) = m.server_id.clone() else {
        return count(&mut ig.malformed);
    };
    let first = m.addresses.first().copied();
    let granted = m.status == SUCCESS && m.ia_found && m.ia_status == SUCCESS;
    match (m.kind, server) {
        (Some(Kind::Advertise), None) => match first {
            Some(a) if granted => Verdict::Advertise {
                server: id,
                addr: a.addr,
                preference: m.preference,
            },
            // NoAddrsAvail and the like: RFC 8415 §18.2.9, the client ignores it.
            _ => count(&mut ig.unexpected),
        },
        (Some(Kind::Reply), None) if m.rapid_commit => match first {
            Some(a) if granted => Verdict::Granted(lease(&m, a)),
            _ => count(&mut ig.unexpected),
        },
        (Some(Kind::Reply), Some(asked)) => {
            if id != asked {
                return count(&mut ig.wrong_server);
            }
            match first {
                Some(a) if granted => Verdict::Granted(lease(&m, a)),
                _ => Verdict::Refused,
            }
        }
        _ => count(&mut ig.unexpected),
    }
}

/// `interval` +-10 %, RFC 8415 §15's RAND, from a random `r`.
fn jitter(interval: Duration, r: u32) -> Duration {
    let ms = interval.as_millis() as u64;
    Duration::from_millis(ms * 9 / 10 + (r as u64 % (ms / 5 + 1)))
}

struct Exchange<'a, T: Transport> {
    t: &'a mut T,
    mac: [u8; 6],
    deadline: Instant,
    timing: &'a Timing,
    started: Instant,
    ignored: &'a mut Ignored,
    offered: bool,
}

/// The server chosen from the Advertises: DUID and address.
type Chosen = (Vec<u8>, Ipv6Addr);

impl<T: Transport> Exchange<'_, T> {
    /// Elapsed Time in hundredths of a second, saturating (RFC 8415 §21.9).
    fn hundredths(&self) -> u16 {
        (self.started.elapsed().as_millis() / 10).min(u16::MAX as u128) as u16
    }

    fn deadline(&self) -> Failure {
        Failure::Deadline {
            offered: self.offered,
        }
    }

    /// Verdicts until `until` or one that `stop` accepts.
    fn wait(
        &mut self,
        until: Instant,
        xid: u32,
        server: Option<&[u8]>,
        mut stop: impl FnMut(Verdict) -> Option<Verdict>,
    ) -> Result<Option<Verdict>, Failure> {
        while Instant::now() < until {
            let Some(incoming) = self.t.recv(until).map_err(|e| Failure::Io("recv", e))? else {
                break;
            };
            let verdict = match incoming {
                Incoming::Dhcp(b) => judge(&b, xid, self.mac, server, self.ignored),
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
                if let Some(v) = stop(verdict) {
                    return Ok(Some(v));
                }
            }
        }
        Ok(None)
    }

    /// Solicit until a server is chosen, or a rapid-commit Reply grants the address at once.
    fn solicit(&mut self, xid: u32) -> Result<Result<Chosen, Lease6>, Failure> {
        let mut interval = self.timing.first;
        let mut first_round = true;
        loop {
            if Instant::now() >= self.deadline {
                return Err(self.deadline());
            }
            let m = packet::request(Kind::Solicit, xid, self.mac, self.hundredths(), None);
            self.t.send(&m).map_err(|e| Failure::Io("send", e))?;
            let until = (Instant::now() + jitter(interval, random_u32())).min(self.deadline);
            // The best Advertise so far: RFC 8415 §18.2.1 collects them for the first
            // retransmission time unless one has the highest preference.
            let mut best: Option<(u8, Chosen)> = None;
            let collect = first_round;
            let end = self.wait(until, xid, None, |v| match v {
                Verdict::Advertise {
                    server,
                    addr,
                    preference,
                } => {
                    if best.as_ref().is_none_or(|(p, _)| preference > *p) {
                        best = Some((preference, (server, addr)));
                    }
                    (preference == 255 || !collect).then_some(Verdict::Ignore)
                }
                granted @ Verdict::Granted(_) => Some(granted),
                _ => None,
            })?;
            if let Some(Verdict::Granted(lease)) = end {
                return Ok(Err(lease));
            }
            if let Some((_, chosen)) = best {
                self.offered = true;
                return Ok(Ok(chosen));
            }
            first_round = false;
            interval = (interval * 2).min(self.timing.max);
        }
    }

    /// Request from the chosen server: the lease, or `None` after a refusal or silence.
    fn request(&mut self, xid: u32, (server, addr): &Chosen) -> Result<Option<Lease6>, Failure> {
        let mut interval = self.timing.first;
        for _ in 0..self.timing.request_tries {
            if Instant::now() >= self.deadline {
                return Err(self.deadline());
            }
            let m = packet::request(
                Kind::Request,
                xid,
                self.mac,
                self.hundredths(),
                Some((server, *addr)),
            );
            self.t.send(&m).map_err(|e| Failure::Io("send", e))?;
            let until = (Instant::now() + jitter(interval, random_u32())).min(self.deadline);
            match self.wait(until, xid, Some(server), Some)? {
                Some(Verdict::Granted(lease)) => return Ok(Some(lease)),
                Some(Verdict::Refused) => {
                    self.ignored.naks = self.ignored.naks.saturating_add(1);
                    return Ok(None);
                }
                _ => interval = (interval * 2).min(self.timing.max),
            }
        }
        Ok(None)
    }
}

/// Runs exchanges until one grants an address or `deadline` passes.
pub fn obtain(
    t: &mut impl Transport,
    mac: [u8; 6],
    deadline: Instant,
    timing: &Timing,
    ignored: &mut Ignored,
) -> Result<Lease6, Failure> {
    let mut x = Exchange {
        t,
        mac,
        deadline,
        timing,
        started: Instant::now(),
        ignored,
        offered: false,
    };
    loop {
        // A transaction id is 24 bits.
        let xid = random_u32() & 0x00ff_ffff;
        let chosen = match x.solicit(xid)? {
            Err(granted) => return Ok(granted),
            Ok(chosen) => chosen,
        };
        let xid = random_u32() & 0x00ff_ffff;
        if let Some(lease) = x.request(xid, &chosen)? {
            return Ok(lease);
        }
    }
}

/// The fuzz entry (src/fuzz.rs): a server's message decoded and judged as the exchange does.
#[doc(hidden)]
pub fn fuzz(data: &[u8]) {
    let mac = [0x52, 0x54, 0, 0x12, 0x34, 0x56];
    let mut ig = Ignored::default();
    let xid = data
        .get(1..4)
        .map_or(0, |b| u32::from_be_bytes([0, b[0], b[1], b[2]]));
    let _ = judge(data, xid, mac, None, &mut ig);
    let _ = judge(data, xid, mac, Some(b"\x00\x01"), &mut ig);
}

#[cfg(test)]
mod tests;

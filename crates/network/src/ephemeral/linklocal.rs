//! A link-local IPv4 address (RFC 3927) for a link where DHCP gave nothing, so a metadata
//! service at 169.254.169.254 on the link is still reachable. Addresses come from
//! 169.254.1.0–169.254.254.255; the first candidate is derived from the MAC address so a
//! machine picks the same one each boot (RFC 3927 §2.1), later ones at random.
//!
//! Simplification: RFC 3927 §2.2 sends ARP probes before claiming an address and announces it
//! after. Sending ARP needs a link-layer socket address (`sockaddr_ll`), for which rustix has
//! no safe type, and ember's code outside `src/sys/` has no unsafe. So ember only listens:
//! for `LISTEN` it watches ARP on the links and takes another address when a host claims the
//! candidate or probes for it (the conflict rules of §2.2.1). A silent host that holds the
//! address is not detected. With a `sockaddr_ll` in `src/sys/`, real probes fit here.

use super::client::{random_u32, Lease};
use rustix::io::Errno;
use rustix::net::{self, sockopt, AddressFamily, RecvFlags, SocketFlags, SocketType};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

/// How long a candidate is watched for conflicts (RFC 3927's PROBE_WAIT).
pub const LISTEN: Duration = Duration::from_secs(1);
/// Candidates tried before giving up (RFC 3927's MAX_CONFLICTS).
const MAX_CONFLICTS: u32 = 10;
/// The kernel drops the address after this long should ember die before its teardown.
pub const LIFETIME_SECONDS: u32 = 3600;

/// A link-local address from 32 random bits.
pub fn candidate(r: u32) -> Ipv4Addr {
    Ipv4Addr::new(169, 254, 1 + (r % 254) as u8, (r >> 8) as u8)
}

/// FNV-1a over the MAC: the same first candidate on every boot of the machine.
fn seed(mac: [u8; 6]) -> u32 {
    mac.iter().fold(0x811c_9dc5u32, |h, b| {
        (h ^ *b as u32).wrapping_mul(0x0100_0193)
    })
}

/// Whether an ARP packet (as a `SOCK_DGRAM` packet socket gives it, without the Ethernet
/// header) shows another host using or probing for `candidate`.
pub fn conflicts(arp: &[u8], candidate: Ipv4Addr, mac: [u8; 6]) -> bool {
    // Ethernet/IPv4 ARP: htype 1, ptype 0x0800, hlen 6, plen 4.
    if arp.len() < 28 || arp[..6] != [0, 1, 8, 0, 6, 4] {
        return false;
    }
    let sender_mac = &arp[8..14];
    let sender_ip = Ipv4Addr::new(arp[14], arp[15], arp[16], arp[17]);
    let target_ip = Ipv4Addr::new(arp[24], arp[25], arp[26], arp[27]);
    if sender_mac == mac {
        return false;
    }
    sender_ip == candidate || (sender_ip.is_unspecified() && target_ip == candidate)
}

/// Picks an address no host on the links was seen to use within `LISTEN`; `None` after
/// `MAX_CONFLICTS` conflicts or when `until` passes during a conflict.
pub fn choose(mac: [u8; 6], until: Instant) -> Result<Option<Ipv4Addr>, Errno> {
    let fd = net::socket_with(
        AddressFamily::PACKET,
        SocketType::DGRAM,
        SocketFlags::CLOEXEC,
        Some(net::eth::ARP),
    )?;
    let mut buf = [0u8; 64];
    let mut next = seed(mac);
    for _ in 0..MAX_CONFLICTS {
        let address = candidate(next);
        next = random_u32();
        let end = (Instant::now() + LISTEN).min(until);
        let mut clash = false;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left < Duration::from_millis(1) {
                break;
            }
            sockopt::set_socket_timeout(&fd, sockopt::Timeout::Recv, Some(left))?;
            match net::recv(&fd, &mut buf[..], RecvFlags::empty()) {
                Ok((n, _)) if conflicts(&buf[..n], address, mac) => {
                    clash = true;
                    break;
                }
                Ok(_) | Err(Errno::AGAIN | Errno::INTR) => {}
                Err(e) => return Err(e),
            }
        }
        if !clash {
            return Ok(Some(address));
        }
        if Instant::now() >= until {
            break;
        }
    }
    Ok(None)
}

/// The lease-shaped record of a link-local address: /16, no server, no routes (the subnet
/// route covers 169.254.169.254).
pub fn lease(address: Ipv4Addr) -> Lease {
    Lease {
        address,
        prefix: 16,
        routes: Vec::new(),
        routers: Vec::new(),
        dns: Vec::new(),
        domain: None,
        mtu: None,
        server: None,
        lease_seconds: None,
        site_options: Vec::new(),
        slaac: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_stay_in_the_usable_range() {
        for r in [0, 1, 253, 254, u32::MAX, 0x1234_5678, seed([0; 6])] {
            let [a, b, c, _] = candidate(r).octets();
            assert_eq!((a, b), (169, 254));
            assert!((1..=254).contains(&c), "{r}");
        }
        assert_eq!(seed([2, 0, 0, 0, 0, 1]), seed([2, 0, 0, 0, 0, 1]));
        assert_ne!(seed([2, 0, 0, 0, 0, 1]), seed([2, 0, 0, 0, 0, 2]));
    }

    fn arp(op: u8, sender_mac: [u8; 6], sender: [u8; 4], target: [u8; 4]) -> Vec<u8> {
        let mut b = vec![0, 1, 8, 0, 6, 4, 0, op];
        b.extend_from_slice(&sender_mac);
        b.extend_from_slice(&sender);
        b.extend_from_slice(&[0; 6]);
        b.extend_from_slice(&target);
        b
    }

    #[test]
    fn conflicts_follow_rfc_3927_section_2_2_1() {
        let me = [2, 0, 0, 0, 0, 1];
        let other = [2, 0, 0, 0, 0, 2];
        let c = Ipv4Addr::new(169, 254, 7, 7);
        // Another host claims it (request or reply), or probes for it.
        assert!(conflicts(
            &arp(1, other, [169, 254, 7, 7], [169, 254, 0, 1]),
            c,
            me
        ));
        assert!(conflicts(
            &arp(2, other, [169, 254, 7, 7], [169, 254, 0, 1]),
            c,
            me
        ));
        assert!(conflicts(&arp(1, other, [0; 4], [169, 254, 7, 7]), c, me));
        // Our own packets, other addresses, a host merely asking for it, and garbage do not.
        assert!(!conflicts(
            &arp(1, me, [169, 254, 7, 7], [169, 254, 0, 1]),
            c,
            me
        ));
        assert!(!conflicts(
            &arp(1, other, [169, 254, 7, 8], [169, 254, 0, 1]),
            c,
            me
        ));
        assert!(!conflicts(
            &arp(1, other, [169, 254, 9, 9], [169, 254, 7, 7]),
            c,
            me
        ));
        assert!(!conflicts(
            &arp(1, other, [169, 254, 7, 7], [0; 4])[..27],
            c,
            me
        ));
        assert!(!conflicts(&[], c, me));
    }
}

//! The real DHCPv6 transport: a UDP socket on port 546 sending to All_DHCP_Relay_Agents_and_
//! Servers on one link (the multicast interface and the destination's scope id both name it),
//! from the link-local address the kernel picks. Replies are unicast back to that address; the
//! ones not from port 547 are dropped here, the rest judged by transaction id and DUID.
//! Not here: relays' replies from a global address are accepted like any other (the checks
//! of the exchange stand in for a link filter, as for DHCPv4).

use super::packet::{ALL_SERVERS, CLIENT_PORT, MAX_MESSAGE, SERVER_PORT};
use crate::ephemeral::client::{Incoming, Transport};
use rustix::fd::OwnedFd;
use rustix::io::Errno;
use rustix::net::{self, sockopt, AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};
use std::net::{Ipv6Addr, SocketAddrV6};
use std::time::{Duration, Instant};

pub struct RawTransport6 {
    udp: OwnedFd,
    index: u32,
    buf: Vec<u8>,
}

impl RawTransport6 {
    /// A socket for link `index`.
    pub fn open(index: u32) -> Result<RawTransport6, (&'static str, Errno)> {
        let udp = net::socket_with(
            AddressFamily::INET6,
            SocketType::DGRAM,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| ("udp6 socket", e))?;
        sockopt::set_ipv6_v6only(&udp, true).map_err(|e| ("IPV6_V6ONLY", e))?;
        sockopt::set_socket_reuseaddr(&udp, true).map_err(|e| ("SO_REUSEADDR", e))?;
        sockopt::set_ipv6_multicast_if(&udp, index).map_err(|e| ("IPV6_MULTICAST_IF", e))?;
        net::bind(
            &udp,
            &SocketAddrV6::new(Ipv6Addr::UNSPECIFIED, CLIENT_PORT, 0, 0),
        )
        .map_err(|e| ("bind to port 546", e))?;
        Ok(RawTransport6 {
            udp,
            index,
            buf: vec![0; MAX_MESSAGE + 1],
        })
    }
}

impl Transport for RawTransport6 {
    fn send(&mut self, message: &[u8]) -> Result<(), Errno> {
        let to = SocketAddrV6::new(ALL_SERVERS, SERVER_PORT, 0, self.index);
        match net::sendto(&self.udp, message, SendFlags::empty(), &to) {
            Ok(_) => Ok(()),
            // The link-local address is still being checked for duplicates: this one is
            // lost, the retransmission goes out once it is usable.
            Err(Errno::ADDRNOTAVAIL) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn recv(&mut self, until: Instant) -> Result<Option<Incoming>, Errno> {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left < Duration::from_millis(1) {
                return Ok(None);
            }
            sockopt::set_socket_timeout(&self.udp, sockopt::Timeout::Recv, Some(left))?;
            let (n, len, from) = match net::recvfrom(&self.udp, &mut self.buf[..], RecvFlags::TRUNC)
            {
                Ok(r) => r,
                Err(Errno::AGAIN | Errno::INTR) => continue,
                Err(e) => return Err(e),
            };
            let from_server = from
                .and_then(|a| SocketAddrV6::try_from(a).ok())
                .is_some_and(|a| a.port() == SERVER_PORT);
            if !from_server {
                continue;
            }
            return Ok(Some(if len > n || n > MAX_MESSAGE {
                Incoming::TooLarge
            } else {
                Incoming::Dhcp(self.buf[..n].to_vec())
            }));
        }
    }
}

//! The IPv6 half of a session's NIC: with no DHCPv4 lease, SLAAC's address, or stateful
//! DHCPv6 when the router says Managed (its address added and recorded for the teardown), or
//! the link-local last resort. Not here: the DHCPv6 exchange itself (dhcp6/), the sysctls and
//! the kernel's state (slaac.rs).

use super::client::{Failure, Lease};
use super::session::{Applied, Session};
use super::{dhcp6, slaac, Attempt, Error};
use rustix::io::Errno;
use std::net::Ipv6Addr;
use std::time::Instant;

impl Session {
    /// A link with no DHCPv4 lease: SLAAC's address when it has one; else DHCPv6 when the
    /// router said Managed, with what is left of the NIC's share (`until`); else, after a
    /// last look, the link-local address behind an advertised router.
    pub(super) fn ipv6(
        &mut self,
        applied: &mut Applied,
        mac: [u8; 6],
        until: Instant,
        slaac_found: bool,
        attempt: &mut Attempt,
    ) -> Result<(Lease, &'static str), Error> {
        let nic = applied.nic.clone();
        if !slaac_found && slaac::managed(&mut self.nl, &nic) {
            match self.dhcp6(applied, mac, until, attempt) {
                Ok(lease) => return Ok((lease, "dhcp6")),
                Err(e) => attempt.warnings.push(format!("DHCPv6: {e}")),
            }
        }
        let last = (Instant::now() + slaac::LAST_LOOK).min(self.opts.deadline);
        let found = match &applied.six {
            Some(six) => six.wait(last),
            None => Err(false),
        };
        let found = found.map_err(|router| Error::NoSlaac { nic, router })?;
        Ok((slaac::lease(found), "slaac"))
    }

    /// Stateful DHCPv6 on the link, its address added as a /128 (the router's advertisement
    /// gives the on-link prefix and the default route, which SLAAC's teardown removes).
    fn dhcp6(
        &mut self,
        applied: &mut Applied,
        mac: [u8; 6],
        until: Instant,
        attempt: &mut Attempt,
    ) -> Result<Lease, Error> {
        let nic = applied.nic.clone();
        let mut t = dhcp6::RawTransport6::open(applied.index)
            .map_err(|(op, errno)| Error::Socket { op, errno })?;
        let lease6 = dhcp6::obtain(&mut t, mac, until, &self.opts.timing, &mut attempt.ignored)
            .map_err(|f| match f {
                Failure::Deadline { offered } => Error::NoLease {
                    nic: nic.clone(),
                    offered,
                    ignored: attempt.ignored.total(),
                },
                Failure::Io(op, errno) => Error::Socket { op, errno },
            })?;
        let added = self.nl.add_address6(
            applied.index,
            lease6.address,
            lease6.preferred,
            lease6.valid,
        );
        match added {
            Ok(()) => applied.addresses6.push(lease6.address),
            Err(Errno::EXIST) => {}
            Err(errno) => {
                return Err(Error::Link {
                    nic,
                    op: "adding the DHCPv6 address",
                    errno,
                })
            }
        }
        let router = applied.six.as_ref().and_then(|s| s.state().router());
        let mut lease = slaac::lease(slaac::Found {
            address: lease6.address,
            prefix: 128,
            router: router.unwrap_or(Ipv6Addr::UNSPECIFIED),
        });
        lease.lease_seconds = Some(lease6.valid);
        Ok(lease)
    }
}

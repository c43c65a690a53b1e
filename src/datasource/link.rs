//! The way from the initramfs to a datasource's link-local service (EC2, GCE, OpenStack,
//! DigitalOcean, Azure), or a routed one (MAAS, Bigstep: a lease when there is no default
//! route). The fetch stage owns the `Link`; a datasource declares the `Service` it needs and reads through `Link::reach`. When a route already goes there the service is
//! read directly; if not, over ember's own throwaway lease (DHCP, or a link-local address) NIC
//! by NIC until the service answers. The answering lease stays up until the stage has called
//! `Datasource::report` over it (Azure's wireserver is reached the same way, no second DHCP
//! exchange), then `close` lets it go; each NIC tried is a status step.
//! Not here: what is read (the datasources' `read`), what is reported.

use crate::context::Env;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::network::ephemeral::{fallback_candidates, Attempt, Lease, Options, Session};
use crate::reason::Reason;
use crate::status::Step;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

/// The metadata address of the clouds.
pub const METADATA_V4: Ipv4Addr = Ipv4Addr::new(169, 254, 169, 254);

/// A link-local service a datasource needs, and how a lease must be made to reach it.
pub struct Service {
    /// Where the service answers: a lease is made only when one is the metadata address and
    /// no route goes there.
    pub bases: Vec<String>,
    /// The code a read gives when the service did not answer: the next NIC is tried.
    pub unreachable: Reason,
    /// How a lease is made: its deadline (the datasource's), the metadata route (`None`: the
    /// service's address is learnt from the lease, so a lease is made without a default
    /// route), DHCP or link-local, SLAAC, the site-specific DHCP options asked for.
    pub lease: Options,
    /// The NICs a lease is tried on, in order.
    pub nics: Vec<String>,
    /// Each NIC's part of the wait, so a silent first NIC leaves time for the next; `None`:
    /// the whole wait.
    pub share: Option<Duration>,
    /// The platform waits to hear how the fetch ended (Azure while provisioning): once the
    /// service answered, the stage calls `Datasource::report` over the same way.
    pub awaits_report: bool,
}

impl Service {
    /// The metadata address over DHCP on any NIC, each NIC waiting twice the request timeout
    /// (at least 5 s) of the datasource's `deadline`.
    pub fn metadata(env: &Env, bases: Vec<String>, request: Duration, deadline: Instant) -> Self {
        let mut lease = Options::new(deadline);
        lease.metadata = Some(METADATA_V4);
        lease.proc = env.host.path("/proc");
        Service {
            bases,
            unreachable: Reason::MetadataUnreachable,
            lease,
            nics: fallback_candidates(env.host),
            share: Some((request * 2).max(crate::bounds::LEASE_SHARE_MIN)),
            awaits_report: false,
        }
    }

    /// A service at any routed address, over DHCP on any NIC when there is no default route
    /// (no metadata route, no link-local address).
    pub fn routed(env: &Env, bases: Vec<String>, request: Duration, deadline: Instant) -> Self {
        let mut service = Service::metadata(env, bases, request, deadline);
        service.lease.metadata = None;
        service
    }

    /// Until when a read over a lease just made waits for the service.
    fn wait_from_now(&self) -> Instant {
        let deadline = self.lease.deadline;
        self.share
            .map_or(deadline, |share| (Instant::now() + share).min(deadline))
    }
}

/// How a read reaches the service: over ember's lease (`None`: the route that was there),
/// waiting until `wait_until`.
pub struct Via<'a> {
    pub lease: Option<&'a Lease>,
    pub wait_until: Instant,
}

/// The stage's way to the service, from the first `reach` until `close` (or drop).
#[derive(Default)]
pub struct Link {
    session: Option<Session>,
    answered: bool,
    awaits_report: bool,
}

/// What the link leaves for status: a step per NIC tried, a warning per thing not undone.
pub struct Closed {
    pub steps: Vec<Step>,
    pub warnings: Vec<Diag>,
}

impl Link {
    /// Runs `read` until the service answers (anything but `Err` with `service.unreachable`):
    /// once when a route goes there, else over a lease per NIC in turn. Over leases, `data`
    /// ends as the answering attempt left it (each starts afresh with the datasource's names),
    /// with the reads of every attempt.
    pub fn reach(
        &mut self,
        env: &Env,
        service: &Service,
        data: &mut InstanceData,
        mut read: impl FnMut(&mut InstanceData, &Via) -> Result<(), Diag>,
    ) -> Result<(), Diag> {
        self.awaits_report = service.awaits_report;
        // A service at a known address needs a lease when no route goes there; one whose
        // address only a lease tells (CloudStack's router), or any routed one (MAAS, Bigstep), when there is
        // no default route.
        let needed = match service.lease.metadata {
            Some(address) => needs_lease_to(env.host, &service.bases, address),
            None => no_default_route(env.host),
        };
        if needed {
            return self.over_lease(service, data, read);
        }
        let via = Via {
            lease: None,
            wait_until: service.lease.deadline,
        };
        let result = read(data, &via);
        self.answered = !unreachable(&result, service.unreachable);
        result
    }

    fn over_lease(
        &mut self,
        service: &Service,
        data: &mut InstanceData,
        mut read: impl FnMut(&mut InstanceData, &Via) -> Result<(), Diag>,
    ) -> Result<(), Diag> {
        let no_network = |e: &dyn std::fmt::Display, code: Reason| {
            let msg = format!("no network to reach the metadata service: {e}");
            Diag::error(code, msg)
        };
        let session = match &mut self.session {
            Some(session) => session,
            None => {
                let made = Session::new(&service.nics, service.lease.clone());
                self.session
                    .insert(made.map_err(|e| no_network(&e, e.code()))?)
            }
        };
        let mut result = None;
        let outcome = session.try_each(|lease| {
            let mut attempt = InstanceData {
                datasource: data.datasource.clone(),
                platform: data.platform.clone(),
                cloud_name: data.cloud_name.clone(),
                ..InstanceData::default()
            };
            let via = Via {
                lease: Some(lease),
                wait_until: service.wait_from_now(),
            };
            let r = read(&mut attempt, &via);
            data.reads += attempt.reads;
            let answered = !unreachable(&r, service.unreachable);
            if answered {
                attempt.reads = data.reads;
                *data = attempt;
            }
            result = Some(r);
            answered
        });
        self.answered = outcome.is_ok();
        match (outcome.map(|_| ()), result) {
            (Ok(()), Some(r)) | (Err(_), Some(r @ Err(_))) => r,
            (Err(e), _) => Err(no_network(&e, e.code())),
            (Ok(()), None) => Ok(()),
        }
    }

    /// The service answered and the platform waits to hear how the fetch ended.
    pub fn report_due(&self) -> bool {
        self.answered && self.awaits_report
    }

    /// The lease the service answered over; `None` when the route was there already.
    pub fn lease(&self) -> Option<&Lease> {
        self.session.as_ref()?.lease()
    }

    /// Lets the lease go (everything it added removed, the link down again if it was).
    pub fn close(self) -> Closed {
        let Some(session) = self.session else {
            return Closed {
                steps: Vec::new(),
                warnings: Vec::new(),
            };
        };
        let steps = session.record().iter().map(Attempt::step).collect();
        let warnings = session.down().into_iter();
        let warnings = warnings.map(|failed| Diag::warning(Reason::EphemeralNetwork, failed));
        Closed {
            steps,
            warnings: warnings.collect(),
        }
    }
}

fn unreachable(result: &Result<(), Diag>, code: Reason) -> bool {
    matches!(result, Err(d) if d.code == code)
}

/// The service is at a link-local address: without a default route or one covering it, the
/// initramfs has no way there yet. Without a readable route table (a test's host tree, a
/// container) the network is someone else's.
pub fn needs_lease(host: &crate::host::Host, bases: &[String]) -> bool {
    needs_lease_to(host, bases, METADATA_V4)
}

/// `needs_lease` for a service at another address (the `lease.metadata` of its `Service`:
/// Scaleway's 169.254.42.42, AliYun's 100.100.100.200).
pub fn needs_lease_to(host: &crate::host::Host, bases: &[String], address: Ipv4Addr) -> bool {
    if !bases.iter().any(|b| b.contains(&address.to_string())) {
        return false;
    }
    crate::network::routes::read(host)
        .is_some_and(|routes| !routes.iter().any(|r| r.covers(address)))
}

/// No default route in a readable route table (an unreadable one is someone else's network):
/// a service whose address only a lease tells (`lease.metadata` of `None`: CloudStack's
/// virtual router, the DHCP server), or a routed one (Bigstep), gets a lease then.
pub fn no_default_route(host: &crate::host::Host) -> bool {
    crate::network::routes::read(host).is_some_and(|routes| !routes.iter().any(|r| r.is_default()))
}

#[cfg(test)]
mod tests;

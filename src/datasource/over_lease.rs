//! Reaching a link-local metadata service from the initramfs for GCE and DigitalOcean: whether
//! a route already goes there, and if not, ember's own throwaway lease (DHCP, or a link-local
//! address) NIC by NIC until the service answers. The lease is gone again afterwards; each
//! NIC tried is a status step. Not here: what is read (the datasources' `read`).

use super::InstanceData;
use crate::context::Ctx;
use crate::error::Diag;
use crate::network::ephemeral::{Attempt, Options, Session};
use std::net::Ipv4Addr;

/// The metadata address of both clouds.
pub const METADATA_V4: Ipv4Addr = Ipv4Addr::new(169, 254, 169, 254);

/// Whether `base` is the metadata address with no route there yet (see ec2.rs).
pub fn needed(ctx: &Ctx, base: &str) -> bool {
    super::ec2::needs_ephemeral_network(&ctx.host, &[base.to_string()])
}

/// Runs `read` on `candidates` in turn, each through its own lease, until it gives anything
/// but `Err` with the code `unreachable` (the service answered, even with a refusal). `data`
/// ends as the answering attempt left it, with the reads of every attempt and a step per NIC.
pub fn over_lease(
    candidates: &[String],
    opts: Options,
    unreachable: &str,
    data: &mut InstanceData,
    mut read: impl FnMut(&mut InstanceData) -> Result<(), Diag>,
) -> Result<(), Diag> {
    let no_network = |e: &dyn std::fmt::Display, code: &str| {
        Diag::error(
            code,
            format!("no network to reach the metadata service: {e}"),
        )
    };
    let mut session = Session::new(candidates, opts).map_err(|e| no_network(&e, e.code()))?;
    let mut result = None;
    let outcome = session.try_each(|_lease| {
        let mut attempt = InstanceData {
            datasource: data.datasource.clone(),
            ..InstanceData::default()
        };
        let r = read(&mut attempt);
        data.reads += attempt.reads;
        let answered = !matches!(&r, Err(d) if d.code == unreachable);
        if answered {
            attempt.reads = data.reads;
            *data = attempt;
        }
        result = Some(r);
        answered
    });
    let outcome = outcome.map(|_| ());
    data.steps
        .extend(session.record().iter().map(Attempt::step));
    for failed in session.down() {
        data.diags.push(Diag::warning("ephemeral-network", failed));
    }
    match (outcome, result) {
        (Ok(()), Some(r)) | (Err(_), Some(r @ Err(_))) => r,
        (Err(e), _) => Err(no_network(&e, e.code())),
        (Ok(()), None) => Ok(()),
    }
}

//! Reaching a link-local metadata service from the initramfs (EC2, GCE, DigitalOcean, OpenStack): whether
//! a route already goes there, and if not, ember's own throwaway lease (DHCP, or a link-local
//! address) NIC by NIC until the service answers. The lease is gone again afterwards; each
//! NIC tried is a status step. Not here: what is read (the datasources' `read`).

use crate::context::Env;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::network::ephemeral::{Attempt, Lease, Options, Session};
use crate::reason::Reason;
use std::net::Ipv4Addr;

/// The metadata address of both clouds.
pub const METADATA_V4: Ipv4Addr = Ipv4Addr::new(169, 254, 169, 254);

/// Whether `base` is the metadata address with no route there yet.
pub fn needed(env: &Env, base: &str) -> bool {
    needs_lease(env.host, &[base.to_string()])
}

/// The service is at a link-local address: without a default route or one covering it, the
/// initramfs has no way there yet. Without a readable route table (a test's host tree, a
/// container) the network is someone else's.
pub fn needs_lease(host: &crate::host::Host, bases: &[String]) -> bool {
    if !bases.iter().any(|b| b.contains(&METADATA_V4.to_string())) {
        return false;
    }
    crate::network::routes::read(host)
        .is_some_and(|routes| !routes.iter().any(|r| r.covers(METADATA_V4)))
}

/// Runs `read` on `candidates` in turn, each through its own lease, until it gives anything
/// but `Err` with the code `unreachable` (the service answered, even with a refusal). `data`
/// ends as the answering attempt left it, with the reads of every attempt and a step per NIC.
pub fn over_lease(
    candidates: &[String],
    opts: Options,
    unreachable: Reason,
    data: &mut InstanceData,
    mut read: impl FnMut(&mut InstanceData) -> Result<(), Diag>,
) -> Result<(), Diag> {
    over_lease_with(candidates, opts, unreachable, data, |d, _| read(d))
}

/// `over_lease`, giving `read` the lease too (Azure takes its wireserver from option 245).
pub fn over_lease_with(
    candidates: &[String],
    opts: Options,
    unreachable: Reason,
    data: &mut InstanceData,
    mut read: impl FnMut(&mut InstanceData, &Lease) -> Result<(), Diag>,
) -> Result<(), Diag> {
    let no_network = |e: &dyn std::fmt::Display, code: Reason| {
        Diag::error(
            code,
            format!("no network to reach the metadata service: {e}"),
        )
    };
    let mut session = Session::new(candidates, opts).map_err(|e| no_network(&e, e.code()))?;
    let mut result = None;
    let outcome = session.try_each(|lease| {
        let mut attempt = InstanceData {
            datasource: data.datasource.clone(),
            platform: data.platform.clone(),
            cloud_name: data.cloud_name.clone(),
            ..InstanceData::default()
        };
        let r = read(&mut attempt, lease);
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
        data.diags
            .push(Diag::warning(Reason::EphemeralNetwork, failed));
    }
    match (outcome, result) {
        (Ok(()), Some(r)) | (Err(_), Some(r @ Err(_))) => r,
        (Err(e), _) => Err(no_network(&e, e.code())),
        (Ok(()), None) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_table_decides_the_ephemeral_lease() {
        let dir = std::env::temp_dir().join(format!("ember-ec2-routes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("proc/net")).unwrap();
        let host = crate::host::Host::new(&dir);
        let bases = vec!["http://169.254.169.254".to_string()];
        let head = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n";
        let cases = [
            ("", true),
            ("eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\n", false),
            // 169.254.0.0/16 on the link
            ("eth0\t0000FEA9\t00000000\t0001\t0\t0\t0\t0000FFFF\n", false),
            ("eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n", true),
        ];
        for (table, want) in cases {
            std::fs::write(dir.join("proc/net/route"), format!("{head}{table}")).unwrap();
            assert_eq!(needs_lease(&host, &bases), want, "{table}");
        }
        let loopback = vec!["http://127.0.0.1:8080".to_string()];
        assert!(!needs_lease(&host, &loopback));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

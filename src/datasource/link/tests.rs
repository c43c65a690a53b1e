use super::*;
use crate::context::Ctx;
use crate::host::Host;

/// A host tree of its own; `route_table` is written as /proc/net/route when given.
fn host_tree(name: &str, route_table: Option<&str>) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ember-link-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("proc/net")).unwrap();
    if let Some(table) = route_table {
        let head = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n";
        std::fs::write(dir.join("proc/net/route"), format!("{head}{table}")).unwrap();
    }
    dir
}

#[test]
fn route_table_decides_the_ephemeral_lease() {
    let dir = host_tree("routes", None);
    let host = Host::new(&dir);
    let bases = vec!["http://169.254.169.254".to_string()];
    let cases = [
        ("", true),
        ("eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\n", false),
        // 169.254.0.0/16 on the link
        ("eth0\t0000FEA9\t00000000\t0001\t0\t0\t0\t0000FFFF\n", false),
        ("eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n", true),
    ];
    for (table, want) in cases {
        host_tree("routes", Some(table));
        assert_eq!(needs_lease(&host, &bases), want, "{table}");
    }
    let loopback = vec!["http://127.0.0.1:8080".to_string()];
    assert!(!needs_lease(&host, &loopback));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `reach` over the route that is there (a default route): one read, no lease, the whole
/// wait; whether a report is due after it.
fn reach_by_route(name: &str, awaits_report: bool, answer: Result<(), Diag>) -> (Link, u32) {
    let default_route = "eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\n";
    let dir = host_tree(name, Some(default_route));
    let ctx = Ctx::new(
        Host::new(&dir),
        dir.join("target"),
        dir.join("run"),
        Some("ro".into()),
    );
    let env = ctx.env();
    let deadline = Instant::now() + Duration::from_secs(30);
    let bases = vec![format!("http://{METADATA_V4}")];
    let mut service = Service::metadata(&env, bases, Duration::from_secs(1), deadline);
    service.awaits_report = awaits_report;
    let (mut link, mut data, mut calls) = (Link::default(), InstanceData::default(), 0);
    let got = link.reach(&env, &service, &mut data, |_, via| {
        calls += 1;
        assert!(via.lease.is_none());
        assert_eq!(via.wait_until, deadline);
        answer.clone()
    });
    assert_eq!(got, answer);
    std::fs::remove_dir_all(&dir).unwrap();
    (link, calls)
}

#[test]
fn a_report_is_due_only_when_the_service_answered_and_awaits_one() {
    let refused = Diag::error(Reason::FetchFailed, "HTTP status 403");
    let silent = Diag::error(Reason::MetadataUnreachable, "no answer");
    let cases = [
        ("ok", true, Ok(()), true),
        ("refused", true, Err(refused), true),
        ("silent", true, Err(silent), false),
        ("unasked", false, Ok(()), false),
    ];
    for (name, awaits, answer, due) in cases {
        let (link, calls) = reach_by_route(name, awaits, answer);
        assert_eq!(calls, 1, "{name}");
        assert_eq!(link.report_due(), due, "{name}");
        assert!(link.lease().is_none(), "{name}");
        let closed = link.close();
        assert!(
            closed.steps.is_empty() && closed.warnings.is_empty(),
            "{name}"
        );
    }
}

#[test]
fn a_service_at_another_address_or_the_leases_own() {
    let dir = host_tree("other-address", None);
    let host = Host::new(&dir);
    let aliyun = Ipv4Addr::new(100, 100, 100, 200);
    let bases = vec![format!("http://{aliyun}")];
    // Unreadable routes: the network is someone else's.
    assert!(!needs_lease_to(&host, &bases, aliyun));
    assert!(!no_default_route(&host));
    // A link-local route only: 100.100.100.200 and a leased router both need a lease.
    host_tree(
        "other-address",
        Some("eth0\t0000FEA9\t00000000\t0001\t0\t0\t0\t0000FFFF\n"),
    );
    assert!(needs_lease_to(&host, &bases, aliyun));
    assert!(
        !needs_lease(&host, &bases),
        "not the metadata address's bases"
    );
    assert!(no_default_route(&host));
    // A default route reaches both.
    host_tree(
        "other-address",
        Some("eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\n"),
    );
    assert!(!needs_lease_to(&host, &bases, aliyun));
    assert!(!no_default_route(&host));
    std::fs::remove_dir_all(&dir).unwrap();
}

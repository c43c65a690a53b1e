//! Fault suite, metadata services: the faults tests/ec2.rs, gce.rs, openstack.rs and
//! digitalocean.rs do not already cover (slow, 500 then 200, truncated JSON and short garbage
//! are there): a service that is down, and 10 MB of garbage, on EC2 and GCE.

use crate::common;
use crate::common::emulator;
use common::faults::{self, aws_dmi, cloud_target, gce_dmi, run_measured};
use common::{stderr, Machine};
use emulator::{ec2, gce, Answer};
use std::time::{Duration, Instant};

/// The deadline these tests give (`ember.metadata-timeout`), and the slack a run may take
/// beyond it (process start, the local stage, a loaded CI machine).
const DEADLINE_S: u64 = 2;
const SLACK: Duration = Duration::from_secs(3);

/// A machine of `cloud` (its DMI) whose metadata service is at `url`.
fn cloud_machine(name: &str, cloud: &str, url: &str, extra_limits: &str) -> Machine {
    let m = Machine::new(name);
    match cloud {
        "ec2" => aws_dmi(&m),
        _ => gce_dmi(&m),
    }
    cloud_target(&m, extra_limits);
    m.cmdline(&format!(
        "ro ember.metadata-url={url} ember.metadata-timeout={DEADLINE_S}"
    ));
    m
}

/// Nothing was provisioned: no instance recorded, no handoff, no user-data file written.
fn assert_nothing_provisioned(m: &Machine) {
    // None stood in: the instance is its own, nothing of the cloud's.
    assert_eq!(
        m.status()["instance_id"],
        "iid-datasource-none",
        "{}",
        m.status()
    );
    assert!(!m.target.join("etc/ec2-secret").exists());
}

/// Expected: a service that refuses connections (nothing listens) is a clear warning naming
/// the metadata URL, within the deadline plus a little, never a hang; nothing of the cloud's
/// is provisioned, None stands in and the boot goes on (exit 0, not 3).
#[test]
fn a_metadata_service_that_is_down_fails_within_the_deadline() {
    for cloud in ["ec2", "gce"] {
        let url = format!("http://127.0.0.1:{}", faults::closed_port());
        let m = cloud_machine(&format!("down-{cloud}"), cloud, &url, "");
        let started = Instant::now();
        let out = m.initrd("all");
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(DEADLINE_S) + SLACK,
            "{cloud}: {took:?}"
        );
        m.fell_back(&out);
        // EC2 says `metadata-unreachable` with the refusal; GCE, which retries refusals until
        // its deadline, `fetch-deadline` with the URL as the file and the refusal.
        let d = m
            .diags()
            .into_iter()
            .find(|d| d["severity"] == "warning" && d.to_string().contains(&url))
            .unwrap_or_else(|| panic!("{cloud}: the URL is named: {:#?}", m.diags()));
        assert!(
            d["budget"].is_string() || d["code"] == "metadata-unreachable",
            "{d}"
        );
        assert!(d["message"].to_string().contains("refused"), "{d}");
        assert_nothing_provisioned(&m);
        eprintln!("{cloud} down: ended after {took:?}");
    }
}

/// Peak memory of a normal EC2 run, in KiB: what a run offered garbage is compared with.
fn baseline_rss() -> u64 {
    let server = ec2::start();
    let m = cloud_machine("baseline-ec2", "ec2", &server.url(), "");
    let (out, rss) = run_measured(&mut faults::initrd_command(&m, &["all"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    rss
}

/// Offered 10 MiB, a run may use at most 4 MiB more than a normal one (the 1 MiB budget,
/// buffers): far less than holding what it was sent.
fn assert_bounded(what: &str, ec2: u64, gce: u64) {
    let base = baseline_rss();
    eprintln!("peak RSS, {what}: ec2 {ec2} KiB, gce {gce} KiB; a normal run {base} KiB");
    for rss in [ec2, gce] {
        assert!(
            rss < base + 4096,
            "{what}: peak RSS {rss} KiB against {base} KiB"
        );
    }
}

/// Expected: 10 MB of garbage as the answer's body is cut at the `file_bytes` budget (1 MiB
/// here), status.json's diagnostic names the budget and the file, and ember-initrd's peak
/// memory stays far below the 10 MB it was offered.
#[test]
fn ten_megabytes_of_garbage_is_refused_by_the_budget() {
    let limits = "    file_bytes: 1048576\n";
    let body = faults::garbage(10 << 20);

    let server = ec2::start();
    server.set("/latest/user-data", vec![Answer::Body(200, body.clone())]);
    let m = cloud_machine("garbage-ec2", "ec2", &server.url(), limits);
    let (out, rss_ec2) = run_measured(&mut faults::initrd_command(&m, &["all"]));
    common::assert_no_panic(&out);
    // The metadata came; only the user-data is refused, an error of the fetch that succeeded.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("budget-exceeded").expect("budget named");
    assert_eq!(d["budget"], "file_bytes", "{d}");
    assert!(d["file"].as_str().unwrap().ends_with("user-data"), "{d}");
    assert!(!m.target.join("etc/ec2-secret").exists());

    let server = gce::start();
    server.set(gce::DOCUMENT, vec![Answer::Body(200, body)]);
    let m = cloud_machine("garbage-gce", "gce", &server.url(), limits);
    let (out, rss_gce) = run_measured(&mut faults::initrd_command(&m, &["all"]));
    common::assert_no_panic(&out);
    m.fell_back(&out);
    let d = m.diag_with_code("budget-exceeded").expect("budget named");
    assert_eq!(d["budget"], "file_bytes", "{d}");
    assert!(
        d["file"].as_str().unwrap().contains("computeMetadata"),
        "{d}"
    );
    assert_nothing_provisioned(&m);

    assert_bounded("10 MB body", rss_ec2, rss_gce);
}

/// Expected: 10 MB of bytes that are not HTTP at all (no status line, no head end) are
/// refused by the response-head budget: a clear error naming the metadata file, within
/// the deadline, memory bounded.
#[test]
fn ten_megabytes_that_are_not_http_are_refused() {
    let noise = faults::garbage(10 << 20);

    let server = ec2::start();
    let id = "/latest/meta-data/instance-id";
    server.set(id, vec![Answer::Garbage(noise.clone())]);
    let m = cloud_machine("nothttp-ec2", "ec2", &server.url(), "");
    let started = Instant::now();
    let (out, rss_ec2) = run_measured(&mut faults::initrd_command(&m, &["all"]));
    assert!(started.elapsed() < Duration::from_secs(DEADLINE_S) + SLACK);
    common::assert_no_panic(&out);
    m.fell_back(&out);
    let d = m.diag_with_code("fetch-failed").expect("fetch-failed");
    assert!(d["file"].as_str().unwrap().ends_with("instance-id"), "{d}");
    assert_nothing_provisioned(&m);

    let server = gce::start();
    server.set(gce::DOCUMENT, vec![Answer::Garbage(noise)]);
    let m = cloud_machine("nothttp-gce", "gce", &server.url(), "");
    let started = Instant::now();
    let (out, rss_gce) = run_measured(&mut faults::initrd_command(&m, &["all"]));
    assert!(started.elapsed() < Duration::from_secs(DEADLINE_S) + SLACK);
    common::assert_no_panic(&out);
    m.fell_back(&out);
    let d = m
        .diags()
        .into_iter()
        .find(|d| {
            d["file"]
                .as_str()
                .is_some_and(|f| f.contains("computeMetadata"))
        })
        .unwrap_or_else(|| panic!("{:#?}", m.diags()));
    assert_eq!(d["severity"], "warning", "{d}");
    assert_nothing_provisioned(&m);

    assert_bounded("10 MB not HTTP", rss_ec2, rss_gce);
}

/// Expected (RELIABILITY.md, failure policy: "a budget exceeded [is a failure] of that item
/// only"): EC2 user-data over `file_bytes` is left out with its error and the instance is
/// still provisioned from the rest of the metadata, as NoCloud and OpenStack do.
#[test]
fn ec2_user_data_over_budget_leaves_the_rest_provisioned() {
    let server = ec2::start();
    let big = vec![b'#'; 2 << 20];
    server.set("/latest/user-data", vec![Answer::Body(200, big)]);
    let m = cloud_machine(
        "bigud-ec2",
        "ec2",
        &server.url(),
        "    file_bytes: 1048576\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(m.diag_with_code("budget-exceeded").is_some());
    assert_eq!(m.status()["instance_id"], ec2::INSTANCE_ID);
    assert_eq!(m.target_file("etc/hostname").trim(), "ip-10-0-1-5");
}

/// Expected (rule 7): metadata is fetched by IP literal, never through a proxy from the
/// environment: with every proxy variable pointing at a server of the test's, EC2 is
/// provisioned and that server sees no request.
#[test]
fn never_through_a_proxy_from_the_environment() {
    let proxy = faults::Web::start(|_| vec![]);
    let server = ec2::start();
    let m = cloud_machine("proxy-ec2", "ec2", &server.url(), "");
    let mut cmd = faults::initrd_command(&m, &["all"]);
    for var in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ] {
        cmd.env(var, proxy.url(""));
    }
    cmd.env_remove("no_proxy").env_remove("NO_PROXY");
    let (out, _) = run_measured(&mut cmd);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], ec2::INSTANCE_ID);
    assert_eq!(proxy.requests(), 0, "a request went through the proxy");
}

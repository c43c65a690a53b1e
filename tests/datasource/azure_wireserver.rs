//! The Azure ready report against the wireserver emulator on loopback: the goal state read,
//! the Health document posted with the agent's headers (Ready; NotReady with its escaped
//! description), and faults: 500 then 200, a slow answer, an answer that is not HTTP, garbage
//! XML, a service that never recovers, the deadline.

use crate::common;
use crate::common::emulator;
use common::Machine;
use ember::context::Ctx;
use ember::datasource::azure::wireserver::{report, Health};
use ember::fetch::Fetcher;
use emulator::azure_wire::{self as wire, Server};
use emulator::{status, Answer};
use std::time::{Duration, Instant};

/// A fetcher with a per-request timeout and an overall deadline, as the datasource makes one.
fn fetcher(m: &Machine, request_ms: u64, total_ms: u64) -> Fetcher {
    let ctx = Ctx::new(
        ember::host::Host::new(&m.host),
        m.target.clone(),
        m.run.clone(),
        Some("ro".into()),
    );
    let deadline = Instant::now() + Duration::from_millis(total_ms);
    Fetcher::with_deadline(&ctx.env(), Duration::from_millis(request_ms), deadline)
}

fn run(server: &Server, name: &str, health: &Health) -> (Result<(), ember::error::Diag>, u32) {
    let m = Machine::new(name);
    let f = fetcher(&m, 2000, 10_000);
    let mut reads = 0;
    (report(&f, &server.url(), health, &mut reads), reads)
}

fn element<'a>(doc: &'a roxmltree::Document, name: &str) -> Option<&'a str> {
    doc.descendants()
        .find(|n| n.tag_name().name() == name)
        .and_then(|n| n.text())
}

#[test]
fn ready_is_posted_for_the_goal_state_with_the_agent_headers() {
    let server = wire::start();
    let (got, reads) = run(&server, "azure-wire-ready", &Health::Ready);
    got.unwrap();
    assert_eq!(reads, 2);
    let log = server.requests();
    assert_eq!(log.len(), 2);
    let (get, post) = (&log[0].request, &log[1].request);
    assert_eq!(
        (get.method.as_str(), get.path.as_str()),
        ("GET", wire::GOAL_STATE_PATH)
    );
    assert_eq!(
        (post.method.as_str(), post.path.as_str()),
        ("POST", wire::HEALTH_PATH)
    );
    for r in [get, post] {
        assert_eq!(r.header("x-ms-agent-name"), Some("WALinuxAgent"));
        assert_eq!(r.header("x-ms-version"), Some("2012-11-30"));
    }
    assert_eq!(post.header("content-type"), Some("text/xml; charset=utf-8"));
    let body = &log[1].body;
    assert_eq!(
        post.header("content-length"),
        Some(body.len().to_string().as_str())
    );
    let text = String::from_utf8(body.clone()).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("a well-formed Health document");
    assert_eq!(doc.root_element().tag_name().name(), "Health");
    assert_eq!(
        element(&doc, "GoalStateIncarnation"),
        Some(wire::INCARNATION)
    );
    assert_eq!(element(&doc, "ContainerId"), Some(wire::CONTAINER_ID));
    assert_eq!(element(&doc, "InstanceId"), Some(wire::INSTANCE_ID));
    assert_eq!(element(&doc, "State"), Some("Ready"));
    assert_eq!(element(&doc, "SubStatus"), None);
}

#[test]
fn not_ready_says_provisioning_failed_with_the_description_escaped() {
    let server = wire::start();
    let description = "ovf-env.xml: line 7: <UserName> missing & \"more\"".to_string();
    let health = Health::NotReady {
        description: description.clone(),
    };
    let (got, _) = run(&server, "azure-wire-notready", &health);
    got.unwrap();
    let reports = server.reports();
    assert_eq!(reports.len(), 1);
    assert!(reports[0].contains("&lt;UserName&gt; missing &amp; &quot;more&quot;"));
    let doc = roxmltree::Document::parse(&reports[0]).unwrap();
    assert_eq!(element(&doc, "State"), Some("NotReady"));
    assert_eq!(element(&doc, "SubStatus"), Some("ProvisioningFailed"));
    assert_eq!(element(&doc, "Description"), Some(description.as_str()));
}

#[test]
fn server_errors_and_broken_answers_are_retried() {
    let server = wire::start();
    let not_http = Answer::Garbage(b"SSH-2.0-nope\r\n".to_vec());
    let goal = Answer::Body(200, wire::GOAL_STATE.as_bytes().to_vec());
    server.set(wire::GOAL_STATE_PATH, vec![status(500), not_http, goal]);
    server.set(
        wire::HEALTH_PATH,
        vec![status(503), Answer::Body(200, Vec::new())],
    );
    let (got, reads) = run(&server, "azure-wire-retry", &Health::Ready);
    got.unwrap();
    // Three goal state requests (two faults), two health reports (one fault).
    assert_eq!(reads, 5);
    assert_eq!(server.reports().len(), 2);
}

#[test]
fn a_slow_answer_times_out_and_the_next_attempt_gets_through() {
    let server = wire::start();
    let slow = Answer::Slow(
        Duration::from_millis(1500),
        Box::new(Answer::Body(200, wire::GOAL_STATE.as_bytes().to_vec())),
    );
    server.set(
        wire::GOAL_STATE_PATH,
        vec![
            slow,
            Answer::Body(200, wire::GOAL_STATE.as_bytes().to_vec()),
        ],
    );
    let m = Machine::new("azure-wire-slow");
    let f = fetcher(&m, 300, 10_000);
    let mut reads = 0;
    report(&f, &server.url(), &Health::Ready, &mut reads).unwrap();
    assert_eq!(reads, 3);
}

#[test]
fn a_goal_state_that_is_not_xml_is_an_error_and_nothing_is_posted() {
    let server = wire::start();
    server.set(
        wire::GOAL_STATE_PATH,
        vec![Answer::Body(200, b"<html>oops".to_vec())],
    );
    let (got, reads) = run(&server, "azure-wire-garbage", &Health::Ready);
    let e = got.unwrap_err();
    assert_eq!(e.code, "xml-syntax", "{e}");
    assert!(e.file.as_deref().unwrap().ends_with("/machine/"), "{e}");
    assert!(e.message.starts_with("the goal state: not XML"), "{e}");
    assert_eq!(reads, 1);
    assert!(server.reports().is_empty());
    let incomplete = wire::GOAL_STATE
        .replace("<ContainerId>", "<Other>")
        .replace("</ContainerId>", "</Other>");
    server.set(
        wire::GOAL_STATE_PATH,
        vec![Answer::Body(200, incomplete.into_bytes())],
    );
    let (got, _) = run(&server, "azure-wire-incomplete", &Health::Ready);
    assert_eq!(
        got.unwrap_err().key.as_deref(),
        Some("Container.ContainerId")
    );
}

#[test]
fn a_server_that_never_recovers_ends_after_a_few_attempts() {
    let server = wire::start();
    server.set(wire::GOAL_STATE_PATH, vec![status(500)]);
    let started = Instant::now();
    let (got, reads) = run(&server, "azure-wire-down", &Health::Ready);
    let e = got.unwrap_err();
    assert_eq!(e.code, "wireserver-failed");
    assert!(
        e.message.contains("HTTP status 500, after 5 attempts"),
        "{e}"
    );
    assert_eq!(reads, 5);
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_deadline_ends_the_retries() {
    let server = wire::start();
    server.set(wire::HEALTH_PATH, vec![status(500)]);
    let m = Machine::new("azure-wire-deadline");
    let f = fetcher(&m, 2000, 600);
    let (started, mut reads) = (Instant::now(), 0);
    let e = report(&f, &server.url(), &Health::Ready, &mut reads).unwrap_err();
    let took = started.elapsed();
    assert_eq!(e.code, "fetch-deadline", "{e}");
    assert_eq!(e.budget.as_deref(), Some("datasource_timeout_ms"));
    assert!(took < Duration::from_millis(1500), "{took:?}");
    // Nothing listens: every attempt fails fast and the error says why.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let f = fetcher(&m, 2000, 10_000);
    let e = report(&f, &url, &Health::Ready, &mut reads).unwrap_err();
    assert_eq!(e.code, "wireserver-failed", "{e}");
}

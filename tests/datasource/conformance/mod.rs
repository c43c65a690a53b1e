//! Datasource conformance: the cases every HTTP cloud shares, run over one table with a row
//! per cloud (its machine, its emulator, the document the faults hit, its instance id and
//! secrets). A case runs the rows in parallel threads and names the cloud of every failure.
//! A cloud that legitimately answers a case otherwise says so in its row, with a comment.

mod rows;

use crate::common::emulator::{status, Answer, Request};
use crate::common::{self, have, stderr, stdout, Machine};
use rows::{rows, Emulator};
use std::process::Output;
use std::time::{Duration, Instant};

/// How a run ended: its exit code, one of the codes its diagnostics must include (none: no
/// diagnostic is required), whether the user-data was applied, and whether None stood in
/// for the datasource (instance `iid-datasource-none`, with its warning).
#[derive(Clone, Copy, Debug)]
struct Expect {
    exit: i32,
    codes: &'static [&'static str],
    user_data: bool,
    none: bool,
}

/// The datasource fails, and None stands in, as in cloud-init, whose ds-identify ends every
/// list with None: the failure and the fallback are warnings, the image's config provisions.
const NOT_FOUND: Expect = Expect {
    exit: 0,
    codes: &["metadata-not-found"],
    user_data: false,
    none: true,
};
const TIMED_OUT: Expect = Expect {
    exit: 0,
    codes: &["fetch-deadline", "metadata-unreachable"],
    user_data: false,
    none: true,
};
/// Garbage and a body cut short are retried like any transport failure, until the deadline.
const BROKEN: Expect = TIMED_OUT;

/// The instance is provisioned without the document (from local data, or another one), and
/// the reason is a warning.
const fn provisioned_without(codes: &'static [&'static str], user_data: bool) -> Expect {
    Expect {
        exit: 0,
        codes,
        user_data,
        none: false,
    }
}

/// One cloud.
struct Row {
    cloud: &'static str,
    /// The emulator, and a machine that looks like this cloud and names it.
    boot: fn(&str) -> (Box<dyn Emulator>, Machine),
    /// The document every fault is laid on, and its fixture answer.
    document: &'static str,
    fixture: fn() -> Vec<u8>,
    instance_id: fn() -> String,
    /// The file the user-data writes, and the secret it holds there.
    written: (&'static str, &'static str),
    /// Secrets that must show nowhere: the user-data's, tokens, passwords.
    secrets: &'static [&'static str],
    /// A tool the machine needs (Azure's provisioning media is an ISO image).
    needs: Option<&'static str>,
    /// How many times the document is asked for in a clean run.
    document_requests: usize,
    not_found: Expect,
    slow: Expect,
    garbage: Expect,
    truncated: Expect,
}

/// The defaults of a row: one request of the document, the shared outcomes.
const SHARED: Row = Row {
    cloud: "",
    boot: |_| unreachable!(),
    document: "",
    fixture: Vec::new,
    instance_id: String::new,
    written: ("", ""),
    secrets: &[],
    needs: None,
    document_requests: 1,
    not_found: NOT_FOUND,
    slow: TIMED_OUT,
    garbage: BROKEN,
    truncated: BROKEN,
};

/// Akamai's fallback: the instance from the DMI serial, no user-data, a warning.
#[cfg(feature = "ds-akamai")]
const LOCAL_ONLY: Expect = provisioned_without(&["metadata-unreachable"], false);

/// Runs `case` for every row at once, each on a thread of its own named by the cloud, and
/// fails with every cloud's failure if any failed.
fn each_row(case: fn(&Row)) {
    let rows = rows();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = rows
            .iter()
            .filter(|row| row.needs.is_none_or(have))
            .map(|row| {
                let thread = std::thread::Builder::new().name(row.cloud.into());
                (row.cloud, thread.spawn_scoped(scope, || case(row)).unwrap())
            })
            .collect();
        running
            .into_iter()
            .filter_map(|(cloud, handle)| {
                let panic = handle.join().err()?;
                let text = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("{cloud}: {text}"))
            })
            .collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// The row's machine and emulator, with `answers` laid on the document.
fn boot(row: &Row, case: &str, answers: Vec<Answer>) -> (Box<dyn Emulator>, Machine) {
    let (server, m) = (row.boot)(&format!("conf-{case}-{}", row.cloud));
    if !answers.is_empty() {
        server.set(row.document, answers);
    }
    (server, m)
}

/// How many times the document was asked for (by its path alone, where it has no query).
fn document_hits(row: &Row, server: &dyn Emulator) -> usize {
    let requests = server.requests();
    let path = |r: &Request| match row.document.contains('?') {
        true => r.path.clone(),
        false => r.path.split('?').next().unwrap_or_default().to_string(),
    };
    requests.iter().filter(|r| path(r) == row.document).count()
}

fn codes(m: &Machine) -> Vec<String> {
    let diags = m.diags();
    let code = |d: &serde_json::Value| d["code"].as_str().unwrap_or_default().to_string();
    diags.iter().map(code).collect()
}

/// The run ended as `expect` says, without a panic.
fn assert_outcome(row: &Row, case: &str, m: &Machine, out: &Output, expect: Expect) {
    common::assert_no_panic(out);
    let seen = codes(m);
    let applied = m.target.join(row.written.0).exists();
    let what = format!(
        "{} {case}: exit {:?}, codes {seen:?}, user-data applied: {applied}\n{}",
        row.cloud,
        out.status.code(),
        stderr(out)
    );
    assert_eq!(out.status.code(), Some(expect.exit), "{what}");
    let named = expect.codes.iter().any(|c| seen.iter().any(|s| s == c));
    assert!(
        expect.codes.is_empty() || named,
        "want {:?}: {what}",
        expect.codes
    );
    assert_eq!(applied, expect.user_data, "{what}");
    if expect.none {
        assert!(
            seen.iter().any(|c| c == "no-datasource"),
            "None did not stand in: {what}"
        );
        assert_eq!(m.status()["instance_id"], "iid-datasource-none", "{what}");
    } else if expect.exit == 0 {
        assert_eq!(m.status()["instance_id"], (row.instance_id)(), "{what}");
    }
}

fn fixture(row: &Row) -> Answer {
    Answer::Body(200, (row.fixture)())
}

#[test]
fn provisioned() {
    each_row(|row| {
        let (server, m) = boot(row, "ok", vec![]);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let st = m.status();
        assert_eq!(st["instance_id"], (row.instance_id)(), "{st}");
        let (file, secret) = row.written;
        assert_eq!(m.target_file(file).trim(), secret);
        assert_eq!(document_hits(row, &*server), row.document_requests);
    });
}

#[test]
fn a_server_error_then_success_is_retried_once() {
    each_row(|row| {
        let (server, m) = boot(row, "retry", vec![status(500), fixture(row)]);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(m.status()["instance_id"], (row.instance_id)());
        let hits = document_hits(row, &*server);
        assert_eq!(hits, row.document_requests + 1, "one retry");
    });
}

#[test]
fn a_missing_document_fails_as_documented() {
    each_row(|row| {
        let (server, m) = boot(row, "404", vec![status(404)]);
        let out = m.initrd("all");
        assert_outcome(row, "404", &m, &out, row.not_found);
        let hits = document_hits(row, &*server);
        assert_eq!(hits, row.document_requests, "a 404 is final, not retried");
    });
}

/// The deadline a case gives (`ember.metadata-timeout`), and the slack a run may take beyond
/// it (process start, the local stage, a loaded machine).
const DEADLINE_S: f64 = 1.5;
const SLACK: Duration = Duration::from_secs(4);

/// Runs the machine with the short deadline on its command line: it ends within the bound.
fn run_within_the_deadline(m: &Machine) -> Output {
    let line = std::fs::read_to_string(m.host.join("proc/cmdline")).unwrap();
    let line = line.trim();
    m.cmdline(&format!("{line} ember.metadata-timeout={DEADLINE_S}"));
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    let bound = Duration::from_secs_f64(DEADLINE_S) + SLACK;
    assert!(took < bound, "took {took:?}: {}", stderr(&out));
    out
}

#[test]
fn an_answer_past_the_deadline_ends_in_time() {
    each_row(|row| {
        let slow = Answer::Slow(Duration::from_secs(8), Box::new(fixture(row)));
        let (_server, m) = boot(row, "slow", vec![slow]);
        let out = run_within_the_deadline(&m);
        assert_outcome(row, "slow", &m, &out, row.slow);
    });
}

#[test]
fn garbage_is_a_clear_failure() {
    each_row(|row| {
        let garbage = Answer::Garbage(b"\x00\x01 not http\r\n\r\n".to_vec());
        let (_server, m) = boot(row, "garbage", vec![garbage]);
        let out = run_within_the_deadline(&m);
        assert_outcome(row, "garbage", &m, &out, row.garbage);
    });
}

#[test]
fn a_truncated_answer_is_a_clear_failure() {
    each_row(|row| {
        let truncated = Answer::Truncated((row.fixture)());
        let (_server, m) = boot(row, "truncated", vec![truncated]);
        let out = run_within_the_deadline(&m);
        assert_outcome(row, "truncated", &m, &out, row.truncated);
    });
}

#[test]
fn secrets_show_nowhere() {
    each_row(|row| {
        let (_server, m) = boot(row, "secrets", vec![]);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let status = m.run_file("ember/status.json");
        for secret in row.secrets {
            assert!(!stdout(&out).contains(secret), "secret on stdout");
            assert!(!stderr(&out).contains(secret), "secret on stderr");
            assert!(!status.contains(secret), "secret in status.json");
            m.assert_secret_not_world_readable(secret);
        }
    });
}

//! Fault suite, hangs (RELIABILITY.md rule 9: every input has a deadline): files that are not
//! regular files where ember reads one. A FIFO or a character device given to `#include
//! file://`, as a seed file given by path, or planted as a state file (status.json,
//! handoff.json) must end the read at once with an error naming the path and what it is,
//! never block; `status --wait --timeout` bounds the whole command. Every child here is
//! killed after a bound, so a regression fails instead of hanging the suite.

use crate::common;
use common::{stderr, Machine};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd`, killing it after `bound`: its output, and whether it ended by itself in time.
pub(crate) fn run_bounded(cmd: &mut Command, bound: Duration) -> (Output, bool) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let ended = loop {
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    common::assert_no_panic(&out);
    (out, ended)
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn initrd(m: &Machine) -> (Output, bool) {
    let mut cmd = common::faults::initrd_command(m, &["all"]);
    run_bounded(&mut cmd, Duration::from_secs(20))
}

/// Expected: `#include` of a FIFO and of a character device (`/dev/zero`, which would flood)
/// fails each include at once, naming it; the rest of the user-data is applied.
#[test]
fn includes_of_fifos_and_devices_fail_at_once() {
    let m = Machine::new("hang-include");
    mkfifo(&m.host.join("run/initctl"));
    std::fs::create_dir_all(m.host.join("dev")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", m.host.join("dev/zero")).unwrap();
    std::fs::write(
        m.host.join("part.cfg"),
        "#cloud-config\nhostname: included\n",
    )
    .unwrap();
    let ud = "#include\nfile:///run/initctl\nfile:///dev/zero\nfile:///part.cfg\n";
    m.seed_files(
        &m.host,
        "seed",
        &[("meta-data", "instance-id: i-hang\n"), ("user-data", ud)],
    );
    m.cmdline("ro ds=nocloud;s=/seed/");
    let (out, ended) = initrd(&m);
    assert!(ended, "ember-initrd hung on an include: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("file:///run/initctl") && err.contains("FIFO"),
        "{err}"
    );
    assert!(
        err.contains("file:///dev/zero") && err.contains("character device"),
        "{err}"
    );
    assert_eq!(m.target_file("etc/hostname").trim(), "included");
}

/// Expected: a NoCloud seed given by path whose user-data is a FIFO is an error naming it;
/// the meta-data beside it still makes the instance.
#[test]
fn a_seed_file_that_is_a_fifo_fails_at_once() {
    let m = Machine::new("hang-seed");
    m.seed_files(&m.host, "seed", &[("meta-data", "instance-id: i-fifo\n")]);
    mkfifo(&m.host.join("seed/user-data"));
    m.cmdline("ro ds=nocloud;s=/seed/");
    let (out, ended) = initrd(&m);
    assert!(ended, "ember-initrd hung on a FIFO seed: {}", stderr(&out));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-fifo");
}

fn ember(m: &Machine, args: &[&str]) -> Command {
    let mut cmd = Command::new(common::EMBER);
    cmd.arg("--target")
        .arg(&m.target)
        .arg("--run")
        .arg(&m.run)
        .args(args);
    cmd
}

/// Expected: with status.json a FIFO, `status --wait --timeout 2` ends within its bound and
/// says why; with handoff.json a FIFO, each runner command that reads it ends at once with
/// an error naming it.
#[test]
fn state_files_that_are_fifos_never_hang_the_runner() {
    let m = Machine::new("hang-state");
    mkfifo(&m.run.join("ember/status.json"));
    let start = Instant::now();
    let (out, ended) = run_bounded(
        &mut ember(&m, &["status", "--wait", "--timeout", "2"]),
        Duration::from_secs(10),
    );
    assert!(ended, "status --wait --timeout 2 hung");
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("status.json"), "{}", stderr(&out));

    std::fs::remove_file(m.run.join("ember/status.json")).unwrap();
    mkfifo(&m.run.join("ember/handoff.json"));
    for args in [
        &["init"][..],
        &["modules", "--mode", "config"],
        &["modules", "--mode", "final"],
        &["single", "--name", "runcmd"],
    ] {
        let (out, ended) = run_bounded(&mut ember(&m, args), Duration::from_secs(10));
        assert!(ended, "{args:?} hung on a FIFO handoff");
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("handoff.json") && err.contains("FIFO"),
            "{args:?}: {err}"
        );
        common::assert_no_panic(&out);
    }
}

/// A loopback server that answers every connection with `script` (written in pieces, with
/// `pause` between them, repeating the last piece while `repeat`), then holds the connection
/// open until the client leaves: a hostile metadata service.
fn hostile_server(script: Vec<Vec<u8>>, pause: Duration, repeat: bool) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(50) {
            let Ok(mut s) = stream else { continue };
            let script = script.clone();
            std::thread::spawn(move || {
                let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf); // the request
                let started = Instant::now();
                let mut pieces = script.iter().cycle();
                let mut sent = 0;
                // Bounded, so the thread ends even if the client never leaves.
                while started.elapsed() < Duration::from_secs(30) {
                    let piece = pieces.next().unwrap();
                    if sent < script.len() || repeat {
                        let last = script.last().unwrap();
                        let piece = if sent < script.len() { piece } else { last };
                        if s.write_all(piece).is_err() {
                            return;
                        }
                        sent += 1;
                    }
                    std::thread::sleep(pause);
                    match s.read(&mut buf) {
                        Ok(0) => return, // the client left
                        _ => continue,
                    }
                }
            });
        }
    });
    port
}

/// Expected: each hostile answer (a head sent one byte at a time, `100 Continue` for ever, a
/// short body under a long Content-Length held open, chunk sizes of 2^60, negative or not
/// hex, endless headers) ends within the datasource deadline plus a little, with an error
/// naming the metadata URL; nothing is provisioned.
#[test]
fn hostile_http_answers_end_at_the_deadlines() {
    let b = |s: &str| s.as_bytes().to_vec();
    let mut slow_head = vec![b("HTTP/1.1 200 OK\r\n")];
    slow_head.extend(
        b("X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
            .chunks(1)
            .map(<[u8]>::to_vec),
    );
    let cases: Vec<(&str, Vec<Vec<u8>>, Duration, bool)> = vec![
        (
            "slow-loris head",
            slow_head,
            Duration::from_millis(300),
            true,
        ),
        (
            "100 Continue for ever",
            vec![b("HTTP/1.1 100 Continue\r\n\r\n")],
            Duration::from_millis(100),
            true,
        ),
        (
            "short body, long length",
            vec![b("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nabc")],
            Duration::from_millis(100),
            false,
        ),
        (
            "chunk of 2^60",
            vec![b(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\nabc",
            )],
            Duration::from_millis(100),
            false,
        ),
        (
            "negative chunk",
            vec![b(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabc",
            )],
            Duration::from_millis(100),
            false,
        ),
        (
            "chunk not hex",
            vec![b(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc",
            )],
            Duration::from_millis(100),
            false,
        ),
        (
            "endless headers",
            vec![
                b("HTTP/1.1 200 OK\r\n"),
                b("X-More: 0123456789012345678901234567890123456789\r\n"),
            ],
            Duration::from_millis(5),
            true,
        ),
    ];
    for (what, script, pause, repeat) in cases {
        let port = hostile_server(script, pause, repeat);
        let url = format!("http://127.0.0.1:{port}");
        let m = Machine::new("hang-http");
        common::faults::aws_dmi(&m);
        common::faults::cloud_target(&m, "");
        m.cmdline(&format!(
            "ro ember.metadata-url={url} ember.metadata-timeout=2"
        ));
        let start = Instant::now();
        let (out, ended) = initrd(&m);
        let took = start.elapsed();
        assert!(ended, "{what}: ember-initrd hung");
        eprintln!(
            "{what}: ended after {took:?}: {}",
            stderr(&out)
                .lines()
                .find(|l| l.contains(&url))
                .unwrap_or("")
        );
        assert!(took < Duration::from_secs(6), "{what}: {took:?}");
        m.fell_back(&out);
        assert!(
            stderr(&out).contains(&url),
            "{what}: the URL is named: {}",
            stderr(&out)
        );
        assert_eq!(
            m.status()["instance_id"],
            "iid-datasource-none",
            "{what}: provisioned"
        );
    }
}

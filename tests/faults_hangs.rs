//! Fault suite, hangs (RELIABILITY.md rule 9: every input has a deadline): files that are not
//! regular files where ember reads one. A FIFO or a character device given to `#include
//! file://`, as a seed file given by path, or planted as a state file (status.json,
//! handoff.json) must end the read at once with an error naming the path and what it is,
//! never block; `status --wait --timeout` bounds the whole command. Every child here is
//! killed after a bound, so a regression fails instead of hanging the suite.

mod common;
use common::{stderr, Machine};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd`, killing it after `bound`: its output, and whether it ended by itself in time.
fn run_bounded(cmd: &mut Command, bound: Duration) -> (Output, bool) {
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
    (child.wait_with_output().unwrap(), ended)
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
    std::fs::write(m.host.join("part.cfg"), "#cloud-config\nhostname: included\n").unwrap();
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
    assert!(err.contains("file:///run/initctl") && err.contains("FIFO"), "{err}");
    assert!(err.contains("file:///dev/zero") && err.contains("character device"), "{err}");
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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ember"));
    cmd.arg("--target").arg(&m.target).arg("--run").arg(&m.run).args(args);
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
    assert!(start.elapsed() < Duration::from_secs(4), "{:?}", start.elapsed());
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
        assert!(err.contains("handoff.json") && err.contains("FIFO"), "{args:?}: {err}");
        common::assert_no_panic(&out);
    }
}

//! The built `ember` binary's `status` command against a temp run directory: the words,
//! the exit codes, `--wait` on dead and live stages, and the `cloud-init` name.

use crate::common;
use ember::error::{Diag, Reason};
use ember::status::{StageState, StageStatus, Status, STAGES};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Above the kernel's largest pid_max (2^22): never a live process.
const DEAD_PID: u32 = 4_194_305;

struct RunDir(PathBuf);

impl RunDir {
    fn new(name: &str) -> RunDir {
        let dir =
            std::env::temp_dir().join(format!("ember-cli-status-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("ember")).unwrap();
        std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
        RunDir(dir)
    }
    fn write(&self, st: &Status) {
        std::fs::write(
            self.0.join("ember/status.json"),
            serde_json::to_vec(st).unwrap(),
        )
        .unwrap();
    }
    /// The handoff the local stage leaves for the runner's units (their condition).
    fn handoff(&self) {
        std::fs::write(self.0.join("ember/handoff.json"), b"{}").unwrap();
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `n` stages done in boot order, then optionally the next one in `last` state.
fn upto(n: usize, last: Option<(StageState, u32)>) -> Status {
    let mut st = Status::new();
    st.datasource = Some("nocloud".into());
    st.datasource_detail = Some("DataSourceNoCloud [seed=/dev/sr0]".into());
    for (i, name) in STAGES.iter().take(n).enumerate() {
        let mut s = StageStatus::started(1.0 + i as f64, 1_708_550_000.0 + i as f64, 1);
        s.state = StageState::Done;
        s.finished = Some(1.5 + i as f64);
        s.duration_us = Some(500_000);
        st.stages.insert(name.to_string(), s);
    }
    if let Some((state, pid)) = last {
        let mut s = StageStatus::started(1.0 + n as f64, 1_708_550_000.0, pid);
        s.state = state;
        st.stages.insert(STAGES[n].to_string(), s);
    }
    st
}

fn ember(bin: &Path, run: &RunDir, args: &[&str]) -> Output {
    common::run(Command::new(bin).args(args).arg("--run").arg(&run.0))
}

fn status(run: &RunDir, args: &[&str]) -> (String, String, i32) {
    let mut all = vec!["status"];
    all.extend_from_slice(args);
    let out = ember(Path::new(common::EMBER), run, &all);
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap(),
    )
}

#[test]
fn done() {
    let run = RunDir::new("done");
    run.write(&upto(5, None));
    assert_eq!(
        status(&run, &[]),
        ("status: done\n".into(), String::new(), 0)
    );
    let (out, _, code) = status(&run, &["--long"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("status: done\nextended_status: done\nboot_status_code: enabled\n"),
        "{out}"
    );
    assert!(out.contains("\nlast_update: Wed, 21 Feb 2024 "), "{out}");
    assert!(out.contains(
        "\ndetail: DataSourceNoCloud [seed=/dev/sr0]\nerrors: []\nrecoverable_errors: {}\n"
    ));
    assert!(out.contains("\tconfig   done"), "{out}");
}

#[test]
fn error_and_degraded() {
    let run = RunDir::new("error");
    let mut st = upto(5, None);
    let local = st.stages.get_mut("local").unwrap();
    local.record(Diag::error(Reason::WriteFailed, "cannot write").file("/etc/hostname"));
    run.write(&st);
    let (out, _, code) = status(&run, &["--long"]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("status: error\nextended_status: error - done\n"),
        "{out}"
    );
    assert!(
        out.contains("errors:\n\t- /etc/hostname: cannot write\n"),
        "{out}"
    );

    let run = RunDir::new("degraded");
    let mut st = upto(5, None);
    let fetch = st.stages.get_mut("fetch").unwrap();
    fetch.record(Diag::warning(Reason::UnknownKey, "unknown key").key("foo"));
    run.write(&st);
    let (out, _, code) = status(&run, &["--long"]);
    assert_eq!(code, 2);
    assert!(
        out.starts_with("status: done\nextended_status: degraded done\n"),
        "{out}"
    );
    assert!(
        out.contains("recoverable_errors:\nWARNING:\n\t- foo: unknown key\n"),
        "{out}"
    );
}

#[test]
fn disabled_and_not_started() {
    let run = RunDir::new("not-started");
    assert_eq!(
        status(&run, &[]),
        ("status: not started\n".into(), String::new(), 0)
    );

    std::fs::write(run.0.join("cloud-init/disabled"), "").unwrap();
    assert_eq!(status(&run, &[]).0, "status: disabled\n");

    let run = RunDir::new("disabled");
    let mut st = Status::new();
    st.disabled = Some("kernel command line: ember=disabled".into());
    run.write(&st);
    let (out, _, code) = status(&run, &["--long"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("boot_status_code: disabled-by-kernel-cmdline\n"),
        "{out}"
    );
}

#[test]
fn json_and_yaml_carry_cloud_init_keys() {
    let run = RunDir::new("json");
    run.write(&upto(5, None));
    let (out, _, code) = status(&run, &["--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "boot_status_code",
        "datasource",
        "detail",
        "errors",
        "extended_status",
        "last_update",
        "recoverable_errors",
        "status",
        "init-local",
        "init",
        "modules-config",
        "modules-final",
        "stage",
        "ember_stages",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {out}");
    }
    assert_eq!(v["datasource"], "nocloud");
    assert_eq!(v["modules-final"]["finished"], 5.5);
    assert_eq!(v["ember_stages"]["final"]["duration_ms"], 500);

    let (out, _, _) = status(&run, &["--format", "yaml"]);
    assert!(out.starts_with("---\nboot_status_code: enabled\n"), "{out}");
    assert!(out.contains("\nstatus: done\n...\n"), "{out}");
}

#[test]
fn wait_ends_at_once_on_a_dead_stage() {
    let run = RunDir::new("dead");
    run.write(&upto(3, Some((StageState::Running, DEAD_PID))));
    let t = Instant::now();
    let (out, _, code) = status(&run, &["--wait", "--long", "--timeout", "30"]);
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(code, 1);
    assert!(out.starts_with("\nstatus: error\n"), "{out}");
    assert!(
        out.contains(&format!("stage config died: pid {DEAD_PID} is gone")),
        "{out}"
    );
}

#[test]
fn wait_gives_up_on_a_stage_that_never_starts() {
    let run = RunDir::new("grace");
    run.write(&upto(3, None));
    run.handoff();
    let (out, _, code) = status(&run, &["--wait", "--long", "--grace", "0"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("stage config not started within 0s of stage local finishing"),
        "{out}"
    );
}

#[test]
fn wait_times_out_on_a_live_stage() {
    let run = RunDir::new("live");
    run.write(&upto(3, Some((StageState::Running, std::process::id()))));
    let t = Instant::now();
    let (out, err, code) = status(&run, &["--wait", "--timeout", "1"]);
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(code, 1);
    assert!(
        out.starts_with('.') && out.ends_with("\nstatus: running\n"),
        "{out}"
    );
    assert!(err.contains("timed out after 1s"), "{err}");
}

/// Expected: `--host` names the system whose /proc the stages' pids live in and whose
/// command line can disable ember: a pid alive here is gone in a host tree without it, and
/// the tree's `cloud-init=disabled` answers "disabled".
#[test]
fn the_host_tree_decides_live_pids_and_the_command_line() {
    let run = RunDir::new("host");
    let host = run.0.join("host");
    std::fs::create_dir_all(host.join("proc")).unwrap();
    run.write(&upto(3, Some((StageState::Running, std::process::id()))));
    let (out, _, code) = status(&run, &["--long", "--host", host.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("is gone"), "{out}");

    std::fs::create_dir_all(host.join(format!("proc/{}", std::process::id()))).unwrap();
    let (out, _, code) = status(&run, &["--host", host.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, "status: running\n"));

    std::fs::remove_file(run.0.join("ember/status.json")).unwrap();
    std::fs::write(host.join("proc/cmdline"), "ro cloud-init=disabled\n").unwrap();
    let (out, _, _) = status(&run, &["--host", host.to_str().unwrap()]);
    assert_eq!(out, "status: disabled\n");
}

#[test]
fn answers_as_cloud_init() {
    let run = RunDir::new("symlink");
    run.write(&upto(5, None));
    let link = run.0.join("cloud-init-bin");
    std::fs::create_dir_all(&link).unwrap();
    let link = link.join("cloud-init");
    std::os::unix::fs::symlink(common::EMBER, &link).unwrap();
    let out = ember(&link, &run, &["status"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "status: done\n");
    assert_eq!(out.status.code(), Some(0));

    // Global flags also before the command; an unknown command is a usage error (2).
    let out = common::run(Command::new(&link).arg("--run").arg(&run.0).arg("bogus"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("usage: cloud-init ")
            && err.contains("cloud-init: error: unknown command 'bogus'"),
        "{err}"
    );
    let out = common::run(Command::new(&link).arg("--version"));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("cloud-init "));
}

#[test]
fn garbled_status_is_an_error_not_a_wait() {
    let run = RunDir::new("garbled");
    std::fs::write(
        run.0.join("ember/status.json"),
        "{\"version\": 1, \"stages\": {",
    )
    .unwrap();
    let (_, err, code) = status(&run, &["--wait"]);
    assert_eq!(code, 1);
    assert!(err.contains("status.json"), "{err}");
}

/// One end state: its name, status.json (if any), extra flags, what is said, the exit code.
type EndState<'a> = (&'a str, Option<Status>, &'a [&'a str], &'a str, i32);

/// `status --wait --timeout 10` in every end state: each answers at once (well within the
/// timeout) with its word and cloud-init's exit code. An initramfs stage whose process died
/// mid-way is an error, as is a boot that recorded nothing once the grace period is over.
#[test]
fn wait_answers_at_once_in_every_end_state() {
    let mut degraded = upto(5, None);
    let fetch = degraded.stages.get_mut("fetch").unwrap();
    fetch.record(Diag::warning(Reason::UnknownKey, "unknown key").key("foo"));
    let mut error = upto(5, None);
    let local = error.stages.get_mut("local").unwrap();
    local.record(Diag::error(Reason::WriteFailed, "cannot write").file("/etc/hostname"));
    let mut disabled = Status::new();
    disabled.disabled = Some("kernel command line: ember=disabled".into());
    let cases: [EndState; 9] = [
        ("done", Some(upto(5, None)), &[], "status: done", 0),
        ("degraded", Some(degraded), &[], "status: done", 2),
        ("errors", Some(error), &[], "status: error", 1),
        ("disabled", Some(disabled), &[], "status: disabled", 0),
        (
            "fetch-died",
            Some(upto(1, Some((StageState::Running, DEAD_PID)))),
            &[],
            "stage fetch died",
            1,
        ),
        (
            "local-died",
            Some(upto(2, Some((StageState::Running, DEAD_PID)))),
            &[],
            "stage local died",
            1,
        ),
        (
            "runner-never",
            Some(upto(3, None)),
            &["--grace", "0"],
            "stage config not started",
            1,
        ),
        ("nothing", None, &["--grace", "0"], "status: not started", 1),
        // The local stage left no handoff: the runner's units never start, no grace to wait.
        (
            "no-handoff",
            Some(upto(3, None)),
            &[],
            "stage local left no handoff",
            1,
        ),
    ];
    for (name, st, extra, says, code) in cases {
        let run = RunDir::new(&format!("every-{name}"));
        if let Some(st) = st {
            run.write(&st);
        }
        if name == "runner-never" {
            run.handoff();
        }
        let mut args = vec!["--wait", "--long", "--timeout", "10"];
        args.extend_from_slice(extra);
        let t = Instant::now();
        let (out, err, got) = status(&run, &args);
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "{name}: {:?}",
            t.elapsed()
        );
        assert_eq!(got, code, "{name}: {out}{err}");
        assert!(out.contains(says), "{name}: {out}");
    }
}

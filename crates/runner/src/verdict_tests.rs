//! Table tests for `verdict::derive`: status.json contents → (status, extended status, exit).

use super::*;
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::StageStatus;

const LIVE: u32 = 100;
const DEAD: u32 = 200;

fn alive(pid: u32) -> bool {
    pid == LIVE
}

fn stage(state: StageState, start: f64, pid: u32) -> StageStatus {
    let mut s = StageStatus::started(start, 1_700_000_000.0 + start, pid);
    s.state = state;
    if state != StageState::Running {
        s.finished = Some(start + 0.5);
        s.duration_us = Some(500_000);
    }
    s
}

/// A status with `n` stages done (in boot order), then optionally one in `last` state.
fn upto(n: usize, last: Option<(StageState, u32)>) -> Status {
    let mut st = Status::new();
    for (i, name) in STAGES.iter().take(n).enumerate() {
        st.stages
            .insert(name.to_string(), stage(StageState::Done, i as f64, 1));
    }
    if let Some((state, pid)) = last {
        st.stages
            .insert(STAGES[n].to_string(), stage(state, n as f64, pid));
    }
    st
}

fn with(mut st: Status, f: impl FnOnce(&mut Status)) -> Status {
    f(&mut st);
    st
}

fn words(st: Option<&Status>, marker: bool, now: f64) -> (String, String, i32) {
    let obs = Observed {
        status: st,
        marker_disabled: marker,
        cmdline_disabled: false,
        initramfs_over: false,
        handoff: true,
        now,
        grace: 300.0,
    };
    let v = derive(&obs, &alive);
    let (a, b) = v.words();
    (a, b, v.exit_code())
}

/// (name, status.json, disabled marker, boot time now, (status, extended status, exit code))
type Case = (
    &'static str,
    Option<Status>,
    bool,
    f64,
    (&'static str, &'static str, i32),
);

#[test]
fn table() {
    let warn = |st: &mut Status| {
        let s = st.stages.get_mut("fetch").unwrap();
        s.record(Diag::warning(Reason::UnknownKey, "unknown key").key("foo"));
    };
    let fail = |st: &mut Status| {
        let s = st.stages.get_mut("local").unwrap();
        s.record(Diag::error(Reason::WriteFailed, "cannot write").file("/etc/hostname"));
    };
    let cases: Vec<Case> = vec![
        (
            "no file",
            None,
            false,
            10.0,
            ("not started", "not started", 0),
        ),
        ("marker only", None, true, 10.0, ("disabled", "disabled", 0)),
        (
            "all done",
            Some(upto(5, None)),
            false,
            10.0,
            ("done", "done", 0),
        ),
        (
            "final skipped",
            Some(upto(4, Some((StageState::Skipped, 1)))),
            false,
            10.0,
            ("done", "done", 0),
        ),
        (
            "degraded done",
            Some(with(upto(5, None), warn)),
            false,
            10.0,
            ("done", "degraded done", 2),
        ),
        (
            "error done",
            Some(with(upto(5, None), fail)),
            false,
            10.0,
            ("error", "error - done", 1),
        ),
        (
            "running live",
            Some(upto(3, Some((StageState::Running, LIVE)))),
            false,
            10.0,
            ("running", "running", 0),
        ),
        (
            "degraded running",
            Some(with(upto(3, Some((StageState::Running, LIVE))), warn)),
            false,
            10.0,
            ("running", "degraded running", 2),
        ),
        (
            "running, pid unknown",
            Some(upto(3, Some((StageState::Running, 0)))),
            false,
            1e6,
            ("running", "running", 0),
        ),
        (
            "running dead",
            Some(upto(3, Some((StageState::Running, DEAD)))),
            false,
            10.0,
            ("error", "error - done", 1),
        ),
        (
            "initrd done, within grace",
            Some(upto(3, None)),
            false,
            100.0,
            ("running", "running", 0),
        ),
        (
            "initrd done, grace over",
            Some(upto(3, None)),
            false,
            400.0,
            ("error", "error - done", 1),
        ),
        (
            "disabled by cmdline",
            Some(with(Status::new(), |st| {
                st.disabled = Some("kernel command line: ember=disabled".into())
            })),
            false,
            10.0,
            ("disabled", "disabled", 0),
        ),
        (
            "empty status",
            Some(Status::new()),
            false,
            10.0,
            ("not started", "not started", 0),
        ),
    ];
    for (name, st, marker, now, (status, ext, code)) in cases {
        let got = words(st.as_ref(), marker, now);
        assert_eq!(got, (status.into(), ext.into(), code), "case {name}");
    }
}

#[test]
fn boot_status_codes() {
    assert_eq!(
        disabled_code(Some("kernel command line: ember=disabled")),
        "disabled-by-kernel-cmdline"
    );
    assert_eq!(
        disabled_code(Some("/etc/cloud/cloud-init.disabled exists")),
        "disabled-by-marker-file"
    );
    assert_eq!(
        disabled_code(Some("environment KERNEL_CMDLINE=cloud-init=disabled")),
        "disabled-by-environment-variable"
    );
    assert_eq!(disabled_code(None), "disabled-by-generator");
}

#[test]
fn dead_stage_and_missing_stage_are_named() {
    let st = upto(3, Some((StageState::Running, DEAD)));
    let obs = Observed {
        status: Some(&st),
        marker_disabled: false,
        cmdline_disabled: false,
        initramfs_over: false,
        handoff: true,
        now: 10.0,
        grace: 300.0,
    };
    let v = derive(&obs, &alive);
    assert!(v.settled());
    assert_eq!(
        v.errors,
        vec!["stage config died: pid 200 is gone".to_string()]
    );
    assert_eq!(v.stages[3].state, "died");

    let st = upto(3, None);
    let obs = Observed {
        now: 400.0,
        status: Some(&st),
        ..obs
    };
    let v = derive(&obs, &alive);
    assert_eq!(
        v.errors,
        vec!["stage config not started within 300s of stage local finishing".to_string()]
    );
    assert_eq!(v.stages[3].state, "never started");
    assert_eq!(v.stages[0].duration_ms, Some(500));
}

#[test]
fn missing_status_goes_stale_after_grace() {
    let obs = Observed {
        status: None,
        marker_disabled: false,
        cmdline_disabled: false,
        initramfs_over: false,
        handoff: true,
        now: 10.0,
        grace: 300.0,
    };
    assert!(!derive(&obs, &alive).settled());
    let obs = Observed { now: 301.0, ..obs };
    assert!(derive(&obs, &alive).settled());
}

#[test]
fn detail_and_last_update() {
    let st = with(upto(5, None), |st| {
        st.datasource = Some("nocloud".into());
        st.datasource_detail = Some("DataSourceNoCloud [seed=/dev/sr0]".into());
    });
    let obs = Observed {
        status: Some(&st),
        marker_disabled: false,
        cmdline_disabled: false,
        initramfs_over: false,
        handoff: true,
        now: 10.0,
        grace: 300.0,
    };
    let v = derive(&obs, &alive);
    assert_eq!(v.detail, "DataSourceNoCloud [seed=/dev/sr0]");
    assert_eq!(v.datasource.as_deref(), Some("nocloud"));
    // final started at 4.0 (wall 1_700_000_004) and finished half a second later.
    assert_eq!(v.last_update, Some(1_700_000_004.5));

    let st = upto(3, Some((StageState::Running, LIVE)));
    let obs = Observed {
        status: Some(&st),
        ..obs
    };
    assert_eq!(
        derive(&obs, &alive).detail,
        "Running in stage: modules-config"
    );
}

#[test]
fn disabled_on_the_command_line_without_any_status_is_disabled_not_waiting() {
    let obs = Observed {
        status: None,
        marker_disabled: false,
        cmdline_disabled: true,
        initramfs_over: false,
        handoff: true,
        now: 1000.0,
        grace: 300.0,
    };
    let v = derive(&obs, &alive);
    assert_eq!(v.words().0, "disabled");
    assert_eq!(v.boot_status_code, "disabled-by-kernel-cmdline");
    assert!(v.settled() && !v.stale);
    assert_eq!(v.exit_code(), 0);
}

#[test]
fn local_stage_missing_after_the_pivot_is_over_not_awaited() {
    let mut st = Status::new();
    for (i, name) in ["detect", "fetch"].iter().enumerate() {
        let mut s = StageStatus::started(1.0 + i as f64, 1_708_550_000.0, 1);
        s.state = StageState::Done;
        s.finished = Some(1.5 + i as f64);
        st.stages.insert(name.to_string(), s);
    }
    let mut obs = Observed {
        status: Some(&st),
        marker_disabled: false,
        cmdline_disabled: false,
        initramfs_over: false,
        handoff: true,
        now: 10.0,
        grace: 300.0,
    };
    assert_eq!(
        derive(&obs, &alive).words().0,
        "running",
        "in the initramfs: wait"
    );
    obs.initramfs_over = true;
    let v = derive(&obs, &alive);
    assert!(v.settled());
    assert_eq!(v.words().1, "error - done");
    assert!(
        v.errors.iter().any(|e| e.contains("stage local never ran")),
        "{:?}",
        v.errors
    );
}

/// The local stage ended without a handoff (its fetch failed, no datasource was found): the
/// runner's units never start, so `--wait` ends at once rather than after the grace period,
/// with what the record says, or an error of its own when the record says nothing.
#[test]
fn no_handoff_after_the_local_stage_is_over_not_awaited() {
    let fetch_failed = with(upto(3, None), |st| {
        let s = st.stages.get_mut("fetch").unwrap();
        s.record(Diag::error(Reason::MetadataUnreachable, "no answer").file("datasource ec2"));
    });
    let no_datasource = with(upto(3, None), |st| {
        let s = st.stages.get_mut("fetch").unwrap();
        s.record(Diag::warning(Reason::NoDatasource, "no datasource found"));
    });
    let silent = upto(3, None);
    let cases = [
        (&fetch_failed, "error - done", 1),
        (&no_datasource, "degraded done", 2),
        (&silent, "error - done", 1),
    ];
    for (st, extended, exit) in cases {
        let mut obs = Observed {
            status: Some(st),
            marker_disabled: false,
            cmdline_disabled: false,
            initramfs_over: true,
            handoff: false,
            now: 10.0,
            grace: 300.0,
        };
        let v = derive(&obs, &alive);
        assert!(v.settled(), "{extended}");
        assert_eq!((v.words().1.as_str(), v.exit_code()), (extended, exit));
        assert_eq!(v.stages[3].state, "never started");
        assert_eq!(v.stages[4].state, "never started");
        // With a handoff the runner's stages are on their way: wait for them.
        obs.handoff = true;
        assert_eq!(derive(&obs, &alive).running, Phase::Running, "{extended}");
    }
}

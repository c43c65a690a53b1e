//! What `ember status` reports, derived from ember's status.json the way cloud-init words it
//! (`done`, `error - done`, `degraded running`, ...) with its exit code. Pure: the clock, the
//! grace period and the process table come in as arguments; nothing here reads a file.

use crate::status::{cloud_init_stage, StageState, Status, STAGES};
use std::collections::BTreeMap;

/// cloud-init's running status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    NotStarted,
    Running,
    Done,
    Disabled,
}

impl Phase {
    pub fn word(self) -> &'static str {
        match self {
            Phase::NotStarted => "not started",
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Disabled => "disabled",
        }
    }
}

/// cloud-init's condition: errors make `error`, recoverable errors only make `degraded`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    Healthy,
    Degraded,
    Error,
}

/// One of ember's stages as seen now, for the `--long` table and `ember_stages`.
#[derive(Clone, Debug, PartialEq)]
pub struct StageView {
    pub name: &'static str,
    /// `done`, `skipped`, `running`, `died`, `not started`.
    pub state: &'static str,
    pub duration_ms: Option<u64>,
    pub errors: usize,
    pub recoverable_errors: usize,
}

/// The inputs besides status.json.
#[derive(Clone, Copy, Debug)]
pub struct Observed<'a> {
    pub status: Option<&'a Status>,
    /// `<run>/cloud-init/disabled` exists.
    pub marker_disabled: bool,
    /// The kernel command line disables ember (`ember=disabled`, `cloud-init=disabled`): the
    /// initramfs then skips ember-initrd altogether, so no status.json says so.
    pub cmdline_disabled: bool,
    /// This process runs in the real root, not the initramfs: an initramfs stage that has not
    /// started by now never will.
    pub initramfs_over: bool,
    /// `<run>/ember/handoff.json` exists. The runner's units start only when it does
    /// (`ConditionPathExists=`), and the local stage writes it before it finishes.
    pub handoff: bool,
    /// CLOCK_BOOTTIME now, in seconds: the clock status.json's times are on.
    pub now: f64,
    /// How long a stage may take to start after the previous one finished.
    pub grace: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub running: Phase,
    pub condition: Condition,
    pub boot_status_code: &'static str,
    pub detail: String,
    pub datasource: Option<String>,
    pub errors: Vec<String>,
    /// Keyed by level (`WARNING`, `DEPRECATED`), as cloud-init has it.
    pub recoverable_errors: BTreeMap<String, Vec<String>>,
    /// Wall clock (seconds since the epoch) of the latest start or finish recorded.
    pub last_update: Option<f64>,
    pub stages: Vec<StageView>,
    /// Nothing was recorded and the grace period since boot is over: waiting is pointless.
    pub stale: bool,
}

impl Verdict {
    /// `(status, extended_status)`: `status` keeps the plain running word for `degraded`,
    /// for the scripts that compare it, while `extended_status` says everything.
    pub fn words(&self) -> (String, String) {
        let word = self.running.word();
        match self.condition {
            Condition::Error => ("error".into(), format!("error - {word}")),
            Condition::Degraded if matches!(self.running, Phase::Done | Phase::Running) => {
                (word.into(), format!("degraded {word}"))
            }
            _ => (word.into(), word.into()),
        }
    }

    /// cloud-init 23.4 and later: 0 success, 1 unrecoverable error, 2 recoverable error.
    pub fn exit_code(&self) -> i32 {
        match self.condition {
            Condition::Healthy => 0,
            Condition::Error => 1,
            Condition::Degraded => 2,
        }
    }

    /// Whether `--wait` can stop: nothing is running or about to run.
    pub fn settled(&self) -> bool {
        self.stale || !matches!(self.running, Phase::NotStarted | Phase::Running)
    }
}

/// cloud-init's boot status code for ember's reason text (`kernel command line: ...`).
fn disabled_code(reason: Option<&str>) -> &'static str {
    let Some(reason) = reason else {
        // Only `<run>/cloud-init/disabled` says so: cloud-init's generator writes that file.
        return "disabled-by-generator";
    };
    let lower = reason.to_ascii_lowercase();
    if lower.contains("environment") {
        "disabled-by-environment-variable"
    } else if lower.contains("command line") || lower.contains("cmdline") {
        "disabled-by-kernel-cmdline"
    } else {
        "disabled-by-marker-file"
    }
}

/// Derives the verdict. `alive(pid)` says whether a process still exists; pid 0 means the
/// writer did not know its pid, so such a stage is trusted and only `--timeout` bounds it.
pub fn derive(obs: &Observed<'_>, alive: &dyn Fn(u32) -> bool) -> Verdict {
    let mut v = Verdict {
        running: Phase::NotStarted,
        condition: Condition::Healthy,
        boot_status_code: "unknown",
        detail: "ember-initrd has recorded no status on this boot".into(),
        datasource: None,
        errors: Vec::new(),
        recoverable_errors: BTreeMap::new(),
        last_update: None,
        stages: Vec::new(),
        stale: false,
    };
    let Some(st) = obs.status else {
        if obs.cmdline_disabled {
            v.running = Phase::Disabled;
            v.boot_status_code = "disabled-by-kernel-cmdline";
            v.detail = "disabled on the kernel command line".into();
        } else if obs.marker_disabled {
            v.running = Phase::Disabled;
            v.boot_status_code = disabled_code(None);
            v.detail = "disabled by the cloud-init/disabled marker".into();
        } else {
            v.stale = obs.now > obs.grace;
        }
        return v;
    };
    v.boot_status_code = "enabled";
    v.detail = "ember enabled".into();
    v.datasource = st.datasource.clone();

    let mut any_running = false;
    let mut died = false;
    let mut last_present = None;
    let mut since = 0.0_f64;
    let mut latest: Option<(f64, f64)> = None; // (boot time, wall time)
    let mut synthetic = Vec::new();
    for (i, name) in STAGES.iter().enumerate() {
        let Some(s) = st.stages.get(*name) else {
            v.stages.push(view(name, "not started", None, 0, 0));
            continue;
        };
        last_present = Some(i);
        let state = match s.state {
            StageState::Done => "done",
            StageState::Skipped => "skipped",
            StageState::Running if s.pid == 0 || alive(s.pid) => {
                any_running = true;
                "running"
            }
            StageState::Running => {
                died = true;
                synthetic.push(format!("stage {name} died: pid {} is gone", s.pid));
                "died"
            }
        };
        let event = s.finished.unwrap_or(s.start).max(s.start);
        since = since.max(event);
        if latest.is_none_or(|(t, _)| event > t) {
            latest = Some((event, s.start_wall + (event - s.start)));
        }
        let duration_ms = s.duration_us.map(|us| us / 1000).or_else(|| {
            s.finished
                .map(|f| ((f - s.start).max(0.0) * 1000.0).round() as u64)
        });
        let n_rec = s.recoverable_errors.len();
        v.stages
            .push(view(name, state, duration_ms, s.errors.len(), n_rec));
        v.errors.extend(s.errors.iter().map(|d| d.to_string()));
        for d in &s.recoverable_errors {
            let level = match d.severity {
                crate::error::Severity::Deprecated => "DEPRECATED",
                _ => "WARNING",
            };
            let list = v.recoverable_errors.entry(level.to_string()).or_default();
            list.push(d.to_string());
        }
    }
    v.last_update = latest.map(|(_, wall)| wall);

    let final_done = st
        .stages
        .get("final")
        .is_some_and(|s| s.state != StageState::Running);
    v.running = if st.disabled.is_some() || obs.marker_disabled {
        v.boot_status_code = disabled_code(st.disabled.as_deref());
        v.detail = match &st.disabled {
            Some(reason) => format!("disabled by {reason}"),
            None => "disabled by the cloud-init/disabled marker".into(),
        };
        Phase::Disabled
    } else if final_done {
        Phase::Done
    } else if any_running {
        Phase::Running
    } else if died {
        // Like cloud-init when systemd reports a failed unit: over, with an error.
        Phase::Done
    } else if let Some(i) = last_present.filter(|i| i + 1 < STAGES.len()) {
        // Between stages: the next one has the grace period to show up.
        let (prev, next) = (STAGES[i], STAGES[i + 1]);
        let initramfs_stage = matches!(next, "fetch" | "local");
        if initramfs_stage && obs.initramfs_over {
            synthetic.push(format!(
                "stage {next} never ran: the initramfs ended after stage {prev} (is ember's hook for it installed?)"
            ));
            v.stages[i + 1].state = "never started";
            Phase::Done
        } else if prev == "local" && !obs.handoff {
            // The local stage finished and left no handoff: the runner's units will not
            // start, so there is nothing to wait for. What stopped it is in its record; a
            // record that says nothing gets an error, so no waiter reads this as success.
            if v.errors.is_empty() && v.recoverable_errors.is_empty() {
                synthetic.push(
                    "stage local left no handoff: the runner's stages do not run this boot".into(),
                );
            }
            for s in &mut v.stages[i + 1..] {
                s.state = "never started";
            }
            Phase::Done
        } else if obs.now - since > obs.grace {
            synthetic.push(format!(
                "stage {next} not started within {}s of stage {prev} finishing",
                obs.grace
            ));
            v.stages[i + 1].state = "never started";
            Phase::Done
        } else {
            Phase::Running
        }
    } else {
        v.stale = obs.now > obs.grace;
        Phase::NotStarted
    };
    v.errors.extend(synthetic);
    v.condition = if !v.errors.is_empty() {
        Condition::Error
    } else if !v.recoverable_errors.is_empty() {
        Condition::Degraded
    } else {
        Condition::Healthy
    };
    if let Some(d) = &st.datasource_detail {
        v.detail = d.clone();
    } else if let Some((name, _)) = st.running_stage().filter(|_| any_running) {
        v.detail = format!(
            "Running in stage: {}",
            cloud_init_stage(name).unwrap_or(name)
        );
    }
    v
}

fn view(name: &'static str, state: &'static str, ms: Option<u64>, e: usize, r: usize) -> StageView {
    StageView {
        name,
        state,
        duration_ms: ms,
        errors: e,
        recoverable_errors: r,
    }
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;

//! ember's own status (`<run>/ember/status.json`): one record per stage, written by both
//! binaries, read by `ember status` and `analyze`. Also its projection into cloud-init's
//! `/run/cloud-init/status.json` shape, which outside tools read directly.

use crate::error::{Diag, Severity};
use crate::reason::Reason;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Stage names, in boot order. The first three run in the initramfs, the last two in the runner.
pub const STAGES: [&str; 5] = ["detect", "fetch", "local", "config", "final"];

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub version: u32,
    /// Set when ember (or cloud-init) is disabled: why, e.g. `kernel command line: ember=disabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<String>,
    /// Datasource short name (`nocloud`) once one was chosen; `none` when none was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasource: Option<String>,
    /// cloud-init's long description, e.g. `DataSourceNoCloud [seed=/dev/sr0]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasource_detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    /// True when this boot provisions a new instance.
    #[serde(default)]
    pub first_boot: bool,
    /// What detection matched: `{source: "cmdline", detail: "ds=nocloud"}`, ...
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// Keyed by the names in `STAGES`.
    #[serde(default)]
    pub stages: BTreeMap<String, StageStatus>,
    /// What this boot measured into the TPM before using it; absent when nothing was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
}

/// The inputs extended into a PCR (the manual: Measured provisioning). The PCR's values are
/// public anyway (anyone can read a PCR); each input's digest is only in the 0600 event log,
/// where it cannot be used to check a guess at one input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub pcr: u32,
    /// The TPM's active banks, each extended with every event: `sha256`.
    pub banks: Vec<String>,
    pub events: Vec<MeasuredEvent>,
    /// The PCR's value per bank once ember's events were extended (lowercase hex).
    #[serde(default)]
    pub values: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeasuredEvent {
    /// `user-data`.
    pub input: String,
    /// Whether the instance had it (an absent input is measured as absent).
    pub present: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Where it was seen: `cmdline`, `smbios-serial`, `dmi`, `label`, `seed-dir`, `config`.
    pub source: String,
    /// What matched: `ds=nocloud`, `sys_vendor=QEMU`, `/dev/sr0 iso9660 label cidata`.
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StageState {
    Running,
    Done,
    /// Skipped on purpose (disabled, or nothing to do on this boot).
    Skipped,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageStatus {
    pub state: StageState,
    /// Seconds since boot (CLOCK_BOOTTIME), as cloud-init records them.
    pub start: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<f64>,
    /// Wall clock at start, seconds since the epoch.
    pub start_wall: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_us: Option<u64>,
    /// PID of the process running the stage, so a waiter can tell a stage that died.
    pub pid: u32,
    #[serde(default)]
    pub errors: Vec<Diag>,
    #[serde(default)]
    pub recoverable_errors: Vec<Diag>,
    /// Timed steps within the stage (datasource fetch, user-data, one per module).
    #[serde(default)]
    pub steps: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    /// Seconds since boot when it started (its end is `start` + `duration_us`); absent for a
    /// step skipped without running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<f64>,
    pub duration_us: u64,
    /// `ok`, `error`, `skipped`.
    pub result: String,
}

impl StageStatus {
    pub fn started(start: f64, start_wall: f64, pid: u32) -> StageStatus {
        StageStatus {
            state: StageState::Running,
            start,
            finished: None,
            start_wall,
            duration_us: None,
            pid,
            errors: Vec::new(),
            recoverable_errors: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// Files a diagnostic under `errors` or `recoverable_errors` by its severity. Past
    /// `LISTED_DIAGS` in one list, the last entry counts the rest instead: a user-data with
    /// thousands of unknown keys must not print megabytes or bloat the status file.
    pub fn record(&mut self, diag: Diag) {
        let list = if diag.severity == Severity::Error {
            &mut self.errors
        } else {
            &mut self.recoverable_errors
        };
        if list.len() < LISTED_DIAGS {
            list.push(diag);
            return;
        }
        match list.last_mut() {
            Some(last) if last.code == NOT_LISTED => {
                last.message = not_listed(not_listed_count(last) + 1);
            }
            _ => list.push(Diag::new(diag.severity, NOT_LISTED, not_listed(1))),
        }
    }
}

fn not_listed(n: u64) -> String {
    format!("{n} more not listed")
}

/// How many diagnostics one stage lists per severity list; the rest are counted.
pub const LISTED_DIAGS: usize = 100;
const NOT_LISTED: Reason = Reason::DiagnosticsNotListed;

/// The count a `NOT_LISTED` entry holds (its message starts with it).
fn not_listed_count(diag: &Diag) -> u64 {
    let first = diag.message.split(' ').next().unwrap_or_default();
    first.parse().unwrap_or(0)
}

/// cloud-init's stage names for ember's stages: the initramfs does cloud-init's init-local
/// and init work, the runner its modules-config and modules-final.
pub fn cloud_init_stage(stage: &str) -> Option<&'static str> {
    match stage {
        "detect" | "fetch" | "local" => Some("init-local"),
        "config" => Some("modules-config"),
        "final" => Some("modules-final"),
        _ => None,
    }
}

impl Status {
    pub fn new() -> Status {
        Status {
            version: 1,
            ..Status::default()
        }
    }

    /// The stage currently marked running, if any.
    pub fn running_stage(&self) -> Option<(&str, &StageStatus)> {
        STAGES.iter().find_map(|name| {
            self.stages
                .get(*name)
                .filter(|s| s.state == StageState::Running)
                .map(|s| (*name, s))
        })
    }

    /// `/run/cloud-init/status.json`: `{"v1": {datasource, stage, init-local, init,
    /// modules-config, modules-final}}`. Times are seconds since boot; `recoverable_errors`
    /// is keyed by level (`WARNING`, `DEPRECATED`) with message strings, as cloud-init has it.
    pub fn to_cloud_init(&self) -> Value {
        let mut v1 = Map::new();
        let datasource = self.datasource_detail.clone().map(Value::String);
        v1.insert("datasource".into(), datasource.unwrap_or(Value::Null));
        let running = self.running_stage().and_then(|(s, _)| cloud_init_stage(s));
        v1.insert(
            "stage".into(),
            running.map(Value::from).unwrap_or(Value::Null),
        );
        let initrd = ["detect", "fetch", "local"];
        let init_local = self.merged(&initrd);
        // ember-initrd does the init stage's modules too, so `init` mirrors `init-local`.
        v1.insert("init-local".into(), init_local.clone());
        v1.insert("init".into(), init_local);
        v1.insert("modules-config".into(), self.merged(&["config"]));
        v1.insert("modules-final".into(), self.merged(&["final"]));
        json!({ "v1": v1 })
    }

    fn merged(&self, names: &[&str]) -> Value {
        let present: Vec<&StageStatus> = names.iter().filter_map(|n| self.stages.get(*n)).collect();
        let Some(first) = present.first() else {
            return json!({"errors": [], "recoverable_errors": {}, "start": null, "finished": null});
        };
        let all_done =
            present.len() == names.len() && present.iter().all(|s| s.state != StageState::Running);
        let finished = if all_done {
            present.last().and_then(|s| s.finished)
        } else {
            None
        };
        let errors: Vec<String> = present
            .iter()
            .flat_map(|s| s.errors.iter().map(|d| d.to_string()))
            .collect();
        let mut recoverable: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for diag in present.iter().flat_map(|s| s.recoverable_errors.iter()) {
            let level = match diag.severity {
                Severity::Deprecated => "DEPRECATED",
                _ => "WARNING",
            };
            recoverable.entry(level).or_default().push(diag.to_string());
        }
        json!({
            "errors": errors,
            "recoverable_errors": recoverable,
            "start": first.start,
            "finished": finished,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_listed_diags_one_entry_counts_the_rest() {
        let mut stage = StageStatus::started(1.0, 2.0, 3);
        for i in 0..LISTED_DIAGS + 30 {
            stage.record(Diag::warning(Reason::UnknownKey, "unknown key").key(format!("k{i}")));
        }
        stage.record(Diag::error(Reason::FetchFailed, "failed"));
        assert_eq!(stage.recoverable_errors.len(), LISTED_DIAGS + 1);
        let last = stage.recoverable_errors.last().unwrap();
        assert_eq!(last.code, NOT_LISTED);
        assert_eq!(last.message, "30 more not listed");
        assert_eq!(stage.errors.len(), 1, "errors are counted apart");
    }

    #[test]
    fn cloud_init_shape_merges_initrd_stages() {
        let mut st = Status::new();
        st.datasource_detail = Some("DataSourceNoCloud [seed=/dev/sr0]".into());
        for (i, name) in ["detect", "fetch", "local"].iter().enumerate() {
            let mut s = StageStatus::started(1.0 + i as f64, 0.0, 1);
            s.state = StageState::Done;
            s.finished = Some(1.5 + i as f64);
            st.stages.insert(name.to_string(), s);
        }
        st.stages
            .get_mut("fetch")
            .unwrap()
            .record(Diag::warning(Reason::UnknownKey, "unknown key").key("foo"));
        let v = st.to_cloud_init();
        assert_eq!(v["v1"]["init-local"]["start"], 1.0);
        assert_eq!(v["v1"]["init-local"]["finished"], 3.5);
        assert_eq!(
            v["v1"]["init"]["recoverable_errors"]["WARNING"][0],
            "foo: unknown key"
        );
        assert_eq!(v["v1"]["stage"], Value::Null);
        assert_eq!(v["v1"]["modules-final"]["finished"], Value::Null);
    }
}

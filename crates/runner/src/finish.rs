//! The end of the final stage: cloud-init's `result.json` (in the run directory and in the
//! target's /var/lib/cloud/data) and the instance's `boot-finished`, then the power change
//! `power_state_change` asked for. Both files are written before the stage is recorded done,
//! so a waiter released by status.json finds them.

use super::exec::Exec;
use crate::clock::{boot_seconds, wall_seconds};
use crate::date::format_utc;
use crate::error::{Diag, Severity};
use crate::paths::RunPaths;
use crate::record::Recorder;
use crate::root::FileSpec;
use crate::status::{Status, STAGES};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// `{"v1": {"datasource", "errors", "recoverable_errors"}}` over every stage of this boot.
pub fn result_json(st: &Status) -> Value {
    let stages = STAGES.iter().filter_map(|n| st.stages.get(*n));
    let mut errors = Vec::new();
    let mut recoverable: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for s in stages {
        errors.extend(s.errors.iter().map(Diag::to_string));
        for d in &s.recoverable_errors {
            let level = match d.severity {
                Severity::Deprecated => "DEPRECATED",
                _ => "WARNING",
            };
            recoverable.entry(level).or_default().push(d.to_string());
        }
    }
    json!({"v1": {
        "datasource": st.datasource_detail.clone().or_else(|| st.datasource.clone()),
        "errors": errors,
        "recoverable_errors": recoverable,
    }})
}

/// Writes boot-finished and both result.json files; failures are recorded in the stage.
pub fn write_results(rec: &mut Recorder, exec: &Exec, ci_instance: &str) {
    let root = exec.root();
    let line = format!(
        "{:.2} - {} - v. {}\n",
        boot_seconds(),
        format_utc(wall_seconds()),
        env!("CARGO_PKG_VERSION")
    );
    let spec = FileSpec::mode(0o644);
    let boot_finished = format!("{ci_instance}/boot-finished");
    if let Err(e) = root.write_file(&boot_finished, line.as_bytes(), &spec) {
        rec.record(Diag::error(e.code(), e.to_string()));
    }
    let result = serde_json::to_vec_pretty(&result_json(&rec.status)).unwrap_or_default();
    if let Err(e) = root.write_file(
        &crate::paths::system().cloud("data/result.json"),
        &result,
        &spec,
    ) {
        rec.record(Diag::error(e.code(), e.to_string()));
    }
    // Synced before the run directory's copy appears: that one tells waiters all is written.
    if let Err(e) = root.sync() {
        rec.record(Diag::error(e.code(), e.to_string()));
    }
    rec.write_run(RunPaths::CI_RESULT, &result, 0o644);
}

/// Runs (on the live system) or reports (on a target directory) the shutdown command.
pub fn power_change(exec: &Exec, argv: &[String]) {
    let shown = argv.join(" ");
    if !exec.is_live() {
        exec.say(&format!(
            "power_state: would run: {shown} (not run: --target is not /)"
        ));
        return;
    }
    exec.say(&format!("power_state: running: {shown}"));
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let outcome = exec.run(&args, &[]);
    if !outcome.ok() {
        eprintln!("ember: power_state: shutdown {}", outcome.describe());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::Reason;
    use crate::status::StageStatus;

    #[test]
    fn result_collects_every_stage() {
        let mut st = Status::new();
        st.datasource_detail = Some("DataSourceNoCloud [seed=/dev/sr0]".into());
        let mut fetch = StageStatus::started(1.0, 0.0, 1);
        fetch.record(Diag::warning(Reason::UnknownKey, "unknown key").key("foo"));
        let mut fin = StageStatus::started(2.0, 0.0, 1);
        fin.record(Diag::error(
            Reason::ScriptFailed,
            "script /x exited with status 1",
        ));
        st.stages.insert("fetch".into(), fetch);
        st.stages.insert("final".into(), fin);
        let v = result_json(&st);
        assert_eq!(
            v,
            json!({"v1": {
                "datasource": "DataSourceNoCloud [seed=/dev/sr0]",
                "errors": ["script /x exited with status 1"],
                "recoverable_errors": {"WARNING": ["foo: unknown key"]},
            }})
        );
    }
}

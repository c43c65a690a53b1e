//! The detect stage: decide, record the evidence, and leave `detect.json` for fetch.

use crate::context::Ctx;
use crate::datasource::choose;
use crate::detect::Detection;
use crate::error::Diag;
use crate::paths::RunPaths;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::FileSpec;
use crate::status::{StageState, StageStatus, Status};

pub fn run(ctx: &Ctx) -> (Detection, Status) {
    let detection = choose::detect(ctx);
    if let Some(reason) = &detection.disabled {
        return (detection.clone(), record_disabled(ctx, reason));
    }
    let mut rec = match Recorder::begin(&ctx.run, "detect") {
        Ok(rec) => rec,
        Err(diag) => {
            eprintln!("ember: {diag}");
            return (detection, Status::new());
        }
    };
    rec.record_all(ctx.image.diags.iter().cloned());
    rec.record_all(detection.diags.iter().cloned());
    rec.status.evidence = detection.evidence.clone();
    rec.status.datasource = Some(
        detection
            .datasource
            .clone()
            .unwrap_or_else(|| "none".into()),
    );
    if detection.datasource.is_none() {
        // No evidence, so no network datasource is tried (RELIABILITY rule 5).
        let why = choose::not_found(&detection.facts);
        rec.record(Diag::warning(Reason::NoDatasource, why));
    }
    match serde_json::to_vec_pretty(&detection) {
        // 0600: a seedfrom URL on the command line may carry a token.
        Ok(json) => rec.write_run(RunPaths::DETECT, &json, 0o600),
        Err(e) => rec.record(Diag::error(Reason::Internal, e.to_string())),
    }
    let status = rec.finish(StageState::Done);
    (detection, status)
}

/// Disabled: a small status saying why, in `<run>/ember` only; nothing else anywhere.
pub(crate) fn record_disabled(ctx: &Ctx, reason: &str) -> Status {
    let mut status = Status::new();
    status.disabled = Some(reason.to_string());
    let now = crate::clock::boot_seconds();
    let mut stage = StageStatus::started(now, crate::clock::wall_seconds(), std::process::id());
    stage.state = StageState::Skipped;
    stage.finished = Some(now);
    status.stages.insert("detect".into(), stage);
    match open_run_ember_only(ctx) {
        Ok(run) => {
            let json = serde_json::to_vec_pretty(&status).unwrap_or_default();
            if let Err(e) = run.write_file(RunPaths::STATUS, &json, &FileSpec::mode(0o644)) {
                eprintln!("ember: cannot write status: {e}");
            }
        }
        Err(diag) => eprintln!("ember: {diag}"),
    }
    status
}

/// Only `<run>/ember`: a disabled boot leaves no cloud-init files behind.
fn open_run_ember_only(ctx: &Ctx) -> Result<crate::root::Root, Diag> {
    let dir = ctx.run.ember_dir();
    std::fs::create_dir_all(&dir)
        .map_err(|e| Diag::error(Reason::RunDir, e.to_string()).file(dir.display().to_string()))?;
    crate::root::Root::open_deferred(ctx.run.run())
        .map_err(|e| Diag::error(e.code(), e.to_string()))
}

/// Loads what an earlier `ember-initrd detect` decided.
pub fn load(ctx: &Ctx) -> Option<Detection> {
    let data = crate::regular::read(&ctx.run.detect(), crate::regular::STATE_MAX).ok()?;
    serde_json::from_slice(&data).ok()
}

/// The human summary `ember-initrd detect` prints.
pub fn describe(d: &Detection) -> String {
    let mut out = String::new();
    if let Some(reason) = &d.disabled {
        out.push_str(&format!("disabled: {reason}\n"));
        return out;
    }
    let ds = d.datasource.as_deref().unwrap_or("none");
    out.push_str(&format!("datasource: {ds}\n"));
    if let Some((platform, why)) = &d.platform {
        out.push_str(&format!("platform: {platform} ({why})\n"));
    }
    for e in &d.evidence {
        out.push_str(&format!("evidence: {}: {}\n", e.source, e.detail));
    }
    for dev in &d.facts.devices {
        let removable = if dev.removable { " removable" } else { "" };
        out.push_str(&format!(
            "device: {} {} labels={}{removable}\n",
            dev.dev_name(),
            dev.fs,
            dev.labels.join(",")
        ));
    }
    out
}

//! The fetch stage: the chosen datasource reads its data; the result goes to `fetched.json`
//! (0600: it holds user-data) for the local stage.

use crate::context::Ctx;
use crate::datasource::{self, InstanceData};
use crate::detect::Detection;
use crate::paths::RunPaths;
use crate::record::Recorder;
use crate::state::instance_cache;
use crate::status::{StageState, Status};

/// What the fetch stage left in the run directory for the local stage.
pub fn load(ctx: &Ctx) -> Option<InstanceData> {
    let raw = crate::regular::read(&ctx.run.fetched(), crate::regular::STATE_MAX).ok()?;
    instance_cache::decode(&raw).ok()
}

pub fn run(ctx: &Ctx, detection: &Detection) -> Status {
    let mut rec = match Recorder::begin(&ctx.run, "fetch") {
        Ok(rec) => rec,
        Err(diag) => {
            eprintln!("ember: {diag}");
            return Status::new();
        }
    };
    // A stale result from an earlier run must not be mistaken for this one's.
    let _ = rec.run.remove_file(RunPaths::FETCHED);
    let Some(ds) = detection
        .datasource
        .as_deref()
        .and_then(datasource::by_name)
    else {
        return rec.finish(StageState::Skipped);
    };
    let result = rec.step(&format!("datasource {}", ds.name()), |_| {
        ds.fetch(&ctx.env(), &detection.facts)
    });
    match result {
        Ok(mut data) => {
            data.public_keys = ds.public_keys(&data);
            rec.record_all(std::mem::take(&mut data.diags));
            rec.status.datasource_detail = Some(data.detail.clone());
            if let Some(step) = rec.stage().steps.last_mut() {
                step.result = format!("ok ({} reads)", data.reads);
            }
            let steps = std::mem::take(&mut data.steps);
            rec.stage().steps.extend(steps);
            let spec = crate::root::FileSpec::mode(0o600);
            let fill = |file: &mut std::fs::File| {
                let mut out = std::io::BufWriter::with_capacity(64 << 10, file);
                serde_json::to_writer(&mut out, &data)?;
                std::io::Write::flush(&mut out)
            };
            if let Err(e) = rec.run.write_file_with(RunPaths::FETCHED, &spec, fill) {
                rec.record(crate::error::Diag::error(e.code(), e.to_string()));
            }
        }
        Err(diag) if diag.file.is_some() => rec.record(diag),
        Err(diag) => rec.record(diag.file(format!("datasource {}", ds.name()))),
    }
    rec.finish(StageState::Done)
}

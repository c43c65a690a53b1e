//! The fetch stage: the chosen datasource reads its data, through the stage's link when it
//! needs a metadata service, and tells the platform how that went while the link is still up;
//! then the link is let go. The result goes to `fetched.json` (0600: it holds user-data) for
//! the local stage.

use crate::context::{Ctx, Env};
use crate::datasource::{self, Datasource, InstanceData, Link, Reported};
use crate::detect::Detection;
use crate::detect::Facts;
use crate::error::Diag;
use crate::paths::RunPaths;
use crate::record::Recorder;
use crate::root::RootError;
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
    // The datasource's total counts from here: what detection read is not its fetch.
    ctx.fetched.reset();
    let env = ctx.env();
    let mut link = Link::default();
    let (result, reported) = rec.step(&format!("datasource {}", ds.name()), |_| {
        fetch_and_report(ds, &env, &detection.facts, &mut link)
    });
    let closed = link.close();
    match result {
        Ok(mut data) => {
            data.public_keys = ds.public_keys(&data);
            data.reads += reported.reads;
            rec.record_all(std::mem::take(&mut data.diags));
            rec.record_all(reported.diags);
            rec.record_all(closed.warnings);
            rec.status.datasource_detail = Some(data.detail.clone());
            if let Some(step) = rec.stage().steps.last_mut() {
                step.result = format!("ok ({} reads)", data.reads);
            }
            let steps = std::mem::take(&mut data.steps);
            rec.stage().steps.extend(steps);
            rec.stage().steps.extend(closed.steps);
            keep(&mut rec, &data, ctx.limits().datasource_bytes);
        }
        Err(diag) => {
            let mut diag = match diag.file {
                Some(_) => diag,
                None => diag.file(format!("datasource {}", ds.name())),
            };
            // None stands in, whatever the image lists, as in cloud-init, whose ds-identify
            // ends every list it writes with None: the failure is a warning, not the boot's
            // end (a cached instance is still kept over it, see `stages::instance`).
            diag.severity = crate::error::Severity::Warning;
            let mut none = datasource::none::data(&env, true);
            rec.record(diag);
            rec.record_all(reported.diags);
            rec.record_all(closed.warnings);
            rec.stage().steps.extend(closed.steps);
            rec.record_all(std::mem::take(&mut none.diags));
            rec.status.datasource_detail = Some(none.detail.clone());
            keep(&mut rec, &none, ctx.limits().datasource_bytes);
        }
    }
    rec.finish(StageState::Done)
}

/// The datasource reads; when the platform waits to hear how that went, it is told over the
/// link the data came by, before the stage lets the link go.
fn fetch_and_report(
    ds: &dyn Datasource,
    env: &Env,
    facts: &Facts,
    link: &mut Link,
) -> (Result<InstanceData, Diag>, Reported) {
    let result = ds.fetch(env, facts, link);
    let reported = match link.report_due() {
        true => ds.report(env, link, result.as_ref()),
        false => Reported::default(),
    };
    (result, reported)
}

/// `fetched.json` for the local stage, at most twice `datasource_bytes` (base64 adds a third
/// to the payloads, JSON's escapes to the rest): what the datasource may fetch is bounded,
/// so what it leaves on /run (RAM in the initramfs) is too. Past that it is not written, and
/// the error names the budget.
fn keep(rec: &mut Recorder, data: &InstanceData, datasource_bytes: u64) {
    let spec = crate::root::FileSpec::mode(0o600);
    let cap = datasource_bytes.saturating_mul(2);
    let fill = |file: &mut std::fs::File| {
        let mut out = super::capped::Capped::new(file, cap, OVER_CAP);
        serde_json::to_writer(&mut out, data)?;
        out.finish().map(drop)
    };
    if let Err(e) = rec.run.write_file_with(RunPaths::FETCHED, &spec, fill) {
        let over = matches!(&e, RootError::Io { source, .. } if source.to_string() == OVER_CAP);
        let d = match over {
            true => {
                let msg =
                    format!("would pass {cap} bytes (twice the datasource's budget): not written");
                Diag::error(crate::reason::Reason::BudgetExceeded, msg)
                    .file(RunPaths::FETCHED)
                    .budget(crate::limits::TALLY_BUDGET)
            }
            false => Diag::error(e.code(), e.to_string()),
        };
        rec.record(d);
    }
}

const OVER_CAP: &str = "past the cap for fetched.json";

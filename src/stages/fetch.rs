//! The fetch stage: the chosen datasource reads its data; the result goes to `fetched.json`
//! (0600: it holds user-data) for the local stage.

use super::record::Recorder;
use crate::context::Ctx;
use crate::datasource::instance::PlatformFile;
use crate::datasource::{self, InstanceData};
use crate::detect::Detection;
use crate::paths::RunPaths;
use crate::secret::Secret;
use crate::status::{StageState, Status};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `InstanceData` as stored between stages: payloads in base64 (they may be binary).
#[derive(Serialize, Deserialize)]
struct Stored {
    datasource: String,
    #[serde(default)]
    platform: Option<String>,
    #[serde(default)]
    cloud_name: Option<String>,
    detail: String,
    subplatform: String,
    instance_id: String,
    meta_data: Value,
    user_data: Option<String>,
    vendor_data: Option<String>,
    vendor_data2: Option<String>,
    network_config: Option<(String, Value)>,
    #[serde(default)]
    network_config_lines: BTreeMap<String, u32>,
    from_removable_media: bool,
    reads: u32,
    #[serde(default)]
    config: Option<Value>,
    /// Path, mode and base64 content.
    #[serde(default)]
    files: Vec<(String, u32, String)>,
}

fn encode(p: &Option<Secret<Vec<u8>>>) -> Option<String> {
    p.as_ref().map(|s| B64.encode(s.expose()))
}

fn decode(p: Option<String>) -> Option<Secret<Vec<u8>>> {
    p.and_then(|s| B64.decode(s).ok()).map(Secret::new)
}

pub fn store(d: &InstanceData) -> Vec<u8> {
    let stored = Stored {
        datasource: d.datasource.clone(),
        platform: d.platform.clone(),
        cloud_name: d.cloud_name.clone(),
        detail: d.detail.clone(),
        subplatform: d.subplatform.clone(),
        instance_id: d.instance_id.clone(),
        meta_data: d.meta_data.clone(),
        user_data: encode(&d.user_data),
        vendor_data: encode(&d.vendor_data),
        vendor_data2: encode(&d.vendor_data2),
        network_config: d.network_config.clone(),
        network_config_lines: d.network_config_lines.clone(),
        from_removable_media: d.from_removable_media,
        reads: d.reads,
        config: d.config.clone(),
        files: d
            .files
            .iter()
            .map(|f| (f.path.clone(), f.mode, B64.encode(f.content.expose())))
            .collect(),
    };
    serde_json::to_vec(&stored).unwrap_or_default()
}

pub fn load(ctx: &Ctx) -> Option<InstanceData> {
    decode_stored(&crate::regular::read(&ctx.run.fetched(), crate::regular::STATE_MAX).ok()?)
}

pub fn decode_stored(raw: &[u8]) -> Option<InstanceData> {
    let s: Stored = serde_json::from_slice(raw).ok()?;
    Some(InstanceData {
        datasource: s.datasource,
        platform: s.platform,
        cloud_name: s.cloud_name,
        detail: s.detail,
        subplatform: s.subplatform,
        instance_id: s.instance_id,
        meta_data: s.meta_data,
        user_data: decode(s.user_data),
        vendor_data: decode(s.vendor_data),
        vendor_data2: decode(s.vendor_data2),
        network_config: s.network_config,
        network_config_lines: s.network_config_lines,
        from_removable_media: s.from_removable_media,
        reads: s.reads,
        diags: Vec::new(),
        steps: Vec::new(),
        config: s.config,
        files: s
            .files
            .into_iter()
            .filter_map(|(path, mode, content)| {
                let content = Secret::new(B64.decode(content).ok()?);
                Some(PlatformFile {
                    path,
                    mode,
                    content,
                })
            })
            .collect(),
    })
}

pub fn run(ctx: &Ctx, detection: &Detection) -> Status {
    let mut rec = match Recorder::begin(ctx, "fetch") {
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
        ds.fetch(ctx, &detection.facts)
    });
    match result {
        Ok(mut data) => {
            rec.record_all(std::mem::take(&mut data.diags));
            rec.status.datasource_detail = Some(data.detail.clone());
            if let Some(step) = rec.stage().steps.last_mut() {
                step.result = format!("ok ({} reads)", data.reads);
            }
            let steps = std::mem::take(&mut data.steps);
            rec.stage().steps.extend(steps);
            rec.write_run(RunPaths::FETCHED, &store(&data), 0o600);
        }
        Err(diag) if diag.file.is_some() => rec.record(diag),
        Err(diag) => rec.record(diag.file(format!("datasource {}", ds.name()))),
    }
    rec.finish(StageState::Done)
}

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
use std::borrow::Cow;
use std::collections::BTreeMap;

/// `InstanceData` as stored between stages: payloads in base64 (they may be binary), borrowed
/// from the file's bytes (base64 has nothing JSON escapes) so they are not held twice.
#[derive(Deserialize)]
struct Stored<'a> {
    datasource: String,
    #[serde(default)]
    platform: Option<String>,
    #[serde(default)]
    cloud_name: Option<String>,
    detail: String,
    subplatform: String,
    instance_id: String,
    meta_data: Value,
    #[serde(borrow)]
    user_data: Option<Base64Text<'a>>,
    #[serde(borrow)]
    vendor_data: Option<Base64Text<'a>>,
    #[serde(borrow)]
    vendor_data2: Option<Base64Text<'a>>,
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

/// `Stored` as written, borrowing the instance: payloads are base64-encoded as they are
/// written, so a large user-data is never held a second time as text.
#[derive(Serialize)]
pub struct StoredRef<'a> {
    datasource: &'a str,
    platform: &'a Option<String>,
    cloud_name: &'a Option<String>,
    detail: &'a str,
    subplatform: &'a str,
    instance_id: &'a str,
    meta_data: &'a Value,
    #[serde(serialize_with = "b64_payload")]
    user_data: &'a Option<Secret<Vec<u8>>>,
    #[serde(serialize_with = "b64_payload")]
    vendor_data: &'a Option<Secret<Vec<u8>>>,
    #[serde(serialize_with = "b64_payload")]
    vendor_data2: &'a Option<Secret<Vec<u8>>>,
    network_config: &'a Option<(String, Value)>,
    network_config_lines: &'a BTreeMap<String, u32>,
    from_removable_media: bool,
    reads: u32,
    config: &'a Option<Value>,
    files: Vec<(&'a str, u32, Base64Of<'a>)>,
}

/// Bytes serialized as a base64 string, encoded while written.
struct Base64Of<'a>(&'a [u8]);

impl Serialize for Base64Of<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&base64::display::Base64Display::new(self.0, &B64))
    }
}

fn b64_payload<S: serde::Serializer>(
    p: &&Option<Secret<Vec<u8>>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match p {
        Some(payload) => s.serialize_some(&Base64Of(payload.expose())),
        None => s.serialize_none(),
    }
}

/// A payload's base64 text, borrowed where the JSON has no escape in it (serde would not
/// borrow a bare `Option<Cow<str>>`).
#[derive(Deserialize)]
struct Base64Text<'a>(#[serde(borrow)] Cow<'a, str>);

fn decode(p: Option<Base64Text>) -> Option<Secret<Vec<u8>>> {
    p.and_then(|s| B64.decode(s.0.as_bytes()).ok())
        .map(Secret::new)
}

/// The instance as stored between stages and boots, ready to serialize.
pub fn stored(d: &InstanceData) -> StoredRef<'_> {
    StoredRef {
        datasource: &d.datasource,
        platform: &d.platform,
        cloud_name: &d.cloud_name,
        detail: &d.detail,
        subplatform: &d.subplatform,
        instance_id: &d.instance_id,
        meta_data: &d.meta_data,
        user_data: &d.user_data,
        vendor_data: &d.vendor_data,
        vendor_data2: &d.vendor_data2,
        network_config: &d.network_config,
        network_config_lines: &d.network_config_lines,
        from_removable_media: d.from_removable_media,
        reads: d.reads,
        config: &d.config,
        files: d
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.mode, Base64Of(f.content.expose())))
            .collect(),
    }
}

pub fn load(ctx: &Ctx) -> Option<InstanceData> {
    decode_stored(crate::regular::read(&ctx.run.fetched(), crate::regular::STATE_MAX).ok()?)
}

/// Decodes the file's bytes; its payloads are decoded from where they lie in them, so a large
/// user-data is held twice at most (as base64 and decoded), never three times.
pub fn decode_stored(raw: Vec<u8>) -> Option<InstanceData> {
    let s: Stored = serde_json::from_slice(&raw).ok()?;
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
        ds.fetch(&ctx.env(), &detection.facts)
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
            let spec = crate::root::FileSpec::mode(0o600);
            let fill = |file: &mut std::fs::File| {
                let mut out = std::io::BufWriter::with_capacity(64 << 10, file);
                serde_json::to_writer(&mut out, &stored(&data))?;
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

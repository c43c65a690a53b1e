//! Python part-handlers for the runner: each `text/part-handler` part of user-data and
//! vendor-data, with the parts after it ember does not handle itself, written 0600 into
//! cloud-init's instance `handlers/` directory and listed in the handoff, for the runner's
//! init stage to run with the target's python3. Where the target has no python3 nothing is
//! kept: an error names each handler, a warning each part it might have claimed.
//! <https://docs.cloud-init.io/en/latest/reference/user_data_formats.html#part-handler>

use super::persist_write::TargetWriter;
use crate::error::Diag;
use crate::handoff::PartHandlerRef;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::Root;
use crate::userdata::{HandlerPart, Processed};
use serde_json::Value;

/// The directories the runner's commands search, in order (the runner's PATH).
const PATH_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

/// Whether the target has a `python3` on the runner's PATH.
pub fn has_python3(root: &Root) -> bool {
    PATH_DIRS
        .iter()
        .any(|d| root.exists(&format!("{d}/python3")))
}

/// The content types `vendor_data.disabled_handlers` (or `vendor_data2`'s) excludes, as
/// cloud-init's walker skips them; user-data has none.
fn disabled(config: &Value, source: &str) -> Vec<String> {
    let key = match source {
        "vendor-data" => "vendor_data",
        "vendor-data2" => "vendor_data2",
        _ => return Vec::new(),
    };
    config
        .get(key)
        .and_then(|v| v.get("disabled_handlers"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default()
}

/// Writes each source's handlers and their parts under `<ci_inst>/handlers/` and returns the
/// handoff's list, in part order.
pub(super) fn write(
    w: &TargetWriter,
    rec: &mut Recorder,
    ci_inst: &str,
    sources: &[(&str, &Processed)],
    config: &Value,
) -> Vec<PartHandlerRef> {
    let kept: Vec<(&str, &HandlerPart)> = sources
        .iter()
        .flat_map(|(source, p)| {
            let off = disabled(config, source);
            p.part_handlers
                .iter()
                .filter(move |h| !off.contains(&h.part.content_type))
                .map(move |h| (*source, h))
        })
        .collect();
    if kept.is_empty() {
        return Vec::new();
    }
    if !has_python3(w.root) {
        for (_, h) in &kept {
            let d = if h.is_handler() {
                let msg = "part-handler not run: the target has no python3 to run it with";
                Diag::error(Reason::ToolMissing, msg)
            } else {
                let msg = "part kept for a part-handler that cannot run (no python3); unused";
                Diag::warning(Reason::UnhandledPart, msg)
            };
            rec.record(d.file(h.name.as_str()));
        }
        return Vec::new();
    }
    let (mut handlers, mut parts) = (0, 0);
    let mut out = Vec::with_capacity(kept.len());
    for (source, h) in kept {
        // cloud-init's module names for handlers; parts get plain numbered files beside them.
        let path = if h.is_handler() {
            handlers += 1;
            format!("{ci_inst}/handlers/part-handler-{:03}.py", handlers - 1)
        } else {
            parts += 1;
            format!("{ci_inst}/handlers/parts/part-{parts:03}")
        };
        w.write(rec, &path, h.part.payload.expose(), 0o600);
        out.push(PartHandlerRef {
            source: source.to_string(),
            name: h.name.clone(),
            path,
            content_type: h.part.content_type.clone(),
            filename: h.part.filename.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn disabled_handlers_apply_to_vendor_data_only() {
        let cfg = json!({
            "vendor_data": {"disabled_handlers": ["text/part-handler", "Text/X-Mine", 5]},
            "vendor_data2": {"disabled_handlers": "text/part-handler"},
        });
        assert_eq!(
            disabled(&cfg, "vendor-data"),
            ["text/part-handler", "text/x-mine"]
        );
        assert!(disabled(&cfg, "vendor-data2").is_empty());
        assert!(disabled(&cfg, "user-data").is_empty());
    }
}

//! `ember init`'s part-handlers: the Python `text/part-handler` parts ember-initrd kept (with
//! the parts after them), run with the target's python3 through ember's own driver
//! (`part_handlers/driver.py`, written 0600 next to a 0600 manifest), which speaks cloud-init's
//! protocol: `handle_part(data, ctype, filename, payload[, frequency[, headers]])` with
//! `__begin__`, each claimed part, `__end__`. Per instance as in cloud-init: the instance's
//! first run calls every handler; later boots only those whose `frequency` is `always`. A
//! handler that fails is an error naming it (and the part it was given); the others go on.
//! <https://docs.cloud-init.io/en/latest/reference/user_data_formats.html#part-handler>

use super::modules::common::distro::which;
use super::modules::{once, ModCtx};
use crate::error::Diag;
use crate::handoff::PartHandlerRef;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::state::{encode_instance_id, Frequency, EMBER_LIB};
use serde_json::{json, Value};

/// The driver, ember's own code, in the runner's binary.
pub const DRIVER: &str = include_str!("part_handlers/driver.py");
/// cloud-init's semaphore name for reading user-data and running its handlers.
const SEMAPHORE: &str = "consume_data";
const SPEC: FileSpec = FileSpec::mode(0o600);

/// What the driver reports (see driver.py); indices are positions in the manifest. Read
/// through `serde_json::Value`, whose reader the runner has anyway (a derived one per type
/// would add to the light binary).
#[derive(Debug, Default)]
pub struct Results {
    pub failed: Vec<Failure>,
    pub unclaimed: Vec<usize>,
    pub claimed: Vec<(usize, usize)>,
    pub builtin: Vec<(usize, String)>,
    pub frequency_unknown: Vec<usize>,
}

#[derive(Debug)]
pub struct Failure {
    pub index: usize,
    /// `load`, `list_types`, `__begin__`, `__end__`, `handle_part` or `read`.
    pub call: String,
    pub part: Option<usize>,
    /// The exception's type name.
    pub error: String,
    /// Its line in the handler, where it came through the handler's code.
    pub line: Option<u32>,
}

impl Results {
    /// The driver's JSON; `None` when it is not the driver's shape.
    pub fn parse(data: &[u8]) -> Option<Results> {
        let v: Value = serde_json::from_slice(data).ok()?;
        let list = |key: &str| {
            v.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let index = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
        let pair = |v: &Value| Some((v.get(0)?.clone(), v.get(1)?.clone()));
        let mut r = Results::default();
        for f in list("failed") {
            r.failed.push(Failure {
                index: index(f.get("index")?)?,
                call: f.get("call")?.as_str()?.to_string(),
                part: f.get("part").and_then(index),
                error: f.get("error")?.as_str()?.to_string(),
                line: f.get("line").and_then(Value::as_u64).map(|l| l as u32),
            });
        }
        for i in list("unclaimed") {
            r.unclaimed.push(index(&i)?);
        }
        for p in list("claimed") {
            let (a, b) = pair(&p)?;
            r.claimed.push((index(&a)?, index(&b)?));
        }
        for p in list("builtin") {
            let (a, t) = pair(&p)?;
            r.builtin.push((index(&a)?, t.as_str()?.to_string()));
        }
        for i in list("frequency_unknown") {
            r.frequency_unknown.push(index(&i)?);
        }
        Some(r)
    }
}

/// The manifest the driver reads: the handoff's entries as they are.
fn manifest_json(entries: &[PartHandlerRef]) -> Value {
    let entries: Vec<Value> = entries
        .iter()
        .map(|e| {
            json!({"source": e.source, "name": e.name, "path": e.path,
                   "content_type": e.content_type, "filename": e.filename})
        })
        .collect();
    json!({ "entries": entries })
}

/// Runs the handoff's part-handlers; `None` when there are none (no step recorded).
pub fn run(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let entries = &ctx.handoff.part_handlers;
    if entries.is_empty() {
        return None;
    }
    let first = once(ctx, SEMAPHORE, Frequency::PerInstance, diags, |d| {
        drive(ctx, "once-per-instance", d)
    });
    if !first {
        // cloud-init then consumes the data again for the handlers that run `always`.
        drive(ctx, "always", diags);
    }
    let failed = diags.iter().any(Diag::is_error);
    Some(if failed { "error" } else { "ok" }.into())
}

/// One run of the driver at `frequency`.
fn drive(ctx: &ModCtx, frequency: &str, diags: &mut Vec<Diag>) {
    let entries = &ctx.handoff.part_handlers;
    let Some(python) = which(ctx.root, "python3") else {
        for e in entries.iter().filter(|e| is_handler(e)) {
            let msg = "part-handler not run: the target has no python3 to run it with";
            diags.push(Diag::error(Reason::ToolMissing, msg).file(e.name.as_str()));
        }
        return;
    };
    let dir = format!(
        "{EMBER_LIB}/instances/{}/part-handlers",
        encode_instance_id(&ctx.handoff.instance_id)
    );
    let (driver, manifest, results) = (
        format!("{dir}/driver.py"),
        format!("{dir}/manifest.json"),
        format!("{dir}/results.json"),
    );
    let json = serde_json::to_vec_pretty(&manifest_json(entries)).unwrap_or_default();
    let written = ctx
        .root
        .write_file(&driver, DRIVER.as_bytes(), &SPEC)
        .and_then(|()| ctx.root.write_file(&manifest, &json, &SPEC))
        .and_then(|()| match ctx.root.exists(&results) {
            true => ctx.root.remove_file(&results),
            false => Ok(()),
        });
    if let Err(e) = written {
        diags.push(Diag::from(e));
        return;
    }
    let argv = [&python, "-B", &driver, &manifest, &results, frequency];
    let outcome = ctx.exec.run(&argv, &[]);
    if !outcome.ok() {
        let msg = format!("the part-handler driver {}", outcome.describe());
        diags.push(Diag::error(Reason::PartHandlerFailed, msg));
        return;
    }
    let parsed = match ctx.root.read_file(&results, 1 << 20) {
        Ok(Some(data)) => {
            Results::parse(&data).ok_or_else(|| "unreadable results from the driver".to_string())
        }
        Ok(None) => Err("the part-handler driver left no results".to_string()),
        Err(e) => Err(e.to_string()),
    };
    let _ = ctx.root.remove_file(&results);
    match parsed {
        Ok(r) => {
            let (h, p) = (handlers(entries), r.claimed.len());
            ctx.exec.say(&format!(
                "ember: part-handlers ({frequency}): {h} handler(s), {p} part(s) handed over"
            ));
            diags.extend(report(entries, &r));
        }
        Err(msg) => diags.push(Diag::error(Reason::PartHandlerFailed, msg)),
    }
}

fn is_handler(e: &PartHandlerRef) -> bool {
    e.content_type == crate::mime::PART_HANDLER
}

fn handlers(entries: &[PartHandlerRef]) -> usize {
    entries.iter().filter(|e| is_handler(e)).count()
}

/// An exception's type name fit for a message (it comes from the handler's code).
fn shown_error(name: &str) -> String {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if ok {
        name.to_string()
    } else {
        "an exception".to_string()
    }
}

/// The driver's results as diagnostics, each naming the part (by its user-data name).
pub fn report(entries: &[PartHandlerRef], r: &Results) -> Vec<Diag> {
    let name = |i: usize| entries.get(i).map_or("part-handler", |e| e.name.as_str());
    let mut out = Vec::new();
    for f in &r.failed {
        let err = shown_error(&f.error);
        let at = f.line.map(|l| format!(" at line {l}")).unwrap_or_default();
        let msg = match f.call.as_str() {
            "load" => format!("part-handler could not be loaded: {err}{at}"),
            "list_types" => format!("part-handler's list_types() raised {err}{at}"),
            "__begin__" | "__end__" => {
                format!("part-handler raised {err}{at} on {}", f.call)
            }
            "handle_part" => format!(
                "part-handler raised {err}{at} handling {}",
                f.part.map_or("a part", name)
            ),
            "read" => format!("part could not be read for its part-handler: {err}"),
            _ => format!("part-handler failed: {err}{at}"),
        };
        out.push(Diag::error(Reason::PartHandlerFailed, msg).file(name(f.index)));
    }
    for (i, t) in &r.builtin {
        // The driver reports only its own fixed list; anything else is not shown.
        let t = crate::mime::shown_type(t);
        let msg = format!(
            "the part-handler lists {t}, which ember handles itself: such parts are not passed to it"
        );
        out.push(Diag::warning(Reason::UnhandledPart, msg).file(name(*i)));
    }
    for i in &r.frequency_unknown {
        let msg = "the part-handler's frequency is none cloud-init knows: it is never called";
        out.push(Diag::warning(Reason::FrequencyUnknown, msg).file(name(*i)));
    }
    for i in &r.unclaimed {
        let msg = "no part-handler claims this part's type; kept unused";
        out.push(Diag::warning(Reason::UnhandledPart, msg).file(name(*i)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, ctype: &str) -> PartHandlerRef {
        PartHandlerRef {
            source: "user-data".into(),
            name: name.into(),
            path: format!("/x/{name}"),
            content_type: ctype.into(),
            filename: name.into(),
        }
    }

    #[test]
    fn results_name_the_parts() {
        let entries = [
            entry("user-data part 1 (h.py)", "text/part-handler"),
            entry("user-data part 2 (a.txt)", "text/plain"),
            entry("user-data part 3 (b)", "text/x-other"),
        ];
        let r = Results::parse(
            br#"{"failed": [{"index": 0, "call": "handle_part", "part": 1,
                           "error": "ValueError", "line": 7},
                          {"index": 0, "call": "__end__", "part": null,
                           "error": "bad name\nwith a line", "line": null}],
                "unclaimed": [2], "claimed": [[1, 0]],
                "builtin": [[0, "text/x-shellscript"]], "frequency_unknown": [0]}"#,
        )
        .unwrap();
        let got: Vec<(String, String, String)> = report(&entries, &r)
            .iter()
            .map(|d| {
                let file = d.file.clone().unwrap_or_default();
                (d.code.as_str().to_string(), file, d.message.clone())
            })
            .collect();
        let h = "user-data part 1 (h.py)".to_string();
        assert_eq!(
            got,
            [
                (
                    "part-handler-failed".into(),
                    h.clone(),
                    "part-handler raised ValueError at line 7 handling user-data part 2 (a.txt)"
                        .into()
                ),
                (
                    "part-handler-failed".into(),
                    h.clone(),
                    "part-handler raised an exception on __end__".into()
                ),
                (
                    "unhandled-part".into(),
                    h.clone(),
                    "the part-handler lists text/x-shellscript, which ember handles itself: \
                     such parts are not passed to it"
                        .into()
                ),
                (
                    "frequency-unknown".into(),
                    h,
                    "the part-handler's frequency is none cloud-init knows: it is never called"
                        .into()
                ),
                (
                    "unhandled-part".into(),
                    "user-data part 3 (b)".into(),
                    "no part-handler claims this part's type; kept unused".into()
                ),
            ]
        );
    }
}

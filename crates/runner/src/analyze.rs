//! `ember analyze show | blame | dump | plot [--infile FILE] [--outfile FILE] [--format
//! text|json]`: cloud-init's `analyze`, read from ember's status.json (stages and their timed
//! steps) instead of a log. `show` lists each stage's steps with the time since the first stage
//! started (@) and their duration (+), then the total; `blame` sorts every step by its
//! duration; `dump` gives the start and finish events as cloud-init's JSON does; `plot` draws
//! the boot as an SVG timeline (`super::plot`), as `systemd-analyze plot` does.
//! <https://docs.cloud-init.io/en/latest/reference/cli.html#analyze>

use super::{global_flag, plot, CliError, Ctx};
use crate::status::{StageStatus, Status};
use lexopt::prelude::*;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The boot's own stages in the order they run. Others (the background host keys, hotplug)
/// are shown after them and not counted in the total: they run beside the boot.
const ORDER: &[&str] = &["detect", "fetch", "local", "config", "final"];

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut what, mut infile, mut outfile, mut as_json) = (None, None, None, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Value(v) if what.is_none() => what = Some(v.string()?),
            Short('i') | Long("infile") => infile = Some(PathBuf::from(parser.value()?)),
            // cloud-init's spelling, and systemd-analyze's.
            Short('o') | Long("outfile") | Long("output") => {
                outfile = Some(PathBuf::from(parser.value()?))
            }
            Long("format") => {
                as_json = match parser.value()?.string()?.as_str() {
                    "json" => true,
                    "text" => false,
                    other => return Err(CliError::Usage(format!("unknown format '{other}'"))),
                }
            }
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    let what = what.ok_or_else(|| CliError::Usage("analyze: show, blame, dump or plot".into()))?;
    // sshd's start is asked of systemd only when the plot is of this running system's boot.
    let live = infile.is_none();
    let path = infile.unwrap_or_else(|| ctx.run_paths().status());
    let text = crate::regular::read_to_string(&path, crate::regular::STATE_MAX)
        .map_err(|e| CliError::file(&path, e))?;
    // Bytes, not from_str: the str reader would be a second copy of every deserializer.
    let status: Status =
        serde_json::from_slice(text.as_bytes()).map_err(|e| CliError::file(&path, e))?;
    let stages = in_order(&status);
    let out = match (what.as_str(), as_json) {
        ("show", false) => show(&stages),
        ("show", true) => pretty(&show_json(&stages)),
        ("blame", false) => blame(&stages),
        ("blame", true) => pretty(&blame_json(&stages)),
        ("dump", _) => pretty(&dump(&stages)),
        ("plot", false) => {
            let sshd = if live {
                plot::sshd_start(&ctx.run)
            } else {
                Err("the status was read from a file given with infile, not from this system")
            };
            plot::svg(&plot::layout(title(&status), &stages, sshd))
        }
        ("plot", true) => return Err(CliError::Usage("analyze plot: it writes SVG".into())),
        (other, _) => {
            return Err(CliError::Usage(format!(
                "analyze: unknown command '{other}'"
            )))
        }
    };
    match outfile {
        Some(file) => std::fs::write(&file, out).map_err(|e| CliError::file(&file, e))?,
        None => print!("{out}"),
    }
    Ok(0)
}

/// The plot's heading: which boot this is.
fn title(status: &Status) -> String {
    format!(
        "ember boot: datasource {}, instance {}{}",
        status.datasource.as_deref().unwrap_or("none"),
        status.instance_id.as_deref().unwrap_or("unknown"),
        if status.first_boot {
            ", first boot"
        } else {
            ""
        }
    )
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

fn in_order(status: &Status) -> Vec<(&str, &StageStatus)> {
    let mut v: Vec<(&str, &StageStatus)> =
        status.stages.iter().map(|(k, s)| (k.as_str(), s)).collect();
    ember_core::sort::sort_by_key(&mut v, |(name, s)| {
        (
            ORDER.iter().position(|o| o == name).unwrap_or(ORDER.len()),
            s.start.to_bits(),
        )
    });
    v
}

fn secs(us: u64) -> f64 {
    us as f64 / 1e6
}

fn stage_secs(s: &StageStatus) -> f64 {
    s.duration_us
        .map(secs)
        .unwrap_or_else(|| s.finished.unwrap_or(s.start) - s.start)
}

fn show(stages: &[(&str, &StageStatus)]) -> String {
    let Some(first) = stages.first().map(|(_, s)| s.start) else {
        return "no stage recorded\n".into();
    };
    let mut out = String::from(
        "-- Boot Record 01 --\nThe total time elapsed since completing an event is printed after the \"@\" character.\nThe time the event takes is printed after the \"+\" character.\n\n",
    );
    let mut total = 0.0;
    for (name, s) in stages {
        out.push_str(&format!("Starting stage: {name}\n"));
        for step in &s.steps {
            let at = step.start.map_or(0.0, |t| t - first) + secs(step.duration_us);
            out.push_str(&format!(
                "|`->{} ({}) @{at:08.5}s +{:08.5}s\n",
                step.name,
                step.result,
                secs(step.duration_us)
            ));
        }
        out.push_str(&format!(
            "Finished stage: ({name}) {:08.5} seconds\n",
            stage_secs(s)
        ));
        if ORDER.contains(name) {
            total += stage_secs(s);
        } else {
            out.push_str("(beside the boot: not in the total time)\n");
        }
        out.push('\n');
    }
    out.push_str(&format!("Total Time: {total:.5} seconds\n"));
    if let Some(end) = provisioned(stages) {
        out.push_str(&format!(
            "Provisioned {end:.5} seconds after the kernel started\n"
        ));
    }
    out.push_str("\n1 boot records analyzed\n");
    out
}

fn show_json(stages: &[(&str, &StageStatus)]) -> Value {
    let list: Vec<Value> = stages
        .iter()
        .map(|(name, s)| {
            json!({
                "stage": name,
                "start": s.start,
                "seconds": stage_secs(s),
                "steps": s.steps.iter().map(|st| json!({
                    "name": st.name, "start": st.start, "seconds": secs(st.duration_us), "result": st.result,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let total: f64 = stages
        .iter()
        .filter(|(name, _)| ORDER.contains(name))
        .map(|(_, s)| stage_secs(s))
        .sum();
    json!({"stages": list, "total_seconds": total, "provisioned_at": provisioned(stages)})
}

/// When the last of the boot's own stages finished: the background host keys and hotplug,
/// recorded after it, are not part of provisioning.
fn provisioned(stages: &[(&str, &StageStatus)]) -> Option<f64> {
    let boot = stages.iter().rfind(|(name, _)| ORDER.contains(name));
    boot.and_then(|(_, s)| s.finished)
}

/// Every step, longest first: `(seconds, stage/step)`.
fn ranked(stages: &[(&str, &StageStatus)]) -> Vec<(f64, String)> {
    let mut v: Vec<(f64, String)> = stages
        .iter()
        .flat_map(|(name, s)| {
            s.steps
                .iter()
                .map(move |st| (secs(st.duration_us), format!("{name}/{}", st.name)))
        })
        .collect();
    ember_core::sort::sort_by(&mut v, |a, b| {
        b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))
    });
    v
}

fn blame(stages: &[(&str, &StageStatus)]) -> String {
    let mut out = String::from("-- Boot Record 01 --\n");
    for (s, name) in ranked(stages) {
        out.push_str(&format!("     {s:08.5}s ({name})\n"));
    }
    out.push_str("\n1 boot records analyzed\n");
    out
}

fn blame_json(stages: &[(&str, &StageStatus)]) -> Value {
    Value::Array(
        ranked(stages)
            .into_iter()
            .map(|(s, name)| json!({"name": name, "seconds": s}))
            .collect(),
    )
}

/// cloud-init's event list: a start and a finish per stage and step, wall-clock timestamps.
fn dump(stages: &[(&str, &StageStatus)]) -> Value {
    let mut events = Vec::new();
    for (name, s) in stages {
        let wall = |boot: f64| s.start_wall + (boot - s.start);
        let mut pair = |event: &str, at: f64, end: Option<(f64, &str)>| {
            events.push(json!({"name": event, "event_type": "start", "origin": "ember", "timestamp": wall(at)}));
            if let Some((t, result)) = end {
                events.push(json!({"name": event, "event_type": "finish", "origin": "ember", "timestamp": wall(t), "result": result}));
            }
        };
        let result = if s.errors.is_empty() {
            "SUCCESS"
        } else {
            "FAIL"
        };
        for step in &s.steps {
            if let Some(t) = step.start {
                let r = if step.result == "error" {
                    "FAIL"
                } else {
                    "SUCCESS"
                };
                pair(
                    &format!("{name}/{}", step.name),
                    t,
                    Some((t + secs(step.duration_us), r)),
                );
            }
        }
        pair(name, s.start, s.finished.map(|f| (f, result)));
    }
    ember_core::sort::sort_by(&mut events, |a, b| {
        a["timestamp"]
            .as_f64()
            .unwrap_or(0.0)
            .total_cmp(&b["timestamp"].as_f64().unwrap_or(0.0))
    });
    Value::Array(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The background host keys finish after the final stage: provisioning ended with final.
    #[test]
    fn provisioned_when_final_finished_not_the_background_keys() {
        let mut st = Status::new();
        for (name, start, end) in [("final", 5.0, 10.0), ("hostkeys", 4.0, 20.0)] {
            let mut s = StageStatus::started(start, 0.0, 1);
            s.finished = Some(end);
            st.stages.insert(name.into(), s);
        }
        let stages = in_order(&st);
        assert_eq!(stages.last().unwrap().0, "hostkeys");
        assert_eq!(show_json(&stages)["provisioned_at"], 10.0);
        assert!(show(&stages).contains("Provisioned 10.00000 seconds"));
        // Nor is the key's time part of the boot's.
        assert_eq!(show_json(&stages)["total_seconds"], 5.0);
        let text = show(&stages);
        assert!(text.contains("Total Time: 5.00000 seconds"), "{text}");
        assert!(
            text.contains("(hostkeys) 16.00000 seconds\n(beside the boot"),
            "{text}"
        );
    }
}

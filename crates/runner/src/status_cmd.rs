//! `ember status [--wait] [--long] [--format tabular|json|yaml] [--timeout S] [--grace S]`,
//! cloud-init's `status` command over ember's status.json: same lines, keys and exit codes
//! (<https://docs.cloud-init.io/en/latest/howto/status.html>), plus ember's per-stage table.

use super::verdict::{derive, Observed, Phase, Verdict};
use super::{global_flag, CliError, Ctx};
use crate::host::Host;
use crate::paths::RunPaths;
use crate::status::Status;
use crate::yaml_emit as emit_yaml;
use ember_core::sort::IntoMap;
use lexopt::prelude::*;
use serde_json::{json, Map, Value};
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// cloud-init polls every 250 ms; so does ember, re-reading status.json each time.
const POLL: Duration = ember_core::bounds::STATUS_POLL;
pub(super) const DEFAULT_GRACE_S: f64 = ember_core::bounds::STATUS_GRACE.as_secs() as f64;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Tabular,
    Json,
    Yaml,
}

struct Opts {
    wait: bool,
    long: bool,
    format: Format,
    timeout: Option<f64>,
    grace: f64,
}

fn seconds(parser: &mut lexopt::Parser, flag: &str) -> Result<f64, CliError> {
    let v = parser.value()?.string()?;
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(CliError::Usage(format!(
            "{flag}: expected seconds, got '{v}'"
        ))),
    }
}

fn parse(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<Opts, CliError> {
    let mut o = Opts {
        wait: false,
        long: false,
        format: Format::Tabular,
        timeout: None,
        grace: DEFAULT_GRACE_S,
    };
    while let Some(arg) = parser.next()? {
        match arg {
            Short('w') | Long("wait") => o.wait = true,
            Short('l') | Long("long") => o.long = true,
            Long("format") => {
                o.format = match parser.value()?.string()?.as_str() {
                    "tabular" => Format::Tabular,
                    "json" => Format::Json,
                    "yaml" => Format::Yaml,
                    other => {
                        let msg =
                            format!("--format: invalid choice '{other}' (tabular, json, yaml)");
                        return Err(CliError::Usage(msg));
                    }
                }
            }
            Long("timeout") => o.timeout = Some(seconds(parser, "--timeout")?),
            Long("grace") => o.grace = seconds(parser, "--grace")?,
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    Ok(o)
}

/// Reads status.json fresh. A missing file is `None`; a half-written or garbled one is an
/// error rather than "not started", so a waiter does not wait on a broken file forever.
fn read_status(paths: &RunPaths) -> Result<Option<Status>, CliError> {
    let path = paths.status();
    match crate::regular::read(&path, crate::regular::STATE_MAX) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| CliError::file(&path, e)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::file(&path, e)),
    }
}

/// `host` is `--host`: the running system's /proc, where the stages' pids live (whatever
/// `--target` is), its mounts and its command line.
pub(super) fn observe(
    paths: &RunPaths,
    host: &Host,
    grace: f64,
) -> Result<(Verdict, Option<Status>), CliError> {
    let status = read_status(paths)?;
    let obs = Observed {
        status: status.as_ref(),
        marker_disabled: paths.ci_disabled_marker().exists(),
        cmdline_disabled: cmdline_disabled(host),
        initramfs_over: !in_initramfs(host),
        handoff: paths.handoff().exists(),
        now: crate::clock::boot_seconds(),
        grace,
    };
    let proc = host.path("/proc");
    let alive = |pid| crate::host::pid_alive(&proc, pid);
    Ok((derive(&obs, &alive), status))
}

/// Whether this process's root is the initramfs (a `rootfs` mount at `/`).
fn in_initramfs(host: &Host) -> bool {
    let Ok(info) = std::fs::read_to_string(host.path("/proc/self/mountinfo")) else {
        return false;
    };
    let mounts = crate::disk::mountinfo::parse(&info);
    crate::disk::mountinfo::at(&mounts, Path::new("/")).is_some_and(|m| m.fstype == "rootfs")
}

/// The booted system's command line (or a container's `KERNEL_CMDLINE`), as ember-initrd reads it.
fn cmdline_disabled(host: &Host) -> bool {
    let (_, line) = crate::cmdline::read(host, std::env::var("KERNEL_CMDLINE").ok());
    let params = crate::cmdline::split(&line);
    matches!(
        crate::cmdline::toggle(&params),
        crate::cmdline::Toggle::Disabled(_)
    )
}

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let o = parse(ctx, parser)?;
    let paths = ctx.run_paths();
    let host = Host::new(&ctx.host);
    let started = Instant::now();
    if let Some(t) = o.timeout {
        hard_bound(&ctx.prog, t);
    }
    let (mut verdict, mut status) = observe(&paths, &host, o.grace)?;
    let mut timed_out = false;
    if o.wait {
        let mut out = std::io::stdout();
        while !verdict.settled() {
            if o.timeout
                .is_some_and(|t| started.elapsed().as_secs_f64() >= t)
            {
                timed_out = true;
                break;
            }
            if o.format == Format::Tabular {
                let _ = write!(out, ".");
                let _ = out.flush();
            }
            std::thread::sleep(POLL);
            (verdict, status) = observe(&paths, &host, o.grace)?;
        }
    }
    print!("{}", render(&verdict, status.as_ref(), &o));
    if timed_out {
        let t = o.timeout.unwrap_or_default();
        return Err(CliError::Failed(format!(
            "timed out after {t}s waiting; status is still '{}'",
            verdict.words().1
        )));
    }
    if o.wait && verdict.stale {
        return Err(CliError::Failed(format!(
            "{} records no stage {}s after boot: is ember-initrd in the initramfs?",
            paths.status().display(),
            o.grace
        )));
    }
    Ok(verdict.exit_code())
}

/// `--timeout` bounds the whole command, not only the polling: whatever blocks (a state file
/// on a hung filesystem, a slow /proc), the process ends one second past it, as timed out.
fn hard_bound(prog: &str, timeout: f64) {
    let prog = prog.to_string();
    let bound = Duration::from_secs_f64(timeout.min(1e9)) + Duration::from_secs(1);
    std::thread::spawn(move || {
        std::thread::sleep(bound);
        eprintln!("{prog}: timed out after {timeout}s (the command did not finish)");
        std::process::exit(1);
    });
}

fn render(v: &Verdict, status: Option<&Status>, o: &Opts) -> String {
    match o.format {
        Format::Tabular => {
            let mut s = tabular(v, o.wait, o.long);
            if let Some(m) = status.and_then(|s| s.measured.as_ref()).filter(|_| o.long) {
                s.push_str(&measured(m));
            }
            s
        }
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&to_json(v, status)).unwrap_or_default();
            s.push('\n');
            s
        }
        // cloud-init prints PyYAML's document, which ends in a newline, with print().
        Format::Yaml => emit_yaml::document(&to_json(v, status)) + "\n",
    }
}

/// cloud-init's keys, its per-stage objects from status.json's `v1`, and `ember_stages`.
fn to_json(v: &Verdict, status: Option<&Status>) -> Value {
    let (word, extended) = v.words();
    let mut m = Map::new();
    if let Some(Value::Object(v1)) = status.map(|s| s.to_cloud_init()["v1"].clone()) {
        m.extend(v1.into_iter().filter(|(k, _)| k != "datasource"));
    }
    if v.running != Phase::Running {
        // status.json still names a stage that died or was given up on: nothing runs now.
        m.insert("stage".into(), Value::Null);
    }
    let stages: Map<String, Value> = v
        .stages
        .iter()
        .map(|s| {
            let obj = json!({"state": s.state, "duration_ms": s.duration_ms,
                "errors": s.errors, "recoverable_errors": s.recoverable_errors});
            (s.name.to_string(), obj)
        })
        .into_map();
    m.insert("ember_stages".into(), Value::Object(stages));
    m.insert("boot_status_code".into(), v.boot_status_code.into());
    m.insert("datasource".into(), v.datasource.clone().into());
    m.insert("detail".into(), v.detail.clone().into());
    m.insert("errors".into(), v.errors.clone().into());
    m.insert("extended_status".into(), extended.into());
    m.insert("last_update".into(), last_update(v).into());
    m.insert("recoverable_errors".into(), json!(v.recoverable_errors));
    m.insert("status".into(), word.into());
    if let Some(measured) = status.and_then(|s| s.measured.as_ref()) {
        m.insert("measured".into(), json!(measured));
    }
    Value::Object(m)
}

/// `--long`'s account of the TPM measurement: the PCR, the events and the value it holds.
fn measured(m: &crate::status::Measured) -> String {
    let mut s = format!(
        "measured: PCR {}, {} events, banks {}\n",
        m.pcr,
        m.events.len(),
        m.banks.join(" ")
    );
    for e in &m.events {
        let how = if e.present { "measured" } else { "absent" };
        s.push_str(&format!("\t{:<16} {how}\n", e.input));
    }
    for (bank, value) in &m.values {
        s.push_str(&format!("\t{bank}:{} {value}\n", m.pcr));
    }
    s
}

fn last_update(v: &Verdict) -> String {
    v.last_update
        .map(crate::date::format_utc)
        .unwrap_or_default()
}

fn tabular(v: &Verdict, wait: bool, long: bool) -> String {
    let (word, extended) = v.words();
    // After --wait's dots, cloud-init starts the status on a fresh line.
    let mut s = format!("{}status: {word}\n", if wait { "\n" } else { "" });
    if !long {
        return s;
    }
    s.push_str(&format!("extended_status: {extended}\n"));
    s.push_str(&format!("boot_status_code: {}\n", v.boot_status_code));
    if v.last_update.is_some() {
        s.push_str(&format!("last_update: {}\n", last_update(v)));
    }
    s.push_str(&format!("detail: {}\n", v.detail));
    if v.errors.is_empty() {
        s.push_str("errors: []\n");
    } else {
        s.push_str("errors:\n");
        v.errors
            .iter()
            .for_each(|e| s.push_str(&format!("\t- {e}\n")));
    }
    if v.recoverable_errors.is_empty() {
        s.push_str("recoverable_errors: {}\n");
    } else {
        s.push_str("recoverable_errors:\n");
        for (level, msgs) in &v.recoverable_errors {
            s.push_str(&format!("{level}:\n"));
            for m in msgs {
                s.push_str(&format!("\t- {}\n", m.replace('\n', " ")));
            }
        }
    }
    s.push_str("stages:\n");
    s.push_str(&format!(
        "\t{:<8} {:<13} {:>11} {:>6} {:>11}\n",
        "stage", "state", "duration_ms", "errors", "recoverable"
    ));
    for st in &v.stages {
        let ms = st.duration_ms.map(|d| d.to_string()).unwrap_or("-".into());
        s.push_str(&format!(
            "\t{:<8} {:<13} {:>11} {:>6} {:>11}\n",
            st.name, st.state, ms, st.errors, st.recoverable_errors
        ));
    }
    s
}

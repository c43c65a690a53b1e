//! Jinja for the runner's commands, done by `ember-initrd render` (the runner carries no Jinja
//! engine): `ember devel render USER_DATA` renders a `## template: jinja` user-data file over
//! the instance data exactly as the boot does, and `ember query --format TEMPLATE` renders a
//! template over the data `query` reads, handed over on a pipe (never a file: it holds the
//! user-data for root).

use super::{global_flag, CliError, Ctx};
use lexopt::prelude::*;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

/// `query --format TEMPLATE`: ember-initrd's exit code (0 rendered, 1 a template error or an
/// empty result, as cloud-init's `query`).
pub fn format(ctx: &Ctx, template: &str, data: &Value, debug: bool) -> Result<i32, CliError> {
    let mut cmd = super::net_convert::initrd(ctx, "render")?;
    cmd.args(["--instance-data", "-", "--format", template]);
    if debug {
        cmd.arg("--debug");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| CliError::Failed(format!("{}: ember-initrd render: {e}", ctx.prog)))?;
    let json = serde_json::to_vec(data).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        // A render that stops reading early (a syntax error) closes the pipe: not our error.
        let _ = stdin.write_all(&json);
    }
    let status = child
        .wait()
        .map_err(|e| CliError::Failed(format!("{}: ember-initrd render: {e}", ctx.prog)))?;
    Ok(status.code().unwrap_or(1))
}

/// `devel render USER_DATA [-i FILE] [-d]`: the instance data as cloud-init picks it (root:
/// the sensitive copy, else the redacted one with a warning; others: the redacted one).
pub fn devel(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut user_data, mut instance_data, mut debug) = (None, None, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('i') | Long("instance-data") => instance_data = Some(parser.value()?.into()),
            Short('d') | Long("debug") => debug = true,
            Value(v) if user_data.is_none() => user_data = Some(PathBuf::from(v)),
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    let user_data =
        user_data.ok_or_else(|| CliError::Usage("the user-data file is required".into()))?;
    let instance_data = match instance_data {
        Some(path) => path,
        None => default_instance_data(ctx)?,
    };
    let mut args = vec![user_data.into_os_string(), "--instance-data".into()];
    args.push(instance_data.into_os_string());
    if debug {
        args.push("--debug".into());
    }
    super::net_convert::exec_initrd(ctx, "render", args)
}

fn default_instance_data(ctx: &Ctx) -> Result<PathBuf, CliError> {
    let root = rustix::process::geteuid().is_root();
    let files = super::query::candidates(ctx, root);
    if let Some(found) = files.iter().find(|p| p.is_file()) {
        if root && !found.to_string_lossy().contains("sensitive") {
            eprintln!(
                "{}: warning: no root-readable instance-data-sensitive.json; using the redacted {}",
                ctx.prog,
                found.display()
            );
        }
        return Ok(found.clone());
    }
    let tried: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    Err(CliError::Failed(format!(
        "missing instance-data file: {}",
        tried.join(", ")
    )))
}

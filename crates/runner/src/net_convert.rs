//! `ember net-convert` (and cloud-init's `devel net-convert`): the network parsers and
//! renderers live in ember-initrd, which the runner does not link, so the runner hands the
//! command to it. `schema`, `devel render` and `query --format` are handed over the same way.

use super::{CliError, Ctx};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;

pub const USAGE: &str = crate::network::convert::OPTIONS;

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let args: Vec<OsString> = parser.raw_args()?.collect();
    exec_initrd(ctx, "net-convert", args)
}

/// `ember-initrd COMMAND` as a command to run, or why there is none.
pub(super) fn initrd(ctx: &Ctx, command: &str) -> Result<std::process::Command, CliError> {
    ember_core::initrd::command(command).map_err(|tried| {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        CliError::Failed(format!(
            "{} {command} needs ember-initrd (the binary with the parsers), found at none of {}; install it or set EMBER_INITRD",
            ctx.prog,
            list.join(", ")
        ))
    })
}

/// Replaces this process with `ember-initrd COMMAND ARGS`; returns only if that failed.
pub(super) fn exec_initrd(ctx: &Ctx, command: &str, args: Vec<OsString>) -> Result<i32, CliError> {
    let mut cmd = initrd(ctx, command)?;
    let err = cmd.args(args).exec();
    Err(CliError::Failed(format!(
        "{} {command}: {} could not be started: {err}",
        ctx.prog,
        cmd.get_program().to_string_lossy()
    )))
}

//! `ember net-convert` (and cloud-init's `devel net-convert`): the network parsers and
//! renderers live in ember-initrd, which the runner does not link, so the runner hands the
//! command to it. `schema`, `devel render` and `query --format` are handed over the same way.

use super::{CliError, Ctx};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

pub const USAGE: &str = crate::network::convert::OPTIONS;

/// Where `initramfs/install-into-root` puts ember-initrd.
const INSTALLED: &str = "/usr/lib/ember/ember-initrd";

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let args: Vec<OsString> = parser.raw_args()?.collect();
    exec_initrd(ctx, "net-convert", args)
}

/// Where ember-initrd may be, best first: `$EMBER_INITRD`; beside this binary (a build
/// directory, an unpacked release, `/usr/bin` when both are installed there); `../lib/ember/`
/// from it (a `/usr/local` install); the path the initramfs integrations install it at.
fn initrd_candidates() -> Vec<PathBuf> {
    if let Some(path) = std::env::var_os("EMBER_INITRD") {
        return vec![PathBuf::from(path)];
    }
    let mut v = Vec::new();
    // /proc/self/exe: the binary itself, whatever name (cloud-init, cloud-id) called it.
    if let Some(dir) = std::env::current_exe()
        .ok()
        .as_deref()
        .and_then(Path::parent)
    {
        v.push(dir.join("ember-initrd"));
        if let Some(prefix) = dir.parent() {
            v.push(prefix.join("lib/ember/ember-initrd"));
        }
    }
    v.push(PathBuf::from(INSTALLED));
    v.dedup();
    v
}

/// `ember-initrd COMMAND` as a command to run, or why there is none.
pub(super) fn initrd(ctx: &Ctx, command: &str) -> Result<std::process::Command, CliError> {
    let tried = initrd_candidates();
    match tried.iter().find(|p| p.is_file()) {
        Some(binary) => {
            let mut cmd = std::process::Command::new(binary);
            cmd.arg(command);
            Ok(cmd)
        }
        None => {
            let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
            Err(CliError::Failed(format!(
                "{} {command} needs ember-initrd (the binary with the parsers), found at none of {}; install it or set EMBER_INITRD",
                ctx.prog,
                list.join(", ")
            )))
        }
    }
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

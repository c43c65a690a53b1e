//! `ember net-convert` (and cloud-init's `devel net-convert`): the network parsers and
//! renderers live in ember-initrd, which the runner does not link, so the runner hands the
//! command to it: `$EMBER_INITRD`, else the copy the initramfs integrations install. `schema`
//! is handed over the same way (see `schema.rs`).

use super::{CliError, Ctx};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

/// Where `initramfs/install-into-root` puts ember-initrd.
const INSTALLED: &str = "/usr/lib/ember/ember-initrd";

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let args: Vec<OsString> = parser.raw_args()?.collect();
    exec_initrd(ctx, "net-convert", args)
}

/// `devel net-convert …` and `devel schema …`, the `devel` commands ember answers.
pub fn devel(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let mut args: Vec<OsString> = parser.raw_args()?.collect();
    match args.first().and_then(|a| a.to_str()) {
        Some("net-convert") => {
            args.remove(0);
            exec_initrd(ctx, "net-convert", args)
        }
        Some("schema") => {
            args.remove(0);
            super::schema::exec(ctx, args)
        }
        _ => Err(CliError::Usage(
            "devel: the commands are net-convert and schema".into(),
        )),
    }
}

/// Replaces this process with `ember-initrd COMMAND ARGS`; returns only if that failed.
pub(super) fn exec_initrd(ctx: &Ctx, command: &str, args: Vec<OsString>) -> Result<i32, CliError> {
    let binary = std::env::var_os("EMBER_INITRD")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(INSTALLED));
    let err = std::process::Command::new(&binary)
        .arg(command)
        .args(args)
        .exec();
    Err(CliError::Failed(format!(
        "{} {command} runs {} (the binary with the parsers), which could not be started: {err}; install it or set EMBER_INITRD",
        ctx.prog,
        binary.display()
    )))
}

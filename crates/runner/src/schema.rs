//! `ember schema` (and cloud-init's `schema` and `devel schema`): the YAML reader and the
//! cloud-config model live in ember-initrd, which the runner does not link, so the command is
//! handed to `ember-initrd schema`, as `net-convert` is. A global `--target` goes along: it is
//! the root `--system` reads.

use super::{CliError, Ctx};
use std::ffi::OsString;

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let args: Vec<OsString> = parser.raw_args()?.collect();
    exec(ctx, args)
}

pub(super) fn exec(ctx: &Ctx, mut args: Vec<OsString>) -> Result<i32, CliError> {
    if ctx.target != std::path::Path::new("/") {
        args.push("--target".into());
        args.push(ctx.target.clone().into_os_string());
    }
    super::net_convert::exec_initrd(ctx, "schema", args)
}

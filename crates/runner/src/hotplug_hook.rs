//! `ember devel hotplug-hook [-s net] handle -d DEVPATH -u add|remove` (cloud-init's
//! `devel hotplug-hook`, which its udev rule calls): the network renderers live in
//! ember-initrd, so the event is handed to `ember-initrd hotplug` with this command's
//! `--host`, `--target` and `--run`. Not here: `query`, `enable` and `disable` (cloud-init's
//! socket daemon and its enabled file are written by hand or by the config's `updates`).

use super::net_convert::exec_initrd;
use super::{CliError, Ctx};
use lexopt::prelude::*;
use std::ffi::OsString;

pub const USAGE: &str = "[-s net] handle -d|--devpath DEVPATH -u|--udevaction add|remove";

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let mut action = None;
    let mut devpath = None;
    let mut handle = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('s') | Long("subsystem") => {
                let s = parser.value()?.string()?;
                if s != "net" {
                    return Err(CliError::Usage(format!("subsystem {s:?}: only net")));
                }
            }
            Short('d') | Long("devpath") => devpath = Some(parser.value()?),
            Short('u') | Long("udevaction") => action = Some(parser.value()?),
            Value(v) if v == "handle" => handle = true,
            Value(v) => {
                let v = v.to_string_lossy();
                return Err(CliError::Usage(format!("hotplug-hook {v}: only handle")));
            }
            other => return Err(other.unexpected().into()),
        }
    }
    let (true, Some(action), Some(devpath)) = (handle, action, devpath) else {
        return Err(CliError::Usage(format!("hotplug-hook {USAGE}")));
    };
    let mut args: Vec<OsString> = vec!["--action".into(), action, "--devpath".into(), devpath];
    for (flag, value) in [
        ("--host", &ctx.host),
        ("--target", &ctx.target),
        ("--run", &ctx.run),
    ] {
        args.push(flag.into());
        args.push(value.into());
    }
    exec_initrd(ctx, "hotplug", args)
}

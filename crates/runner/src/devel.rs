//! `ember devel …`, cloud-init's developer tools: `net-convert` and `schema` (older spellings
//! of the top-level commands), `render` (a user-data template over instance data) and
//! `make-mime` (a multipart user-data from files), `hotplug-hook` (a NIC added or removed),
//! and ember's own `pcr-predict` (what measuring a seed puts in the TPM).

use super::{global_flag, run_command, CliError, Command, Ctx};
use lexopt::prelude::*;

const DEVEL: &[Command] = &[
    super::NET_CONVERT,
    super::SCHEMA,
    Command {
        name: "render",
        summary:
            "render a '## template: jinja' user-data file over instance data, as the boot would",
        usage: "USER_DATA [-i|--instance-data FILE] [-d|--debug]",
        run: super::render::devel,
    },
    Command {
        name: "hotplug-hook",
        summary: "re-render the network for a NIC added or removed (the udev rule's handler)",
        usage: super::hotplug_hook::USAGE,
        run: super::hotplug_hook::run,
    },
    Command {
        name: "pcr-predict",
        summary: "the PCR 12 value ember's measurement of a NoCloud seed gives (runs ember-initrd pcr-predict)",
        usage: "SEED [--root ROOT] [--bank BANK]... [--from HEX]... [--format text|json]",
        run: |ctx, parser| {
            let args = parser.raw_args()?.collect();
            super::net_convert::exec_initrd(ctx, "pcr-predict", args)
        },
    },
    Command {
        name: "make-mime",
        summary: "a MIME multipart user-data from files with their content types",
        usage: super::make_mime::USAGE,
        run: super::make_mime::run,
    },
];

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    while let Some(arg) = parser.next()? {
        match arg {
            Value(name) => {
                let name = name.string()?;
                let Some(cmd) = DEVEL.iter().find(|c| c.name == name) else {
                    return Err(unknown(&format!("unknown devel command '{name}'")));
                };
                return run_command(ctx, cmd, &format!("devel {name}"), parser);
            }
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    Err(unknown("devel: a command is required"))
}

fn unknown(what: &str) -> CliError {
    let names: Vec<&str> = DEVEL.iter().map(|c| c.name).collect();
    CliError::Usage(format!("{what} (one of {})", names.join(", ")))
}

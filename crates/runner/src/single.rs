//! `ember single --name MODULE [--frequency always]`: cloud-init's `single`, for the modules
//! the runner runs (runcmd, scripts, ntp, timezone…), with the config this instance's handoff
//! gave them. Modules ember-initrd runs in the initramfs (write_files, users_groups…) cannot
//! run from the booted system: a clear error says so. Nothing is recorded in status.json.
//! <https://docs.cloud-init.io/en/latest/reference/cli.html#single>

use super::exec::Exec;
use super::modules::{run_single, ModCtx};
use super::{global_flag, CliError, Ctx};
use crate::handoff::Handoff;
use crate::root::Root;
use crate::state::{encode_instance_id, Semaphores};
use lexopt::prelude::*;
use std::cell::RefCell;

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut name, mut always) = (None, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('n') | Long("name") => name = Some(parser.value()?.string()?),
            Long("frequency") => {
                always = match parser.value()?.string()?.as_str() {
                    "always" | "per-boot" => true,
                    "once-per-instance" | "instance" | "once" => false,
                    other => return Err(CliError::Usage(format!("unknown frequency '{other}'"))),
                }
            }
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    let name = name.ok_or_else(|| CliError::Usage("single: --name MODULE is required".into()))?;
    let name = name.strip_prefix("cc_").unwrap_or(&name).to_string();
    let path = ctx.run_paths().handoff();
    let data = crate::regular::read(&path, crate::regular::STATE_MAX)
        .map_err(|e| CliError::file(&path, e))?;
    let handoff: Handoff = serde_json::from_slice(&data)
        .map_err(|e| CliError::file(&path, format!("not a valid handoff (line {})", e.line())))?;
    let Some(call) = handoff.modules.iter().find(|c| c.name == name) else {
        let initrd = crate::module_specs::in_initramfs(&name);
        let why = if initrd {
            format!("{name} runs in the initramfs (ember-initrd), before the pivot: it cannot run from the booted system")
        } else {
            format!(
                "{name} is not in this instance's handoff ({})",
                path.display()
            )
        };
        return Err(CliError::Failed(why));
    };
    let root = Root::open(&ctx.target).map_err(|e| CliError::Failed(e.to_string()))?;
    let enc = encode_instance_id(&handoff.instance_id);
    let boot = super::stage_cmd::boot_id(ctx);
    let sems = Semaphores::new(&root, &enc, &boot);
    let exec = Exec::new(&root, &ctx.target);
    let mctx = ModCtx {
        root: &root,
        exec: &exec,
        handoff: &handoff,
        sems: &sems,
        ci_instance: format!("{}/instances/{enc}", crate::paths::system().cloud_dir),
        datasource: handoff.datasource.clone(),
        power: RefCell::new(None),
    };
    let mut diags = Vec::new();
    let ran = run_single(&mctx, call, always, &mut diags).map_err(CliError::Failed)?;
    for d in &diags {
        eprintln!("{}: {name}: {d}", ctx.prog);
    }
    if !ran {
        println!(
            "{name} already ran ({}); --frequency always runs it again",
            call.frequency
        );
    }
    Ok(i32::from(diags.iter().any(|d| d.is_error())))
}

//! `bootcmd`: commands run on every boot by the early unit (`ember init`), before the
//! network and ssh, with `INSTANCE_ID` in the environment. The script is written 0700 to
//! ember's state directory and run by `/bin/sh`, so the commands never show in a process list.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#bootcmd>

use super::{shell, ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::state::EMBER_LIB;
use serde_json::Value;

pub struct Bootcmd;

const SCRIPT: &str = "/var/lib/ember/bootcmd.sh";

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        if let Some(list) = cfg.get("bootcmd") {
            shell::script("bootcmd", list, d);
        }
    },
};

impl RunnerModule for Bootcmd {
    fn name(&self) -> &'static str {
        "bootcmd"
    }

    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        debug_assert!(SCRIPT.starts_with(EMBER_LIB));
        let Some(list) = cfg.get("bootcmd") else {
            return;
        };
        let Some(text) = shell::script("bootcmd", list, diags) else {
            return;
        };
        if let Err(e) = ctx
            .root
            .write_file(SCRIPT, text.as_bytes(), &FileSpec::mode(0o700))
        {
            diags.push(Diag::error(e.code(), e.to_string()).key("bootcmd"));
            return;
        }
        let env = [("INSTANCE_ID", ctx.handoff.instance_id.as_str())];
        let outcome = ctx.exec.run(&["/bin/sh", SCRIPT], &env);
        if !outcome.ok() {
            let msg = format!("bootcmd {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key("bootcmd"));
        }
    }
}

//! `runcmd`: writes the commands as one script, `<instance>/scripts/runcmd` (0700), which
//! `scripts_user` runs, as cloud-init does. Writing it runs nothing, so it is replayable.
//! <https://docs.cloud-init.io/en/latest/reference/yaml_examples/boot_cmds.html>

use super::{shell, ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::root::FileSpec;
use serde_json::Value;

pub struct Runcmd;

/// The script's path in the instance directory, for `scripts_user`.
pub fn script_path(ctx: &ModCtx) -> String {
    format!("{}/scripts/runcmd", ctx.ci_instance)
}

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        if let Some(list) = cfg.get("runcmd") {
            shell::script("runcmd", list, d);
        }
    },
};

impl RunnerModule for Runcmd {
    fn name(&self) -> &'static str {
        "runcmd"
    }

    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(list) = cfg.get("runcmd") else {
            return;
        };
        let Some(text) = shell::script("runcmd", list, diags) else {
            return;
        };
        // 0700: the commands are user-data, and may carry what only root should read.
        let path = script_path(ctx);
        if let Err(e) = ctx
            .root
            .write_file(&path, text.as_bytes(), &FileSpec::mode(0o700))
        {
            diags.push(Diag::error(e.code(), e.to_string()).key("runcmd"));
        }
    }
}

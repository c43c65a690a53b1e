//! `reset_rmc` (no keys): on IBM PowerVM, a new RSCT node id for each instance, as cloud-init
//! makes it: where /opt/rsct/install/bin exists (RSCT installed) and the datasource is not
//! None, the RMC subsystem is stopped (`rmcctrl -z`), `recfgct` makes a new node id, and
//! /etc/ct_node_id must then differ from before (else an error). Elsewhere it does nothing.
//! It runs at most once per instance: a new node id is not something to make twice.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::system_tools as tools;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

pub struct ResetRmc;

const RSCT_PATH: &str = "/opt/rsct/install/bin";
const NODE_ID_FILE: &str = "/etc/ct_node_id";
/// cloud-init puts RSCT's install directory before the PATH it runs with; RSCT's `rmcctrl`
/// lives in /opt/rsct/bin, which ember's fixed PATH lacks, so it follows.
const PATH: &str = "/opt/rsct/install/bin:/opt/rsct/bin:/usr/local/sbin:/usr/local/bin:\
                    /usr/sbin:/usr/bin:/sbin:/bin";

fn node_id(ctx: &ModCtx) -> Result<String, Diag> {
    match ctx.root.read_file(NODE_ID_FILE, 64 * 1024) {
        Ok(Some(data)) => Ok(String::from_utf8_lossy(&data)
            .split('\n')
            .next()
            .unwrap_or_default()
            .to_string()),
        Ok(None) => Err(Diag::error(
            Reason::PathMissing,
            format!("no {NODE_ID_FILE}: the RSCT node id cannot be read"),
        )),
        Err(e) => Err(Diag::error(e.code(), e.to_string())),
    }
}

impl RunnerModule for ResetRmc {
    fn name(&self) -> &'static str {
        "reset_rmc"
    }
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, _cfg: &Value, diags: &mut Vec<Diag>) {
        if ctx.handoff.datasource == "none" || !ctx.root.exists(RSCT_PATH) {
            return;
        }
        let before = match node_id(ctx) {
            Ok(id) => id,
            Err(d) => return diags.push(d),
        };
        for argv in [&["rmcctrl", "-z"][..], &["recfgct"]] {
            let outcome = tools::run(ctx, "reset_rmc", argv, &[("PATH", PATH)]);
            if !outcome.ok() {
                let msg = format!("{} {}", argv[0], outcome.describe());
                return diags.push(Diag::error(Reason::CommandFailed, msg));
            }
        }
        match node_id(ctx) {
            Ok(after) if after == before => {
                let msg = "recfgct made no new RSCT node id";
                diags.push(Diag::error(Reason::CommandFailed, msg));
            }
            Ok(_) => {}
            Err(d) => diags.push(d),
        }
    }
}

//! write_files_deferred: the `defer: true` files ember-initrd decoded (and fetched) and left
//! in the target, written now that users and groups exist, so their owners resolve.

use super::{ModCtx, RunnerModule};
use crate::common::accounts::Accounts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::write_files::apply::{apply, DecodedFile, DEFERRED_PATH};
use serde_json::Value;

pub struct WriteFilesDeferred;

/// The deferred list is bounded like any file ember reads from the target.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

impl RunnerModule for WriteFilesDeferred {
    fn name(&self) -> &'static str {
        "write_files_deferred"
    }

    fn run(&self, ctx: &ModCtx, _cfg: &Value, diags: &mut Vec<Diag>) {
        let data = match ctx.root.read_file(DEFERRED_PATH, MAX_BYTES) {
            Ok(Some(data)) => data,
            Ok(None) => return,
            Err(e) => return diags.push(Diag::error(e.code(), e.to_string())),
        };
        let files: Vec<DecodedFile> = match serde_json::from_slice(&data) {
            Ok(files) => files,
            Err(e) => {
                let msg = format!("deferred list is not valid ({:?} error)", e.classify());
                return diags.push(Diag::error(Reason::DeferredInvalid, msg).file(DEFERRED_PATH));
            }
        };
        let accounts = Accounts::load(ctx.root);
        for (i, file) in files.iter().enumerate() {
            if let Err(d) = apply(ctx.root, file, &accounts) {
                let key = match &d.key {
                    Some(k) => format!("write_files_deferred.{i}.{k}"),
                    None => format!("write_files_deferred.{i}"),
                };
                diags.push(d.key(key));
            }
        }
    }
}

//! `keys_to_console`: the host keys' fingerprints and public keys on the console, in the
//! blocks cloud-init's `write-ssh-key-fingerprints` helper prints, in the final stage (the host
//! keys that exist by then: ember-initrd made Ed25519 and ECDSA; RSA, made in the background
//! after sshd started, gets blocks of its own when it is made: `runner::deferred`). Honours
//! `ssh.emit_keys_to_console`, `ssh_fp_console_blacklist` and `ssh_key_console_blacklist`.
//! ember computes the fingerprints itself; the target needs no helper and no ssh-keygen.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#keys-to-console>

mod render;
mod settings;

use super::{ModCtx, RunnerModule};
use crate::clock::wall_seconds;
use crate::config::reader::Reader;
use crate::date::format_utc;
use crate::error::Diag;
use serde_json::Value;

pub use settings::{read, Console};

pub struct KeysToConsole;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: settings::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The public host key files (`/etc/ssh/ssh_host_*key.pub`) in glob order, with their text.
pub fn host_public_keys(ctx: &ModCtx) -> Vec<(String, String)> {
    let names = ctx.root.list_dir("/etc/ssh").unwrap_or_default();
    names
        .into_iter()
        .filter(|n| n.starts_with("ssh_host_") && n.ends_with("key.pub"))
        .filter_map(|n| {
            let data = ctx
                .root
                .read_file(&format!("/etc/ssh/{n}"), 64 * 1024)
                .ok()??;
            Some((n, String::from_utf8_lossy(&data).into_owned()))
        })
        .collect()
}

impl RunnerModule for KeysToConsole {
    fn name(&self) -> &'static str {
        "keys_to_console"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        print(ctx, cfg, |_| true, diags);
    }
}

/// Prints the blocks for the public host key files whose names `keep` accepts, as `cfg` says.
pub fn print(ctx: &ModCtx, cfg: &Value, keep: impl Fn(&str) -> bool, diags: &mut Vec<Diag>) {
    let console = read(cfg, diags);
    if !console.emit {
        return;
    }
    let pubs: Vec<_> = host_public_keys(ctx)
        .into_iter()
        .filter(|(n, _)| keep(n))
        .collect();
    let header = render::header(&format_utc(wall_seconds()));
    for line in render::render(&pubs, &console, &header) {
        ctx.exec.say(&line);
    }
}

//! `write_files`: files from the cloud-config written into the target root from the initramfs;
//! `defer: true` items are decoded here and left for the runner (see [`apply::DEFERRED_PATH`]).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#write-files>
//! Where it differs from cloud-init (each said where it happens): `path` must be absolute and
//! present, and a bad item (wrong type, bad permissions or encoding, unknown owner) is an error
//! for that item, which is not written, where cloud-init skips, guesses or aborts the module.

pub mod apply;
pub mod decode;
mod journal;
pub mod perms;
pub mod read;
pub mod selinux;
mod shape;
pub mod source;

use super::{Module, ModuleCtx};
use crate::common::accounts::Accounts;
use crate::config::reader::Reader;
use crate::config::shape::list;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use apply::{DecodedFile, DEFERRED_PATH};

pub struct WriteFiles;

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("write_files", list(&shape::WRITE_FILE, 1))],
    read: |cfg, d| {
        read::read(cfg, d);
    },
};

impl Module for WriteFiles {
    fn name(&self) -> &'static str {
        "write_files"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some(items) = read::list(ctx.cfg, diags) else {
            return;
        };
        let accounts = Accounts::load(ctx.root);
        let mut journal = journal::Journal::load(ctx.root, &ctx.instance.instance_id);
        let (mut deferred, mut written) = (Vec::new(), Vec::new());
        let mut left = ctx.limits.write_files_bytes;
        for (i, value) in items.iter().enumerate() {
            let Some(item) = read::item(i, value, diags) else {
                continue;
            };
            let (key, defer) = (item.key.clone(), item.defer);
            let Some(file) = decoded(ctx, item, left, diags) else {
                continue;
            };
            left -= file.content.len() as u64;
            if defer {
                deferred.push(file);
                continue;
            }
            let entry = file
                .append
                .then(|| journal::Journal::entry(i, &file.path, &file.content));
            if entry.as_ref().is_some_and(|e| journal.contains(e)) {
                continue; // appended on an earlier run for this instance
            }
            match apply::apply(ctx.root, &file, &accounts) {
                Ok(()) => {
                    if let Some(Err(e)) = entry.map(|e| journal.record(e)) {
                        diags.push(Diag::error(e.code(), e.to_string()).key(key));
                    }
                    written.push(file.path);
                }
                Err(mut d) => {
                    d.key = Some(match d.key {
                        Some(field) => format!("{key}.{field}"),
                        None => key,
                    });
                    diags.push(d);
                }
            }
        }
        save_deferred(ctx, &deferred, diags);
        relabel_later(ctx, &written, diags);
    }
}

/// One item's content: fetched from `source`, else decoded from `content`. `None` when it
/// cannot be (reported): it is then not written. `left`: what write_files may still write this
/// boot; a content past it is not decoded further.
fn decoded<'v>(
    ctx: &ModuleCtx,
    item: read::Item<'v>,
    left: u64,
    diags: &mut Vec<Diag>,
) -> Option<DecodedFile<'v>> {
    let key = &item.key;
    let fetched = item.source.and_then(|src| {
        source::fetch(ctx, &src)
            .map_err(|why| {
                let msg = format!("source could not be read ({why}); content used instead");
                diags.push(Diag::warning(Reason::FetchFailed, msg).key(format!("{key}.source")));
            })
            .ok()
    });
    let (cap, budget) = if left < ctx.limits.inflated_bytes {
        (left, "write_files_bytes")
    } else {
        (ctx.limits.inflated_bytes, "inflated_bytes")
    };
    let mut dropped = 0;
    let content = match fetched {
        Some(data) => data.into(),
        None => match decode::decode(item.content, item.encoding, cap, &mut dropped) {
            Ok(data) => data,
            Err(e) => {
                let mut d = Diag::error(e.code(), e.message()).key(format!("{key}.content"));
                if e == decode::DecodeError::TooLarge {
                    d = d.budget(budget);
                }
                diags.push(d);
                return None;
            }
        },
    };
    if dropped > 0 {
        let msg = format!("{dropped} characters outside the base64 alphabet were skipped, as cloud-init skips them");
        diags.push(Diag::warning(Reason::Base64Invalid, msg).key(format!("{key}.content")));
    }
    if content.len() as u64 > left {
        let msg = "past the bytes write_files may write in one boot; not written";
        let d = Diag::error(Reason::BudgetExceeded, msg).key(format!("{key}.content"));
        diags.push(d.budget("write_files_bytes"));
        return None;
    }
    Some(DecodedFile {
        path: item.path.to_string(),
        content,
        permissions: item.permissions,
        owner: item.owner.to_string(),
        append: item.append,
    })
}

/// Leaves the deferred items for the runner (0600 in a 0700 directory: content may be secret).
fn save_deferred(ctx: &ModuleCtx, deferred: &[DecodedFile], diags: &mut Vec<Diag>) {
    if deferred.is_empty() {
        return clear_deferred(ctx, diags);
    }
    let json = serde_json::to_vec(deferred).expect("plain data serializes");
    let dir = DEFERRED_PATH.rsplit_once('/').map_or("/", |(d, _)| d);
    let done = ctx
        .root
        .create_dir_all(dir, &FileSpec::mode(0o700))
        .and_then(|()| {
            ctx.root
                .write_file(DEFERRED_PATH, &json, &FileSpec::mode(0o600))
        });
    if let Err(e) = done {
        diags.push(Diag::error(e.code(), e.to_string()).key("write_files"));
    }
}

/// A previous instance's deferred items must not be applied for this one.
fn clear_deferred(ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
    if ctx.root.exists(DEFERRED_PATH) {
        if let Err(e) = ctx.root.remove_file(DEFERRED_PATH) {
            diags.push(Diag::error(e.code(), e.to_string()));
        }
    }
}

/// On an SELinux target, lists what was written for relabelling before sshd starts.
fn relabel_later(ctx: &ModuleCtx, written: &[String], diags: &mut Vec<Diag>) {
    if written.is_empty() || !selinux::enabled(ctx.root) {
        return;
    }
    if written.iter().any(|p| !selinux::listable(p)) {
        let msg = "a path with a line break cannot be listed for SELinux relabelling";
        diags.push(Diag::warning(Reason::RelabelSkipped, msg).key("write_files"));
    }
    if let Err(e) = selinux::record(ctx.root, written) {
        diags.push(Diag::error(e.code(), e.to_string()).key("write_files"));
    }
}

#[cfg(test)]
mod tests;

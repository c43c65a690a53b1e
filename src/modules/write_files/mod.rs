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
pub mod selinux;
pub mod source;

use super::accounts::Accounts;
use super::{Module, ModuleCtx};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use apply::{DecodedFile, DEFAULT_OWNER, DEFERRED_PATH};
use decode::Encoding;
use serde_json::{Map, Value};

pub struct WriteFiles;

impl Module for WriteFiles {
    fn name(&self) -> &'static str {
        "write_files"
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let items = match ctx.cfg.get("write_files") {
            None | Some(Value::Null) => return clear_deferred(ctx, diags),
            Some(Value::Array(items)) => items,
            Some(_) => {
                let d = Diag::error(Reason::WrongType, "must be a list of files");
                return diags.push(d.key("write_files"));
            }
        };
        let accounts = Accounts::load(ctx.root);
        let mut journal = journal::Journal::load(ctx.root, &ctx.instance.instance_id);
        let (mut deferred, mut written) = (Vec::new(), Vec::new());
        let mut left = ctx.limits.write_files_bytes;
        for (i, value) in items.iter().enumerate() {
            let key = format!("write_files.{i}");
            let Some((file, defer)) = item(ctx, &key, value, left, diags) else {
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

/// `true`/`false`, or the strings cloud-init's `get_cfg_option_bool` takes (`"yes"`, `"on"`, …:
/// only quoted ones reach here, the YAML reader turns bare ones into booleans).
fn flag(map: &Map<String, Value>, name: &str, key: &str, errors: &mut Vec<Diag>) -> bool {
    let word = match map.get(name) {
        None | Some(Value::Null) => return false,
        Some(Value::Bool(b)) => return *b,
        Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
        Some(_) => String::from("?"),
    };
    match word.as_str() {
        "true" | "1" | "on" | "yes" | "y" => true,
        "false" | "0" | "off" | "no" | "n" | "" => false,
        _ => {
            let d = Diag::error(Reason::WrongType, "must be true or false");
            errors.push(d.key(format!("{key}.{name}")));
            false
        }
    }
}

/// A string field, `None` when absent; a wrong type is an error.
fn text<'v>(
    map: &'v Map<String, Value>,
    name: &str,
    key: &str,
    errors: &mut Vec<Diag>,
) -> Option<&'v str> {
    match map.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            errors.push(
                Diag::error(Reason::WrongType, "must be a string").key(format!("{key}.{name}")),
            );
            None
        }
    }
}

/// One item checked and decoded (every problem reported, not only the first), with its `defer`.
/// `None` when it has an error: it is then not written.
/// `left`: what write_files may still write this boot; a content past it is not decoded
/// further.
fn item<'v>(
    ctx: &ModuleCtx,
    key: &str,
    value: &'v Value,
    left: u64,
    diags: &mut Vec<Diag>,
) -> Option<(DecodedFile<'v>, bool)> {
    let Value::Object(map) = value else {
        diags.push(Diag::error(Reason::WrongType, "must be a mapping with path").key(key));
        return None;
    };
    let mut errors = Vec::new();
    let path_key = format!("{key}.path");
    let path = match map.get("path") {
        Some(Value::String(p)) if p.starts_with('/') => Some(p.as_str()),
        None | Some(Value::Null) => {
            errors.push(Diag::error(Reason::PathMissing, "is required").key(path_key));
            None
        }
        Some(Value::String(p)) if p.is_empty() => {
            errors.push(Diag::error(Reason::PathMissing, "is required").key(path_key));
            None
        }
        // cloud-init takes a relative path from its working directory (`/`); here that
        // would be a guess, so it is refused.
        Some(Value::String(_)) => {
            errors.push(Diag::error(Reason::PathInvalid, "must be an absolute path").key(path_key));
            None
        }
        Some(_) => {
            errors.push(Diag::error(Reason::WrongType, "must be a string").key(path_key));
            None
        }
    };
    let content = text(map, "content", key, &mut errors).unwrap_or("");
    let owner = text(map, "owner", key, &mut errors)
        .unwrap_or(DEFAULT_OWNER)
        .to_string();
    let encoding = match text(map, "encoding", key, &mut errors).map(Encoding::parse) {
        None => Encoding::Plain,
        Some(Ok(e)) => e,
        Some(Err(())) => {
            // cloud-init warns and takes the content as it is.
            let msg = "unknown encoding, content written as text/plain";
            diags.push(Diag::warning(Reason::EncodingUnknown, msg).key(format!("{key}.encoding")));
            Encoding::Plain
        }
    };
    let permissions = match perms::parse(map.get("permissions")) {
        Ok((mode, suspicious)) => {
            if suspicious {
                let msg = "is a decimal number whose digits look octal; it is used as decimal, as cloud-init does (quote it, '0644', for an octal mode)";
                diags.push(
                    Diag::warning(Reason::PermissionsDecimal, msg)
                        .key(format!("{key}.permissions")),
                );
            }
            mode
        }
        Err(e) => {
            errors.push(Diag::error(e.code(), e.message()).key(format!("{key}.permissions")));
            0
        }
    };
    let append = flag(map, "append", key, &mut errors);
    let defer = flag(map, "defer", key, &mut errors);
    let source = source::parse(map.get("source"), key).unwrap_or_else(|e| {
        errors.extend(e);
        None
    });
    if !errors.is_empty() {
        diags.extend(errors);
        return None;
    }
    let fetched = source.and_then(|src| {
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
    let content = match fetched {
        Some(data) => data.into(),
        None => match decode::decode(content, encoding, cap) {
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
    if content.len() as u64 > left {
        let msg = "past the bytes write_files may write in one boot; not written";
        let d = Diag::error(Reason::BudgetExceeded, msg).key(format!("{key}.content"));
        diags.push(d.budget("write_files_bytes"));
        return None;
    }
    let file = DecodedFile {
        path: path?.to_string(),
        content,
        permissions,
        owner,
        append,
    };
    Some((file, defer))
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

//! `ssh_import_id`: imports ssh keys from key servers (`gh:user`, `lp:user`) with the target's
//! `ssh-import-id`, run as each user (`sudo --preserve-env=https_proxy -Hu USER`, else `doas
//! -u USER`) once the network is up: the top-level `ssh_import_id` for the default user, and
//! each other user's own `ssh_import_id` from `users`. Its handoff carries `users`, `user` and
//! `system_info` so the users are named as cloud-init names them (users.rs). As in cloud-init:
//! nothing happens when no `ssh_import_id` appears anywhere in that config; no
//! `ssh-import-id` is a warning; a user missing from the target or a failed import fails the
//! module. The ids go on `ssh-import-id`'s command line, its only interface: they are public
//! account names, not secrets.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ssh-import-id>

pub mod users;

use super::{ModCtx, RunnerModule};
use crate::common::accounts::Accounts;
use crate::common::distro::which;
use crate::config::reader::Reader;
use crate::config::shape::{list, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

pub struct SshImportId;

const TOOL: &str = "ssh-import-id";

/// Its keys' shapes (`users` has its shape in the users module) and typed reader.
pub static READER: Reader = Reader {
    shapes: &[("ssh_import_id", list(&Shape::Str, 0))],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// One user's ids to import.
#[derive(Debug, PartialEq)]
pub struct Import {
    pub user: String,
    pub ids: Vec<String>,
    /// Where the ids came from: `ssh_import_id`, or `users.<name>.ssh_import_id`.
    pub key: String,
}

/// Whether `key` appears anywhere in `v`, in mappings or in mappings inside lists (cloud-init's
/// test for running at all).
fn nested(v: &Value, key: &str) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| k == key || nested(v, key)),
        Value::Array(items) => items.iter().any(|i| i.is_object() && nested(i, key)),
        _ => false,
    }
}

/// A scalar as Python's `str()` writes it; None for what cloud-init could not pass on.
fn word(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The ids of one user, without repeats: a list's items as they are, a string split at commas
/// (a user's own), or, at the top level, one id (cloud-init's `get_cfg_option_list` does not
/// split it). None when an item is not text.
fn ids(v: &Value, split: bool) -> Option<Vec<String>> {
    let raw: Vec<String> = match v {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().map(word).collect::<Option<_>>()?,
        Value::String(s) if split => s
            .trim()
            .split(',')
            .filter(|i| !i.is_empty())
            .map(str::to_string)
            .collect(),
        other => vec![word(other)?],
    };
    let mut out: Vec<String> = Vec::new();
    for id in raw {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Some(out)
}

/// Every user with ids to import, in cloud-init's order. An entry whose ids are not text is
/// a warning and is skipped, as cloud-init logs and skips it.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<Import> {
    let mut out = Vec::new();
    for user in users::normalize(cfg) {
        let (found, key) = if user.default {
            let v = cfg.get("ssh_import_id").unwrap_or(&Value::Null);
            (ids(v, false), "ssh_import_id".to_string())
        } else {
            let v = user.cfg.get("ssh_import_id").unwrap_or(&Value::Null);
            (ids(v, true), format!("users.{}.ssh_import_id", user.name))
        };
        match found {
            Some(ids) if !ids.is_empty() => out.push(Import {
                user: user.name,
                ids,
                key,
            }),
            Some(_) => {}
            None => {
                let msg = "expected a list of ids such as gh:user: not imported";
                diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            }
        }
    }
    out
}

impl RunnerModule for SshImportId {
    fn name(&self) -> &'static str {
        "ssh_import_id"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        if !nested(cfg, "ssh_import_id") {
            return;
        }
        if which(ctx.root, TOOL).is_none() {
            let msg = "ssh-import-id is not installed in the target: nothing imported";
            diags.push(Diag::warning(Reason::ToolMissing, msg).key("ssh_import_id"));
            return;
        }
        let imports = read(cfg, diags);
        let accounts = Accounts::load(ctx.root);
        let sudo = which(ctx.root, "sudo").is_some();
        let doas = which(ctx.root, "doas").is_some();
        for Import { user, ids, key } in &imports {
            let key = key.as_str();
            if accounts.user(user).is_none() {
                let msg = "the user is not in the target's passwd: nothing imported";
                diags.push(Diag::error(Reason::UserMissing, msg).key(key));
                continue;
            }
            let mut argv: Vec<&str> = if sudo {
                vec!["sudo", "--preserve-env=https_proxy", "-Hu", user, TOOL]
            } else if doas {
                vec!["doas", "-u", user, TOOL]
            } else {
                // cloud-init logs this at ERROR level and returns: a recoverable error.
                let msg = "neither sudo nor doas in the target: nothing imported";
                diags.push(Diag::warning(Reason::ToolMissing, msg).key(key));
                continue;
            };
            argv.extend(ids.iter().map(String::as_str));
            let outcome = ctx.exec.run(&argv, &[]);
            if !outcome.ok() {
                let msg = format!("ssh-import-id {}", outcome.describe());
                diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn imports(cfg: Value) -> Vec<(String, Vec<String>)> {
        read(&cfg, &mut Vec::new())
            .into_iter()
            .map(|i| (i.user, i.ids))
            .collect()
    }

    fn imp(user: &str, ids: &[&str]) -> (String, Vec<String>) {
        (user.into(), ids.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn the_default_user_takes_the_top_level_ids_the_others_their_own() {
        let cfg = json!({
            "ssh_import_id": ["gh:alice", "lp:alice", "gh:alice"],
            "users": [
                "default",
                {"name": "bob", "ssh_import_id": "gh:bob,lp:bob"},
                {"name": "carl"},
                {"name": "dora", "ssh-import-id": ["gh:dora", 7]},
            ],
            "system_info": {"default_user": {"name": "ubuntu", "ssh_import_id": ["gh:no"]}},
        });
        assert_eq!(
            imports(cfg),
            [
                imp("bob", &["gh:bob", "lp:bob"]),
                imp("dora", &["gh:dora", "7"]),
                imp("ubuntu", &["gh:alice", "lp:alice"]),
            ]
        );
        // A top-level string is one id, as cloud-init reads it.
        let cfg = json!({"ssh_import_id": "gh:a,gh:b", "users": ["default"],
                         "system_info": {"default_user": {"name": "ubuntu"}}});
        assert_eq!(imports(cfg), [imp("ubuntu", &["gh:a,gh:b"])]);
        // No default user: the top-level ids go nowhere.
        assert_eq!(imports(json!({"ssh_import_id": ["gh:a"], "users": []})), []);
    }

    #[test]
    fn ids_that_are_not_text_warn_and_skip_the_user() {
        let mut diags = Vec::new();
        let cfg = json!({"users": [{"name": "bob", "ssh_import_id": [{"gh": "bob"}]}]});
        assert!(read(&cfg, &mut diags).is_empty());
        assert_eq!(diags[0].key.as_deref(), Some("users.bob.ssh_import_id"));
        assert!(!diags[0].is_error());
    }

    #[test]
    fn the_key_is_found_where_cloud_init_looks() {
        assert!(nested(&json!({"ssh_import_id": []}), "ssh_import_id"));
        assert!(nested(
            &json!({"users": [{"name": "a", "ssh_import_id": ["gh:a"]}]}),
            "ssh_import_id"
        ));
        assert!(!nested(
            &json!({"users": ["default"], "user": "x"}),
            "ssh_import_id"
        ));
    }
}

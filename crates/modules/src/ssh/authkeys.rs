//! Authorized keys as cloud-init's cc_ssh sets them: the meta-data's public keys (unless
//! `allow_public_ssh_keys` is false) and the top-level `ssh_authorized_keys`, for the default
//! user and for root; with `disable_root` (default true) root's lines carry
//! `disable_root_opts`, which tells whoever logs in as root to use the default user.
//! Per-user keys from `users:` are the users module's job. Both write to the file the
//! target's sshd_config `AuthorizedKeysFile` names for the user (`users::authorized_keys`).

use super::Settings;
use crate::common::accounts::{Account, Accounts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::users::authorized_keys::{add_keys, with_options};
use crate::ModuleCtx;

pub use crate::users::default::{default_user, DISABLE_ROOT_OPTS};

/// The keys cc_ssh installs, in order, without repeats.
fn wanted_keys(ctx: &ModuleCtx, settings: &Settings) -> Vec<String> {
    let mut keys = Vec::new();
    if settings.allow_public_keys {
        // A key naming a user is that user's; one naming no one is the default user's.
        let user = default_user(ctx.cfg);
        let keys_for_user = ctx
            .instance
            .public_keys
            .iter()
            .filter(|k| k.user.is_none() || k.user.as_deref() == user.as_deref());
        keys = keys_for_user.map(|k| k.key.clone()).collect();
    }
    keys.extend(settings.authorized_keys.iter().cloned());
    let mut seen = std::collections::HashSet::new();
    keys.retain(|k| seen.insert(k.clone()));
    keys
}

/// Installs the keys for the default user and root. A failure is a warning: cc_ssh applies
/// them in one `try` that logs (logexc) and goes on, unlike the users module, whose per-user
/// keys fail it.
pub fn apply(ctx: &ModuleCtx, settings: &Settings, diags: &mut Vec<Diag>) {
    let keys = wanted_keys(ctx, settings);
    // cloud-init writes an empty authorized_keys when there are none; nothing is kinder.
    if keys.is_empty() {
        return;
    }
    let user = default_user(ctx.cfg);
    let accounts = Accounts::load(ctx.root);
    if let Some(name) = &user {
        match accounts.user(name) {
            Some(acct) => {
                diags.extend(add_keys(ctx.root, acct, &keys).err().map(Diag::recoverable))
            }
            None => diags.push(
                Diag::warning(
                    Reason::SshUserMissing,
                    "the default user is not in the target's passwd: its keys were not written",
                )
                .key("system_info.default_user.name"),
            ),
        }
    }
    let prefix = if settings.disable_root {
        let opts = &settings.disable_root_opts;
        opts.replace("$USER", user.as_deref().unwrap_or("NONE"))
            .replace("$DISABLE_USER", "root")
    } else {
        String::new()
    };
    let root_lines: Vec<String> = keys.iter().map(|k| with_options(k, &prefix)).collect();
    let root_acct = accounts.user("root").cloned().unwrap_or(Account {
        name: "root".into(),
        uid: 0,
        gid: 0,
        home: "/root".into(),
        shell: String::new(),
    });
    diags.extend(
        add_keys(ctx.root, &root_acct, &root_lines)
            .err()
            .map(Diag::recoverable),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_user_as_cloud_init_reads_it() {
        let sys = json!({"name": "debian"});
        let cases = [
            (
                json!({"system_info": {"default_user": sys}}),
                Some("debian"),
            ),
            (
                json!({"users": ["default"], "system_info": {"default_user": sys}}),
                Some("debian"),
            ),
            (
                json!({"users": "default, bob", "system_info": {"default_user": sys}}),
                Some("debian"),
            ),
            (
                json!({"users": [{"name": "bob"}], "system_info": {"default_user": sys}}),
                None,
            ),
            (
                json!({"user": "ann", "users": [], "system_info": {"default_user": sys}}),
                Some("ann"),
            ),
            (json!({"user": {"name": "ann"}}), Some("ann")),
            (json!({}), None),
        ];
        for (cfg, want) in cases {
            assert_eq!(default_user(&cfg).as_deref(), want, "{cfg}");
        }
    }

    #[test]
    fn default_options_match_cloud_init() {
        let want = "no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command=\"echo 'Please login as the user \\\"$USER\\\" rather than the user \\\"$DISABLE_USER\\\".';echo;sleep 10;exit 142\"";
        assert_eq!(DISABLE_ROOT_OPTS, want);
    }
}

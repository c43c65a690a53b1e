//! `users_groups`: the `groups` and `users` keys applied to the target's /etc/passwd, shadow,
//! group, gshadow, subuid and subgid directly (the initramfs has no useradd), keeping each
//! file's format, order and mode; homes from /etc/skel, sudo rules, authorized keys. Keys from
//! key servers (`ssh_import_id`) are the runner's ssh_import_id module's, once the network is
//! up. doas rules go to /etc/doas.conf; `ssh_redirect_user` puts the cloud's keys in, each
//! redirecting to the default user. It does not touch SELinux or snap users.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#users-and-groups>
//!
//! Existing users (the image's, or ones made by an earlier run) are never duplicated: they get
//! their `groups`, `hashed_passwd`/`plain_text_passwd`, locking, sudo rules and keys, as
//! cloud-init applies them; uid, primary group, gecos, home and shell stay as they are (as
//! useradd, which cloud-init skips for an existing user, leaves them).

pub mod authorized_keys;
mod create;
pub mod default;
mod doas;
mod fields;
mod home;
mod inspect;
mod keys;
mod login_defs;
pub mod passwd_db;
mod redirect;

pub mod shape;
pub mod spec;
mod sudo;

use super::{Module, ModuleCtx};
use crate::common::accounts::Account;
use crate::config::reader::Reader;
use crate::config::shape::Shape;
use crate::error::Diag;
use crate::password;
use crate::reason::Reason;
use crate::root::{Owner, Root};
use create::Env;
use login_defs::LoginDefs;
use passwd_db::Db;

pub struct UsersGroups;

fn read_text(root: &Root, path: &str) -> String {
    let data = root.read_file(path, 1024 * 1024).ok().flatten();
    String::from_utf8_lossy(&data.unwrap_or_default()).into_owned()
}

/// Fedora and its family mark an account without a password `!!`; others `!`.
pub fn no_password_mark(distro: &str) -> &'static str {
    match distro {
        "fedora" | "rhel" | "centos" | "rocky" | "almalinux" | "ol" | "amzn" => "!!",
        _ => "!",
    }
}

fn env(root: &Root, distro: &str) -> Env {
    let defaults = read_text(root, "/etc/default/useradd");
    let var = |k: &str| {
        defaults.lines().find_map(|l| {
            let v = l.trim().strip_prefix(k)?.strip_prefix('=')?;
            Some(v.trim().trim_matches('"').to_string()).filter(|v| !v.is_empty())
        })
    };
    Env {
        defs: LoginDefs::parse(&read_text(root, "/etc/login.defs")),
        today: password::today(),
        no_password: no_password_mark(distro),
        shell: var("SHELL").unwrap_or_else(|| "/bin/sh".into()),
        home_base: var("HOME").unwrap_or_else(|| "/home".into()),
        group: var("GROUP").and_then(|g| g.parse().ok()).unwrap_or(100),
    }
}

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[
        ("users", shape::USERS),
        ("user", Shape::OneOf(&[Shape::Str, shape::USER])),
        ("groups", shape::GROUPS),
    ],
    read: |cfg, d| {
        spec::users(cfg, d);
        spec::groups(cfg, d);
    },
};

impl Module for UsersGroups {
    fn name(&self) -> &'static str {
        "users_groups"
    }
    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let groups = spec::groups(ctx.cfg, diags);
        let users = spec::users(ctx.cfg, diags);
        if groups.is_empty() && users.is_empty() {
            return;
        }
        let mut db = match Db::load(ctx.root) {
            Ok(db) => db,
            Err(d) => return diags.push(d),
        };
        let env = env(ctx.root, ctx.distro);
        // Groups first, as cloud-init; their members after the users, so a member created
        // in this same run is found (cloud-init would warn and skip it).
        for (key, name, _) in &groups {
            // cloud-init logs a failed groupadd (logexc, a warning) and goes on.
            if create::ensure_group(&mut db, &env, name, false, None).is_none() {
                let msg = "no free gid in login.defs' range: group not made";
                diags.push(Diag::warning(Reason::IdExhausted, msg).key(key.clone()));
            }
        }
        let applied: Vec<_> = users
            .iter()
            .filter_map(|u| Some((u, create::apply(&mut db, &env, u, diags)?)))
            .collect();
        for (key, name, members) in &groups {
            for m in members {
                if db.passwd.get(m).is_some() {
                    create::add_to_group(&mut db, name, m);
                } else {
                    diags.push(
                        Diag::warning(
                            Reason::UserMissing,
                            "a member of the group does not exist: not added",
                        )
                        .key(key.clone()),
                    );
                }
            }
        }
        // Homes before the databases: a crash in between leaves a home the replay finds
        // (same ids, since the databases did not change), never a user without a home.
        for (u, a) in &applied {
            if a.make_home {
                let owner = Owner {
                    uid: a.uid,
                    gid: a.gid,
                };
                if let Err(d) = home::make(ctx.root, &a.home, owner, env.defs.home_mode()) {
                    diags.push(d.key(u.key.clone()));
                }
            }
        }
        if let Err(d) = db.save(ctx.root) {
            return diags.push(d);
        }
        for (u, a) in &applied {
            let account = Account {
                name: a.name.clone(),
                uid: a.uid,
                gid: a.gid,
                home: a.home.clone(),
                shell: String::new(),
            };
            if let Err(d) = authorized_keys::add_keys(ctx.root, &account, &u.keys) {
                diags.push(d.key(format!("{}.ssh_authorized_keys", u.key)));
            }
            if u.ssh_redirect {
                redirect::apply(ctx, &account, &u.key, diags);
            }
        }
        let rules: Vec<_> = applied
            .iter()
            .map(|(u, a)| (a.name.clone(), u.sudo.clone()))
            .collect();
        if let Err(d) = sudo::write(ctx.root, &rules) {
            diags.push(d.key("users"));
        }
        let doas_rules: Vec<_> = applied
            .iter()
            .map(|(u, a)| (a.name.clone(), u.doas.clone()))
            .collect();
        if let Err(d) = doas::write(ctx.root, &doas_rules) {
            diags.push(d.key("users"));
        }
    }
}

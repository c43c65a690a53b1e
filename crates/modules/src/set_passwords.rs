//! `set_passwords`, the password part: `chpasswd` (`users` and the deprecated `list`) and the
//! top-level `password` of the default user, set in the target's /etc/shadow as SHA-512 crypt.
//! RANDOM passwords are shown on the console only, as cloud-init shows them. `ssh_pwauth` is
//! the ssh module's.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#set-passwords>

use super::users::passwd_db::Db;
use super::users::{no_password_mark, spec};
use super::{Module, ModuleCtx};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::password;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;

pub struct SetPasswords;

pub enum Pw {
    Hash(Secret<String>),
    Text(Secret<String>),
    Random,
}

fn type_error(key: &str, expected: &str) -> Diag {
    Diag::error(Reason::WrongType, format!("expected {expected}")).key(key)
}

/// A `user:password` line of the `list` form (and of `password`); the value decides the kind
/// as in cloud-init: `R`/`RANDOM`, a crypt hash, else clear text.
fn list_entry(key: String, line: &str, diags: &mut Vec<Diag>) -> Option<(String, String, Pw)> {
    let Some((user, pw)) = line.split_once(':') else {
        diags.push(Diag::error(Reason::BadValue, "expected `user:password`").key(key));
        return None;
    };
    let pw = match pw {
        "R" | "RANDOM" => Pw::Random,
        p if password::looks_hashed(p) => Pw::Hash(Secret::new(p.to_string())),
        p => Pw::Text(Secret::new(p.to_string())),
    };
    Some((key, user.trim().to_string(), pw))
}

/// Every password to set, as `(key path, user, password)`: `chpasswd` and `password`. The
/// boot and `ember schema` both read them here.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<(String, String, Pw)> {
    let mut out = Vec::new();
    let ch = match cfg.get("chpasswd") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => {
            diags.push(type_error("chpasswd", "a mapping"));
            None
        }
    };
    let list = ch.and_then(|m| m.get("list")).filter(|v| !v.is_null());
    if let Some(v) = list {
        diags.push(
            Diag::deprecated(
                Reason::Deprecated,
                "chpasswd.list is deprecated: use chpasswd.users",
            )
            .key("chpasswd.list"),
        );
        let lines: Vec<(String, String)> = match v {
            Value::String(s) => s
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| ("chpasswd.list".to_string(), l.to_string()))
                .collect(),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .filter_map(|(i, v)| match v.as_str() {
                    Some(s) => Some((format!("chpasswd.list.{i}"), s.to_string())),
                    None => {
                        diags.push(type_error(
                            &format!("chpasswd.list.{i}"),
                            "a `user:password` string",
                        ));
                        None
                    }
                })
                .collect(),
            _ => {
                diags.push(type_error(
                    "chpasswd.list",
                    "a list of `user:password` strings",
                ));
                Vec::new()
            }
        };
        out.extend(
            lines
                .into_iter()
                .filter_map(|(k, l)| list_entry(k, &l, diags)),
        );
    }
    match ch.and_then(|m| m.get("users")) {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for (i, u) in a.iter().enumerate() {
                if let Some(e) = users_entry(format!("chpasswd.users.{i}"), u, diags) {
                    out.push(e);
                }
            }
        }
        Some(_) => diags.push(type_error("chpasswd.users", "a list of users")),
    }
    // `password` sets the default user's, unless `list` is given (as cloud-init).
    match cfg.get("password") {
        None | Some(Value::Null) => {}
        Some(Value::String(p)) if list.is_none() => match spec::default_user_name(cfg) {
            Some(user) => out.extend(list_entry("password".into(), &format!("{user}:{p}"), diags)),
            None => diags.push(
                Diag::warning(
                    Reason::NoDefaultUser,
                    "there is no default user to set `password` for",
                )
                .key("password"),
            ),
        },
        Some(Value::String(_)) => {}
        Some(_) => diags.push(type_error("password", "a string")),
    }
    out
}

/// `{name, password, type}` with type `hash` (the default, as in cloud-init's module: the
/// password is set as given), `text` or `RANDOM`.
fn users_entry(key: String, u: &Value, diags: &mut Vec<Diag>) -> Option<(String, String, Pw)> {
    let Some(m) = u.as_object() else {
        diags.push(type_error(&key, "a mapping with name, password and type"));
        return None;
    };
    let Some(name) = m.get("name").and_then(Value::as_str) else {
        diags.push(type_error(&format!("{key}.name"), "a string"));
        return None;
    };
    let kind = match m.get("type") {
        None | Some(Value::Null) => "hash",
        Some(Value::String(t)) if ["hash", "text", "RANDOM"].contains(&t.as_str()) => t,
        Some(_) => {
            diags.push(type_error(&format!("{key}.type"), "hash, text or RANDOM"));
            return None;
        }
    };
    let pw = match (kind, m.get("password")) {
        ("RANDOM", _) => Pw::Random,
        (_, Some(Value::String(p))) if kind == "hash" => Pw::Hash(Secret::new(p.clone())),
        (_, Some(Value::String(p))) => Pw::Text(Secret::new(p.clone())),
        _ => {
            diags.push(type_error(&format!("{key}.password"), "a string"));
            return None;
        }
    };
    Some((key, name.to_string(), pw))
}

/// The declarative shape of `chpasswd`, after cloud-init's schema (`ssh_pwauth`'s is the ssh
/// module's, which applies it).
mod shape {
    use crate::config::shape::{list, Fields, Lit, Shape};
    use Shape::*;

    pub const CHPASSWD_USER: Shape = Map(&Fields {
        fields: &[
            ("name", Str),
            (
                "type",
                Lit(&[Lit::S("RANDOM"), Lit::S("hash"), Lit::S("text")]),
            ),
            ("password", Str),
        ],
        required: &["name"],
        open: false,
    });
    pub const CHPASSWD: Shape = Map(&Fields {
        fields: &[
            ("expire", Bool),
            ("users", list(&CHPASSWD_USER, 0)),
            (
                "list",
                Deprecated(
                    &OneOf(&[Str, list(&Str, 1)]),
                    "use chpasswd.users (a list of name, password, type)",
                ),
            ),
        ],
        required: &[],
        open: false,
    });
}

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[
        ("chpasswd", shape::CHPASSWD),
        ("password", crate::config::shape::Shape::Str),
    ],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl Module for SetPasswords {
    fn name(&self) -> &'static str {
        "set_passwords"
    }
    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let wanted = read(ctx.cfg, diags);
        if wanted.is_empty() {
            return;
        }
        let expire = match ctx.cfg.get("chpasswd").and_then(|c| c.get("expire")) {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                diags.push(type_error("chpasswd.expire", "true or false"));
                true
            }
        };
        let mut db = match Db::load(ctx.root) {
            Ok(db) => db,
            Err(d) => return diags.push(d),
        };
        let today = password::today();
        let mut shown = Vec::new();
        for (key, user, pw) in wanted {
            if db.passwd.get(&user).is_none() {
                diags.push(Diag::error(Reason::UserMissing, "no such user in the target").key(key));
                continue;
            }
            if db.shadow.get(&user).is_none() {
                let mark = no_password_mark(ctx.distro).to_string();
                db.shadow.push(vec![user.clone(), mark, today.to_string()]);
            }
            let f = db.shadow.get_mut(&user).expect("just ensured");
            let hash = match &pw {
                Pw::Hash(h) if h.expose().contains([':', '\n']) => None,
                Pw::Hash(h) => Some(h.expose().clone()),
                Pw::Text(p) if password::verifies(p, &f[1]) => Some(f[1].clone()),
                Pw::Text(p) => password::hash(p).map(Secret::into_inner),
                Pw::Random => password::random_password().and_then(|p| {
                    let h = password::hash(&p)?.into_inner();
                    shown.push(format!("{user}:{}", p.expose()));
                    Some(h)
                }),
            };
            let Some(hash) = hash else {
                diags.push(
                    Diag::error(Reason::PasswordFailed, "the password could not be set").key(key),
                );
                continue;
            };
            if hash != f[1] {
                f[1] = hash;
                f[2] = today.to_string();
            }
            // `passwd -e`: a last change of 0 makes the user choose a password at next login.
            if expire {
                f[2] = "0".into();
            }
        }
        if let Err(d) = db.save(ctx.root) {
            return diags.push(d);
        }
        // Only once the passwords are really set, and only here (RELIABILITY rule 1's exception).
        if !shown.is_empty() {
            (ctx.console)("Set the following 'random' passwords");
            for line in &shown {
                (ctx.console)(line);
            }
        }
    }
}

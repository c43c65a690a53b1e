//! What useradd, usermod -aG and groupadd would do, done on the in-memory databases: new
//! entries with ids from login.defs' ranges, a user-private group, shadow ageing from
//! login.defs, subordinate ids; existing users get groups, passwords and locking only.

use super::login_defs::{allocate, allocate_sub, LoginDefs};
use super::passwd_db::{add_member, Db};
use super::spec::UserSpec;
use crate::error::Diag;
use crate::password;
use crate::reason::Reason;

/// What the run needs besides the databases.
pub struct Env {
    pub defs: LoginDefs,
    /// Today in days since the epoch.
    pub today: i64,
    /// The password field of a new account without a password: `!` (Debian, shadow-utils) or
    /// `!!` (Fedora and its family).
    pub no_password: &'static str,
    /// From /etc/default/useradd: SHELL, HOME, GROUP (useradd's defaults when absent).
    pub shell: String,
    pub home_base: String,
    pub group: u32,
}

/// A user after the databases were edited: what the home, keys and sudo steps need.
pub struct Applied {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: String,
    /// A new account whose home should be made (and filled from /etc/skel).
    pub make_home: bool,
}

/// The gid of group `name`, creating it (and its gshadow entry) when missing and `create`.
/// `prefer` is taken when free (a user-private group gets the user's uid, as useradd does).
pub fn ensure_group(
    db: &mut Db,
    env: &Env,
    name: &str,
    system: bool,
    prefer: Option<u32>,
) -> Option<u32> {
    if let Some(f) = db.group.get(name) {
        return f.get(2)?.parse().ok();
    }
    let used = db.group.ids();
    let gid = prefer
        .filter(|g| !used.contains(g))
        .or_else(|| allocate(used, env.defs.range("GID", system), system))?;
    db.group.push(vec![
        name.into(),
        "x".into(),
        gid.to_string(),
        String::new(),
    ]);
    if db.gshadow.present {
        db.gshadow
            .push(vec![name.into(), "!".into(), String::new(), String::new()]);
    }
    Some(gid)
}

/// `usermod -aG group user`: the member lists of group and gshadow.
pub fn add_to_group(db: &mut Db, group: &str, user: &str) {
    if let Some(f) = db.group.get_mut(group) {
        add_member(f, 3, user);
    }
    if let Some(f) = db.gshadow.get_mut(group) {
        add_member(f, 3, user);
    }
}

pub fn apply(db: &mut Db, env: &Env, u: &UserSpec, diags: &mut Vec<Diag>) -> Option<Applied> {
    let existing = db.passwd.get(&u.name).cloned();
    let mut applied = match existing {
        Some(f) => Applied {
            name: u.name.clone(),
            uid: f.get(2)?.parse().ok()?,
            gid: f.get(3)?.parse().ok()?,
            home: f.get(5).cloned().unwrap_or_default(),
            make_home: false,
        },
        None => create(db, env, u, diags)?,
    };
    if db.shadow.get(&u.name).is_none() {
        // A replay after a crash between the passwd and shadow writes, or an entry missing
        // in the image: the account gets a locked shadow entry, as pwconv would.
        db.shadow.push(shadow_entry(env, u, env.no_password));
    }
    for g in &u.groups {
        if db.group.get(g).is_none() && !u.create_groups {
            diags.push(
                Diag::warning(
                    Reason::GroupMissing,
                    "a group in `groups` does not exist and create_groups is false: not added",
                )
                .key(format!("{}.groups", u.key)),
            );
            continue;
        }
        if ensure_group(db, env, g, false, None).is_none() {
            diags.push(
                Diag::error(Reason::IdExhausted, "no free gid in login.defs' range")
                    .key(format!("{}.groups", u.key)),
            );
            continue;
        }
        add_to_group(db, g, &u.name);
    }
    set_password(db, env, u);
    applied.name = u.name.clone();
    Some(applied)
}

fn shadow_entry(env: &Env, u: &UserSpec, pw: &str) -> Vec<String> {
    let d = &env.defs;
    vec![
        u.name.clone(),
        pw.to_string(),
        env.today.to_string(),
        d.ageing("PASS_MIN_DAYS"),
        d.ageing("PASS_MAX_DAYS"),
        d.ageing("PASS_WARN_AGE"),
        u.inactive.clone().unwrap_or_default(),
        u.expiredate.map(|e| e.to_string()).unwrap_or_default(),
        String::new(),
    ]
}

/// A new account: uid, primary group, passwd and shadow entries, subordinate ids.
fn create(db: &mut Db, env: &Env, u: &UserSpec, diags: &mut Vec<Diag>) -> Option<Applied> {
    let used = db.passwd.ids();
    let uid = match u.uid {
        Some(uid) if used.contains(&uid) => {
            diags.push(
                Diag::error(
                    Reason::UidTaken,
                    "the uid asked for belongs to another user",
                )
                .key(format!("{}.uid", u.key)),
            );
            return None;
        }
        Some(uid) => uid,
        None => match allocate(used, env.defs.range("UID", u.system), u.system) {
            Some(uid) => uid,
            None => {
                diags.push(
                    Diag::error(Reason::IdExhausted, "no free uid in login.defs' range")
                        .key(u.key.clone()),
                );
                return None;
            }
        },
    };
    let upg =
        u.create_groups && !u.no_user_group && env.defs.flag("USERGROUPS_ENAB") != Some(false);
    let gid = match (&u.primary_group, upg) {
        (Some(g), _) => ensure_group(db, env, g, u.system, None),
        // A group already named after the user is adopted (a replay, or the image's own).
        (None, true) => ensure_group(db, env, &u.name, u.system, Some(uid)),
        (None, false) => Some(env.group),
    };
    let Some(gid) = gid else {
        diags.push(
            Diag::error(Reason::IdExhausted, "no free gid in login.defs' range").key(u.key.clone()),
        );
        return None;
    };
    let home = u
        .homedir
        .clone()
        .unwrap_or_else(|| format!("{}/{}", env.home_base, u.name));
    db.passwd.push(vec![
        u.name.clone(),
        "x".into(),
        uid.to_string(),
        gid.to_string(),
        u.gecos.clone().unwrap_or_default(),
        home.clone(),
        u.shell.clone().unwrap_or_else(|| env.shell.clone()),
    ]);
    // `passwd` is a hash given for a new account only (useradd -p).
    let pw = u
        .passwd
        .as_ref()
        .map_or(env.no_password, |p| p.expose().as_str());
    match db.shadow.get_mut(&u.name) {
        Some(f) => f[1] = pw.to_string(),
        None => db.shadow.push(shadow_entry(env, u, pw)),
    }
    if !u.system {
        for (table, kind) in [(&mut db.subuid, "UID"), (&mut db.subgid, "GID")] {
            if !table.present || table.get(&u.name).is_some() {
                continue;
            }
            let ranges: Vec<(u64, u64)> = table
                .entries()
                .filter_map(|f| Some((f.get(1)?.parse().ok()?, f.get(2)?.parse().ok()?)))
                .collect();
            let (_, _, count) = env.defs.sub_range(kind);
            if let Some(start) = allocate_sub(&ranges, env.defs.sub_range(kind)) {
                table.push(vec![u.name.clone(), start.to_string(), count.to_string()]);
            }
        }
    }
    Some(Applied {
        name: u.name.clone(),
        uid,
        gid,
        home,
        // A system user gets a home only when one is named (issue text; useradd -r makes none).
        make_home: !u.no_create_home && (!u.system || u.homedir.is_some()),
    })
}

/// hashed_passwd and plain_text_passwd (for new and existing users), then locking. The
/// last-change day moves only when the hash really changes, so a rerun changes nothing: a
/// plain-text password whose current hash already verifies is kept.
fn set_password(db: &mut Db, env: &Env, u: &UserSpec) {
    let Some(f) = db.shadow.get_mut(&u.name) else {
        return;
    };
    let current = f[1].trim_start_matches('!').to_string();
    let new = if let Some(h) = &u.hashed_passwd {
        Some(h.expose().clone())
    } else if let Some(p) = &u.plain_text_passwd {
        if password::verifies(p, &current) {
            None
        } else {
            password::hash(p).map(|h| h.into_inner())
        }
    } else {
        None
    };
    if let Some(h) = new.filter(|h| *h != current) {
        f[1] = h;
        f[2] = env.today.to_string();
    }
    if u.lock_passwd {
        if !f[1].starts_with('!') {
            f[1].insert(0, '!');
        }
    } else if f[1].starts_with('!') && !matches!(current.as_str(), "" | "*") {
        // Unlocked only when a password remains: `passwd -u` refuses to leave an empty one.
        f[1] = current;
    }
}

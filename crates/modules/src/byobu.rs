//! `byobu_by_default`: byobu turned on or off for the system (debconf's
//! `byobu/launch-by-default` and `dpkg-reconfigure byobu`) and for the default user
//! (`byobu-launcher-install` or `-uninstall` run as that user through sudo), with the one
//! shell command cloud-init runs, which counts the parts that failed. Values: `enable-system`,
//! `enable-user`, `disable-system`, `disable-user`, `enable`, `disable`, and `user` and
//! `system` for the `enable-` forms; any `enable…` value also enables it system-wide, as in
//! cloud-init. An unknown value is a warning (and then does what its words say, as there).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#byobu>

use super::{ModCtx, RunnerModule};
use crate::common::system_tools::{self as tools, py_str};
use crate::config::reader::Reader;
use crate::config::shape::{Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

pub struct Byobu;

const VALID: &[&str] = &[
    "enable-user",
    "enable-system",
    "enable",
    "disable-user",
    "disable-system",
    "disable",
];

/// The value as cloud-init reads it (its Python text; `user` and `system` as `enable-…`);
/// `None` when absent or empty.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<String> {
    let value = py_str(cfg.get("byobu_by_default")?);
    if value.is_empty() {
        return None;
    }
    let value = match value.as_str() {
        "user" | "system" => format!("enable-{value}"),
        _ => value,
    };
    if !VALID.contains(&value.as_str()) {
        let msg = "unknown value (enable, disable, enable-user, enable-system, disable-user, \
                   disable-system, user, system)";
        diags.push(Diag::warning(Reason::UnrecognizedValue, msg).key("byobu_by_default"));
    }
    Some(value)
}

/// Its key's shape (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[(
        "byobu_by_default",
        Shape::Lit(&[
            Lit::S("enable-system"),
            Lit::S("enable-user"),
            Lit::S("disable-system"),
            Lit::S("disable-user"),
            Lit::S("enable"),
            Lit::S("disable"),
            Lit::S("user"),
            Lit::S("system"),
        ]),
    )],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// A user name that can stand in the double-quoted word of the command.
fn plain_user(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// The shell command cloud-init runs for `value` (`None`: nothing to do), with `user` the
/// default user's name when there is one.
pub fn command(value: &str, user: Option<&str>, diags: &mut Vec<Diag>) -> Option<String> {
    let mut mod_user = value.ends_with("-user");
    let mut mod_sys = value.ends_with("-system");
    let (launcher, selection) = if value.starts_with("enable") {
        mod_sys = true;
        ("install", "byobu byobu/launch-by-default boolean true")
    } else {
        if value == "disable" {
            mod_user = true;
            mod_sys = true;
        }
        ("uninstall", "byobu byobu/launch-by-default boolean false")
    };
    let mut sh = String::new();
    if mod_user {
        match user {
            Some(u) if plain_user(u) => {
                sh.push_str(&format!(
                    " sudo -Hu \"{u}\" byobu-launcher-{launcher} || X=$(($X+1)); "
                ));
            }
            Some(_) => {
                let msg = "the default user's name is not a plain word: byobu not changed for it";
                diags.push(Diag::warning(Reason::BadValue, msg).key("byobu_by_default"));
            }
            None => {
                let msg = "no default user: byobu not changed for the default user";
                diags.push(Diag::warning(Reason::NoDefaultUser, msg).key("byobu_by_default"));
            }
        }
    }
    if mod_sys {
        sh.push_str(&format!(
            "echo \"{selection}\" | debconf-set-selections && \
             dpkg-reconfigure byobu --frontend=noninteractive || X=$(($X+1)); "
        ));
    }
    (!sh.is_empty()).then(|| format!("X=0; {sh} exit $X"))
}

impl RunnerModule for Byobu {
    fn name(&self) -> &'static str {
        "byobu"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(value) = read(cfg, diags) else {
            return;
        };
        let user = crate::ssh::default_user(cfg);
        let Some(sh) = command(&value, user.as_deref(), diags) else {
            return;
        };
        let outcome = tools::run(ctx, "byobu", &["/bin/sh", "-c", &sh], &[]);
        if !outcome.ok() {
            let msg = format!("setting byobu {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key("byobu_by_default"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_as_cloud_init_builds_them() {
        let mut d = Vec::new();
        assert_eq!(
            command("enable-user", Some("debian"), &mut d).unwrap(),
            "X=0;  sudo -Hu \"debian\" byobu-launcher-install || X=$(($X+1)); \
             echo \"byobu byobu/launch-by-default boolean true\" | debconf-set-selections && \
             dpkg-reconfigure byobu --frontend=noninteractive || X=$(($X+1));  exit $X"
        );
        assert_eq!(
            command("disable-system", None, &mut d).unwrap(),
            "X=0; echo \"byobu byobu/launch-by-default boolean false\" | debconf-set-selections \
             && dpkg-reconfigure byobu --frontend=noninteractive || X=$(($X+1));  exit $X"
        );
        assert!(d.is_empty());
        let user_only = command("disable-user", None, &mut d);
        assert_eq!(user_only, None);
        assert_eq!(d[0].code, "no-default-user");
        assert_eq!(command("bogus", Some("u"), &mut d), None);
    }

    #[test]
    fn reads_aliases_and_unknown_values() {
        let mut d = Vec::new();
        let r = |v: Value, d: &mut Vec<Diag>| read(&json!({"byobu_by_default": v}), d);
        assert_eq!(r(json!("user"), &mut d).as_deref(), Some("enable-user"));
        assert_eq!(r(json!("system"), &mut d).as_deref(), Some("enable-system"));
        assert_eq!(r(json!(""), &mut d), None);
        assert!(d.is_empty());
        assert_eq!(r(json!(true), &mut d).as_deref(), Some("True"));
        assert_eq!(d[0].key.as_deref(), Some("byobu_by_default"));
    }
}

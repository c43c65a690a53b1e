//! What the boot's modules would refuse, found with the modules' own readers, so `schema`
//! reports what the boot would report. A key in `READ_WHOLE` is checked by its module's typed
//! reader alone (it has no shape in `rules`); for the others the readers check what a
//! well-shaped value may still get wrong (write_files' permissions and encodings, the users
//! module's user and group specs, the hostname rules).

use crate::error::{Diag, Reason};
use crate::modules::hostname::names::invalid_reason;
use crate::modules::users::spec;
use crate::modules::write_files::{decode::Encoding, perms};
use serde_json::Value;

/// A module's reader as schema runs it: its diagnostics for the whole config.
type Reader = fn(&Value, &mut Vec<Diag>);

/// How much of a key its module's reader checks.
#[derive(Clone, Copy, PartialEq)]
enum Reads {
    /// Everything: the key has no shape in `rules`, the reader is the one check.
    Whole,
    /// What a well-shaped value may still get wrong; `rules` checks the shape first.
    AfterShape,
}

/// The keys whose module has a typed reader, and the reader (the function the boot calls).
/// Adding a reader is a row here and the shape's removal from `rules`.
const READERS: &[(&str, Reads, Reader)] = &[
    ("growpart", Reads::Whole, |cfg, d| {
        crate::modules::growpart::read(cfg, d);
    }),
    ("timezone", Reads::Whole, |cfg, d| {
        crate::runner::modules::timezone::read(cfg, d);
    }),
    ("bootcmd", Reads::Whole, |cfg, d| {
        commands(cfg, "bootcmd", d)
    }),
    ("runcmd", Reads::Whole, |cfg, d| commands(cfg, "runcmd", d)),
    ("final_message", Reads::Whole, |cfg, d| {
        crate::runner::modules::final_message::read(cfg, d);
    }),
    ("chpasswd", Reads::AfterShape, |cfg, d| {
        crate::modules::set_passwords::read(cfg, d);
    }),
    ("password", Reads::AfterShape, |cfg, d| {
        crate::modules::set_passwords::read(cfg, d);
    }),
    ("ssh_pwauth", Reads::AfterShape, |cfg, d| {
        crate::modules::ssh::pwauth(cfg, d);
    }),
    ("phone_home", Reads::AfterShape, |cfg, d| {
        crate::runner::modules::phone_home::read(cfg, d);
    }),
    ("power_state", Reads::AfterShape, |cfg, d| {
        if let Some(ps) = cfg.get("power_state") {
            crate::runner::modules::power_state::command(ps, d);
        }
    }),
    ("write_files", Reads::AfterShape, write_files),
    ("users", Reads::AfterShape, |cfg, d| {
        spec::users(cfg, d);
    }),
    ("user", Reads::AfterShape, |cfg, d| {
        spec::users(cfg, d);
    }),
    ("groups", Reads::AfterShape, |cfg, d| {
        spec::groups(cfg, d);
    }),
    ("hostname", Reads::AfterShape, |cfg, d| {
        host_name(cfg, "hostname", d)
    }),
    ("fqdn", Reads::AfterShape, |cfg, d| {
        host_name(cfg, "fqdn", d)
    }),
];

fn reader(key: &str) -> Option<(Reads, Reader)> {
    READERS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, reads, f)| (*reads, *f))
}

/// Whether `key`'s module reader is its whole check (it has no shape in `rules`).
pub fn reads_whole(key: &str) -> bool {
    reader(key).is_some_and(|(reads, _)| reads == Reads::Whole)
}

/// The diagnostics `key`'s module reader gives for `cfg`, as the boot would give them.
pub fn check(key: &str, cfg: &Value, out: &mut Vec<Diag>) {
    if let Some((_, read)) = reader(key) {
        let mut diags = Vec::new();
        read(cfg, &mut diags);
        add_diags(diags, out);
    }
}

fn commands(cfg: &Value, key: &str, out: &mut Vec<Diag>) {
    if let Some(list) = cfg.get(key) {
        crate::runner::modules::shell::script(key, list, out);
    }
}

fn host_name(cfg: &Value, key: &str, out: &mut Vec<Diag>) {
    let why = cfg
        .get(key)
        .and_then(Value::as_str)
        .and_then(invalid_reason);
    if let Some(why) = why {
        let msg = format!("not a valid host name: {why}");
        out.push(Diag::error(Reason::HostnameInvalid, msg).key(key));
    }
}

/// The module's diagnostics as problems, less those that depend on the machine (the image's
/// default user), which a check of one file cannot know.
fn add_diags(diags: Vec<Diag>, out: &mut Vec<Diag>) {
    for d in diags {
        if d.code != Reason::NoDefaultUser {
            out.push(d);
        }
    }
}

fn write_files(cfg: &Value, out: &mut Vec<Diag>) {
    let Some(items) = cfg.get("write_files").and_then(Value::as_array) else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let key = format!("write_files.{i}");
        if item
            .get("path")
            .and_then(Value::as_str)
            .is_some_and(|p| !p.starts_with('/'))
        {
            let msg = "must be an absolute path (ember refuses a relative one)";
            out.push(Diag::error(Reason::PathInvalid, msg).key(format!("{key}.path")));
        }
        if let Err(e) = perms::parse(item.get("permissions")) {
            out.push(
                Diag::error(Reason::PermissionsInvalid, e.message())
                    .key(format!("{key}.permissions")),
            );
        }
        let encoding = item.get("encoding").and_then(Value::as_str).unwrap_or("");
        if Encoding::parse(encoding).is_err() {
            let msg = "is not an encoding cloud-init knows";
            out.push(Diag::error(Reason::EncodingUnknown, msg).key(format!("{key}.encoding")));
        }
    }
}

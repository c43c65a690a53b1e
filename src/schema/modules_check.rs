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

/// Keys whose module's typed reader is their whole check.
const READ_WHOLE: &[&str] = &["growpart"];

pub fn reads_whole(key: &str) -> bool {
    READ_WHOLE.contains(&key)
}

pub fn check(key: &str, cfg: &Value, out: &mut Vec<Diag>) {
    match key {
        "growpart" => {
            let mut diags = Vec::new();
            crate::modules::growpart::read(cfg, &mut diags);
            add_diags(diags, out);
        }
        "write_files" => write_files(cfg, out),
        "users" | "user" => {
            let mut diags = Vec::new();
            spec::users(cfg, &mut diags);
            add_diags(diags, out);
        }
        "groups" => {
            let mut diags = Vec::new();
            spec::groups(cfg, &mut diags);
            add_diags(diags, out);
        }
        "hostname" | "fqdn" => {
            if let Some(why) = cfg
                .get(key)
                .and_then(Value::as_str)
                .and_then(invalid_reason)
            {
                out.push(
                    Diag::error(
                        Reason::HostnameInvalid,
                        format!("not a valid host name: {why}"),
                    )
                    .key(key),
                );
            }
        }
        _ => {}
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

//! `ubuntu_autoinstall`: the `autoinstall` key is for Ubuntu's installer (subiquity, or the
//! desktop installer), never acted on here, as in cloud-init: after snapd has seeded
//! (`snap wait system seed.loaded`), `snap list` must show an installer snap, else a warning
//! and nothing more; with one, the key must be a mapping with an integer `version`, else an
//! error (cloud-init raises so the installer's environment shows it). It installs nothing.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ubuntu-autoinstall>

use super::{ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::private_io::capture;
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

pub struct UbuntuAutoinstall;

/// The installer snaps cloud-init looks for in `snap list`.
const INSTALLERS: &[&str] = &["subiquity", "ubuntu-desktop-installer"];

const SHAPES: &[(&str, Shape)] = &[(
    "autoinstall",
    Shape::Map(&Fields {
        fields: &[("version", Shape::Int)],
        required: &["version"],
        open: true,
    }),
)];

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// cloud-init's check of `autoinstall`: a mapping with an integer `version` (Python's
/// booleans are integers, so `true` passes as there). False, with an error, when not.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    let Some(v) = cfg.get("autoinstall") else {
        return false;
    };
    let Some(map) = v.as_object() else {
        let msg = "expected a mapping for Ubuntu's installer";
        diags.push(Diag::error(Reason::WrongType, msg).key("autoinstall"));
        return false;
    };
    match map.get("version") {
        None => {
            let msg = "needs the key version";
            diags.push(Diag::error(Reason::MissingKey, msg).key("autoinstall"));
            false
        }
        Some(Value::Bool(_)) => true,
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => true,
        Some(_) => {
            let msg = "expected an integer";
            diags.push(Diag::error(Reason::WrongType, msg).key("autoinstall.version"));
            false
        }
    }
}

impl RunnerModule for UbuntuAutoinstall {
    fn name(&self) -> &'static str {
        "ubuntu_autoinstall"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        if cfg.get("autoinstall").is_none() {
            return;
        }
        if which(ctx.root, "snap").is_some() {
            ctx.exec
                .say("ubuntu_autoinstall: snap wait system seed.loaded");
            let outcome = ctx
                .exec
                .run(&["snap", "wait", "system", "seed.loaded"], &[]);
            if !outcome.ok() {
                let msg = format!("snap wait {}", outcome.describe());
                diags.push(Diag::error(Reason::CommandFailed, msg).key("autoinstall"));
                return;
            }
        }
        let (outcome, list) = capture(ctx, "snap-list", &["snap", "list"]);
        if !outcome.ok() {
            let msg = format!("snap list {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key("autoinstall"));
            return;
        }
        // As cloud-init's re.search over the whole listing: the last name found wins.
        let Some(installer) = INSTALLERS.iter().rev().find(|s| list.contains(*s)) else {
            let msg = format!(
                "skipped: expected one of the Ubuntu installer snap packages to be present: {}",
                INSTALLERS.join(", ")
            );
            diags.push(Diag::warning(Reason::ToolMissing, msg).key("autoinstall"));
            return;
        };
        if read(cfg, diags) {
            ctx.exec.say(&format!(
                "ubuntu_autoinstall: valid autoinstall schema; config will be processed by {installer}"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn version_required_and_an_integer() {
        let mut d = Vec::new();
        assert!(read(
            &json!({"autoinstall": {"version": 1, "storage": {}}}),
            &mut d
        ));
        assert!(read(&json!({"autoinstall": {"version": true}}), &mut d));
        assert!(d.is_empty());
        assert!(!read(&json!({"autoinstall": {}}), &mut d));
        assert!(!read(&json!({"autoinstall": {"version": "1"}}), &mut d));
        assert!(!read(&json!({"autoinstall": [1]}), &mut d));
        let got: Vec<_> = d
            .iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("missing-key", "autoinstall"),
                ("wrong-type", "autoinstall.version"),
                ("wrong-type", "autoinstall")
            ]
        );
    }
}

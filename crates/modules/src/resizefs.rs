//! cloud-init's `resizefs` (`resize_rootfs: true | false | noblock`), every boot: when the
//! root filesystem is smaller than its device (after growpart, or in an image made that way),
//! ember-initrd leaves a line in /var/lib/ember/pending-resize and `ember init` grows it
//! online in the booted system with the distribution's own tool (resize2fs, xfs_growfs,
//! btrfs): online, because offline resize2fs refuses a filesystem that needs a check, which
//! is every filesystem after a power cut.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#resizefs>

use super::growpart::resolve;
use super::{Module, ModuleCtx};
use crate::config::reader::Reader;
use crate::config::shape::{Lit, Shape};
use crate::disk::{fs_size, mib};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct Resizefs;

/// Read by the runner's `init` (`crates/runner/src/early.rs`): `MOUNTPOINT FSTYPE DEVICE [noblock]`.
pub const PENDING_RESIZE: &str = "/var/lib/ember/pending-resize";
/// Slack a grow tool leaves (a last block group too small to hold its metadata).
const SLACK: u64 = 1 << 20;

/// `resize_rootfs` as cloud-init documents it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settings {
    /// `false`: the root filesystem is left as it is.
    Off,
    /// `true`, the default: `ember init` grows it, and the boot waits for the tool.
    Blocking,
    /// `noblock`: the tool runs on while the boot goes on.
    NoBlock,
}

/// Reads `resize_rootfs`: the one reader, for the boot and for `ember schema`. `None` (and a
/// diagnostic) when the value is none of true, false and noblock.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    match cfg.get("resize_rootfs") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => Some(Settings::Blocking),
        Some(Value::Bool(false)) => Some(Settings::Off),
        Some(Value::String(s)) if s == "noblock" => Some(Settings::NoBlock),
        // cloud-init takes any other value as false (its schema warns): not grown, a warning.
        Some(_) => {
            let msg = "expected true, false or noblock: not resized";
            diags.push(Diag::warning(Reason::BadValue, msg).key("resize_rootfs"));
            None
        }
    }
}

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[(
        "resize_rootfs",
        Shape::Lit(&[Lit::B(true), Lit::B(false), Lit::S("noblock")]),
    )],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl Module for Resizefs {
    fn name(&self) -> &'static str {
        "resizefs"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let noblock = match read(ctx.cfg, diags) {
            None | Some(Settings::Off) => return,
            Some(Settings::Blocking) => false,
            Some(Settings::NoBlock) => true,
        };
        let Some(name) = resolve(ctx, "/") else {
            return; // no block device under the root (a container, a network root)
        };
        let node = ctx.host.dev(&name);
        let probed = std::fs::File::open(&node).and_then(|mut f| fs_size::probe(&mut f));
        let Ok(Some((fstype, fs_bytes))) = probed else {
            return; // a filesystem ember does not know how to grow: left as it is
        };
        let sectors = std::fs::read_to_string(ctx.host.sys_block().join(&name).join("size"));
        let dev_bytes = sectors
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(0)
            * 512;
        let line = if fs_bytes + SLACK < dev_bytes {
            (ctx.console)(&format!(
                "ember: resizefs: {fstype} on /dev/{name} is {} MiB of {} MiB: grown online after the pivot",
                mib(fs_bytes),
                mib(dev_bytes)
            ));
            format!(
                "/ {fstype} {name}{}\n",
                if noblock { " noblock" } else { "" }
            )
        } else {
            String::new()
        };
        let result = if line.is_empty() {
            ctx.root.remove_file(PENDING_RESIZE)
        } else {
            ctx.root
                .write_file(PENDING_RESIZE, line.as_bytes(), &FileSpec::mode(0o600))
        };
        if let Err(e) = result {
            diags.push(Diag::error(e.code(), e.to_string()).file(PENDING_RESIZE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_default_is_to_grow_and_wait() {
        let mut diags = Vec::new();
        assert_eq!(read(&json!({}), &mut diags), Some(Settings::Blocking));
        let null = json!({"resize_rootfs": null});
        assert_eq!(read(&null, &mut diags), Some(Settings::Blocking));
        assert!(diags.is_empty());
    }

    #[test]
    fn each_value_is_read() {
        let cases = [
            (json!(true), Settings::Blocking),
            (json!(false), Settings::Off),
            (json!("noblock"), Settings::NoBlock),
        ];
        for (value, want) in cases {
            let mut diags = Vec::new();
            let got = read(&json!({ "resize_rootfs": value }), &mut diags);
            assert_eq!(got, Some(want), "{value}");
            assert!(diags.is_empty(), "{value}");
        }
    }

    /// cloud-init takes any other value as false (its schema only warns): one warning.
    #[test]
    fn anything_else_is_one_warning_naming_the_key() {
        for value in [json!("yes"), json!("NoBlock"), json!(1), json!(["noblock"])] {
            let mut diags = Vec::new();
            assert_eq!(read(&json!({ "resize_rootfs": value }), &mut diags), None);
            let got: Vec<_> = diags
                .iter()
                .map(|d| (d.code.as_str(), d.key.as_deref(), d.is_error()))
                .collect();
            assert_eq!(
                got,
                [("bad-value", Some("resize_rootfs"), false)],
                "{value}"
            );
        }
    }
}

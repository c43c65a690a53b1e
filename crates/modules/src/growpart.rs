//! cloud-init's `growpart`, every boot: the partitions under the listed mount points or
//! devices (default `/`) grown to the end of their disk, in Rust (GPT or MBR), and the kernel
//! told with BLKPG, which works while the partition is mounted. The filesystem is grown by
//! `resizefs`. Skipped with /etc/growroot-disabled in the target (unless
//! `ignore_growroot_disabled`) or `mode: off`. A partition that is not the last, a disk with
//! no free space and a root on LVM or LUKS are reported and left alone.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#growpart>

use super::{Module, ModuleCtx};
use crate::config::reader::Reader;
use crate::disk::device::{self, Underlying};
use crate::disk::io::{BlockIo, DeviceFile};
use crate::disk::table::{self, Growth};
use crate::disk::{blkpg, mib};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;
use std::os::unix::fs::FileTypeExt;

pub struct Growpart;

const GROWROOT_DISABLED: &str = "/etc/growroot-disabled";

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl Module for Growpart {
    fn name(&self) -> &'static str {
        "growpart"
    }
    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some(devices) = settings(ctx, diags) else {
            return;
        };
        for (i, dev) in devices.iter().enumerate() {
            let key = format!("growpart.devices.{i}");
            match grow_one(ctx, dev) {
                Ok(Some(line)) => (ctx.console)(&format!("ember: growpart: {line}")),
                Ok(None) => {}
                Err(d) => diags.push(d.key(key)),
            }
        }
    }
}

/// `growpart` as cloud-init documents it.
#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    /// `mode: off` (or the deprecated `false`): nothing is grown.
    pub off: bool,
    /// Mount points or device paths; `/` when not given.
    pub devices: Vec<String>,
    pub ignore_growroot_disabled: bool,
}

/// Reads `growpart` from a cloud-config: the one reader, used by the boot and by `ember
/// schema`, so both report the same things. `None` when the value cannot be used; every
/// problem goes to `diags` with its key path.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let mut settings = Settings {
        off: false,
        devices: vec!["/".to_string()],
        ignore_growroot_disabled: false,
    };
    let map = match cfg.get("growpart") {
        None | Some(Value::Null) => return Some(settings),
        Some(Value::Object(map)) => map,
        Some(_) => {
            let msg = "must be a mapping: nothing grown";
            diags.push(Diag::error(Reason::WrongType, msg).key("growpart"));
            return None;
        }
    };
    for (field, value) in map {
        let key = format!("growpart.{field}");
        match (field.as_str(), value) {
            (_, Value::Null) => {}
            ("mode", Value::Bool(false)) => {
                let msg = "use mode: off";
                diags.push(Diag::deprecated(Reason::Deprecated, msg).key(key));
                settings.off = true;
            }
            ("mode", Value::String(m)) if m == "off" => settings.off = true,
            // ember grows partitions itself; `growpart` (cloud-utils) and `gpart` (FreeBSD) name
            // the tool cloud-init would run for the same job.
            ("mode", Value::String(m)) if matches!(m.as_str(), "auto" | "growpart" | "gpart") => {}
            ("mode", _) => {
                let msg = "must be one of 'auto', 'growpart', 'gpart', 'off'";
                diags.push(Diag::error(Reason::BadValue, msg).key(key));
                return None;
            }
            ("devices", Value::Array(list)) => {
                settings.devices.clear();
                for (i, d) in list.iter().enumerate() {
                    match d.as_str() {
                        Some(s) => settings.devices.push(s.to_string()),
                        None => diags.push(
                            Diag::error(Reason::WrongType, "must be a string: skipped")
                                .key(format!("{key}.{i}")),
                        ),
                    }
                }
            }
            // cloud-init's get_cfg_option_list takes a lone string as a list of one.
            ("devices", Value::String(one)) => {
                let msg = "must be a list: taken as a list of one device";
                diags.push(Diag::error(Reason::WrongType, msg).key(key));
                settings.devices = vec![one.clone()];
            }
            ("devices", _) => {
                let msg = "must be a list: nothing grown";
                diags.push(Diag::error(Reason::WrongType, msg).key(key));
                return None;
            }
            ("ignore_growroot_disabled", Value::Bool(b)) => settings.ignore_growroot_disabled = *b,
            ("ignore_growroot_disabled", _) => {
                let msg = "must be true or false: taken as false";
                diags.push(Diag::error(Reason::WrongType, msg).key(key));
            }
            _ => diags
                .push(Diag::warning(Reason::UnknownKey, "not a key of growpart: ignored").key(key)),
        }
    }
    Some(settings)
}

/// The devices to grow, or `None` when growpart is off or its config unusable. The reader's
/// errors are `ember schema`'s (cloud-init's schema calls them errors); at boot only a mode
/// without a resizer fails the module, as cloud-init raises only then: its module warns
/// about a `growpart` that is not a mapping, takes a lone device as a list, skips a device it
/// cannot use and reads anything but true as false.
fn settings(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let mut own = Vec::new();
    let settings = read(ctx.cfg, &mut own);
    diags.extend(own.into_iter().map(|d| match d.key.as_deref() {
        Some("growpart.mode") => d,
        _ => d.recoverable(),
    }));
    let settings = settings?;
    if settings.off {
        return None;
    }
    if !settings.ignore_growroot_disabled && ctx.root.exists(GROWROOT_DISABLED) {
        (ctx.console)("ember: growpart: skipped: /etc/growroot-disabled exists");
        return None;
    }
    Some(settings.devices)
}

/// The kernel name of the block device under a mount point of the target (`/`, `/var`) or
/// a device path; `root=` stands in for `/` when the target is not a mount (a test tree).
pub(crate) fn resolve(ctx: &ModuleCtx, dev: &str) -> Option<String> {
    if dev.starts_with("/dev/") {
        return device::by_spec(ctx.host, dev);
    }
    let target = std::fs::canonicalize(ctx.target_path).unwrap_or(ctx.target_path.into());
    let mountpoint = target.join(dev.trim_start_matches('/'));
    let mountpoint = mountpoint.components().collect::<std::path::PathBuf>();
    if let Some(m) = device::mount_at(ctx.host, &mountpoint) {
        return device::by_numbers(ctx.host, m.major, m.minor);
    }
    if dev == "/" {
        let spec = ctx.cmdline.iter().find_map(|w| w.strip_prefix("root="))?;
        return device::by_spec(ctx.host, spec);
    }
    None
}

/// Grows one device's partition: a line for the console when something changed. Every
/// failure is a warning: cloud-init records a failed resize, logs it and goes on.
fn grow_one(ctx: &ModuleCtx, dev: &str) -> Result<Option<String>, Diag> {
    let err = |code: Reason, msg: String| Diag::warning(code, msg);
    let Some(name) = resolve(ctx, dev) else {
        // No block device under the root (a container, a network root): nothing to grow,
        // as in cloud-init. A device the config names is worth a word.
        if dev == "/" {
            return Ok(None);
        }
        let msg = format!("{dev}: no block device found under it");
        return Err(Diag::warning(Reason::GrowpartNoDevice, msg));
    };
    let (disk, number) = match device::describe(ctx.host, &name) {
        Some(Underlying::Partition { disk, number, .. }) => (disk, number),
        Some(Underlying::Disk(_)) => return Ok(None), // a whole disk has no partition to grow
        Some(Underlying::DeviceMapper(_)) => {
            let msg = format!("{dev} is on /dev/{name} (LVM or LUKS): ember does not grow it");
            return Err(Diag::warning(Reason::GrowpartUnsupported, msg));
        }
        None => {
            return Err(err(
                Reason::GrowpartNoDevice,
                format!("{dev}: /dev/{name} is not in sysfs"),
            ))
        }
    };
    let node = ctx.host.dev(&disk);
    let mut io = DeviceFile::open(&node, true).map_err(|e| {
        err(
            Reason::GrowpartFailed,
            format!("/dev/{disk}: cannot open: {e}"),
        )
    })?;
    let sector = io.sector_size();
    let growth = table::grow(&mut io, number).map_err(|e| {
        err(
            Reason::GrowpartFailed,
            format!("/dev/{disk} partition {number}: {e}"),
        )
    })?;
    drop(io);
    match growth {
        Growth::Full { .. } => Ok(None),
        Growth::NotLast { next } => {
            let msg =
                format!("/dev/{name} is followed by partition {next} on /dev/{disk}: not grown");
            Err(Diag::warning(Reason::GrowpartNotLast, msg))
        }
        Growth::Grown {
            start,
            old_sectors,
            new_sectors,
            capped,
        } => {
            if capped {
                (ctx.console)(&format!(
                    "ember: growpart: /dev/{disk} is larger than an MBR can address: \
                     partition {number} stops at 2^32 sectors (GPT has no such limit)"
                ));
            }
            tell_kernel(&node, number, start * sector, new_sectors * sector).map_err(|e| {
                let msg = format!(
                    "/dev/{disk} partition {number}: the table is grown, but the kernel \
                     was not told: {e}"
                );
                err(Reason::GrowpartFailed, msg)
            })?;
            let (old, new) = (old_sectors * sector, new_sectors * sector);
            Ok(Some(if new - old < 1 << 20 {
                format!("/dev/{name} grown by {} KiB", (new - old) >> 10)
            } else {
                format!(
                    "/dev/{name} grown from {} MiB to {} MiB",
                    mib(old),
                    mib(new)
                )
            }))
        }
    }
}

/// BLKPG on a block device; an image file (in tests) has no kernel view to update.
fn tell_kernel(node: &std::path::Path, number: u32, start: u64, len: u64) -> std::io::Result<()> {
    let file = std::fs::File::open(node)?;
    if !file.metadata()?.file_type().is_block_device() {
        return Ok(());
    }
    blkpg::resize_partition(&file, number, start, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// (cloud-config, settings or `None`, diagnostics as `code@key`).
    #[test]
    fn reader_table() {
        let root = || vec!["/".to_string()];
        let cases = [
            (json!({}), Some((false, root(), false)), vec![]),
            (
                json!({"growpart": null}),
                Some((false, root(), false)),
                vec![],
            ),
            (
                json!({"growpart": {"mode": "off"}}),
                Some((true, root(), false)),
                vec![],
            ),
            (
                json!({"growpart": {"mode": false}}),
                Some((true, root(), false)),
                vec!["deprecated@growpart.mode"],
            ),
            (
                json!({"growpart": {"mode": "gpart", "devices": ["/", "/var"], "ignore_growroot_disabled": true}}),
                Some((false, vec!["/".into(), "/var".into()], true)),
                vec![],
            ),
            (
                json!({"growpart": {"devices": ["/", 7], "mystery": 1}}),
                Some((false, root(), false)),
                vec![
                    "wrong-type@growpart.devices.1",
                    "unknown-key@growpart.mystery",
                ],
            ),
            (
                json!({"growpart": {"mode": true}}),
                None,
                vec!["bad-value@growpart.mode"],
            ),
            (
                json!({"growpart": {"devices": "/var"}}),
                Some((false, vec!["/var".into()], false)),
                vec!["wrong-type@growpart.devices"],
            ),
            (
                json!({"growpart": {"devices": 5, "ignore_growroot_disabled": "x"}}),
                None,
                vec!["wrong-type@growpart.devices"],
            ),
            (
                json!({"growpart": "auto"}),
                None,
                vec!["wrong-type@growpart"],
            ),
        ];
        for (cfg, want, codes) in cases {
            let mut diags = Vec::new();
            let got =
                read(&cfg, &mut diags).map(|s| (s.off, s.devices, s.ignore_growroot_disabled));
            assert_eq!(got, want, "{cfg}");
            let got_codes: Vec<String> = diags
                .iter()
                .map(|d| format!("{}@{}", d.code, d.key.as_deref().unwrap_or("")))
                .collect();
            assert_eq!(got_codes, codes, "{cfg}");
        }
    }
}

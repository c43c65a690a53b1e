//! `grub_dpkg` (and the deprecated `grub-dpkg`): GRUB's install device given to debconf with
//! `debconf-set-selections`, as cloud-init 24.4 and later do it: only when `enabled` is true
//! (it defaults to false, and the module runs only when one of its keys is given). The
//! device is `grub-pc/install_devices` (or `grub-efi/install_devices` on an EFI-booted
//! machine), else found with the target's `grub-probe` of /boot (/boot/efi) and turned into
//! its /dev/disk/by-id link by `udevadm`; `grub-pc/install_devices_empty` defaults to whether
//! no device was found. No `grub-probe` in the target (no GRUB) seeds empty values, as in
//! cloud-init; a failing `debconf-set-selections` is a warning.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#grub-dpkg>

use super::{ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::system_tools::{self as tools, py_str, translate_bool};
use crate::conf_lang::debconf;
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::{Map, Value};

pub struct GrubDpkg;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The key it came from: `grub_dpkg` or `grub-dpkg`.
    pub key: &'static str,
    pub enabled: bool,
    pub pc_devices: Option<String>,
    pub pc_empty: Option<Value>,
    pub efi_devices: Option<String>,
}

/// Where the selections go for `debconf-set-selections` (read as a file, not a pipe).
const SELECTIONS: &str = "/var/lib/ember/grub-dpkg.debconf";
/// Where a probe's output is caught (exec streams output to the log and returns none).
const PROBE_OUT: &str = "/var/lib/ember/grub-dpkg.out";
const PROBE_ERR: &str = "/var/lib/ember/grub-dpkg.err";

/// The keys as cloud-init reads them (`grub_dpkg` over `grub-dpkg`, values as their Python
/// text). `None` when neither key is given or the value is unusable.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let (key, v) = match (cfg.get("grub_dpkg"), cfg.get("grub-dpkg")) {
        (Some(v), _) => ("grub_dpkg", v),
        (None, Some(v)) => {
            let msg = "deprecated (cloud-init 22.2): use grub_dpkg";
            diags.push(Diag::deprecated(Reason::Deprecated, msg).key("grub-dpkg"));
            ("grub-dpkg", v)
        }
        (None, None) => return None,
    };
    let empty = Map::new();
    let map = match v {
        Value::Object(m) => m,
        // cloud-init takes any empty value for an empty mapping.
        Value::Null | Value::Bool(false) => &empty,
        Value::String(s) if s.is_empty() => &empty,
        _ => {
            let msg = "must be a mapping (enabled, grub-pc/install_devices, ...)";
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
            return None;
        }
    };
    let enabled = map.get("enabled").is_some_and(|e| !tools::is_false(e));
    // Each device list ends a debconf selection line (`conf_lang::debconf`).
    for k in ["grub-pc/install_devices", "grub-efi/install_devices"] {
        if let Some(Err(why)) = map.get(k).map(|v| debconf::value(&py_str(v)).map(|_| ())) {
            let msg = format!("{why}; grub_dpkg not applied");
            diags.push(Diag::error(Reason::BadValue, msg).key(format!("{key}.{k}")));
            return None;
        }
    }
    Some(Settings {
        key,
        enabled,
        pc_devices: map.get("grub-pc/install_devices").map(py_str),
        pc_empty: map.get("grub-pc/install_devices_empty").cloned(),
        efi_devices: map.get("grub-efi/install_devices").map(py_str),
    })
}

const GRUB_DPKG: Shape = Shape::Map(&Fields {
    fields: &[
        ("enabled", Shape::Bool),
        ("grub-pc/install_devices", Shape::Str),
        (
            "grub-pc/install_devices_empty",
            Shape::OneOf(&[
                Shape::Bool,
                Shape::Deprecated(&Shape::Str, "changed in cloud-init 22.3: use a boolean"),
            ]),
        ),
        ("grub-efi/install_devices", Shape::Str),
    ],
    required: &[],
    open: false,
});

/// Its keys' shapes (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[
        ("grub_dpkg", GRUB_DPKG),
        (
            "grub-dpkg",
            Shape::Deprecated(&Shape::Dict(&Shape::Any), "use grub_dpkg"),
        ),
    ],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The debconf selections for a BIOS (`efi` false) or EFI machine, given the devices found.
pub fn selections(s: &Settings, efi: bool, found: impl FnOnce() -> String) -> String {
    if efi {
        let idevs = s.efi_devices.clone().unwrap_or_else(found);
        return format!("grub-pc grub-efi/install_devices string {idevs}\n");
    }
    let idevs = s.pc_devices.clone().unwrap_or_else(found);
    let empty = match &s.pc_empty {
        None => idevs.is_empty(),
        Some(Value::Bool(b)) => *b,
        Some(v) => translate_bool(v),
    };
    format!(
        "grub-pc grub-pc/install_devices string {idevs}\n\
         grub-pc grub-pc/install_devices_empty boolean {empty}\n"
    )
}

impl RunnerModule for GrubDpkg {
    fn name(&self) -> &'static str {
        "grub_dpkg"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if !s.enabled {
            ctx.exec
                .say("grub_dpkg: not enabled (grub_dpkg.enabled defaults to false)");
            return;
        }
        let efi = ctx.root.exists("/sys/firmware/efi");
        let mut probe_error = None;
        let text = selections(&s, efi, || match install_device(ctx, efi, diags) {
            Ok(dev) => dev,
            Err(d) => {
                probe_error = Some(d);
                String::new()
            }
        });
        if let Some(d) = probe_error {
            // cloud-init lets an unexpected grub-probe failure fail the module.
            diags.push(d.key(s.key));
            return;
        }
        let spec = FileSpec::mode(0o600);
        if let Err(e) = ctx.root.write_file(SELECTIONS, text.as_bytes(), &spec) {
            diags.push(Diag::error(e.code(), e.to_string()).key(s.key));
            return;
        }
        let outcome = tools::run(
            ctx,
            "grub_dpkg",
            &["debconf-set-selections", SELECTIONS],
            &[],
        );
        if !outcome.ok() {
            let msg = format!("debconf-set-selections {}", outcome.describe());
            diags.push(Diag::warning(Reason::CommandFailed, msg).key(s.key));
        }
    }
}

/// Runs `argv` with its output caught in files of the target; `(ok, stdout, stderr)`.
fn capture(ctx: &ModCtx, argv: &[&str]) -> (bool, String, String) {
    for p in [PROBE_OUT, PROBE_ERR] {
        let _ = ctx.root.remove_file(p);
    }
    let _ = ctx
        .root
        .create_dir_all("/var/lib/ember", &FileSpec::mode(0o700));
    let script = format!("\"$0\" \"$@\" >{PROBE_OUT} 2>{PROBE_ERR}");
    let mut args = vec!["/bin/sh", "-c", script.as_str()];
    args.extend_from_slice(argv);
    let ok = tools::run(ctx, "grub_dpkg", &args, &[]).ok();
    let read = |p: &str| match ctx.root.read_file(p, 1 << 20) {
        Ok(Some(d)) => String::from_utf8_lossy(&d).into_owned(),
        _ => String::new(),
    };
    let (out, err) = (read(PROBE_OUT), read(PROBE_ERR));
    for p in [PROBE_OUT, PROBE_ERR] {
        let _ = ctx.root.remove_file(p);
    }
    (ok, out, err)
}

/// cloud-init's `fetch_idevs`: the disk (BIOS) or partition (EFI) holding /boot (/boot/efi),
/// as its first /dev/disk/by-id link when udev has one. Empty without grub-probe, or when
/// grub-probe cannot resolve the path (a container); an error for another grub-probe failure.
fn install_device(ctx: &ModCtx, efi: bool, diags: &mut Vec<Diag>) -> Result<String, Diag> {
    let (target, mount) = if efi {
        ("device", "/boot/efi")
    } else {
        ("disk", "/boot")
    };
    if which(ctx.root, "grub-probe").is_none() {
        ctx.exec
            .say("grub_dpkg: no grub-probe in the target: no install device");
        return Ok(String::new());
    }
    let (ok, out, err) = capture(ctx, &["grub-probe", "-t", target, mount]);
    if !ok {
        if err.contains("failed to get canonical path") {
            return Ok(String::new());
        }
        let msg = format!("grub-probe could not find the device of {mount}");
        return Err(Diag::error(Reason::CommandFailed, msg));
    }
    let disk = out.trim().to_string();
    if disk.is_empty() || !ctx.root.exists(&disk) {
        return Ok(String::new());
    }
    let (ok, links, _) = capture(
        ctx,
        &["udevadm", "info", "--root", "--query=symlink", &disk],
    );
    if !ok {
        let msg = "udevadm could not list the disk's links: its plain name is used";
        diags.push(Diag::warning(Reason::CommandFailed, msg));
    }
    let mut by_id: Vec<&str> = links
        .split_whitespace()
        .filter(|l| l.contains("disk/by-id"))
        .collect();
    ember_core::sort::sort(&mut by_id);
    Ok(by_id.first().map_or(disk.clone(), |l| l.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A device list with a line break would add a debconf selection of its own: an error
    /// naming the key, and the module does nothing.
    #[test]
    fn device_lists_with_line_breaks_are_refused_by_key() {
        for k in ["grub-pc/install_devices", "grub-efi/install_devices"] {
            let cfg =
                json!({"grub_dpkg": {"enabled": true, k: "/dev/sda\ngrub-pc grub-pc/x string y"}});
            let mut d = Vec::new();
            assert_eq!(read(&cfg, &mut d), None, "{k}");
            let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
            assert_eq!(keys, [format!("grub_dpkg.{k}")]);
        }
    }

    #[test]
    fn reads_enabled_and_the_old_key() {
        let mut d = Vec::new();
        assert_eq!(read(&json!({}), &mut d), None);
        let s = read(&json!({"grub_dpkg": {}}), &mut d).unwrap();
        assert!(!s.enabled, "off unless enabled");
        let s = read(&json!({"grub-dpkg": {"enabled": true}}), &mut d).unwrap();
        assert!(s.enabled && s.key == "grub-dpkg");
        assert_eq!(d[0].code, "deprecated");
        let both = json!({"grub_dpkg": {"enabled": "no"}, "grub-dpkg": {"enabled": true}});
        assert!(!read(&both, &mut d).unwrap().enabled);
        assert_eq!(read(&json!({"grub_dpkg": "yes"}), &mut d), None);
    }

    #[test]
    fn selections_as_cloud_init_writes_them() {
        let s = Settings {
            pc_devices: Some("/dev/sda".into()),
            ..Settings::default()
        };
        assert_eq!(
            selections(&s, false, || unreachable!()),
            "grub-pc grub-pc/install_devices string /dev/sda\n\
             grub-pc grub-pc/install_devices_empty boolean false\n"
        );
        let none = Settings::default();
        assert_eq!(
            selections(&none, false, String::new),
            "grub-pc grub-pc/install_devices string \n\
             grub-pc grub-pc/install_devices_empty boolean true\n"
        );
        let text = Settings {
            pc_empty: Some(json!("yes")),
            ..Settings::default()
        };
        assert!(selections(&text, false, || "/dev/vda".into()).ends_with("boolean true\n"));
        assert_eq!(
            selections(&none, true, || "/dev/disk/by-id/x-part1".into()),
            "grub-pc grub-efi/install_devices string /dev/disk/by-id/x-part1\n"
        );
    }
}

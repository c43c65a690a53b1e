//! cloud-init's `mounts`, `mount_default_fields` and `swap` (per instance): /etc/fstab lines
//! tagged `comment=cloudconfig`, so a later run replaces only its own; mount points made in
//! the target; a swap file made in the initramfs. Unlike cloud-init, a device that does not
//! exist or holds no filesystem gets no fstab line (a warning says so), and nothing is
//! mounted here: the booted system mounts its fstab itself.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#mounts>

use super::{Module, ModuleCtx};
use crate::disk::{self, swap};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct Mounts;

const FSTAB: &str = "/etc/fstab";
const TAG: &str = "comment=cloudconfig";
/// The devices are set up in the initramfs, before systemd reads fstab: no ordering after a
/// unit of ember's is needed, and `nofail` keeps a missing disk from stopping the boot.
const DEFAULT_OPTIONS: &str = "defaults,nofail";

impl Module for Mounts {
    fn name(&self) -> &'static str {
        "mounts"
    }
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let defaults = default_fields(ctx.cfg, diags);
        let fstab = match ctx.root.read_file(FSTAB, 1 << 20) {
            Ok(f) => String::from_utf8_lossy(&f.unwrap_or_default()).into_owned(),
            Err(e) => return diags.push(Diag::error(e.code(), e.to_string()).file(FSTAB)),
        };
        let kept: Vec<&str> = fstab.lines().filter(|l| !l.contains(TAG)).collect();
        let taken: Vec<&str> = kept
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .collect();

        let mut entries = Vec::new();
        match ctx.cfg.get("mounts") {
            None | Some(Value::Null) => {}
            Some(Value::Array(list)) => {
                for (i, line) in list.iter().enumerate() {
                    if let Some(e) = entry(ctx, &format!("mounts.{i}"), line, &defaults, diags) {
                        entries.push(e);
                    }
                }
            }
            Some(_) => diags.push(Diag::error(Reason::WrongType, "expected a list").key("mounts")),
        }
        add_default_mounts(ctx, &mut entries, &taken);
        let mut lines = without_removed(entries, &taken);
        if let Some(file) = swap_file(ctx, diags) {
            lines.push([
                file,
                "none".into(),
                "swap".into(),
                "sw".into(),
                "0".into(),
                "0".into(),
            ]);
        }
        if lines.is_empty() && kept.len() == fstab.lines().count() {
            return; // nothing asked, nothing of ours to take out
        }
        for l in &lines {
            if l[1].starts_with('/') {
                if let Err(e) = ctx.root.create_dir_all(&l[1], &FileSpec::DIR) {
                    diags.push(Diag::error(e.code(), e.to_string()).file(l[1].clone()));
                }
            }
        }
        let mut text: String = kept.iter().map(|l| format!("{l}\n")).collect();
        for l in &lines {
            text.push_str(&l.join("\t"));
            text.push('\n');
        }
        if let Err(e) = ctx
            .root
            .write_file(FSTAB, text.as_bytes(), &FileSpec::mode(0o644))
        {
            diags.push(Diag::error(e.code(), e.to_string()).file(FSTAB));
        }
    }
}

type Fields = [Option<String>; 6];

fn default_fields(cfg: &Value, diags: &mut Vec<Diag>) -> Fields {
    let builtin: Fields = [
        None,
        None,
        Some("auto".into()),
        Some(DEFAULT_OPTIONS.into()),
        Some("0".into()),
        Some("2".into()),
    ];
    let Some(v) = cfg.get("mount_default_fields") else {
        return builtin;
    };
    match v.as_array() {
        Some(list) if list.len() == 6 => {
            let mut out = builtin.clone();
            for (i, f) in list.iter().enumerate() {
                out[i] = field(f);
            }
            out
        }
        _ => {
            let msg = "expected a list of 6 fields: the built-in defaults are used";
            diags.push(Diag::error(Reason::WrongType, msg).key("mount_default_fields"));
            builtin
        }
    }
}

/// A token as cloud-init writes it: strings as they are, numbers unquoted, null as absent.
fn field(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// One `mounts` line: `[spec, file, type, options, freq, passno]`, missing fields from the
/// defaults; `file` null means "no line for this device". `None` when it is dropped.
fn entry(
    ctx: &ModuleCtx,
    key: &str,
    line: &Value,
    defaults: &Fields,
    diags: &mut Vec<Diag>,
) -> Option<Fields> {
    let Some(tokens) = line.as_array().filter(|t| !t.is_empty() && t.len() <= 6) else {
        diags.push(Diag::error(Reason::WrongType, "expected a list of 1 to 6 fields").key(key));
        return None;
    };
    let mut out = defaults.clone();
    for (i, t) in tokens.iter().enumerate() {
        out[i] = field(t).or_else(|| defaults[i].clone());
    }
    if tokens.get(1).is_some_and(Value::is_null) {
        out[1] = None; // explicitly null: a removal, whatever the defaults say
    }
    let spec = out[0].clone()?;
    match device_spec(ctx, &spec) {
        Spec::Device(dev) => {
            if out[1].is_some()
                && out[2].as_deref() != Some("swap")
                && !disk::has_filesystem(&ctx.host.path(&dev))
            {
                let msg = "the device holds no filesystem: no fstab line for it";
                diags.push(Diag::warning(Reason::MountNoFilesystem, msg).key(format!("{key}.0")));
                return None;
            }
            out[0] = Some(dev);
        }
        Spec::AsWritten => {}
        Spec::Missing => {
            if out[1].is_some() {
                let msg = "the device does not exist: no fstab line for it";
                diags.push(Diag::warning(Reason::MountNoDevice, msg).key(format!("{key}.0")));
            }
            return None;
        }
    }
    Some(out)
}

enum Spec {
    /// A block device of this machine, as its /dev path.
    Device(String),
    /// `LABEL=`, `UUID=`, `server:/path`, a path: written as given.
    AsWritten,
    Missing,
}

/// cloud-init's device names: `sdb`, `vdb1`, `ephemeral0.1` (partition 1), aliases from
/// `device_aliases`; a disk with partitions stands for its first. Names the datasource would
/// map (`ephemeral0`, `swap`) and no alias covers are missing.
fn device_spec(ctx: &ModuleCtx, spec: &str) -> Spec {
    if spec.contains('=') || (spec.contains(':') && !spec.starts_with('/')) {
        return Spec::AsWritten;
    }
    let spec = if spec == "ephemeral" {
        "ephemeral0"
    } else {
        spec
    };
    let (name, part) = match spec.rsplit_once('.') {
        Some((n, p)) if !n.is_empty() && p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() => {
            (n, Some(p))
        }
        _ => (spec, None),
    };
    let aliased = ctx
        .cfg
        .pointer(&format!(
            "/device_aliases/{}",
            name.replace('~', "~0").replace('/', "~1")
        ))
        .and_then(Value::as_str)
        .unwrap_or(name);
    let path = if aliased.starts_with('/') {
        aliased.to_string()
    } else if is_meta_name(aliased) {
        return Spec::Missing; // the datasource names none of these yet
    } else if is_short_device_name(aliased) {
        format!("/dev/{aliased}")
    } else {
        return Spec::AsWritten;
    };
    if !path.starts_with("/dev/") {
        return Spec::AsWritten; // a file (a swap file, a loop image): the admin's business
    }
    let n = part.unwrap_or("1");
    let partition = ["", "p", "-part"]
        .iter()
        .map(|sep| format!("{path}{sep}{n}"))
        .find(|p| ctx.host.path(p).exists());
    match (partition, part) {
        (Some(p), _) => Spec::Device(p),
        (None, Some(_)) => Spec::Missing,
        (None, None) if ctx.host.path(&path).exists() => Spec::Device(path),
        (None, None) => Spec::Missing,
    }
}

fn is_meta_name(name: &str) -> bool {
    matches!(name, "ami" | "root" | "swap")
        || ["ephemeral", "ebs"]
            .iter()
            .any(|p| name.starts_with(p) && !name.contains(':'))
}

/// `sda`, `xvdb1`, `vdc`, `hda`, `sr0`.
fn is_short_device_name(name: &str) -> bool {
    let rest = name.strip_prefix('x').unwrap_or(name);
    let b = rest.as_bytes();
    let disk = b.len() >= 3
        && matches!(b[0], b's' | b'h' | b'v')
        && b[1] == b'd'
        && b[2].is_ascii_lowercase()
        && b[3..].iter().all(u8::is_ascii_digit);
    disk || name
        .strip_prefix("sr")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

/// cloud-init's defaults: the ephemeral disk on /mnt and the swap device, where they exist
/// and nothing else names them.
fn add_default_mounts(ctx: &ModuleCtx, entries: &mut Vec<Fields>, taken: &[&str]) {
    let defaults = [
        ["ephemeral0", "/mnt", "auto", DEFAULT_OPTIONS, "0", "2"],
        ["swap", "none", "swap", "sw", "0", "0"],
    ];
    for d in defaults {
        let Spec::Device(dev) = device_spec(ctx, d[0]) else {
            continue;
        };
        if taken.contains(&dev.as_str()) || entries.iter().any(|e| e[0].as_deref() == Some(&dev)) {
            continue;
        }
        if d[2] != "swap" && !disk::has_filesystem(&ctx.host.path(&dev)) {
            continue;
        }
        let mut e: Fields = d.map(|s| Some(s.to_string()));
        e[0] = Some(dev);
        entries.push(e);
    }
}

/// Drops removals (a null mount point takes out that device's earlier lines too) and lines
/// for devices the admin's own fstab lines already name; tags the rest.
fn without_removed(entries: Vec<Fields>, taken: &[&str]) -> Vec<[String; 6]> {
    let mut removed: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for e in entries.into_iter().rev() {
        let spec = e[0].clone().unwrap_or_default();
        if e[1].is_none() || removed.contains(&spec) {
            removed.push(spec);
            continue;
        }
        if taken.contains(&spec.as_str()) {
            continue;
        }
        let [s, f, t, o, q, p] = e.map(Option::unwrap_or_default);
        out.push([s, f, t, format!("{o},{TAG}"), q, p]);
    }
    out.reverse();
    out
}

/// `swap: {filename, size, maxsize}`: the file made (or found) in the target, for fstab.
fn swap_file(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let cfg = ctx.cfg.get("swap")?;
    if !cfg.is_object() {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("swap"));
        return None;
    }
    let file = cfg
        .get("filename")
        .and_then(Value::as_str)
        .unwrap_or("/swap.img")
        .to_string();
    let bytes_of = |key: &str, diags: &mut Vec<Diag>| -> Option<u64> {
        let v = cfg.get(key)?;
        let n = match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => swap::human_bytes(s),
            _ => None,
        };
        if n.is_none() {
            let msg = "expected a number of bytes, or a number with B, K, M, G or T";
            diags.push(Diag::error(Reason::BadValue, msg).key(format!("swap.{key}")));
        }
        n
    };
    let auto = cfg
        .get("size")
        .and_then(Value::as_str)
        .is_some_and(|s| s.eq_ignore_ascii_case("auto"));
    if !file.starts_with('/') {
        diags.push(Diag::error(Reason::BadValue, "expected an absolute path").key("swap.filename"));
        return None;
    }
    if ctx.root.exists(&file) {
        return Some(file); // made on an earlier run: kept
    }
    let size = if auto {
        let maxsize = bytes_of("maxsize", diags);
        let mem = mem_total(ctx)?;
        let dir = file
            .rsplit_once('/')
            .map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
        let _ = ctx.root.create_dir_all(dir, &FileSpec::DIR);
        let at = ctx.root.path().join(dir.trim_start_matches('/'));
        let avail = rustix::fs::statvfs(&at)
            .map(|s| s.f_frsize * s.f_bfree)
            .unwrap_or(0);
        swap::suggested_size(mem, maxsize, avail)
    } else {
        bytes_of("size", diags)?
    };
    if size >> 20 == 0 {
        return None; // cloud-init: no size, no swap
    }
    match swap::create(ctx.root, &file, size) {
        Ok(()) => {
            (ctx.console)(&format!("ember: swap: {file} made, {} MiB", size >> 20));
            Some(file)
        }
        Err(e) => {
            diags.push(Diag::error(e.code(), e.to_string()).key("swap.filename"));
            None
        }
    }
}

/// MemTotal from the host's /proc/meminfo, in bytes.
fn mem_total(ctx: &ModuleCtx) -> Option<u64> {
    let text = std::fs::read_to_string(ctx.host.path("/proc/meminfo")).ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

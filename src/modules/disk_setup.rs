//! cloud-init's `disk_setup` and `fs_setup` (per instance), from the initramfs: partition
//! tables written in Rust (`disk::table`), filesystems made by the distribution's mkfs.*
//! (`disk::tools`: the initramfs's, else the target's). Stricter than cloud-init where data is
//! at stake: with `overwrite: false`, a disk that has a partition table or a filesystem, and a
//! partition or disk that has a filesystem, are left alone, and a warning says so.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#disk-setup>

use super::{Module, ModuleCtx};
use crate::disk::io::{BlockIo, DeviceFile};
use crate::disk::table::{self, Part, TableKind};
use crate::disk::tools::Tools;
use crate::disk::{blkpg, device_node, fs_label, layout, signature};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct DiskSetup;

/// How long a named device may take to appear (a disk attached late, partitions after a
/// table was written).
const DEVICE_WAIT: Duration = Duration::from_secs(5);

impl Module for DiskSetup {
    fn name(&self) -> &'static str {
        "disk_setup"
    }
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        match ctx.cfg.get("disk_setup") {
            None | Some(Value::Null) => {}
            Some(Value::Object(disks)) => {
                for (name, def) in disks {
                    let key = format!("disk_setup.{name}");
                    if let Err(d) = partition_disk(ctx, name, def, &key) {
                        diags.push(with_key(d, key));
                    }
                }
            }
            Some(_) => {
                diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("disk_setup"))
            }
        }
        match ctx.cfg.get("fs_setup") {
            None | Some(Value::Null) => {}
            Some(Value::Array(list)) => {
                for (i, def) in list.iter().enumerate() {
                    let key = format!("fs_setup.{i}");
                    if let Err(d) = make_fs(ctx, def, &key) {
                        diags.push(with_key(d, key));
                    }
                }
            }
            Some(_) => {
                diags.push(Diag::error(Reason::WrongType, "expected a list").key("fs_setup"))
            }
        }
    }
}

/// The entry's key, unless the diagnostic names a key inside it already.
fn with_key(d: Diag, key: String) -> Diag {
    if d.key.is_some() {
        d
    } else {
        d.key(key)
    }
}

fn err(code: Reason, msg: impl Into<String>) -> Diag {
    Diag::error(code, msg)
}

/// A device name of the config (`/dev/sdb`, an alias of `device_aliases`, `sdb`) as a host
/// path, waiting a bounded time for it to appear.
fn find_disk(ctx: &ModuleCtx, name: &str) -> Result<PathBuf, Diag> {
    let aliased = ctx
        .cfg
        .get("device_aliases")
        .and_then(|a| a.get(name))
        .and_then(Value::as_str)
        .unwrap_or(name);
    let dev = if aliased.starts_with('/') {
        aliased.to_string()
    } else if aliased.starts_with("ephemeral") || aliased == "swap" {
        let msg = "names a device the datasource defines, and this one defines none";
        return Err(Diag::warning(Reason::DiskNoDevice, msg));
    } else {
        format!("/dev/{aliased}")
    };
    let path = ctx.host.path(&dev);
    let deadline = Instant::now() + DEVICE_WAIT;
    while !path.exists() {
        if Instant::now() >= deadline {
            let msg = format!(
                "the device did not appear within {} s",
                DEVICE_WAIT.as_secs()
            );
            return Err(err(Reason::DiskNoDevice, msg));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // udev's /dev/disk/by-* links: the node they point at.
    Ok(std::fs::canonicalize(&path).unwrap_or(path))
}

fn open(path: &std::path::Path, writable: bool) -> Result<DeviceFile, Diag> {
    DeviceFile::open(path, writable).map_err(|e| {
        err(
            Reason::DiskIo,
            format!("{}: cannot open: {e}", path.display()),
        )
    })
}

fn partition_disk(ctx: &ModuleCtx, name: &str, def: &Value, key: &str) -> Result<(), Diag> {
    if !def.is_object() {
        return Err(err(Reason::WrongType, "expected a mapping"));
    }
    let layout_v = def.get("layout").cloned().unwrap_or(Value::Bool(false));
    if layout_v == Value::Bool(false) || layout_v.is_null() {
        return Ok(()); // not to be partitioned
    }
    let kind = match def
        .get("table_type")
        .and_then(Value::as_str)
        .unwrap_or("mbr")
    {
        "mbr" => TableKind::Mbr,
        "gpt" => TableKind::Gpt,
        _ => {
            return Err(
                err(Reason::BadValue, "expected mbr or gpt").key(format!("{key}.table_type"))
            )
        }
    };
    let overwrite = def.get("overwrite") == Some(&Value::Bool(true));
    let path = find_disk(ctx, name)?;
    let shown = path.display().to_string();
    let mut io = open(&path, true)?;
    if layout_v
        .as_str()
        .is_some_and(|s| s.eq_ignore_ascii_case("remove"))
    {
        return remove_table(ctx, &mut io, &path);
    }
    let parts = layout::plan(&layout_v, kind, io.size(), io.sector_size())
        .map_err(|e| err(Reason::BadValue, e).key(format!("{key}.layout")))?;
    // The layout is there already (the same kind and number of partitions): nothing to do.
    if let (Ok(Some(k)), Ok(existing)) = (table::probe(&mut io), table::partitions(&mut io)) {
        let wanted = if layout_v == Value::Bool(true) {
            !existing.is_empty()
        } else {
            existing.len() == parts.len()
        };
        if k == kind && wanted {
            return Ok(());
        }
    }
    if !overwrite {
        if let Some(what) = signature::probe(&mut io, 0).ok().flatten() {
            let msg = format!("{shown} holds {what} and overwrite is false: left alone");
            return Err(Diag::warning(Reason::DiskInUse, msg));
        }
    }
    let sector = io.sector_size();
    let created = table::create(&mut io, kind, &parts)
        .map_err(|e| err(e.reason(), format!("{shown}: {e}")))?;
    drop(io);
    tell_kernel(ctx, &path, &created, sector)?;
    (ctx.console)(&format!(
        "ember: disk_setup: {shown}: {} partition(s) written",
        parts.len()
    ));
    Ok(())
}

/// `layout: remove`: the first and last MiB zeroed (both GPT copies and any MBR), as
/// cloud-init does, so the disk has no table.
fn remove_table(ctx: &ModuleCtx, io: &mut DeviceFile, path: &Path) -> Result<(), Diag> {
    let zeros = vec![0u8; 1 << 20];
    let size = io.size();
    let tail = size.saturating_sub(zeros.len() as u64);
    let n = zeros.len().min(size as usize);
    let done = io
        .write_at(0, &zeros[..n])
        .and_then(|()| io.write_at(tail, &zeros[..n]))
        .and_then(|()| io.sync());
    done.map_err(|e| err(Reason::DiskIo, format!("{}: {e}", path.display())))?;
    tell_kernel(ctx, path, &[], io.sector_size())
}

/// The kernel's partitions of the disk replaced by `parts`, one BLKPG call each (which also
/// works where the kernel parses no partition tables), then their nodes waited for.
fn tell_kernel(ctx: &ModuleCtx, path: &Path, parts: &[Part], sector: u64) -> Result<(), Diag> {
    let file = std::fs::File::open(path).map_err(|e| err(Reason::DiskIo, e.to_string()))?;
    if !file
        .metadata()
        .is_ok_and(|m| m.file_type().is_block_device())
    {
        return Ok(()); // an image file (tests): no kernel view
    }
    let failed = |what: &str, e: std::io::Error| {
        err(
            Reason::DiskKernel,
            format!("{}: the kernel could not {what}: {e}", path.display()),
        )
    };
    let disk = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    for number in kernel_partitions(ctx, disk) {
        blkpg::delete_partition(&file, number).map_err(|e| failed("drop an old partition", e))?;
    }
    for p in parts {
        blkpg::add_partition(&file, p.number, p.start * sector, p.sectors * sector)
            .map_err(|e| failed("add a partition", e))?;
    }
    let deadline = Instant::now() + DEVICE_WAIT;
    for p in parts {
        let node = device_node(path, p.number);
        while !node.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(())
}

/// The partition numbers the kernel has for `disk` (sysfs: directories inside the disk's).
fn kernel_partitions(ctx: &ModuleCtx, disk: &str) -> Vec<u32> {
    let dir = ctx.host.sys_block().join(disk);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let n = std::fs::read_to_string(dir.join(&name).join("partition")).ok()?;
            n.trim().parse().ok()
        })
        .collect()
}

/// One `fs_setup` entry.
fn make_fs(ctx: &ModuleCtx, def: &Value, key: &str) -> Result<(), Diag> {
    if !def.is_object() {
        return Err(err(Reason::WrongType, "expected a mapping"));
    }
    let text = |k: &str| def.get(k).and_then(Value::as_str).map(str::to_string);
    let label = text("label");
    let fs = text("filesystem");
    let overwrite = def.get("overwrite") == Some(&Value::Bool(true));
    let replace_fs = text("replace_fs");
    let Some(device) = text("device") else {
        return Err(err(Reason::MissingKey, "no device").key(format!("{key}.device")));
    };
    // `disk.N`: partition N, overriding `partition`.
    let (disk, dotted) = match device.rsplit_once('.') {
        Some((d, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            (d.to_string(), Some(n.to_string()))
        }
        _ => (device.clone(), None),
    };
    let partition = dotted.or_else(|| {
        def.get("partition").map(|p| match p {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    });
    let partition = partition
        .unwrap_or_else(|| "any".into())
        .to_ascii_lowercase();
    let disk_path = find_disk(ctx, &disk)?;
    let target = match partition.as_str() {
        "none" => disk_path.clone(),
        "auto" | "any" => match pick(
            &disk_path,
            fs.as_deref(),
            label.as_deref(),
            partition == "any",
            replace_fs.as_deref(),
        )? {
            Pick::Reuse => return Ok(()),
            Pick::Format(p) => p,
        },
        n if n.parse::<u32>().is_ok() => device_node(&disk_path, n.parse().unwrap_or(0)),
        _ => {
            return Err(
                err(Reason::BadValue, "expected auto, any, none or a number")
                    .key(format!("{key}.partition")),
            )
        }
    };
    let shown = target.display().to_string();
    let existing = probe_fs(&target)?;
    if let Some((have_fs, have_label)) = &existing {
        if Some(have_fs.as_str()) == fs.as_deref() && have_label.as_deref() == label.as_deref() {
            return Ok(()); // the filesystem asked for is there
        }
        let replaceable = replace_fs.as_deref() == Some(have_fs.as_str());
        if !overwrite && !replaceable {
            let msg = format!("{shown} holds {have_fs} and overwrite is false: left alone");
            return Err(Diag::warning(Reason::FsInUse, msg));
        }
    }
    let argv = mkfs_argv(
        def,
        &target,
        fs.as_deref(),
        label.as_deref(),
        overwrite || existing.is_some() || partition == "none",
        key,
    )?;
    let tools = Tools {
        host: ctx.host,
        target: ctx.target_path,
    };
    tools
        .run(&argv)
        .map_err(|e| err(Reason::MkfsFailed, format!("{shown}: {e}")))?;
    (ctx.console)(&format!(
        "ember: fs_setup: {} made on {shown}",
        fs.as_deref().unwrap_or("a filesystem")
    ));
    Ok(())
}

enum Pick {
    /// A partition already holds the filesystem asked for.
    Reuse,
    Format(PathBuf),
}

/// cloud-init's `auto` and `any`: a partition that already has the filesystem (and, for
/// auto, the label) is reused; else the first partition without one; else the whole disk
/// when it has neither partitions nor a filesystem.
fn pick(
    disk: &std::path::Path,
    fs: Option<&str>,
    label: Option<&str>,
    any: bool,
    replace: Option<&str>,
) -> Result<Pick, Diag> {
    let mut io = open(disk, false)?;
    let parts = table::partitions(&mut io).unwrap_or_default();
    drop(io);
    let mut free = None;
    for p in &parts {
        let node = device_node(disk, p.number);
        match probe_fs(&node)? {
            Some((have, have_label)) => {
                if any && replace == Some(have.as_str()) {
                    return Ok(Pick::Format(node));
                }
                if Some(have.as_str()) == fs && (any || have_label.as_deref() == label) {
                    return Ok(Pick::Reuse);
                }
            }
            None => {
                if free.is_none() {
                    free = Some(node);
                }
            }
        }
    }
    if let Some(node) = free {
        return Ok(Pick::Format(node));
    }
    if parts.is_empty() && probe_fs(disk)?.is_none() {
        return Ok(Pick::Format(disk.to_path_buf()));
    }
    Err(Diag::warning(
        Reason::FsNoDevice,
        format!("{}: no partition without a filesystem", disk.display()),
    ))
}

/// The filesystem on a device and its label, as blkid would name them.
fn probe_fs(path: &std::path::Path) -> Result<Option<(String, Option<String>)>, Diag> {
    let mut io = open(path, false)?;
    let found = signature::probe(&mut io, 0)
        .map_err(|e| err(Reason::DiskIo, format!("{}: {e}", path.display())))?;
    Ok(found
        .filter(|f| !matches!(*f, "gpt" | "dos"))
        .map(|f| (f.to_string(), fs_label::read(&mut io, f))))
}

fn mkfs_argv(
    def: &Value,
    dev: &std::path::Path,
    fs: Option<&str>,
    label: Option<&str>,
    force: bool,
    key: &str,
) -> Result<Vec<String>, Diag> {
    let dev = dev.display().to_string();
    if let Some(cmd) = def.get("cmd") {
        // cloud-init's %(label)s, %(filesystem)s and %(device)s; a string runs under sh.
        let fill = |s: &str| {
            s.replace("%(label)s", label.unwrap_or(""))
                .replace("%(filesystem)s", fs.unwrap_or(""))
                .replace("%(device)s", &dev)
        };
        return match cmd {
            Value::String(s) => Ok(vec!["sh".into(), "-c".into(), fill(s)]),
            Value::Array(words) => Ok(words
                .iter()
                .map(|w| fill(w.as_str().unwrap_or(&w.to_string())))
                .collect()),
            _ => {
                Err(err(Reason::WrongType, "expected a string or a list").key(format!("{key}.cmd")))
            }
        };
    }
    let Some(fs) = fs else {
        return Err(
            err(Reason::MissingKey, "no filesystem and no cmd").key(format!("{key}.filesystem"))
        );
    };
    let mut argv = vec![if fs == "swap" {
        "mkswap".to_string()
    } else {
        format!("mkfs.{fs}")
    }];
    if let Some(l) = label {
        // mkfs.fat names the volume with -n; the others with -L.
        argv.push(
            if matches!(fs, "vfat" | "fat" | "msdos") {
                "-n"
            } else {
                "-L"
            }
            .into(),
        );
        argv.push(l.into());
    }
    if force {
        let flag = match fs {
            f if f.starts_with("ext") => Some("-F"),
            "xfs" | "btrfs" | "swap" | "reiserfs" => Some("-f"),
            _ => None,
        };
        argv.extend(flag.map(str::to_string));
    }
    match def.get("extra_opts") {
        None | Some(Value::Null) => {}
        Some(Value::Array(opts)) => argv.extend(
            opts.iter()
                .map(|o| o.as_str().map_or_else(|| o.to_string(), str::to_string)),
        ),
        Some(Value::String(s)) => argv.extend(s.split_whitespace().map(str::to_string)),
        Some(_) => {
            return Err(err(Reason::WrongType, "expected a list").key(format!("{key}.extra_opts")))
        }
    }
    argv.push(dev);
    Ok(argv)
}

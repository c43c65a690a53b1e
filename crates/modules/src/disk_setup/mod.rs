//! cloud-init's `disk_setup` and `fs_setup` (per instance), from the initramfs: partition
//! tables written in Rust (`disk::table`), filesystems made by the distribution's mkfs.*
//! (`disk::tools`: the initramfs's, else the target's). Stricter than cloud-init where data is
//! at stake: with `overwrite: false`, a disk that has a partition table or a filesystem, and a
//! partition or disk that has a filesystem, are left alone, and a warning says so.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#disk-setup>

mod mkfs;
mod read;
mod read_fs;
mod shape;

pub use read::{aliases, read, Aliases, Disk, Layout, Settings};
pub use read_fs::{Filesystem, Make, Partition};

use super::{Module, ModuleCtx};
use crate::config::reader::Reader;
use crate::disk::io::{BlockIo, DeviceFile};
use crate::disk::table::{self, Part};
use crate::disk::{blkpg, device_node, layout, signature};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct DiskSetup;

/// How long a named device may take to appear (a disk attached late, partitions after a
/// table was written).
const DEVICE_WAIT: Duration = ember_core::bounds::DISK_DEVICE_WAIT;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl Module for DiskSetup {
    fn name(&self) -> &'static str {
        "disk_setup"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }
    /// At boot every problem is a warning: cloud-init's module skips an entry that is not a
    /// mapping with a warning and catches each entry's failure (`logexc`, a warning), so it
    /// never fails. `ember schema` keeps the reader's errors, as cloud-init's schema does.
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let mut own = Vec::new();
        let settings = read(ctx.cfg, &mut own);
        for disk in &settings.disks {
            if let Err(d) = partition_disk(ctx, &settings.aliases, disk) {
                own.push(with_key(d, format!("disk_setup.{}", disk.name)));
            }
        }
        for fs in &settings.filesystems {
            if let Err(d) = mkfs::make_fs(ctx, &settings.aliases, fs) {
                own.push(with_key(d, format!("fs_setup.{}", fs.index)));
            }
        }
        diags.extend(own.into_iter().map(Diag::recoverable));
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
fn find_disk(ctx: &ModuleCtx, aliases: &Aliases, name: &str) -> Result<PathBuf, Diag> {
    let aliased = aliases.get(name).map_or(name, String::as_str);
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

/// A `disk_setup` entry: its table written, unless the layout is there already or the disk
/// holds data that `overwrite` does not allow to lose.
fn partition_disk(ctx: &ModuleCtx, aliases: &Aliases, disk: &Disk) -> Result<(), Diag> {
    let path = find_disk(ctx, aliases, &disk.name)?;
    let shown = path.display().to_string();
    let mut io = open(&path, true)?;
    let layout = match &disk.layout {
        Layout::Remove => return remove_table(ctx, &mut io, &path),
        Layout::Whole => Value::Bool(true),
        Layout::Partitions(items) => Value::Array(items.clone()),
    };
    let kind = disk.table_type;
    let parts = layout::plan(&layout, kind, io.size(), io.sector_size())
        .map_err(|e| err(Reason::BadValue, e).key(format!("disk_setup.{}.layout", disk.name)))?;
    // The layout is there already (the same kind and number of partitions): nothing to do.
    if let (Ok(Some(k)), Ok(existing)) = (table::probe(&mut io), table::partitions(&mut io)) {
        let wanted = if disk.layout == Layout::Whole {
            !existing.is_empty()
        } else {
            existing.len() == parts.len()
        };
        if k == kind && wanted {
            return Ok(());
        }
    }
    if !disk.overwrite {
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

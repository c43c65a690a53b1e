//! `fs_setup`: where each filesystem goes (a partition, the whole disk, the first free
//! partition), whether one is there already, and the mkfs (or the admin's `cmd`) that makes it.

use super::read::Aliases;
use super::read_fs::{Filesystem, Make, Partition};
use super::{err, find_disk, open};
use crate::disk::tools::Tools;
use crate::disk::{device_node, fs_label, signature, table};
use crate::error::Diag;
use crate::reason::Reason;
use crate::ModuleCtx;
use std::path::{Path, PathBuf};

/// One `fs_setup` entry.
pub(super) fn make_fs(ctx: &ModuleCtx, aliases: &Aliases, fs: &Filesystem) -> Result<(), Diag> {
    let disk_path = find_disk(ctx, aliases, &fs.disk)?;
    let wanted = fs.filesystem.as_deref();
    let label = fs.label.as_deref();
    let target = match fs.partition {
        Partition::WholeDisk => disk_path.clone(),
        Partition::Number(n) => device_node(&disk_path, n),
        Partition::Any | Partition::Auto => {
            let any = fs.partition == Partition::Any;
            match pick(&disk_path, wanted, label, any, fs.replace_fs.as_deref())? {
                Pick::Reuse => return Ok(()),
                Pick::Format(p) => p,
            }
        }
    };
    let shown = target.display().to_string();
    let existing = probe_fs(&target)?;
    if let Some((have_fs, have_label)) = &existing {
        if Some(have_fs.as_str()) == wanted && have_label.as_deref() == label {
            return Ok(()); // the filesystem asked for is there
        }
        let replaceable = fs.replace_fs.as_deref() == Some(have_fs.as_str());
        if !fs.overwrite && !replaceable {
            let msg = format!("{shown} holds {have_fs} and overwrite is false: left alone");
            return Err(Diag::warning(Reason::FsInUse, msg));
        }
    }
    let force = fs.overwrite || existing.is_some() || fs.partition == Partition::WholeDisk;
    let argv = mkfs_argv(fs, &target, force);
    let tools = Tools {
        host: ctx.host,
        target: ctx.target_path,
    };
    tools
        .run(&argv)
        .map_err(|e| err(Reason::MkfsFailed, format!("{shown}: {e}")))?;
    (ctx.console)(&format!(
        "ember: fs_setup: {} made on {shown}",
        wanted.unwrap_or("a filesystem")
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
    disk: &Path,
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
fn probe_fs(path: &Path) -> Result<Option<(String, Option<String>)>, Diag> {
    let mut io = open(path, false)?;
    let found = signature::probe(&mut io, 0)
        .map_err(|e| err(Reason::DiskIo, format!("{}: {e}", path.display())))?;
    Ok(found
        .filter(|f| !matches!(*f, "gpt" | "dos"))
        .map(|f| (f.to_string(), fs_label::read(&mut io, f))))
}

/// The command that makes `fs` on `dev`; `force` when something there may be overwritten.
fn mkfs_argv(fs: &Filesystem, dev: &Path, force: bool) -> Vec<String> {
    let dev = dev.display().to_string();
    // cloud-init's placeholders in `cmd`.
    let fill = |s: &str| {
        s.replace("%(label)s", fs.label.as_deref().unwrap_or(""))
            .replace("%(filesystem)s", fs.filesystem.as_deref().unwrap_or(""))
            .replace("%(device)s", &dev)
    };
    let (filesystem, extra_opts) = match &fs.make {
        Make::Shell(s) => return vec!["sh".into(), "-c".into(), fill(s)],
        Make::Argv(words) => return words.iter().map(|w| fill(w)).collect(),
        Make::Mkfs {
            filesystem,
            extra_opts,
        } => (filesystem.as_str(), extra_opts),
    };
    let mut argv = vec![if filesystem == "swap" {
        "mkswap".to_string()
    } else {
        format!("mkfs.{filesystem}")
    }];
    if let Some(l) = &fs.label {
        // mkfs.fat names the volume with -n; the others with -L.
        let flag = if matches!(filesystem, "vfat" | "fat" | "msdos") {
            "-n"
        } else {
            "-L"
        };
        argv.extend([flag.to_string(), l.clone()]);
    }
    if force {
        argv.extend(force_flag(filesystem).map(str::to_string));
    }
    argv.extend(extra_opts.iter().cloned());
    argv.push(dev);
    argv
}

/// The flag that lets mkfs overwrite what is there, where it has one.
fn force_flag(filesystem: &str) -> Option<&'static str> {
    match filesystem {
        f if f.starts_with("ext") => Some("-F"),
        "xfs" | "btrfs" | "swap" | "reiserfs" => Some("-f"),
        _ => None,
    }
}

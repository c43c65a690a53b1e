//! `swap`'s file, made in the target from the initramfs (or found from an earlier run).

use super::read::{Swap, SwapSize};
use crate::disk::swap;
use crate::error::Diag;
use crate::root::FileSpec;
use crate::ModuleCtx;

/// The swap file for fstab: made (or found) in the target; `None` when there is none.
pub(super) fn swap_file(ctx: &ModuleCtx, wanted: &Swap, diags: &mut Vec<Diag>) -> Option<String> {
    let file = &wanted.filename;
    if ctx.root.exists(file) {
        return Some(file.clone()); // made on an earlier run: kept
    }
    let size = match wanted.size? {
        SwapSize::Bytes(n) => n,
        SwapSize::Auto { maxsize } => auto_size(ctx, file, maxsize)?,
    };
    if size >> 20 == 0 {
        return None; // cloud-init: no size, no swap
    }
    match swap::create(ctx.root, file, size) {
        Ok(()) => {
            (ctx.console)(&format!("ember: swap: {file} made, {} MiB", size >> 20));
            Some(file.clone())
        }
        // cloud-init: "failed to setup swap", a warning; the mounts are still written.
        Err(e) => {
            diags.push(Diag::warning(e.code(), e.to_string()).key("swap.filename"));
            None
        }
    }
}

/// cloud-init's `size: auto`, from the host's memory and the free space where the file goes.
fn auto_size(ctx: &ModuleCtx, file: &str, maxsize: Option<u64>) -> Option<u64> {
    let mem = mem_total(ctx)?;
    let dir = file
        .rsplit_once('/')
        .map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
    let _ = ctx.root.create_dir_all(dir, &FileSpec::DIR);
    let at = ctx.root.path().join(dir.trim_start_matches('/'));
    let avail = rustix::fs::statvfs(&at)
        .map(|s| s.f_frsize * s.f_bfree)
        .unwrap_or(0);
    Some(swap::suggested_size(mem, maxsize, avail))
}

/// MemTotal from the host's /proc/meminfo, in bytes.
fn mem_total(ctx: &ModuleCtx) -> Option<u64> {
    let text = std::fs::read_to_string(ctx.host.path("/proc/meminfo")).ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

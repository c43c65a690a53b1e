//! The refusal of writes under the root's /proc, /sys and /dev, decided on the resolved
//! directory rather than on the path text, so `x/../proc` or a link `p -> /proc` cannot slip by.

use super::resolve::open_in;
use super::{Root, RootError};
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{fstat, openat, Mode, OFlags};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// Top-level directories of the target that belong to the kernel, not to the image.
const GUARDED: [&str; 3] = ["proc", "sys", "dev"];
/// Levels climbed before giving up; paths are capped at 4096 bytes, so 2048 levels is the most
/// a real resolution can produce.
const MAX_UP: usize = 2048;
const REASON: &str = "resolves under the target's /proc, /sys or /dev";

/// A directory's identity: device and inode, the same whichever path reached it.
pub(super) type Id = (u64, u64);

/// Saves the syscalls of re-resolving the guards and re-climbing known-good directories on
/// every write: most writes land in a directory an earlier write already cleared.
#[derive(Debug, Default)]
pub(super) struct Cache {
    guards: OnceLock<Vec<Id>>,
    cleared: Mutex<HashSet<Id>>,
}

pub(super) fn id(fd: BorrowedFd<'_>) -> rustix::io::Result<Id> {
    let st = fstat(fd)?;
    #[allow(clippy::useless_conversion)] // the field types differ between architectures
    Ok((u64::from(st.st_dev), u64::from(st.st_ino)))
}

/// Refuses if `dir` (an already resolved directory) is, or lies below, the root's proc, sys or
/// dev, or if `dir` is the root and `name` is one of them.
///
/// Why by identity and by climbing `..`: the identities of the guarded directories are taken by
/// resolving them inside the root exactly as a write would (so a `proc -> elsewhere` link in the
/// image guards `elsewhere` too), and the written directory is compared with them at every level
/// up to the root. Text comparison of the request could not see through symlinks; a canonical
/// path would need /proc/self/fd, which the initramfs may lack. Reaching the filesystem's top
/// without meeting the root means the directory is outside it, which resolution should never
/// allow, so that is refused too.
pub(super) fn check(
    root: &Root,
    dir: BorrowedFd<'_>,
    name: Option<&str>,
    shown: &str,
) -> Result<(), RootError> {
    let dev = climb(root, dir, name, shown)?;
    // Every write passes here first: its filesystem is one `Root::sync` must reach.
    root.written
        .note(root.id.0, dev, dir)
        .map_err(|e| RootError::io(shown, "open the filesystem of", e))
}

/// The climb of [`check`]; returns the device `dir` is on.
fn climb(
    root: &Root,
    dir: BorrowedFd<'_>,
    name: Option<&str>,
    shown: &str,
) -> Result<u64, RootError> {
    let io = |e| RootError::io(shown, "check the location of", e);
    let up_flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let guards = root.guard_cache.guards.get_or_init(|| {
        GUARDED
            .iter()
            .filter_map(|g| open_in(root.fd.as_fd(), root.resolver, &[g], up_flags).ok())
            .filter_map(|fd| id(fd.as_fd()).ok())
            .collect()
    });
    let mut cleared = root
        .guard_cache
        .cleared
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut climbed = Vec::new();
    // `dir` itself first; descriptors of our own only for the levels above it.
    let mut above: Option<OwnedFd> = None;
    let mut dir_dev = None;
    for level in 0..MAX_UP {
        let cur = above.as_ref().map_or(dir, |fd| fd.as_fd());
        let here = id(cur).map_err(io)?;
        let dev = *dir_dev.get_or_insert(here.0);
        if guards.contains(&here) {
            return Err(RootError::refused(shown, REASON));
        }
        if here == root.id {
            if level == 0 && name.is_some_and(|n| GUARDED.contains(&n)) {
                return Err(RootError::refused(shown, REASON));
            }
            cleared.extend(climbed);
            return Ok(dev);
        }
        // Below the root, the name written does not matter: only where the directory is.
        if cleared.contains(&here) {
            cleared.extend(climbed);
            return Ok(dev);
        }
        climbed.push(here);
        let up = openat(cur, "..", up_flags, Mode::empty()).map_err(io)?;
        if id(up.as_fd()).map_err(io)? == here {
            return Err(RootError::refused(
                shown,
                "resolves outside the target root",
            ));
        }
        above = Some(up);
    }
    Err(RootError::refused(
        shown,
        "too deep to check that it stays inside the root",
    ))
}

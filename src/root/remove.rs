//! Removing a whole tree inside the target (`ember clean`): entries are unlinked where they
//! are found, never followed, so a symlink planted in the tree is removed, not what it names.

use super::names::{file_name, parse, shown};
use super::{guard, Root, RootError, DIR_FLAGS};
use rustix::fd::{AsFd, BorrowedFd};
use rustix::fs::{openat, unlinkat, AtFlags, Dir, Mode, OFlags};
use rustix::io::Errno;

impl Root {
    /// Removes `rel` and, for a directory, everything in it; nothing there is no error.
    pub fn remove_tree(&self, rel: &str) -> Result<(), RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let (name, parent) = file_name(&comps, &shown)?;
        let dir = match self.open_in(parent, DIR_FLAGS) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(()),
            Err(e) => return Err(RootError::io(&shown, "open the directory of", e)),
        };
        guard::check(self, dir.as_fd(), Some(name), &shown)?;
        remove_at(dir.as_fd(), name).map_err(|e| RootError::io(&shown, "remove", e))?;
        self.fsync_if_durable(&dir)
            .map_err(|e| RootError::io(&shown, "sync the directory of", e))
    }
}

fn remove_at(dir: BorrowedFd, name: &str) -> rustix::io::Result<()> {
    match unlinkat(dir, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => return Ok(()),
        Err(Errno::ISDIR) => {}
        Err(e) => return Err(e),
    }
    // A directory (unlink refuses those): its entries first. NOFOLLOW: if it was swapped for
    // a symlink meanwhile, opening fails instead of walking elsewhere.
    let fd = openat(dir, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())?;
    let mut names = Vec::new();
    for entry in Dir::read_from(&fd)? {
        let entry = entry?;
        let n = entry.file_name().to_string_lossy().into_owned();
        if n != "." && n != ".." {
            names.push(n);
        }
    }
    for n in names {
        remove_at(fd.as_fd(), &n)?;
    }
    match unlinkat(dir, name, AtFlags::REMOVEDIR) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(e),
    }
}

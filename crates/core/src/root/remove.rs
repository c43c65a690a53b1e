//! Removing inside the target: a whole tree (`ember clean`), its entries unlinked where they
//! are found, never followed, so a symlink planted in the tree is removed, not what it names;
//! and one file a writer marked as its own, only while it is still a regular file so marked.

use super::names::{file_name, parse, shown};
use super::{guard, Root, RootError, DIR_FLAGS};
use rustix::fd::{AsFd, BorrowedFd};
use rustix::fs::{fstat, openat, statat, unlinkat, AtFlags, Dir, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;
use std::io::Read;

/// What [`Root::remove_marked`] found at the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marked {
    /// A regular file whose content starts with the mark: removed.
    Removed,
    /// Nothing there.
    Absent,
    /// A symlink, a directory, a device or a FIFO: left alone.
    NotRegular,
    /// A regular file whose content does not start with the mark: left alone.
    Unmarked,
}

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
        // A directory removed may be one resolved before.
        self.dirs.forget();
        remove_at(dir.as_fd(), name).map_err(|e| RootError::io(&shown, "remove", e))?;
        self.fsync_if_durable(&dir)
            .map_err(|e| RootError::io(&shown, "sync the directory of", e))
    }
}

impl Root {
    /// Removes `rel` only if it is itself a regular file (a symlink there is not followed)
    /// whose content starts with `mark`: a writer takes back what it wrote, and nothing an
    /// admin or a corrupt record put in its place. Only `mark.len()` bytes are read.
    pub fn remove_marked(&self, rel: &str, mark: &[u8]) -> Result<Marked, RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let (name, parent) = file_name(&comps, &shown)?;
        let dir = match self.open_in(parent, DIR_FLAGS) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(Marked::Absent),
            Err(e) => return Err(RootError::io(&shown, "open the directory of", e)),
        };
        guard::check(self, dir.as_fd(), Some(name), &shown)?;
        let io = |op, e: Errno| RootError::io(&shown, op, e);
        // Looked at before it is opened: opening a device or a FIFO is not harmless.
        let before = match statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            Err(Errno::NOENT) => return Ok(Marked::Absent),
            Err(e) => return Err(io("open for reading", e)),
        };
        if !is_regular(&before) {
            return Ok(Marked::NotRegular);
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match openat(&dir, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(Marked::Absent),
            Err(Errno::LOOP) => return Ok(Marked::NotRegular),
            Err(e) => return Err(io("open for reading", e)),
        };
        let opened = fstat(&fd).map_err(|e| io("read", e))?;
        if !same(&before, &opened) {
            return Ok(Marked::NotRegular); // Swapped since it was looked at.
        }
        let mut head = Vec::with_capacity(mark.len());
        std::fs::File::from(fd)
            .take(mark.len() as u64)
            .read_to_end(&mut head)
            .map_err(|e| RootError::io(&shown, "read", e))?;
        if head != mark {
            return Ok(Marked::Unmarked);
        }
        match statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(now) if same(&before, &now) => {}
            Ok(_) => return Ok(Marked::NotRegular),
            Err(Errno::NOENT) => return Ok(Marked::Absent),
            Err(e) => return Err(io("remove", e)),
        }
        match unlinkat(&dir, name, AtFlags::empty()) {
            Ok(()) => {}
            Err(Errno::NOENT) => return Ok(Marked::Absent),
            Err(e) => return Err(io("remove", e)),
        }
        self.fsync_if_durable(&dir)
            .map_err(|e| io("sync the directory of", e))?;
        Ok(Marked::Removed)
    }
}

fn is_regular(st: &Stat) -> bool {
    FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
}

fn same(a: &Stat, b: &Stat) -> bool {
    is_regular(b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino
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

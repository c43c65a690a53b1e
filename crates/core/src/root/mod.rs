//! `Root`: the one way ember writes into the target root (and its run directory). Every path is
//! resolved inside the root, files are replaced atomically with their final mode from birth, and
//! the target's /proc, /sys and /dev are refused; a link is followed only where root alone can
//! have made it, and users' directories are acted in through descriptors (user_path.rs). It
//! does not decide what to write.

mod beneath;
mod dirs;
mod durable;
mod error;
mod guard;
mod names;
mod read_only;
mod remove;
mod resolve;
mod user_path;

pub use error::RootError;
pub use names::{name_or_path, one_name, one_path, BadName, NAME_MAX};
pub use read_only::ReadOnly;
pub use remove::Marked;
pub use resolve::Resolver;
pub use user_path::{trusted_len, UserDir};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{fchmod, fchown, fstat, fsync, mkdirat, openat, renameat, symlinkat, unlinkat};
use rustix::fs::{AtFlags, Dir, FileType, Gid, Mode, OFlags, Uid, CWD};
use rustix::io::Errno;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use names::{file_name, parse, shown, with_temp_name};

/// Owner to give a file or directory; `None` in a [`FileSpec`] keeps the writer's (root at boot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    pub uid: u32,
    pub gid: u32,
}

/// Mode (permission bits, including setuid/setgid/sticky) and owner of something written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileSpec {
    pub mode: u32,
    pub owner: Option<Owner>,
}

impl FileSpec {
    /// Directories created on the way to a file: 0755, owned by the writer.
    pub const DIR: FileSpec = FileSpec::mode(0o755);

    pub const fn mode(mode: u32) -> FileSpec {
        FileSpec { mode, owner: None }
    }
    pub const fn with_owner(self, owner: Owner) -> FileSpec {
        FileSpec {
            owner: Some(owner),
            ..self
        }
    }
}

/// An open target root. Holds the root's directory descriptor, so a later mount over or rename
/// of its path does not move where writes land.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
    path: PathBuf,
    resolver: Resolver,
    id: guard::Id,
    /// Sync every write as it happens; when false, the caller commits with `sync()`.
    durable: bool,
    /// What `guard` learnt: the guarded directories' identities, and directories already
    /// shown to lie outside them. Both hold for the root's lifetime, since ember creates no
    /// guarded directory and renames no directory.
    guard_cache: guard::Cache,
    /// The filesystems written into, for `sync`.
    written: durable::Written,
    /// Directories resolved for writes, so the next write there need not resolve again.
    dirs: dirs::Dirs,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

impl Root {
    /// Opens `path` as a root, resolving with `openat2` where the kernel has it, else the walker.
    pub fn open(path: &Path) -> Result<Root, RootError> {
        let mut root = Root::open_with(path, Resolver::Walker)?;
        if resolve::kernel_available(root.fd.as_fd()) {
            root.resolver = Resolver::Kernel;
        }
        Ok(root)
    }

    /// Opens `path` with a chosen resolver; `Kernel` fails with ENOSYS where `openat2` is missing.
    /// For forcing the walker (a debug toggle, and the tests of both).
    pub fn open_with(path: &Path, resolver: Resolver) -> Result<Root, RootError> {
        let open_err = |e: Errno| RootError::Open {
            path: path.display().to_string(),
            source: e.into(),
        };
        // The root's own path is trusted (our mount point), so it is opened normally.
        let fd = openat(CWD, path, DIR_FLAGS, Mode::empty()).map_err(open_err)?;
        if resolver == Resolver::Kernel && !resolve::kernel_available(fd.as_fd()) {
            return Err(open_err(Errno::NOSYS));
        }
        let id = guard::id(fd.as_fd()).map_err(open_err)?;
        Ok(Root {
            fd,
            path: path.to_path_buf(),
            resolver,
            id,
            durable: true,
            guard_cache: guard::Cache::default(),
            written: durable::Written::default(),
            dirs: dirs::Dirs::default(),
        })
    }

    /// Like `open`, but writes are not synced one by one: the caller writes a batch and then
    /// calls `sync()` once before the write that marks the batch done. One `syncfs` instead of
    /// two `fsync`s per file; for a run directory on tmpfs, no sync is needed at all.
    pub fn open_deferred(path: &Path) -> Result<Root, RootError> {
        let mut root = Root::open(path)?;
        root.durable = false;
        Ok(root)
    }

    /// Flushes every write made so far: `syncfs` of the root's filesystem and of each other
    /// filesystem mounted in the root that a write reached. A stage's one durable point. Free
    /// when nothing was written since the last sync (see `incidental`, `commands_ran`).
    pub fn sync(&self) -> Result<(), RootError> {
        self.written.sync(self.fd.as_fd())
    }

    /// The syncs of `sync` whether or not a write is pending: for markers (incidental writes)
    /// that must be on the disk before something happens, such as an at-most-once module's
    /// "started" before its first command.
    pub fn flush(&self) -> Result<(), RootError> {
        self.written.set_pending(false);
        self.written
            .flush(self.fd.as_fd())
            .inspect_err(|_| self.written.set_pending(true))
    }

    /// A command ran in the root: it may have written anything, so the next `sync` flushes,
    /// and moved or replaced any directory, so each is resolved again.
    pub fn commands_ran(&self) {
        self.written.set_pending(true);
        self.dirs.forget();
    }

    /// Runs `f`, whose writes no marker stands for (markers themselves, log lines): they do not
    /// make the next `sync` flush. They reach the disk with the next flush or the kernel's own
    /// writeback; a power cut before may lose them, as it may lose any marker written after
    /// the durable point.
    pub fn incidental<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = self.written.pending();
        let out = f();
        if !before {
            self.written.set_pending(false);
        }
        out
    }

    /// `fsync` when this root syncs each write; a no-op for a deferred root.
    fn fsync_if_durable(&self, fd: impl AsFd) -> rustix::io::Result<()> {
        if self.durable {
            fsync(fd)
        } else {
            Ok(())
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn resolver(&self) -> Resolver {
        self.resolver
    }

    /// Replaces `rel` atomically with `data`. The temporary file is created with `spec.mode`
    /// (O_EXCL, O_NOFOLLOW), so it is never more open than asked even for an instant; then
    /// chowned, chmodded past the umask, written, synced, renamed over `rel` (replacing a
    /// symlink there, never following it) and the directory synced. Missing parents are made.
    pub fn write_file(&self, rel: &str, data: &[u8], spec: &FileSpec) -> Result<(), RootError> {
        self.write_file_with(rel, spec, |file| file.write_all(data))
    }

    /// [`Root::write_file`] for content too big to hold in memory (a swap file): `fill`
    /// writes the temporary file, which then replaces `rel` in the same way.
    pub fn write_file_with(
        &self,
        rel: &str,
        spec: &FileSpec,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let (name, parent) = file_name(&comps, &shown)?;
        let dir = self.dir(parent, &FileSpec::DIR, &shown)?;
        guard::check(self, dir.as_fd(), Some(name), &shown)?;
        let create =
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let (tmp, fd) = with_temp_name(
            name,
            |tmp| openat(dir.as_fd(), tmp, create, to_mode(spec.mode)),
            |stale| {
                let _ = unlinkat(dir.as_fd(), stale, AtFlags::empty());
            },
        )
        .map_err(|e| RootError::io(&shown, "create a temporary file for", e))?;
        let done = (|| {
            apply(fd.as_fd(), spec, &shown)?;
            let mut file = std::fs::File::from(fd);
            fill(&mut file).map_err(|e| RootError::io(&shown, "write", e))?;
            self.fsync_if_durable(&file)
                .map_err(|e| RootError::io(&shown, "sync", e))?;
            renameat(dir.as_fd(), &tmp, dir.as_fd(), name)
                .map_err(|e| RootError::io(&shown, "rename into place", e))
        })();
        if done.is_err() {
            let _ = unlinkat(dir.as_fd(), &tmp, AtFlags::empty());
        }
        done?;
        self.fsync_if_durable(&dir)
            .map_err(|e| RootError::io(&shown, "sync the directory of", e))
    }

    /// Appends `data` to `rel`, creating it with `spec` if absent (an existing file keeps its
    /// mode and owner). For logs, where replacing would lose lines written by others.
    pub fn append_file(&self, rel: &str, data: &[u8], spec: &FileSpec) -> Result<(), RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let (name, parent) = file_name(&comps, &shown)?;
        let dir = self.dir(parent, &FileSpec::DIR, &shown)?;
        guard::check(self, dir.as_fd(), Some(name), &shown)?;
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let created = openat(
            dir.as_fd(),
            name,
            flags | OFlags::CREATE | OFlags::EXCL,
            to_mode(spec.mode),
        );
        let (fd, new) = match created {
            Ok(fd) => (fd, true),
            // NONBLOCK: a FIFO planted under the name must not hang the boot; it is refused below.
            Err(Errno::EXIST) => (
                openat(dir.as_fd(), name, flags | OFlags::NONBLOCK, Mode::empty())
                    .map_err(|e| RootError::io(&shown, "open for appending", e))?,
                false,
            ),
            Err(e) => return Err(RootError::io(&shown, "create", e)),
        };
        if new {
            apply(fd.as_fd(), spec, &shown)?;
        } else {
            regular(fd.as_fd(), &shown, "open for appending")?;
        }
        let mut file = std::fs::File::from(fd);
        file.write_all(data)
            .map_err(|e| RootError::io(&shown, "append to", e))?;
        self.fsync_if_durable(&file)
            .map_err(|e| RootError::io(&shown, "sync", e))?;
        if new {
            self.fsync_if_durable(&dir)
                .map_err(|e| RootError::io(&shown, "sync the directory of", e))?;
        }
        Ok(())
    }

    /// Creates `rel` and missing parents. Parents get [`FileSpec::DIR`], `rel` itself `spec`;
    /// directories that already exist are left as they are.
    pub fn create_dir_all(&self, rel: &str, spec: &FileSpec) -> Result<(), RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let dir = self.dir(&comps, spec, &shown)?;
        guard::check(self, dir.as_fd(), None, &shown)
    }

    /// Makes `rel` a symlink to `target` (stored verbatim), replacing whatever `rel` was.
    pub fn symlink(&self, target: &str, rel: &str) -> Result<(), RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        if target.is_empty() || target.contains('\0') {
            return Err(RootError::refused(
                &shown,
                "symlink target is empty or contains a NUL byte",
            ));
        }
        let (name, parent) = file_name(&comps, &shown)?;
        let dir = self.dir(parent, &FileSpec::DIR, &shown)?;
        guard::check(self, dir.as_fd(), Some(name), &shown)?;
        let (tmp, ()) = with_temp_name(
            name,
            |tmp| symlinkat(target, dir.as_fd(), tmp),
            |stale| {
                let _ = unlinkat(dir.as_fd(), stale, AtFlags::empty());
            },
        )
        .map_err(|e| RootError::io(&shown, "create a temporary symlink for", e))?;
        if let Err(e) = renameat(dir.as_fd(), &tmp, dir.as_fd(), name) {
            let _ = unlinkat(dir.as_fd(), &tmp, AtFlags::empty());
            return Err(RootError::io(&shown, "rename into place", e));
        }
        self.fsync_if_durable(&dir)
            .map_err(|e| RootError::io(&shown, "sync the directory of", e))
    }

    /// Reads `rel` (symlinks followed, inside the root); `Ok(None)` if it does not exist.
    /// Only regular files are read: a FIFO or device planted in the image would hang or flood.
    pub fn read_file(&self, rel: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let fd = match self.open_in(&comps, OFlags::RDONLY | OFlags::NONBLOCK) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(RootError::io(&shown, "open for reading", e)),
        };
        let size = regular(fd.as_fd(), &shown, "read")?;
        read_bounded(fd, size, max_bytes, &shown).map(Some)
    }

    /// The permission bits of `rel` (symlinks followed, inside the root); `None` if absent.
    pub fn file_mode(&self, rel: &str) -> Option<u32> {
        let fd = self.open_in(&parse(rel, "").ok()?, OFlags::PATH).ok()?;
        Some(rustix::fs::fstat(&fd).ok()?.st_mode & 0o7777)
    }

    /// Whether `rel` resolves (symlinks followed, inside the root) to something. A dangling
    /// symlink does not exist, as with `Path::exists`.
    pub fn exists(&self, rel: &str) -> bool {
        parse(rel, "").is_ok_and(|comps| self.open_in(&comps, OFlags::PATH).is_ok())
    }

    /// Removes the file or symlink `rel` (the link itself, not its target). Absent is fine.
    pub fn remove_file(&self, rel: &str) -> Result<(), RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let (name, parent) = file_name(&comps, &shown)?;
        // As `dir`: a link on the way is followed only where root alone could have made it.
        let dir = match resolve::open_in_no_links(self.fd.as_fd(), self.resolver, parent, DIR_FLAGS)
        {
            Ok(fd) => fd,
            Err(Errno::LOOP) => {
                match self.user_dir_for(
                    &parent.join("/"),
                    &shown,
                    usize::MAX,
                    0,
                    None,
                    &FileSpec::DIR,
                )? {
                    Some(d) => d.fd,
                    None => return Ok(()),
                }
            }
            Err(Errno::NOENT) => return Ok(()),
            Err(e) => return Err(RootError::io(&shown, "open the directory of", e)),
        };
        guard::check(self, dir.as_fd(), Some(name), &shown)?;
        match unlinkat(dir.as_fd(), name, AtFlags::empty()) {
            Ok(()) => self
                .fsync_if_durable(&dir)
                .map_err(|e| RootError::io(&shown, "sync the directory of", e)),
            Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(RootError::io(&shown, "remove", e)),
        }
    }

    /// Sorted names in the directory `rel`; empty if it does not exist. Names that are not
    /// UTF-8 come back lossily converted (ember never creates such names).
    pub fn list_dir(&self, rel: &str) -> Result<Vec<String>, RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let fd = match self.open_in(&comps, DIR_FLAGS) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(Vec::new()),
            Err(e) => return Err(RootError::io(&shown, "list", e)),
        };
        let mut names = Vec::new();
        for entry in Dir::new(fd).map_err(|e| RootError::io(&shown, "list", e))? {
            let entry = entry.map_err(|e| RootError::io(&shown, "list", e))?;
            let name = entry.file_name().to_string_lossy();
            if name != "." && name != ".." {
                names.push(name.into_owned());
            }
        }
        crate::sort::sort(&mut names);
        Ok(names)
    }

    fn open_in(&self, comps: &[&str], oflags: OFlags) -> rustix::io::Result<OwnedFd> {
        resolve::open_in(self.fd.as_fd(), self.resolver, comps, oflags)
    }

    /// Opens directory `comps`, creating what is missing: the deepest existing prefix is found,
    /// then each missing component is made in its resolved parent (guard-checked first) and
    /// the path resolved again, so `..` and symlinks behave exactly as in a plain resolution.
    ///
    /// A path with a symlink on the way is walked as a user-controlled one (`user_path`): its
    /// links are followed only in directories root alone can write, so a link planted in /tmp or
    /// a home cannot aim a write elsewhere (RELIABILITY rule 13). Without links, one resolution.
    fn dir(&self, comps: &[&str], last: &FileSpec, shown: &str) -> Result<Arc<OwnedFd>, RootError> {
        if let Some(fd) = self.dirs.get(comps) {
            return Ok(fd);
        }
        match resolve::open_in_no_links(self.fd.as_fd(), self.resolver, comps, DIR_FLAGS) {
            Ok(fd) => return Ok(self.dirs.keep(comps, fd)),
            Err(Errno::LOOP) => {
                let uid = last.owner.map_or(0, |o| o.uid);
                let d = self.user_dir_for(
                    &comps.join("/"),
                    shown,
                    usize::MAX,
                    uid,
                    Some(last),
                    &FileSpec::DIR,
                )?;
                let d =
                    d.ok_or_else(|| RootError::io(shown, "open the directory of", Errno::NOENT))?;
                return Ok(Arc::new(d.fd));
            }
            _ => {}
        }
        let made = self.dir_made(comps, last, shown)?;
        Ok(self.dirs.keep(comps, made))
    }

    /// The rest of `dir` for a path without links: what is missing is made.
    fn dir_made(&self, comps: &[&str], last: &FileSpec, shown: &str) -> Result<OwnedFd, RootError> {
        let open_err = |e| RootError::io(shown, "open the directory of", e);
        let mut have = comps.len();
        let mut cur = loop {
            match self.open_in(&comps[..have], DIR_FLAGS) {
                Ok(fd) => break fd,
                Err(Errno::NOENT) if have > 0 => have -= 1,
                Err(e) => return Err(open_err(e)),
            }
        };
        for (i, name) in comps.iter().enumerate().skip(have) {
            let spec = if i + 1 == comps.len() {
                last
            } else {
                &FileSpec::DIR
            };
            guard::check(self, cur.as_fd(), Some(name), shown)?;
            match mkdirat(cur.as_fd(), *name, to_mode(spec.mode)) {
                Ok(()) => {
                    let new = openat(
                        cur.as_fd(),
                        *name,
                        DIR_FLAGS | OFlags::NOFOLLOW,
                        Mode::empty(),
                    )
                    .map_err(open_err)?;
                    apply(new.as_fd(), spec, shown)?;
                    self.fsync_if_durable(&cur)
                        .map_err(|e| RootError::io(shown, "sync the directory of", e))?;
                }
                // `..` or a racing creator: the opening below decides.
                Err(Errno::EXIST) => {}
                Err(e) => return Err(RootError::io(shown, "create a directory for", e)),
            }
            // No link was on the way (`dir`): one made since, by a racing user, is refused.
            cur = if *name == ".." {
                self.open_in(&comps[..=i], DIR_FLAGS)
            } else {
                openat(
                    cur.as_fd(),
                    *name,
                    DIR_FLAGS | OFlags::NOFOLLOW,
                    Mode::empty(),
                )
            }
            .map_err(open_err)?;
        }
        Ok(cur)
    }
}

fn to_mode(mode: u32) -> Mode {
    Mode::from_raw_mode(mode & 0o7777)
}

/// Owner first, then mode: chown clears setuid/setgid, so the mode must come after it.
fn apply(fd: BorrowedFd<'_>, spec: &FileSpec, shown: &str) -> Result<(), RootError> {
    if let Some(Owner { uid, gid }) = spec.owner {
        // -1 means "leave unchanged" to the kernel, never a real id.
        if uid == u32::MAX || gid == u32::MAX {
            return Err(RootError::refused(
                shown,
                "owner id 4294967295 is not a valid id",
            ));
        }
        fchown(fd, Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)))
            .map_err(|e| RootError::io(shown, "set the owner of", e))?;
    }
    fchmod(fd, to_mode(spec.mode)).map_err(|e| RootError::io(shown, "set the mode of", e))
}

/// Size of the regular file `fd`; anything else is an error of `op`.
fn regular(fd: BorrowedFd<'_>, shown: &str, op: &'static str) -> Result<u64, RootError> {
    let st = fstat(fd).map_err(|e| RootError::io(shown, op, e))?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(RootError::io(
            shown,
            op,
            io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
        ));
    }
    Ok(u64::try_from(st.st_size).unwrap_or(0))
}

/// The whole of the open regular file `fd` (`size` bytes by `fstat`, which a writer may still
/// change), refused past `max_bytes` either way.
pub(super) fn read_bounded(
    fd: OwnedFd,
    size: u64,
    max_bytes: u64,
    shown: &str,
) -> Result<Vec<u8>, RootError> {
    let too_large = || RootError::TooLarge {
        path: shown.to_string(),
        max_bytes,
        budget: None,
    };
    if size > max_bytes {
        return Err(too_large());
    }
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    std::fs::File::from(fd)
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| RootError::io(shown, "read", e))?;
    if data.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable() {
        let e = |op| RootError::io("/x", op, Errno::IO);
        assert_eq!(e("write").code(), "write-failed");
        assert_eq!(e("read").code(), "read-failed");
        assert_eq!(RootError::refused("/x", "r").code(), "write-refused");
        assert_eq!(
            RootError::TooLarge {
                path: "/x".into(),
                max_bytes: 1,
                budget: None,
            }
            .code(),
            "budget-exceeded"
        );
    }
}

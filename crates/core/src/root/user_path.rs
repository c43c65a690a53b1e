//! Paths another user controls (RELIABILITY rule 13): root reading a user's authorized_keys,
//! writing into a home, or writing a file for an owner never acts through a link, FIFO, device
//! or directory that someone else put there.
//!
//! The boundary. A path splits into a trusted prefix and a user-controlled rest. The prefix is
//! the image's layout, resolved like every path of [`Root`] (its links followed, inside the
//! root): at most the components the caller names as trusted, the parent of a home as passwd
//! lists it (`/home -> /var/home` stays allowed), and it ends early at the first directory that
//! anyone but root can write (not owned by the writer, or group/other-writable: `/tmp`,
//! `/var/tmp`, a home). From there down, every component is opened by itself in the directory
//! above it with `O_NOFOLLOW`: a link is refused, not followed; a directory must be one and be
//! owned by root or the user acted for (a home owned by someone else is refused); `..` is
//! refused. Files are opened `O_NONBLOCK` (a FIFO cannot hang) and must be regular files
//! owned by root or that user, read within a budget. Writes create a temporary file `O_EXCL`
//! in the opened directory, set owner and mode on the descriptor and rename inside that
//! directory: nothing is done by path, so no check can be raced. Root's own home (uid 0) is
//! not user-controlled; only the early end applies to it. Acting for root, a directory of any
//! owner is accepted past the boundary (a root-owned file made there gives nothing away), but
//! a file read or appended to must still be root's.
//!
//! Every writer of [`Root`] uses this walk (`Root::dir`, `remove_file`) for a path with a
//! symlink on it, so a link planted in /tmp or a home aims no write of any module; a path
//! without links is resolved once, as before.

use super::names::{parse, shown, with_temp_name};
use super::{apply, guard, to_mode, FileSpec, Root, RootError, DIR_FLAGS};
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{fstat, mkdirat, openat, renameat, statat, unlinkat, AtFlags, FileType};
use rustix::fs::{Mode, OFlags, Stat};
use rustix::io::Errno;
use std::io::Write;

/// An opened directory below (or at) the boundary, for acting for user `uid`.
#[derive(Debug)]
pub struct UserDir<'r> {
    root: &'r Root,
    pub(super) fd: OwnedFd,
    shown: String,
    uid: u32,
}

/// The number of components of `path` that are the image's layout when acting for the user
/// `uid` whose home is `home`: up to the home's parent when `path` lies in the home, all of
/// them otherwise (and for root), where only the early end at a writable directory applies.
pub fn trusted_len(path: &str, home: &str, uid: u32) -> usize {
    let split = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .map(str::to_string)
            .collect()
    };
    let (path, home) = (split(path), split(home));
    if uid == 0 || home.is_empty() || !path.starts_with(&home) {
        usize::MAX
    } else {
        home.len() - 1
    }
}

/// Whether someone other than this process's user (root at boot) can change `st`'s entries.
fn others_write(st: &Stat) -> bool {
    st.st_uid != rustix::process::geteuid().as_raw() || st.st_mode & 0o022 != 0
}

/// The reason given for a link refused below the boundary (see [`RootError::is_link`]).
pub(super) const LINK: &str = "is a symbolic link";
const OTHERS: &str = "is owned by another user";

fn refused(path: &str, at: &str, reason: &'static str) -> RootError {
    RootError::UserRefused {
        path: path.to_string(),
        at: at.to_string(),
        reason,
    }
}

/// What `name` in `dir` is, for a message, when opening it without following failed.
fn what_is(dir: &OwnedFd, name: &str) -> &'static str {
    match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).map(|s| FileType::from_raw_mode(s.st_mode)) {
        Ok(FileType::Symlink) => LINK,
        Ok(FileType::Directory) => "is a directory",
        Ok(FileType::RegularFile) => "is not a directory",
        Ok(_) => "is a FIFO, socket or device",
        Err(_) => "cannot be opened",
    }
}

impl Root {
    /// Opens the directory `dir` to act for user `uid`, its first `trusted` components taken
    /// as the image's layout (see the module's header). Missing components are made when
    /// `create` is given (the last with it, those on the way with [`FileSpec::DIR`]); without
    /// it, a missing directory is `Ok(None)`.
    pub fn user_dir(
        &self,
        dir: &str,
        trusted: usize,
        uid: u32,
        create: Option<&FileSpec>,
    ) -> Result<Option<UserDir<'_>>, RootError> {
        self.user_dir_for(dir, &shown(dir), trusted, uid, create, &FileSpec::DIR)
    }

    /// [`Root::user_dir`] making every missing directory with `made`, the last one and those
    /// on the way to it alike.
    pub fn user_dir_made(
        &self,
        dir: &str,
        trusted: usize,
        uid: u32,
        made: &FileSpec,
    ) -> Result<Option<UserDir<'_>>, RootError> {
        self.user_dir_for(dir, &shown(dir), trusted, uid, Some(made), made)
    }

    /// [`Root::user_dir`] whose errors in the image's layout name `named` (the file acted on),
    /// directories made on the way to the last one getting `on_the_way`.
    pub(super) fn user_dir_for(
        &self,
        dir: &str,
        named: &str,
        trusted: usize,
        uid: u32,
        create: Option<&FileSpec>,
        on_the_way: &FileSpec,
    ) -> Result<Option<UserDir<'_>>, RootError> {
        let shown_all = shown(dir);
        let comps = parse(dir, named)?;
        let open_err = |s: &str, e| RootError::io(s, "open the directory of", e);
        // The trusted prefix, ended at the first directory others can write.
        let limit = trusted.min(comps.len());
        let mut at = 0;
        let mut cur = self
            .open_in(&[], DIR_FLAGS)
            .map_err(|e| open_err(named, e))?;
        while at < limit {
            let st = fstat(&cur).map_err(|e| open_err(named, e))?;
            if others_write(&st) {
                break;
            }
            match self.open_in(&comps[..=at], DIR_FLAGS) {
                Ok(fd) => cur = fd,
                Err(Errno::NOENT) if create.is_none() => return Ok(None),
                // The image's own link to nowhere: missing, as a plain resolution finds it.
                Err(Errno::NOENT) if what_is(&cur, comps[at]) == LINK => {
                    return Err(open_err(named, Errno::NOENT))
                }
                // Made below one at a time, as any component past the boundary.
                Err(Errno::NOENT) => break,
                Err(e) => return Err(open_err(named, e)),
            }
            at += 1;
        }
        // The user-controlled rest, one component at a time, links refused.
        for i in at..comps.len() {
            let name = comps[i];
            let here = shown(&comps[..=i].join("/"));
            if name == ".." {
                return Err(refused(
                    named,
                    &here,
                    "climbs with `..` below a user's directory",
                ));
            }
            let last = i + 1 == comps.len();
            let nofollow = DIR_FLAGS | OFlags::NOFOLLOW;
            let fd = match openat(&cur, name, nofollow, Mode::empty()) {
                Ok(fd) => fd,
                Err(Errno::NOENT) => match create {
                    None => return Ok(None),
                    Some(spec) => {
                        let spec = if last { spec } else { on_the_way };
                        guard::check(self, cur.as_fd(), Some(name), &here)?;
                        let made = match mkdirat(&cur, name, to_mode(spec.mode)) {
                            Ok(()) => true,
                            // A racing creator: the checks below decide, nothing is given.
                            Err(Errno::EXIST) => false,
                            Err(e) => {
                                return Err(RootError::io(&here, "create a directory for", e))
                            }
                        };
                        let new = openat(&cur, name, nofollow, Mode::empty())
                            .map_err(|_| refused(named, &here, what_is(&cur, name)))?;
                        if made {
                            apply(new.as_fd(), spec, &here)?;
                        }
                        self.fsync_if_durable(&cur)
                            .map_err(|e| RootError::io(&here, "sync the directory of", e))?;
                        new
                    }
                },
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    return Err(refused(named, &here, what_is(&cur, name)))
                }
                Err(e) => return Err(open_err(&here, e)),
            };
            let st = fstat(&fd).map_err(|e| open_err(&here, e))?;
            if !owner_ok(&st, uid) && uid != 0 {
                return Err(refused(named, &here, OTHERS));
            }
            cur = fd;
        }
        Ok(Some(UserDir {
            root: self,
            fd: cur,
            shown: shown_all,
            uid,
        }))
    }
}

impl Root {
    /// Reads the file `path` for user `uid` whose home is `home`, as [`UserDir::read_file`]
    /// reads it; `Ok(None)` when it or a directory above it is absent.
    pub fn read_user_file(
        &self,
        path: &str,
        home: &str,
        uid: u32,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, RootError> {
        let (dir, name) = split(path)?;
        let trusted = trusted_len(&dir, home, uid);
        match self.user_dir_for(&dir, &shown(path), trusted, uid, None, &FileSpec::DIR)? {
            Some(d) => d.read_file(name, max_bytes),
            None => Ok(None),
        }
    }

    /// [`Root::write_file`] (or, with `append`, [`Root::append_file`]) for a file whose
    /// directories anyone but root may write: the boundary is the first such directory, the
    /// user acted for is `spec`'s owner (root without one), missing directories are made
    /// 0755 and given that owner too (as cloud-init's write_files makes them).
    pub fn write_user_file(
        &self,
        path: &str,
        data: &[u8],
        spec: &FileSpec,
        append: bool,
    ) -> Result<(), RootError> {
        let (dir, name) = split(path)?;
        let uid = spec.owner.map_or(0, |o| o.uid);
        let made = FileSpec {
            owner: spec.owner,
            ..FileSpec::DIR
        };
        let d = self
            .user_dir_for(&dir, &shown(path), usize::MAX, uid, Some(&made), &made)?
            .ok_or_else(|| RootError::io(&shown(path), "open the directory of", Errno::NOENT))?;
        if append {
            d.append_file(name, data, spec)
        } else {
            d.write_file(name, data, spec)
        }
    }
}

impl Root {
    /// [`Root::create_dir_all`] for a directory that may lie below one others can write: the
    /// boundary is the first such directory, the user acted for `spec`'s owner (root without
    /// one). The directory itself gets `spec` when made; one that exists is left as it is.
    pub fn create_user_dir(&self, path: &str, spec: &FileSpec) -> Result<(), RootError> {
        let uid = spec.owner.map_or(0, |o| o.uid);
        let d = self.user_dir(path, usize::MAX, uid, Some(spec))?;
        match d {
            Some(d) => guard::check(self, d.fd.as_fd(), None, &d.shown),
            None => Err(RootError::io(&shown(path), "create", Errno::NOENT)),
        }
    }
}

/// `path`'s directory and file name; a path must end in a file name.
fn split(path: &str) -> Result<(String, &str), RootError> {
    let shown = shown(path);
    let comps = parse(path, &shown)?;
    let (name, parent) = super::names::file_name(&comps, &shown)?;
    Ok((parent.join("/"), name))
}

/// Owned by this process's user (root at boot) or by `uid`.
fn owner_ok(st: &Stat, uid: u32) -> bool {
    st.st_uid == uid || st.st_uid == rustix::process::geteuid().as_raw()
}

impl UserDir<'_> {
    /// The directory as shown in messages.
    pub fn path(&self) -> &str {
        &self.shown
    }

    fn child(&self, name: &str) -> Result<String, RootError> {
        let shown = shown(&format!("{}/{name}", self.shown));
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
            return Err(RootError::refused(&shown, "not one plain file name"));
        }
        Ok(shown)
    }

    /// Opens `name` without following it: a regular file owned by root or the user, else an
    /// error naming what it is. `Ok(None)` when absent.
    fn open_file(&self, name: &str, flags: OFlags, op: &'static str) -> OpenResult {
        let shown = self.child(name)?;
        let flags = flags | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = match openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP | Errno::NXIO | Errno::ISDIR) => {
                return Err(refused(&shown, &shown, what_is(&self.fd, name)))
            }
            Err(e) => return Err(RootError::io(&shown, op, e)),
        };
        let st = fstat(&fd).map_err(|e| RootError::io(&shown, op, e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(refused(&shown, &shown, "is a FIFO, socket or device"));
        }
        if !owner_ok(&st, self.uid) {
            return Err(refused(&shown, &shown, OTHERS));
        }
        Ok(Some((fd, u64::try_from(st.st_size).unwrap_or(0), shown)))
    }

    /// The regular file `name` of this directory, within `max_bytes`; `Ok(None)` when absent.
    pub fn read_file(&self, name: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, RootError> {
        let Some((fd, size, shown)) = self.open_file(name, OFlags::RDONLY, "read")? else {
            return Ok(None);
        };
        super::read_bounded(fd, size, max_bytes, &shown).map(Some)
    }

    /// Replaces `name` in this directory with `data`: a temporary file made `O_EXCL` here with
    /// `spec`'s mode, given its owner and mode on the descriptor, renamed over `name` in this
    /// same directory (a link there is replaced, never followed).
    pub fn write_file(&self, name: &str, data: &[u8], spec: &FileSpec) -> Result<(), RootError> {
        let shown = self.child(name)?;
        guard::check(self.root, self.fd.as_fd(), Some(name), &shown)?;
        let create =
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let dir = &self.fd;
        let (tmp, fd) = with_temp_name(
            name,
            |tmp| openat(dir, tmp, create, to_mode(spec.mode)),
            |stale| {
                let _ = unlinkat(dir, stale, AtFlags::empty());
            },
        )
        .map_err(|e| RootError::io(&shown, "create a temporary file for", e))?;
        let done = (|| {
            apply(fd.as_fd(), spec, &shown)?;
            let mut file = std::fs::File::from(fd);
            file.write_all(data)
                .map_err(|e| RootError::io(&shown, "write", e))?;
            self.root
                .fsync_if_durable(&file)
                .map_err(|e| RootError::io(&shown, "sync", e))?;
            renameat(dir, &tmp, dir, name)
                .map_err(|e| RootError::io(&shown, "rename into place", e))
        })();
        if done.is_err() {
            let _ = unlinkat(dir, &tmp, AtFlags::empty());
        }
        done?;
        self.root
            .fsync_if_durable(dir)
            .map_err(|e| RootError::io(&shown, "sync the directory of", e))
    }

    /// The directory `name` in this one, made with `spec` when missing (an existing one is
    /// left as it is); a link, a non-directory or one of another user is refused.
    pub fn create_dir(&self, name: &str, spec: &FileSpec) -> Result<UserDir<'_>, RootError> {
        let shown = self.child(name)?;
        guard::check(self.root, self.fd.as_fd(), Some(name), &shown)?;
        let made = match mkdirat(&self.fd, name, to_mode(spec.mode)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(e) => return Err(RootError::io(&shown, "create a directory for", e)),
        };
        let fd = openat(&self.fd, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())
            .map_err(|_| refused(&shown, &shown, what_is(&self.fd, name)))?;
        if made {
            apply(fd.as_fd(), spec, &shown)?;
            self.root
                .fsync_if_durable(&self.fd)
                .map_err(|e| RootError::io(&shown, "sync the directory of", e))?;
        } else {
            let st = fstat(&fd).map_err(|e| RootError::io(&shown, "open", e))?;
            if !owner_ok(&st, self.uid) && self.uid != 0 {
                return Err(refused(&shown, &shown, OTHERS));
            }
        }
        Ok(UserDir {
            root: self.root,
            fd,
            shown,
            uid: self.uid,
        })
    }

    /// Makes `name` a symlink to `target` (stored verbatim, never followed here), replacing
    /// whatever `name` was, by a rename inside this directory.
    pub fn symlink(&self, target: &str, name: &str) -> Result<(), RootError> {
        let shown = self.child(name)?;
        if target.is_empty() || target.contains('\0') {
            return Err(RootError::refused(
                &shown,
                "symlink target is empty or contains a NUL byte",
            ));
        }
        guard::check(self.root, self.fd.as_fd(), Some(name), &shown)?;
        let dir = &self.fd;
        let (tmp, ()) = with_temp_name(
            name,
            |tmp| rustix::fs::symlinkat(target, dir, tmp),
            |stale| {
                let _ = unlinkat(dir, stale, AtFlags::empty());
            },
        )
        .map_err(|e| RootError::io(&shown, "create a temporary symlink for", e))?;
        if let Err(e) = renameat(dir, &tmp, dir, name) {
            let _ = unlinkat(dir, &tmp, AtFlags::empty());
            return Err(RootError::io(&shown, "rename into place", e));
        }
        self.root
            .fsync_if_durable(dir)
            .map_err(|e| RootError::io(&shown, "sync the directory of", e))
    }

    /// Appends `data` to `name`, creating it with `spec` if absent; an existing one must be a
    /// regular file owned by root or the user (another's file would receive the data).
    pub fn append_file(&self, name: &str, data: &[u8], spec: &FileSpec) -> Result<(), RootError> {
        let shown = self.child(name)?;
        guard::check(self.root, self.fd.as_fd(), Some(name), &shown)?;
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let created = openat(
            &self.fd,
            name,
            flags | OFlags::CREATE | OFlags::EXCL,
            to_mode(spec.mode),
        );
        let (fd, new) = match created {
            Ok(fd) => (fd, true),
            Err(Errno::EXIST) => {
                let opened =
                    self.open_file(name, OFlags::WRONLY | OFlags::APPEND, "open for appending")?;
                match opened {
                    Some((fd, _, _)) => (fd, false),
                    None => return Err(RootError::io(&shown, "open for appending", Errno::NOENT)),
                }
            }
            Err(e) => return Err(RootError::io(&shown, "create", e)),
        };
        if new {
            apply(fd.as_fd(), spec, &shown)?;
        }
        let mut file = std::fs::File::from(fd);
        file.write_all(data)
            .map_err(|e| RootError::io(&shown, "append to", e))?;
        self.root
            .fsync_if_durable(&file)
            .map_err(|e| RootError::io(&shown, "sync", e))?;
        if new {
            self.root
                .fsync_if_durable(&self.fd)
                .map_err(|e| RootError::io(&shown, "sync the directory of", e))?;
        }
        Ok(())
    }
}

type OpenResult = Result<Option<(OwnedFd, u64, String)>, RootError>;

#[cfg(test)]
#[path = "user_path_tests.rs"]
mod tests;

//! Read-only looks at the target that `Root` does not offer yet: the type, mode and owner of a
//! path without following its last component, and a symlink's target. Needed to copy /etc/skel
//! with its modes and links, and to keep a database file's mode and owner. Resolution stays
//! inside the target (`openat2` with `RESOLVE_IN_ROOT`); where the kernel lacks `openat2` the
//! answer is `None` and callers fall back to defaults. Belongs in `Root` (`lstat`, `read_link`).

use crate::root::Root;
use rustix::fd::OwnedFd;
use rustix::fs::{fstat, openat, openat2, readlinkat, FileType, Mode, OFlags, ResolveFlags, CWD};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    /// Permission bits, setuid/setgid/sticky included.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

fn open_path(root: &Root, rel: &str) -> Option<OwnedFd> {
    let dir = openat(
        CWD,
        root.path(),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let rel = rel.trim_start_matches('/');
    if rel.is_empty() || rel.contains('\0') {
        return None;
    }
    openat2(
        &dir,
        rel,
        OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::IN_ROOT | ResolveFlags::NO_MAGICLINKS,
    )
    .ok()
}

/// Type, mode and owner of `rel` itself (a symlink is reported, not followed).
pub fn lstat(root: &Root, rel: &str) -> Option<Meta> {
    let fd = open_path(root, rel)?;
    let st = fstat(&fd).ok()?;
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    };
    Some(Meta {
        kind,
        mode: st.st_mode & 0o7777,
        uid: st.st_uid,
        gid: st.st_gid,
    })
}

/// The target of the symlink `rel`, verbatim.
pub fn read_link(root: &Root, rel: &str) -> Option<String> {
    let fd = open_path(root, rel)?;
    let target = readlinkat(&fd, "", Vec::new()).ok()?;
    target.into_string().ok()
}

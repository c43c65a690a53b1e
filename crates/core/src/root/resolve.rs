//! Path resolution confined to the root: the kernel's `openat2(RESOLVE_IN_ROOT)`, or a walker
//! in user space with the same semantics for kernels before 5.6. It opens; it never creates.

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{openat, openat2, readlinkat, Mode, OFlags, ResolveFlags};
use rustix::io::{Errno, Result};

/// How paths are resolved inside the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolver {
    /// `openat2` with `RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS` (Linux 5.6+).
    Kernel,
    /// A component-by-component walk: every component opened with `O_NOFOLLOW`, symlinks read
    /// and expanded by us, absolute targets and `..` clamped at the root.
    Walker,
}

/// Symlinks followed in one resolution before ELOOP; the kernel's limit is also 40.
const MAX_LINKS: u32 = 40;
/// Directories the walker may hold open at once (it keeps the chain for `..`). Real trees are
/// far shallower; the bound keeps a hostile path from exhausting descriptors.
const MAX_DEPTH: usize = 256;
/// `openat2` with RESOLVE_IN_ROOT returns EAGAIN when a rename or mount raced the walk.
const EAGAIN_RETRIES: u32 = 16;

/// Opens `comps` (names, possibly `..`; no empty or `.` entries needed) below `root`, following
/// symlinks, all of them clamped to `root`. `oflags` apply to the final object.
pub(super) fn open_in(
    root: BorrowedFd<'_>,
    resolver: Resolver,
    comps: &[&str],
    oflags: OFlags,
) -> Result<OwnedFd> {
    match resolver {
        Resolver::Kernel => kernel(root, comps, oflags),
        Resolver::Walker => walk(root, comps, oflags, false),
    }
}

/// [`open_in`] that follows no symlink at all (`..` still clamped at `root`): ELOOP when the
/// path holds one. The cheap first try of a writer, which looks closer only on a link.
pub(super) fn open_in_no_links(
    root: BorrowedFd<'_>,
    resolver: Resolver,
    comps: &[&str],
    oflags: OFlags,
) -> Result<OwnedFd> {
    match resolver {
        Resolver::Kernel => kernel_how(root, comps, oflags, ResolveFlags::NO_SYMLINKS),
        Resolver::Walker => walk(root, comps, oflags, true),
    }
}

/// Whether the running kernel (and any seccomp filter) lets `openat2` through. Old container
/// runtimes answer unknown syscalls with EPERM instead of ENOSYS, so both mean "use the walker";
/// the walker is as strict, only slower.
pub(super) fn kernel_available(root: BorrowedFd<'_>) -> bool {
    !matches!(
        kernel(root, &[], OFlags::PATH | OFlags::DIRECTORY),
        Err(Errno::NOSYS | Errno::PERM)
    )
}

fn kernel(root: BorrowedFd<'_>, comps: &[&str], oflags: OFlags) -> Result<OwnedFd> {
    kernel_how(root, comps, oflags, ResolveFlags::empty())
}

fn kernel_how(
    root: BorrowedFd<'_>,
    comps: &[&str],
    oflags: OFlags,
    more: ResolveFlags,
) -> Result<OwnedFd> {
    let path = if comps.is_empty() {
        ".".to_string()
    } else {
        comps.join("/")
    };
    let how = ResolveFlags::IN_ROOT | ResolveFlags::NO_MAGICLINKS | more;
    let mut tries = 0;
    loop {
        match openat2(root, &path, oflags | OFlags::CLOEXEC, Mode::empty(), how) {
            Err(Errno::AGAIN) if tries < EAGAIN_RETRIES => tries += 1,
            other => return other,
        }
    }
}

fn walk(root: BorrowedFd<'_>, comps: &[&str], oflags: OFlags, no_links: bool) -> Result<OwnedFd> {
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let open_root = || openat(root, ".", dir_flags, Mode::empty());
    // Components still to walk, last on top; symlink targets are pushed in front of the rest.
    let mut todo: Vec<Vec<u8>> = comps.iter().rev().map(|c| c.as_bytes().to_vec()).collect();
    todo.retain(|c| !c.is_empty() && c != b".");
    // The directories above `cur`, so `..` goes back the way we came and stops at the root
    // instead of asking the filesystem (which would walk out of a bind-mounted root).
    let mut above: Vec<OwnedFd> = Vec::new();
    let mut cur = open_root()?;
    let mut links = 0;
    while let Some(comp) = todo.pop() {
        if comp == b".." {
            if let Some(parent) = above.pop() {
                cur = parent;
            }
            continue;
        }
        match readlinkat(cur.as_fd(), comp.as_slice(), Vec::new()) {
            Ok(_) if no_links => return Err(Errno::LOOP),
            Ok(target) => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(Errno::LOOP);
                }
                let target = target.into_bytes();
                if target.first() == Some(&b'/') {
                    above.clear();
                    cur = open_root()?;
                }
                let parts = target.split(|b| *b == b'/');
                todo.extend(
                    parts
                        .rev()
                        .filter(|c| !c.is_empty() && *c != b".")
                        .map(<[u8]>::to_vec),
                );
            }
            // EINVAL: it exists and is not a symlink. O_NOFOLLOW makes a swap to a symlink since
            // the readlink fail (ELOOP/ENOTDIR) rather than be followed.
            Err(Errno::INVAL) => {
                if todo.is_empty() {
                    return openat(
                        cur.as_fd(),
                        comp.as_slice(),
                        oflags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                        Mode::empty(),
                    );
                }
                if above.len() >= MAX_DEPTH {
                    return Err(Errno::NAMETOOLONG);
                }
                let next = openat(cur.as_fd(), comp.as_slice(), dir_flags, Mode::empty())?;
                above.push(std::mem::replace(&mut cur, next));
            }
            Err(e) => return Err(e),
        }
    }
    // The path ended on a directory (empty, `..`, or a symlink to a directory).
    openat(cur.as_fd(), ".", oflags | OFlags::CLOEXEC, Mode::empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fs::{fstat, statat, AtFlags, CWD};
    use std::os::unix::fs::symlink;

    fn tmp(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("ember-resolve-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn same(a: &OwnedFd, dir: &std::path::Path) -> bool {
        let (x, y) = (
            fstat(a).unwrap(),
            statat(CWD, dir, AtFlags::empty()).unwrap(),
        );
        (x.st_dev, x.st_ino) == (y.st_dev, y.st_ino)
    }

    #[test]
    fn walker_and_kernel_agree_on_clamping() {
        let d = tmp("agree");
        let root = d.join("root");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        symlink("../../../../..", root.join("a/up")).unwrap();
        symlink("/a/b", root.join("abs")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        let rfd = openat(
            CWD,
            &root,
            OFlags::RDONLY | OFlags::DIRECTORY,
            Mode::empty(),
        )
        .unwrap();
        let dir = OFlags::RDONLY | OFlags::DIRECTORY;
        let cases: &[(&[&str], Option<&str>)] = &[
            (&[], Some("")),
            (&["..", "..", "a"], Some("a")),
            (&["a", "up"], Some("")),
            (&["a", "up", "a", "b"], Some("a/b")),
            (&["abs", "..", ".."], Some("")),
            (&["a", "missing"], None),
            (&["loop"], None),
        ];
        let mut resolvers = vec![Resolver::Walker];
        if kernel_available(rfd.as_fd()) {
            resolvers.push(Resolver::Kernel);
        } else {
            eprintln!("SKIP kernel resolver: openat2 unavailable here");
        }
        for r in resolvers {
            for (comps, want) in cases {
                let got = open_in(rfd.as_fd(), r, comps, dir);
                match want {
                    Some(rel) => assert!(same(&got.unwrap(), &root.join(rel)), "{r:?} {comps:?}"),
                    None => assert!(got.is_err(), "{r:?} {comps:?}"),
                }
            }
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}

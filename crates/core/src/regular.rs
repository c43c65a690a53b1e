//! Reading files that an image, a seed or a failed boot may have planted or replaced (state in
//! /run, seed files given by path, `#include file://`): opened non-blocking, so a FIFO or a
//! device cannot hang the reader, and refused unless `fstat` says it is a regular file; read
//! within a byte budget. `open_beneath` also follows no link at all below a directory: for
//! trees someone else may have planted links in (what `ember collect-logs` gathers, the
//! runner's semaphores).

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{fstat, open, openat, readlinkat, statat, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The budget for ember's own state files (status, handoff, stage results): far beyond what a
/// boot writes, far below what would exhaust an initramfs.
pub const STATE_MAX: u64 = 256 << 20;

/// Opens `path` for reading if it is a regular file. A FIFO with no writer, a terminal or
/// `/proc/kmsg` would block a plain `open` or `read` for ever; O_NONBLOCK makes the open
/// return at once, and the type check refuses them before any read.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = open(path, flags, Mode::empty())?;
    let kind = FileType::from_raw_mode(fstat(&fd)?.st_mode);
    if kind != FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file but {}", kind_name(kind)),
        ));
    }
    Ok(File::from(fd))
}

/// The whole of the regular file `path`, refused past `max_bytes`.
pub fn read(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    read_all(open_regular(path)?, max_bytes)
}

/// Opens `rel` below the directory `dir` for reading without following a link anywhere: each
/// directory on the way and the file itself are opened `O_NOFOLLOW`, so a link planted at
/// any component, absolute or relative, dangling or not, is refused rather than resolved.
/// The file must be a regular file with one name: a second name is a hard link, which with
/// `fs.protected_hardlinks` off anyone can make to a file they cannot read (/etc/shadow).
/// `shown` is how the caller shows `dir/rel`; a refusal names the component with what it is
/// ("a symbolic link", "/var/log is a symbolic link"), never the content. `..` is refused.
/// `Err` of kind `NotFound` when a component is absent.
pub fn open_beneath(dir: BorrowedFd<'_>, rel: &str, shown: &str) -> io::Result<File> {
    let (parent, last) = parent_beneath(dir, rel, shown)?;
    let at = parent.as_ref().map_or(dir, |fd| fd.as_fd());
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW;
    let fd = open_step(at, last, flags, shown, 0)?;
    let st = fstat(&fd)?;
    let kind = FileType::from_raw_mode(st.st_mode);
    if kind != FileType::RegularFile {
        return Err(refused(shown, 0, kind_name(kind)));
    }
    if st.st_nlink > 1 {
        let names = format!("a hard link (one of {} names of a file)", st.st_nlink);
        return Err(io::Error::new(io::ErrorKind::InvalidInput, names));
    }
    Ok(File::from(fd))
}

/// The text of the symbolic link `rel` below `dir`, the directories on the way opened as in
/// `open_beneath`; `Ok(None)` when absent. For a link ember makes itself, which its reader
/// takes as a name and checks, never as a path to follow.
pub fn read_link_beneath(
    dir: BorrowedFd<'_>,
    rel: &str,
    shown: &str,
) -> io::Result<Option<String>> {
    let (parent, last) = match parent_beneath(dir, rel, shown) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        other => other?,
    };
    let at = parent.as_ref().map_or(dir, |fd| fd.as_fd());
    match readlinkat(at, last, Vec::new()) {
        Ok(text) => Ok(Some(text.to_string_lossy().into_owned())),
        Err(Errno::NOENT) => Ok(None),
        Err(Errno::INVAL) => Err(refused(shown, 0, "not a symbolic link")),
        Err(e) => Err(e.into()),
    }
}

/// The directory holding the last component of `rel` below `dir` (`None`: `dir` itself),
/// each opened `O_NOFOLLOW`, and that last component.
fn parent_beneath<'r>(
    dir: BorrowedFd<'_>,
    rel: &'r str,
    shown: &str,
) -> io::Result<(Option<OwnedFd>, &'r str)> {
    let comps: Vec<&str> = rel
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let Some((last, parents)) = comps.split_last() else {
        return Err(refused(shown, 0, "a directory"));
    };
    if let Some(i) = comps.iter().position(|c| *c == "..") {
        return Err(refused(shown, comps.len() - 1 - i, "\"..\""));
    }
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
    let mut cur: Option<OwnedFd> = None;
    for (i, comp) in parents.iter().enumerate() {
        let at = cur.as_ref().map_or(dir, |fd| fd.as_fd());
        cur = Some(open_step(at, comp, dir_flags, shown, comps.len() - 1 - i)?);
    }
    Ok((cur, last))
}

/// One `openat` of a walk; a refusal says what stands at the component, `above` components
/// up from the end of `shown`.
fn open_step(
    at: BorrowedFd<'_>,
    comp: &str,
    flags: OFlags,
    shown: &str,
    above: usize,
) -> io::Result<OwnedFd> {
    match openat(at, comp, flags | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(Errno::NOENT) => Err(io::Error::from(io::ErrorKind::NotFound)),
        // ELOOP: a link under O_NOFOLLOW; ENOTDIR: a link or a file where a directory should
        // be; ENXIO: a socket. Say which, from what is there now.
        Err(e @ (Errno::LOOP | Errno::NOTDIR | Errno::NXIO)) => {
            match statat(at, comp, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => Err(refused(
                    shown,
                    above,
                    kind_name(FileType::from_raw_mode(st.st_mode)),
                )),
                Err(_) => Err(e.into()),
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// `open_beneath` and the whole file within `max_bytes`; `Ok(None)` when absent.
pub fn read_beneath(
    dir: BorrowedFd<'_>,
    rel: &str,
    shown: &str,
    max_bytes: u64,
) -> io::Result<Option<Vec<u8>>> {
    match open_beneath(dir, rel, shown) {
        Ok(file) => read_all(file, max_bytes).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A refusal of the component `above` components up from the end of `shown`: the final one
/// is "a FIFO"; one above it is "/var/log is a symbolic link".
fn refused(shown: &str, above: usize, what: &str) -> io::Error {
    let msg = match above {
        0 => what.to_string(),
        n => {
            let mut at = shown.trim_end_matches('/');
            for _ in 0..n {
                at = at.rsplit_once('/').map_or("", |(head, _)| head);
            }
            format!("{at} is {what}")
        }
    };
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn read_all(file: File, max_bytes: u64) -> io::Result<Vec<u8>> {
    // Sized from the start: growing by doubling would hold up to twice a large file.
    let size = file.metadata()?.len().min(max_bytes);
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut data)?;
    if data.len() as u64 > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {max_bytes} bytes"),
        ));
    }
    Ok(data)
}

/// `read` as text (lossless: invalid UTF-8 is an error).
pub fn read_to_string(path: &Path, max_bytes: u64) -> io::Result<String> {
    String::from_utf8(read(path, max_bytes)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// What a file of type `kind` is, for a message: "a FIFO", "a symbolic link".
pub fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Directory => "a directory",
        FileType::Socket => "a socket",
        _ => "a special file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_directories_are_refused_at_once() {
        let dir = std::env::temp_dir().join(format!("ember-regular-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        for (path, what) in [
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/null"), "a character device"),
            (dir.as_path(), "a directory"),
        ] {
            let err = read(path, 10).unwrap_err().to_string();
            assert!(err.contains(what), "{}: {err}", path.display());
        }
        std::fs::write(dir.join("f"), "12345").unwrap();
        assert_eq!(read(&dir.join("f"), 5).unwrap(), b"12345");
        assert!(read(&dir.join("f"), 4).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_anywhere_below_the_directory_are_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("ember-beneath-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/f"), "ok").unwrap();
        std::os::unix::fs::symlink("b", dir.join("a/lb")).unwrap();
        std::os::unix::fs::symlink("f", dir.join("a/b/lf")).unwrap();
        std::os::unix::fs::symlink("/nonexistent", dir.join("a/b/dangling")).unwrap();
        std::fs::hard_link(dir.join("a/b/f"), dir.join("a/b/h")).unwrap();
        let fd = open(&dir, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        let read = |rel: &str| read_beneath(fd.as_fd(), rel, &format!("/d/{rel}"), 10);
        let err = |rel: &str| read(rel).unwrap_err().to_string();
        std::fs::remove_file(dir.join("a/b/h")).unwrap();
        assert_eq!(read("a/b/f").unwrap().unwrap(), b"ok");
        std::fs::hard_link(dir.join("a/b/f"), dir.join("a/b/h")).unwrap();
        assert!(err("a/b/f").contains("hard link"));
        assert_eq!(err("a/b/lf"), "a symbolic link");
        assert_eq!(err("a/b/dangling"), "a symbolic link");
        assert_eq!(err("a/lb/f"), "/d/a/lb is a symbolic link");
        assert_eq!(err("a/b/f/x"), "/d/a/b/f is a regular file");
        assert_eq!(err("a/../a/b/f"), "/d/a/.. is \"..\"");
        assert_eq!(err("a/b"), "a directory");
        assert_eq!(read("a/nothing/f").unwrap(), None);
        let link = |rel: &str| read_link_beneath(fd.as_fd(), rel, rel);
        assert_eq!(link("a/b/lf").unwrap().as_deref(), Some("f"));
        assert_eq!(link("a/b/none").unwrap(), None);
        assert!(link("a/lb/lf").is_err());
        assert!(link("a/b/f").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

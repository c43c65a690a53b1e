//! A file ember creates outside the target at a path its user names (`collect-logs`'
//! tarball), where root may run in a directory another user can write (RELIABILITY rule 13):
//! created new (`O_CREAT|O_EXCL|O_NOFOLLOW`, 0600 from the first byte), never through an
//! existing name, so a planted link is never followed and a planted file never receives the
//! data. Replacing is asked for: then a new temporary file beside it (a random name, itself
//! created new) is renamed over the name, which replaces a link rather than follows it. Every
//! step is relative to the directory opened once, so the temporary file and the name stay in
//! one directory whatever is swapped on the path meanwhile. Not here: writes into the target
//! (`root/`).

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{fsync, open, openat, renameat, unlinkat, AtFlags, Mode, OFlags};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Temporary names tried before giving up: each is 64 random bits, so only names planted
/// by someone who reads our random numbers collide.
const TEMP_TRIES: u32 = 16;

pub struct NewFile {
    dir: OwnedFd,
    name: OsString,
    /// The name written to, until `commit` (the temporary name when replacing).
    written: OsString,
    file: Option<File>,
}

/// Why `create` failed.
#[derive(Debug)]
pub enum CreateError {
    /// Something (a file, a link, dangling or not) already has the name, and replacing was
    /// not asked for.
    Exists,
    Io(io::Error),
}

impl NewFile {
    /// Creates `path` new, or with `replace` a new file that will take the name at `commit`.
    pub fn create(path: &Path, replace: bool) -> Result<NewFile, CreateError> {
        let io = |e: Errno| CreateError::Io(e.into());
        let name = match path.file_name() {
            Some(n) => n.to_os_string(),
            None => {
                let e = io::Error::new(io::ErrorKind::InvalidInput, "names no file");
                return Err(CreateError::Io(e));
            }
        };
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        // The directory is the one the user named, links and all; below it nothing is followed.
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = open(parent, dir_flags, Mode::empty()).map_err(io)?;
        let written = match replace {
            false => match create_at(&dir, &name) {
                Ok(file) => return Ok(NewFile::new(dir, name.clone(), name, file)),
                Err(Errno::EXIST) => return Err(CreateError::Exists),
                Err(e) => return Err(io(e)),
            },
            true => {
                let mut made = None;
                for _ in 0..TEMP_TRIES {
                    let temp = temp_name(&name);
                    match create_at(&dir, &temp) {
                        Ok(file) => {
                            made = Some((temp, file));
                            break;
                        }
                        Err(Errno::EXIST) => continue,
                        Err(e) => return Err(io(e)),
                    }
                }
                made
            }
        };
        match written {
            Some((temp, file)) => Ok(NewFile::new(dir, name, temp, file)),
            None => Err(io(Errno::EXIST)),
        }
    }

    fn new(dir: OwnedFd, name: OsString, written: OsString, file: File) -> NewFile {
        NewFile {
            dir,
            name,
            written,
            file: Some(file),
        }
    }

    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until commit")
    }

    /// Syncs the file and gives it its name (renamed over whatever has it when replacing).
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("open until commit");
        file.sync_all()?;
        drop(file);
        if self.written != self.name {
            renameat(&self.dir, &self.written, &self.dir, &self.name)?;
        }
        self.written = OsString::new();
        fsync(&self.dir)?;
        Ok(())
    }
}

/// A file not committed is removed: nothing half-written keeps the name or lies beside it.
impl Drop for NewFile {
    fn drop(&mut self) {
        if !self.written.is_empty() {
            let _ = unlinkat(self.dir.as_fd(), &self.written, AtFlags::empty());
        }
    }
}

fn create_at(dir: &OwnedFd, name: &OsStr) -> rustix::io::Result<File> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    openat(dir, name, flags, Mode::from_raw_mode(0o600)).map(File::from)
}

/// `.NAME.<16 hex digits>`, cut so it stays a valid name.
fn temp_name(name: &OsStr) -> OsString {
    let mut b = [0u8; 8];
    let _ = rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty());
    let suffix = format!(".{:016x}", u64::from_ne_bytes(b));
    let keep = name.as_bytes().len().min(255 - 1 - suffix.len());
    let mut t = b".".to_vec();
    t.extend_from_slice(&name.as_bytes()[..keep]);
    t.extend_from_slice(suffix.as_bytes());
    OsStr::from_bytes(&t).to_os_string()
}

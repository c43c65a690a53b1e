//! Reading files that an image, a seed or a failed boot may have planted or replaced (state in
//! /run, seed files given by path, `#include file://`): opened non-blocking, so a FIFO or a
//! device cannot hang the reader, and refused unless `fstat` says it is a regular file; read
//! within a byte budget.

use rustix::fs::{fstat, open, FileType, Mode, OFlags};
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
    let file = open_regular(path)?;
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

fn kind_name(kind: FileType) -> &'static str {
    match kind {
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
}

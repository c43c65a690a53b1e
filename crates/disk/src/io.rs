//! Byte-addressed access to a disk: the `BlockIo` trait the table code works through, and
//! `DeviceFile`, its implementation over a block device or an image file. No caching, no
//! partition logic; reads and writes outside the device are errors, never short or growing.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, FileTypeExt};
use std::path::Path;

/// A disk as the partition-table code sees it: a fixed size in bytes and a logical sector
/// size. Tests wrap it to fail or to drop writes at a chosen moment.
pub trait BlockIo {
    /// Fills `buf` from `off`; a range past the end is an error.
    fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Writes all of `buf` at `off`; a range past the end is an error.
    fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()>;
    /// Makes every earlier write durable before any later one (fsync).
    fn sync(&mut self) -> io::Result<()>;
    /// Size in bytes.
    fn size(&self) -> u64;
    /// Logical sector size in bytes (512 or 4096 in practice).
    fn sector_size(&self) -> u64;
}

/// The error for a range that does not lie inside the device.
pub fn out_of_range(off: u64, len: usize, size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("bytes {off}+{len} lie past the end of the device ({size} bytes)"),
    )
}

/// True when `off..off+len` lies inside a device of `size` bytes.
pub fn in_range(off: u64, len: usize, size: u64) -> bool {
    off.checked_add(len as u64).is_some_and(|end| end <= size)
}

/// A block device or a disk image file.
#[derive(Debug)]
pub struct DeviceFile {
    file: File,
    size: u64,
    sector_size: u64,
}

impl DeviceFile {
    /// Opens `path` for reading, and for writing when `writable`. The size is taken once, at
    /// open: a disk that grows later is seen by a new `DeviceFile`.
    pub fn open(path: &Path, writable: bool) -> io::Result<DeviceFile> {
        let mut file = OpenOptions::new().read(true).write(writable).open(path)?;
        let size = file.seek(SeekFrom::End(0))?;
        let sector_size = if file.metadata()?.file_type().is_block_device() {
            u64::from(rustix::fs::ioctl_blksszget(&file)?)
        } else {
            512
        };
        if !sector_size.is_power_of_two() || !(512..=65536).contains(&sector_size) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("unusable logical sector size {sector_size}"),
            ));
        }
        Ok(DeviceFile {
            file,
            size,
            sector_size,
        })
    }
}

impl BlockIo for DeviceFile {
    fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        if !in_range(off, buf.len(), self.size) {
            return Err(out_of_range(off, buf.len(), self.size));
        }
        self.file.read_exact_at(buf, off)
    }

    fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()> {
        if !in_range(off, buf.len(), self.size) {
            return Err(out_of_range(off, buf.len(), self.size));
        }
        self.file.write_all_at(buf, off)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn sector_size(&self) -> u64 {
        self.sector_size
    }
}

/// A disk in memory, for tests and the fuzz targets.
pub struct Mem {
    pub data: Vec<u8>,
    pub ss: u64,
}

impl BlockIo for Mem {
    fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        let size = self.size();
        if !in_range(off, buf.len(), size) {
            return Err(out_of_range(off, buf.len(), size));
        }
        buf.copy_from_slice(&self.data[off as usize..off as usize + buf.len()]);
        Ok(())
    }
    fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()> {
        let size = self.size();
        if !in_range(off, buf.len(), size) {
            return Err(out_of_range(off, buf.len(), size));
        }
        self.data[off as usize..off as usize + buf.len()].copy_from_slice(buf);
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn size(&self) -> u64 {
        self.data.len() as u64
    }
    fn sector_size(&self) -> u64 {
        self.ss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_file_reads_and_refuses_past_the_end() {
        let path = std::env::temp_dir().join(format!("ember-io-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; 4096]).unwrap();
        let mut dev = DeviceFile::open(&path, true).unwrap();
        assert_eq!((dev.size(), dev.sector_size()), (4096, 512));
        dev.write_at(4094, &[1, 2]).unwrap();
        let mut buf = [0u8; 2];
        dev.read_at(4094, &mut buf).unwrap();
        assert_eq!(buf, [1, 2]);
        assert!(dev.read_at(4095, &mut buf).is_err());
        assert!(dev.write_at(4095, &buf).is_err());
        assert!(dev.read_at(u64::MAX, &mut buf).is_err());
        dev.sync().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096);
        std::fs::remove_file(&path).unwrap();
    }
}

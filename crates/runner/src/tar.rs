//! A minimal ustar writer for `ember collect-logs`: regular files only, names under 100
//! bytes, owned by root, written through gzip. POSIX.1-1988 ustar, which every tar reads.

use std::io::{self, Write};

pub struct Tar<W: Write> {
    out: W,
    mtime: u64,
}

/// `value` as a NUL-terminated octal field of `width` bytes.
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    field[..width].copy_from_slice(&text.as_bytes()[text.len() - width..]);
    field[width] = 0;
}

impl<W: Write> Tar<W> {
    pub fn new(out: W, mtime: u64) -> Tar<W> {
        Tar { out, mtime }
    }

    /// Appends one file; `name` must be relative and shorter than 100 bytes.
    pub fn file(&mut self, name: &str, mode: u32, data: &[u8]) -> io::Result<()> {
        if name.len() >= 100 || name.starts_with('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "tar: name too long or absolute",
            ));
        }
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        octal(&mut h[100..108], u64::from(mode & 0o7777));
        octal(&mut h[108..116], 0);
        octal(&mut h[116..124], 0);
        octal(&mut h[124..136], data.len() as u64);
        octal(&mut h[136..148], self.mtime);
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[265..269].copy_from_slice(b"root");
        h[297..301].copy_from_slice(b"root");
        // The checksum is computed with its own field as spaces.
        h[148..156].copy_from_slice(b"        ");
        let sum: u64 = h.iter().map(|&b| u64::from(b)).sum();
        octal(&mut h[148..155], sum);
        h[155] = b' ';
        self.out.write_all(&h)?;
        self.out.write_all(data)?;
        let pad = (512 - data.len() % 512) % 512;
        self.out.write_all(&vec![0u8; pad])
    }

    /// The two zero blocks that end an archive; hands back the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&[0u8; 1024])?;
        Ok(self.out)
    }
}

/// gzip with stored (uncompressed) deflate blocks: a valid `.tar.gz` for every gunzip,
/// without linking a compressor into the runner for a command run once per bug report.
pub struct StoredGz<W: Write> {
    out: W,
    buf: Vec<u8>,
    crc: u32,
    len: u32,
}

/// The largest stored deflate block.
const BLOCK: usize = 65535;

impl<W: Write> StoredGz<W> {
    pub fn new(mut out: W, mtime: u32) -> io::Result<StoredGz<W>> {
        let mut header = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        header[4..8].copy_from_slice(&mtime.to_le_bytes());
        out.write_all(&header)?;
        Ok(StoredGz {
            out,
            buf: Vec::with_capacity(BLOCK),
            crc: !0,
            len: 0,
        })
    }

    fn block(&mut self, last: bool) -> io::Result<()> {
        let n = self.buf.len() as u16;
        self.out.write_all(&[u8::from(last)])?;
        self.out.write_all(&n.to_le_bytes())?;
        self.out.write_all(&(!n).to_le_bytes())?;
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// The last block and the trailer (CRC-32 and length); hands back the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.block(true)?;
        self.out.write_all(&(!self.crc).to_le_bytes())?;
        self.out.write_all(&self.len.to_le_bytes())?;
        Ok(self.out)
    }
}

impl<W: Write> Write for StoredGz<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let take = data.len().min(BLOCK - self.buf.len());
        for &b in &data[..take] {
            // CRC-32 (IEEE), bit by bit: no table for a rarely used command.
            self.crc ^= u32::from(b);
            for _ in 0..8 {
                self.crc = (self.crc >> 1) ^ (0xedb8_8320 & (self.crc & 1).wrapping_neg());
            }
        }
        self.buf.extend_from_slice(&data[..take]);
        self.len = self.len.wrapping_add(take as u32);
        if self.buf.len() == BLOCK {
            self.block(false)?;
        }
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn stored_gzip_of_a_tar_reads_back_across_blocks() {
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut tar = Tar::new(StoredGz::new(Vec::new(), 0).unwrap(), 0);
        tar.file("a/big", 0o600, &big).unwrap();
        tar.file("a/empty", 0o600, b"").unwrap();
        let gz = tar.finish().unwrap().finish().unwrap();
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut plain)
            .unwrap();
        assert_eq!(&plain[..5], b"a/big");
        assert_eq!(&plain[512..512 + big.len()], &big[..]);
        assert_eq!(plain.len() % 512, 0);
        assert!(Tar::new(Vec::new(), 0).file("/abs", 0o600, b"").is_err());
    }
}

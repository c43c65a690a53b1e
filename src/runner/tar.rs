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

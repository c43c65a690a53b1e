//! The writer every JSON file of the local stage is streamed through: buffered, and failing
//! once it would pass a cap, so a large config is never held a second time as text and never
//! fills the run directory. One buffer serves every file of the process: a buffer of its own
//! per file was a 64 KiB block that musl's allocator maps and unmaps each time, twelve times
//! a first boot, each unmapping a TLB flush.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Write};

/// Bytes gathered before a write to the file.
const CAPACITY: usize = 64 << 10;

thread_local! {
    static BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Writes into `file` through the shared buffer; a write that would pass `left` bytes fails
/// with `over` as its message. Call `finish` (a dropped writer loses what it holds).
pub struct Capped<'f> {
    file: &'f mut File,
    buf: Vec<u8>,
    left: u64,
    written: u64,
    over: &'static str,
}

impl<'f> Capped<'f> {
    pub fn new(file: &'f mut File, left: u64, over: &'static str) -> Capped<'f> {
        let mut buf = BUFFER.take();
        buf.clear();
        buf.reserve(CAPACITY);
        Capped {
            file,
            buf,
            left,
            written: 0,
            over,
        }
    }

    /// Writes out what the buffer holds; returns the bytes accepted in all.
    pub fn finish(mut self) -> io::Result<u64> {
        self.drain()?;
        Ok(self.written)
    }

    fn drain(&mut self) -> io::Result<()> {
        self.file.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

impl Write for Capped<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = data.len() as u64;
        if n > self.left {
            return Err(io::Error::other(self.over));
        }
        if self.buf.len() + data.len() > CAPACITY {
            self.drain()?;
        }
        if data.len() >= CAPACITY {
            self.file.write_all(data)?;
        } else {
            self.buf.extend_from_slice(data);
        }
        self.left -= n;
        self.written += n;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()
    }
}

impl Drop for Capped<'_> {
    fn drop(&mut self) {
        BUFFER.set(std::mem::take(&mut self.buf));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    fn scratch(name: &str) -> File {
        let path = std::env::temp_dir().join(format!("ember-capped-{name}-{}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }

    fn content(file: &mut File) -> Vec<u8> {
        let mut out = Vec::new();
        file.rewind().unwrap();
        file.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn stops_at_its_cap_with_its_message() {
        let mut file = scratch("cap");
        let mut out = Capped::new(&mut file, 10, "past the cap");
        out.write_all(b"0123456789").unwrap();
        let e = out.write_all(b"x").unwrap_err();
        assert_eq!(e.to_string(), "past the cap");
        assert_eq!(out.finish().unwrap(), 10);
        assert_eq!(content(&mut file), b"0123456789");
    }

    #[test]
    fn small_and_large_writes_arrive_in_order_and_the_buffer_is_kept() {
        let mut file = scratch("order");
        let big = vec![b'b'; CAPACITY + 7];
        let mut out = Capped::new(&mut file, u64::MAX, "over");
        for chunk in [&b"head"[..], &big, b"tail", &big[..CAPACITY - 2], b"!"] {
            out.write_all(chunk).unwrap();
        }
        let total = 4 + big.len() + 4 + CAPACITY - 2 + 1;
        assert_eq!(out.finish().unwrap(), total as u64);
        let got = content(&mut file);
        let mut want = b"head".to_vec();
        want.extend_from_slice(&big);
        want.extend_from_slice(b"tail");
        want.extend_from_slice(&big[..CAPACITY - 2]);
        want.push(b'!');
        assert!(got == want, "{} bytes, {} expected", got.len(), want.len());
        // The next file reuses the block instead of allocating its own.
        let kept = BUFFER.take();
        assert!(kept.capacity() >= CAPACITY, "{}", kept.capacity());
        BUFFER.set(kept);
    }
}

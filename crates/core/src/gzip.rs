//! Capped gzip inflation: stops as soon as the output passes the cap, and never reserves
//! more memory than the cap, so a gzip bomb costs at most `cap` bytes and little time.

use flate2::read::MultiGzDecoder;
use std::io::Read;

/// The gzip magic bytes; cloud-init sniffs them the same way.
pub fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&[0x1f, 0x8b])
}

#[derive(Debug, PartialEq, Eq)]
pub enum InflateError {
    /// The output would be larger than the cap.
    TooLarge,
    /// Not valid gzip (truncated, bad checksum, bad header).
    Corrupt,
}

/// Inflates all gzip members of `data` into at most `cap` bytes.
pub fn inflate(data: &[u8], cap: u64) -> Result<Vec<u8>, InflateError> {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let mut decoder = MultiGzDecoder::new(data);
    // Start from a guess and grow by doubling, but never reserve beyond the cap.
    let mut out: Vec<u8> = Vec::with_capacity(data.len().saturating_mul(4).min(cap));
    let mut chunk = [0u8; 32 * 1024];
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(InflateError::Corrupt),
        };
        if out.len() + n > cap {
            return Err(InflateError::TooLarge);
        }
        if out.capacity() - out.len() < n {
            let want = out.capacity().saturating_mul(2).max(out.len() + n).min(cap);
            out.reserve_exact(want - out.len());
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn round_trip_and_cap() {
        let z = gz(b"#cloud-config\n{}\n");
        assert!(is_gzip(&z));
        assert_eq!(inflate(&z, 1024).unwrap(), b"#cloud-config\n{}\n");
        assert_eq!(inflate(&z, 4), Err(InflateError::TooLarge));
        assert_eq!(inflate(&z[..z.len() - 3], 1024), Err(InflateError::Corrupt));
    }

    #[test]
    fn two_members_concatenate() {
        let mut z = gz(b"ab");
        z.extend(gz(b"cd"));
        assert_eq!(inflate(&z, 16).unwrap(), b"abcd");
    }
}

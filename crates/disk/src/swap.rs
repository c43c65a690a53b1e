//! Swap files as cloud-init makes them (`swap: {filename, size, maxsize}`): fully allocated
//! (no holes, which swapon refuses), on btrfs marked no-copy-on-write before any block is
//! allocated, 0600, with the swap header written here (mkswap's format: version 1, the last
//! page, a random UUID, "SWAPSPACE2" at the end of the first page).

use crate::root::{FileSpec, Root, RootError};
use rustix::fs::{FallocateFlags, IFlags};
use std::io::{Seek, SeekFrom, Write};

const GIB: u64 = 1 << 30;
const BTRFS_SUPER_MAGIC: u64 = 0x9123_683e;

/// cloud-init's `human2bytes`: a number of bytes with an optional B, K, M, G or T suffix
/// (`512M`, `1.5G`, `2GB`, `1048576`).
pub fn human_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t.strip_suffix('B').unwrap_or(t);
    let (num, mult) = match t.chars().last()? {
        'K' => (&t[..t.len() - 1], 1u64 << 10),
        'M' => (&t[..t.len() - 1], 1 << 20),
        'G' => (&t[..t.len() - 1], 1 << 30),
        'T' => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let value: f64 = num.trim().parse().ok()?;
    (value.is_finite() && value >= 0.0).then_some((value * mult as f64) as u64)
}

/// cloud-init's `size: auto`: as much as the memory up to 4 GiB, 4 GiB up to 16 GiB, then
/// the square root in GiB; never over `maxsize` (default: twice the memory, and a quarter of
/// the free space), and never over 90% of the free space.
pub fn suggested_size(mem: u64, maxsize: Option<u64>, avail: u64) -> u64 {
    let max = match maxsize {
        None => (avail / 4).min(mem * 2),
        Some(m) if m as f64 > avail as f64 * 0.9 => (avail as f64 * 0.9) as u64,
        Some(m) => m,
    };
    let min = if mem < 4 * GIB {
        mem
    } else if mem < 16 * GIB {
        4 * GIB
    } else {
        ((mem as f64 / GIB as f64).sqrt().round() as u64) * GIB
    };
    min.min(max)
}

/// The first page of a swap area of `bytes`.
pub fn header(bytes: u64, page: u64, uuid: [u8; 16]) -> Vec<u8> {
    let mut h = vec![0u8; page as usize];
    let last_page = (bytes / page).saturating_sub(1) as u32;
    h[1024..1028].copy_from_slice(&1u32.to_le_bytes()); // version
    h[1028..1032].copy_from_slice(&last_page.to_le_bytes());
    // nr_badpages stays 0; then the UUID; no label.
    h[1036..1052].copy_from_slice(&uuid);
    h[page as usize - 10..].copy_from_slice(b"SWAPSPACE2");
    h
}

/// Creates the swap file `rel` in the target, `bytes` long (whole MiB, as cloud-init sizes it).
pub fn create(root: &Root, rel: &str, bytes: u64) -> Result<(), RootError> {
    let page = rustix::param::page_size() as u64;
    let bytes = bytes & !((1 << 20) - 1);
    let mut uuid = [0u8; 16];
    rustix::rand::getrandom(&mut uuid, rustix::rand::GetRandomFlags::empty()).ok();
    uuid[6] = (uuid[6] & 0x0f) | 0x40;
    uuid[8] = (uuid[8] & 0x3f) | 0x80;
    root.write_file_with(rel, &FileSpec::mode(0o600), |file| {
        let on_btrfs = rustix::fs::fstatfs(&*file)
            .is_ok_and(|s| (s.f_type as u64 & 0xffff_ffff) == BTRFS_SUPER_MAGIC);
        if on_btrfs {
            // Copy-on-write blocks cannot hold swap; the flag only takes on an empty file.
            let flags = rustix::fs::ioctl_getflags(&*file)?;
            rustix::fs::ioctl_setflags(&*file, flags | IFlags::NOCOW)?;
        }
        match rustix::fs::fallocate(&*file, FallocateFlags::empty(), 0, bytes) {
            Ok(()) => {}
            // No fallocate on this filesystem: zeros, as cloud-init's dd fallback writes.
            Err(_) => {
                let zeros = vec![0u8; 1 << 20];
                for _ in 0..bytes >> 20 {
                    file.write_all(&zeros)?;
                }
            }
        }
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header(bytes, page, uuid))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sizes_as_cloud_init_does() {
        assert_eq!(human_bytes("512M"), Some(512 << 20));
        assert_eq!(human_bytes("2GB"), Some(2 << 30));
        assert_eq!(human_bytes("1.5G"), Some(3 << 29));
        assert_eq!(human_bytes("4096"), Some(4096));
        assert_eq!(human_bytes("lots"), None);
        assert_eq!(human_bytes("-1M"), None);
    }

    #[test]
    fn auto_size_follows_memory_and_free_space() {
        let plenty = 1 << 40;
        assert_eq!(suggested_size(2 * GIB, None, plenty), 2 * GIB);
        assert_eq!(suggested_size(8 * GIB, None, plenty), 4 * GIB);
        assert_eq!(suggested_size(64 * GIB, None, plenty), 8 * GIB);
        // A quarter of the free space caps it, and so does 90% of it under a larger maxsize.
        assert_eq!(suggested_size(2 * GIB, None, 4 * GIB), GIB);
        assert_eq!(
            suggested_size(2 * GIB, Some(10 * GIB), GIB),
            (GIB as f64 * 0.9) as u64
        );
        assert_eq!(suggested_size(2 * GIB, Some(GIB / 2), plenty), GIB / 2);
    }

    #[test]
    fn header_has_mkswaps_layout() {
        let h = header(64 << 20, 4096, [7; 16]);
        assert_eq!(&h[4086..], b"SWAPSPACE2");
        assert_eq!(u32::from_le_bytes(h[1024..1028].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(h[1028..1032].try_into().unwrap()), 16383);
        assert_eq!(&h[1036..1052], &[7; 16]);
    }
}

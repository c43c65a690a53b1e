//! How big a filesystem says it is, from its superblock (ext2/3/4, XFS, btrfs): resize_rootfs
//! runs the grow tool only when the filesystem is smaller than its device.

use std::io::{self, Read, Seek, SeekFrom};

fn read_at(dev: &mut (impl Read + Seek), off: u64, buf: &mut [u8]) -> io::Result<()> {
    dev.seek(SeekFrom::Start(off))?;
    dev.read_exact(buf)
}

fn le32(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]))
}

/// The filesystem type (mount's name) and its size in bytes; `None` for anything else.
pub fn probe(dev: &mut (impl Read + Seek)) -> io::Result<Option<(&'static str, u64)>> {
    let mut sb = [0u8; 1024];
    // ext: superblock at 1024, magic 0xEF53 at 0x38.
    if read_at(dev, 1024, &mut sb).is_ok() && sb[0x38..0x3a] == [0x53, 0xef] {
        let block = 1024u64.checked_shl(le32(&sb, 0x18) as u32).unwrap_or(0);
        let incompat = le32(&sb, 0x60);
        let hi = if incompat & 0x80 != 0 {
            le32(&sb, 0x150)
        } else {
            0
        };
        let blocks = hi << 32 | le32(&sb, 0x04);
        let kind = if le32(&sb, 0x5c) & 0x4 == 0 {
            "ext2"
        } else if incompat & 0x40 != 0 {
            "ext4" // extents
        } else {
            "ext3"
        };
        return Ok(Some((kind, blocks.saturating_mul(block))));
    }
    // XFS: big-endian superblock at 0: "XFSB", block size, data blocks.
    if read_at(dev, 0, &mut sb[..16]).is_ok() && &sb[..4] == b"XFSB" {
        let block = u64::from(u32::from_be_bytes([sb[4], sb[5], sb[6], sb[7]]));
        let blocks = u64::from_be_bytes(sb[8..16].try_into().unwrap_or_default());
        return Ok(Some(("xfs", blocks.saturating_mul(block))));
    }
    // btrfs: superblock at 64 KiB, magic at 0x40, total_bytes at 0x70.
    if read_at(dev, 65536, &mut sb[..0x78]).is_ok() && &sb[0x40..0x48] == b"_BHRfS_M" {
        let total = u64::from_le_bytes(sb[0x70..0x78].try_into().unwrap_or_default());
        return Ok(Some(("btrfs", total)));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn reads_ext4_xfs_and_btrfs_sizes() {
        let mut ext = vec![0u8; 4096];
        ext[1024 + 0x38..1024 + 0x3a].copy_from_slice(&[0x53, 0xef]);
        ext[1024 + 0x18] = 2; // 4 KiB blocks
        ext[1024 + 0x04..1024 + 0x08].copy_from_slice(&1000u32.to_le_bytes());
        ext[1024 + 0x5c] = 0x4; // journal
        ext[1024 + 0x60] = 0x40 | 0x80; // extents, 64bit
        ext[1024 + 0x150] = 1; // high word
        let want = ((1u64 << 32) + 1000) * 4096;
        assert_eq!(probe(&mut Cursor::new(ext)).unwrap(), Some(("ext4", want)));

        let mut xfs = vec![0u8; 4096];
        xfs[..4].copy_from_slice(b"XFSB");
        xfs[4..8].copy_from_slice(&4096u32.to_be_bytes());
        xfs[8..16].copy_from_slice(&65536u64.to_be_bytes());
        assert_eq!(
            probe(&mut Cursor::new(xfs)).unwrap(),
            Some(("xfs", 65536 * 4096))
        );

        let mut btrfs = vec![0u8; 65536 + 4096];
        btrfs[65536 + 0x40..65536 + 0x48].copy_from_slice(b"_BHRfS_M");
        btrfs[65536 + 0x70..65536 + 0x78].copy_from_slice(&(1u64 << 30).to_le_bytes());
        assert_eq!(
            probe(&mut Cursor::new(btrfs)).unwrap(),
            Some(("btrfs", 1 << 30))
        );

        assert_eq!(probe(&mut Cursor::new(vec![0u8; 100])).unwrap(), None);
    }
}

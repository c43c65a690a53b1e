//! What already lives at an offset of a disk (the whole disk at 0, or a partition's start):
//! a partition table or a filesystem/volume signature, named as blkid names it. Used to
//! leave disks with data alone when `overwrite` is false. Magic numbers only: a match says
//! "something is here", not that it is intact.

use super::io::BlockIo;
use super::mbr;
use std::io;

/// Bytes read from the offset: btrfs's magic, the farthest one checked, ends at 64 KiB + 72.
const WINDOW: u64 = 68 * 1024;

fn at(b: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    b.get(off..off.checked_add(len)?)
}

fn is(b: &[u8], off: usize, magic: &[u8]) -> bool {
    at(b, off, magic.len()) == Some(magic)
}

fn le32(b: &[u8], off: usize) -> u32 {
    at(b, off, 4).map_or(0, |x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
}

/// ext2, ext3, ext4 or an external journal, by feature flags as libblkid decides.
fn ext(b: &[u8]) -> Option<&'static str> {
    const SB: usize = 1024;
    if !is(b, SB + 0x38, &[0x53, 0xef]) {
        return None;
    }
    let (compat, incompat, ro) = (le32(b, SB + 0x5c), le32(b, SB + 0x60), le32(b, SB + 0x64));
    const HAS_JOURNAL: u32 = 0x4;
    const JOURNAL_DEV: u32 = 0x8;
    // What ext2 and ext3 drivers support; anything beyond makes it ext4.
    const RO_SUPP: u32 = 0x1 | 0x2 | 0x4;
    const EXT2_INCOMPAT: u32 = 0x2 | 0x10;
    const EXT3_INCOMPAT: u32 = 0x2 | 0x4 | 0x10;
    Some(if incompat & JOURNAL_DEV != 0 {
        "jbd"
    } else if ro & !RO_SUPP != 0 {
        "ext4"
    } else if compat & HAS_JOURNAL == 0 && incompat & !EXT2_INCOMPAT == 0 {
        "ext2"
    } else if compat & HAS_JOURNAL != 0 && incompat & !EXT3_INCOMPAT == 0 {
        "ext3"
    } else {
        "ext4"
    })
}

fn vfat(b: &[u8]) -> bool {
    let bps = at(b, 11, 2).map_or(0, |x| u16::from_le_bytes([x[0], x[1]]));
    is(b, 510, &[0x55, 0xaa])
        && bps.is_power_of_two()
        && (512..=4096).contains(&bps)
        && (is(b, 0x36, b"FAT") || is(b, 0x52, b"FAT32"))
}

fn swap(b: &[u8]) -> bool {
    [4096usize, 8192, 16384, 65536]
        .iter()
        .any(|page| is(b, page - 10, b"SWAPSPACE2") || is(b, page - 10, b"SWAP-SPACE"))
}

fn lvm(b: &[u8]) -> bool {
    (0..4).any(|s| is(b, s * 512, b"LABELONE") && is(b, s * 512 + 24, b"LVM2 001"))
}

/// Names what lives at `offset`: "gpt" or "dos" for a partition table, else a blkid TYPE:
/// ext2/ext3/ext4 (jbd for an external journal), xfs, btrfs, swap, vfat, iso9660,
/// LVM2_member, crypto_LUKS, ntfs. None when nothing known is there (or the offset lies past
/// the end). A GPT wins over the filesystems (hybrid ISOs carry both); an MBR comes last,
/// since filesystem boot sectors also end in 0x55AA.
pub fn probe(io: &mut dyn BlockIo, offset: u64) -> Result<Option<&'static str>, io::Error> {
    let size = io.size();
    if offset >= size {
        return Ok(None);
    }
    let mut b = vec![0u8; (size - offset).min(WINDOW) as usize];
    io.read_at(offset, &mut b)?;
    let table = at(&b, 0, 512).and_then(mbr::parse);
    if table.as_ref().is_some_and(|m| m.is_protective()) {
        return Ok(Some("gpt"));
    }
    let found = if is(&b, 0, b"LUKS\xba\xbe") {
        "crypto_LUKS"
    } else if lvm(&b) {
        "LVM2_member"
    } else if is(&b, 0, b"XFSB") {
        "xfs"
    } else if is(&b, 0x10040, b"_BHRfS_M") {
        "btrfs"
    } else if let Some(name) = ext(&b) {
        name
    } else if is(&b, 3, b"NTFS    ") {
        "ntfs"
    } else if vfat(&b) {
        "vfat"
    } else if is(&b, 0x8001, b"CD001") {
        "iso9660"
    } else if swap(&b) {
        "swap"
    } else if table.is_some() {
        "dos"
    } else {
        return Ok(None);
    };
    Ok(Some(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Mem;

    fn with(at: usize, magic: &[u8]) -> Mem {
        let mut data = vec![0u8; 128 << 10];
        data[at..at + magic.len()].copy_from_slice(magic);
        Mem { data, ss: 512 }
    }

    #[test]
    fn magics_by_blkid_name() {
        let cases: &[(usize, &[u8], Option<&str>)] = &[
            (0, b"XFSB", Some("xfs")),
            (0x10040, b"_BHRfS_M", Some("btrfs")),
            (0, b"LUKS\xba\xbe", Some("crypto_LUKS")),
            (4096 - 10, b"SWAPSPACE2", Some("swap")),
            (65536 - 10, b"SWAP-SPACE", Some("swap")),
            (0x8001, b"CD001", Some("iso9660")),
            (3, b"NTFS    ", Some("ntfs")),
            (1024 + 0x38, &[0x53, 0xef], Some("ext2")),
            (100, b"nothing", None),
        ];
        for (at, magic, want) in cases {
            assert_eq!(probe(&mut with(*at, magic), 0).unwrap(), *want, "{magic:?}");
        }
        let mut lvm = with(512, b"LABELONE");
        lvm.data[512 + 24..512 + 32].copy_from_slice(b"LVM2 001");
        assert_eq!(probe(&mut lvm, 0).unwrap(), Some("LVM2_member"));
    }

    #[test]
    fn ext_generation_by_features() {
        let ext = |compat: u32, incompat: u32, ro: u32| {
            let mut d = with(1024 + 0x38, &[0x53, 0xef]);
            d.data[1024 + 0x5c..1024 + 0x60].copy_from_slice(&compat.to_le_bytes());
            d.data[1024 + 0x60..1024 + 0x64].copy_from_slice(&incompat.to_le_bytes());
            d.data[1024 + 0x64..1024 + 0x68].copy_from_slice(&ro.to_le_bytes());
            probe(&mut d, 0).unwrap()
        };
        assert_eq!(ext(0, 0x2, 0x3), Some("ext2"));
        assert_eq!(ext(0x4, 0x2, 0x3), Some("ext3"));
        assert_eq!(ext(0x4, 0x2 | 0x40, 0x3), Some("ext4")); // extents
        assert_eq!(ext(0x4, 0x2, 0x3 | 0x400), Some("ext4")); // metadata_csum
        assert_eq!(ext(0, 0x8, 0), Some("jbd"));
    }

    #[test]
    fn offsets_past_the_end_and_short_devices() {
        let mut d = with(0, b"XFSB");
        let size = d.size();
        assert_eq!(probe(&mut d, size).unwrap(), None);
        let mut tiny = Mem {
            data: b"XFSB".to_vec(),
            ss: 512,
        };
        assert_eq!(probe(&mut tiny, 0).unwrap(), Some("xfs"));
        let mut d = with(4096 + 3, b"NTFS    ");
        assert_eq!(probe(&mut d, 4096).unwrap(), Some("ntfs"));
    }
}

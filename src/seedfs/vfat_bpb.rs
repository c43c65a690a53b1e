//! FAT boot sector (Microsoft FAT specification 3.1-3.5 and 3.7): decides FAT12/16/32 by the
//! cluster count and checks the geometry, so later reads can trust the derived offsets.

use super::vfat_dir::latin1;
use super::{SeedFsError, Volume};
use std::io::{Read, Seek};

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Fat12,
    Fat16,
    Fat32,
}

#[derive(Clone, Copy)]
pub(crate) enum Root {
    Fixed { offset: u64, len: u64 },
    Chain(u32),
}

/// Where things are, from the boot sector, already checked for consistency.
pub(crate) struct Layout {
    pub(crate) kind: Kind,
    pub(crate) bps: u64,
    pub(crate) cluster_bytes: u64,
    pub(crate) fat_offset: u64,
    pub(crate) data_offset: u64,
    /// Highest valid cluster number: limited by the BPB, the FAT's size and the volume's size.
    pub(crate) max_cluster: u32,
    pub(crate) root: Root,
    pub(crate) label: Option<String>,
    /// The volume serial as blkid shows it as the UUID: `9796-932E`.
    pub(crate) serial: Option<String>,
}

fn le16(b: &[u8], at: usize) -> u64 {
    u64::from(u16::from_le_bytes([b[at], b[at + 1]]))
}

fn le32(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]))
}

/// Checks a boot sector (FAT spec 3.1-3.5); `None` when it is not a FAT boot sector.
pub(crate) fn layout(bs: &[u8; 512], vol_len: u64) -> Option<Layout> {
    let bps = le16(bs, 11);
    let spc = u64::from(bs[13]);
    let (rsvd, nfats, root_ents) = (le16(bs, 14), u64::from(bs[16]), le16(bs, 17));
    let fat_sz = if le16(bs, 22) != 0 {
        le16(bs, 22)
    } else {
        le32(bs, 36)
    };
    let tot = if le16(bs, 19) != 0 {
        le16(bs, 19)
    } else {
        le32(bs, 32)
    };
    let plausible = bs[510..] == [0x55, 0xAA]
        && matches!(bs[0], 0xEB | 0xE9)
        && matches!(bps, 512 | 1024 | 2048 | 4096)
        && spc.is_power_of_two()
        && rsvd != 0
        && nfats != 0
        && (bs[21] == 0xF0 || bs[21] >= 0xF8)
        && fat_sz != 0;
    if !plausible {
        return None;
    }
    let root_secs = (root_ents * 32).div_ceil(bps);
    let meta = rsvd + nfats * fat_sz + root_secs;
    let clusters = tot.checked_sub(meta)? / spc;
    let kind = match clusters {
        0 => return None,
        1..4085 => Kind::Fat12,
        4085..65525 => Kind::Fat16,
        _ => Kind::Fat32,
    };
    if (kind == Kind::Fat32) != (root_ents == 0) {
        return None;
    }
    let bits = match kind {
        Kind::Fat12 => 12,
        Kind::Fat16 => 16,
        Kind::Fat32 => 32,
    };
    let cluster_bytes = spc * bps;
    let data_offset = meta * bps;
    let on_disk = vol_len.saturating_sub(data_offset) / cluster_bytes;
    let fat_entries = fat_sz * bps * 8 / bits;
    let max_cluster = (clusters + 1)
        .min(on_disk + 1)
        .min(fat_entries.saturating_sub(1));
    let (sig_at, label_at) = if kind == Kind::Fat32 {
        (66, 71)
    } else {
        (38, 43)
    };
    let label = (bs[sig_at] == 0x29)
        .then(|| latin1(&bs[label_at..label_at + 11]).trim().to_string())
        .filter(|l| !l.is_empty() && l != "NO NAME");
    // The serial follows the signature; an old (0x28) extended record has it too.
    let serial = matches!(bs[sig_at], 0x28 | 0x29).then(|| {
        let v = u32::from_le_bytes([
            bs[sig_at + 1],
            bs[sig_at + 2],
            bs[sig_at + 3],
            bs[sig_at + 4],
        ]);
        format!("{:04X}-{:04X}", v >> 16, v & 0xFFFF)
    });
    Some(Layout {
        kind,
        bps,
        cluster_bytes,
        fat_offset: rsvd * bps,
        data_offset,
        max_cluster: u32::try_from(max_cluster).ok()?,
        root: match kind {
            Kind::Fat32 => Root::Chain(u32::try_from(le32(bs, 44)).ok()?),
            _ => Root::Fixed {
                offset: (rsvd + nfats * fat_sz) * bps,
                len: root_ents * 32,
            },
        },
        label,
        serial,
    })
}

/// Whether a FAT formatter wrote this boot sector: a consistent BPB plus the extended boot
/// record's "FAT..." type string, which mkfs.vfat, mtools and Windows all write. A sector that
/// passes this test was written over whatever the device held before (blkid -p semantics:
/// a stale ISO9660 or UDF descriptor further in does not outrank it). An isohybrid or GRUB MBR
/// has no BPB and fails it.
pub(crate) fn formatted(bs: &[u8; 512], vol_len: u64) -> bool {
    let Some(l) = layout(bs, vol_len) else {
        return false;
    };
    let (sig_at, type_at) = if l.kind == Kind::Fat32 {
        (66, 82)
    } else {
        (38, 54)
    };
    matches!(bs[sig_at], 0x28 | 0x29) && bs[type_at..type_at + 3] == *b"FAT"
}

pub(crate) fn read_layout<R: Read + Seek>(
    vol: &mut Volume<R>,
) -> Result<Option<Layout>, SeedFsError> {
    if vol.len() < 512 {
        return Ok(None);
    }
    let mut bs = [0u8; 512];
    vol.read_at(0, &mut bs)?;
    Ok(layout(&bs, vol.len()))
}

/// `formatted` on the device's first sector.
pub(crate) fn read_formatted<R: Read + Seek>(vol: &mut Volume<R>) -> Result<bool, SeedFsError> {
    if vol.len() < 512 {
        return Ok(false);
    }
    let mut bs = [0u8; 512];
    vol.read_at(0, &mut bs)?;
    Ok(formatted(&bs, vol.len()))
}

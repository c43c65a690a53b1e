//! The MBR (DOS) partition table: its four primary entries, read, grown and written, the
//! protective MBR in front of a GPT, and enough of the extended chain to name a logical
//! partition. Logical partitions are never edited.

use super::io::BlockIo;
use super::layout::PartType;
use super::table::{DiskError, Growth, Part};

/// MBR fields are 32-bit: a partition cannot end past this many sectors.
pub const MAX_SECTORS: u64 = u32::MAX as u64;
const PROTECTIVE: u8 = 0xee;
/// Longest extended chain walked: real ones hold a few dozen.
const MAX_LOGICAL: u32 = 256;

fn is_extended(t: u8) -> bool {
    matches!(t, 0x05 | 0x0f | 0x85)
}

/// One primary slot (1 to 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    number: u32,
    type_: u8,
    start: u64,
    sectors: u64,
}

/// The first 512 bytes of a disk that carry an MBR.
#[derive(Clone, Debug)]
pub struct Mbr {
    pub sector: Vec<u8>,
}

/// The disk's first 512 bytes (the MBR lives there whatever the sector size).
pub fn read_sector(io: &mut dyn BlockIo) -> Result<Vec<u8>, DiskError> {
    let mut s = vec![0u8; 512];
    io.read_at(0, &mut s)
        .map_err(DiskError::io("reading the MBR"))?;
    Ok(s)
}

/// True when `s` is a filesystem boot sector (FAT, NTFS, exFAT), which also ends in 0x55AA.
fn is_boot_sector(s: &[u8]) -> bool {
    &s[3..11] == b"NTFS    "
        || &s[3..11] == b"EXFAT   "
        || &s[54..57] == b"FAT"
        || &s[82..87] == b"FAT32"
}

/// Parses an MBR: the 0x55AA signature, boot flags 0 or 0x80 (as libblkid checks), and not
/// a filesystem's boot sector. None when the sector holds no MBR.
pub fn parse(sector: &[u8]) -> Option<Mbr> {
    if sector.len() < 512 || sector[510..512] != [0x55, 0xaa] || is_boot_sector(sector) {
        return None;
    }
    if (0..4).any(|i| !matches!(sector[446 + 16 * i], 0 | 0x80)) {
        return None;
    }
    Some(Mbr {
        sector: sector[..512].to_vec(),
    })
}

pub fn read(io: &mut dyn BlockIo) -> Result<Option<Mbr>, DiskError> {
    Ok(parse(&read_sector(io)?))
}

fn entry(s: &[u8], i: usize) -> (u8, u64, u64) {
    let e = &s[446 + 16 * i..462 + 16 * i];
    let le = |at: usize| u64::from(u32::from_le_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]));
    (e[4], le(8), le(12))
}

impl Mbr {
    fn slots(&self) -> Vec<Slot> {
        (0..4)
            .map(|i| {
                let (type_, start, sectors) = entry(&self.sector, i);
                Slot {
                    number: i as u32 + 1,
                    type_,
                    start,
                    sectors,
                }
            })
            .filter(|s| s.type_ != 0 && s.sectors != 0)
            .collect()
    }

    /// A GPT lies behind it: a 0xEE entry (hybrid MBRs included, as the kernel does).
    pub fn is_protective(&self) -> bool {
        self.slots().iter().any(|s| s.type_ == PROTECTIVE)
    }

    /// The primary partitions (an extended one included, as sfdisk lists it).
    pub fn parts(&self) -> Result<Vec<Part>, DiskError> {
        Ok(self
            .slots()
            .into_iter()
            .map(|s| Part {
                number: s.number,
                start: s.start,
                sectors: s.sectors,
                type_: format!("{:x}", s.type_),
            })
            .collect())
    }

    /// Ok for a primary number; for 5 and up, `Unsupported` when that logical partition
    /// exists (walking the extended chain), `NoPartition` otherwise.
    pub fn check_primary(&self, io: &mut dyn BlockIo, number: u32) -> Result<(), DiskError> {
        if (1..=4).contains(&number) {
            return Ok(());
        }
        let Some(ext) = self.slots().into_iter().find(|s| is_extended(s.type_)) else {
            return Err(DiskError::NoPartition(number));
        };
        let ss = io.sector_size();
        let mut ebr = ext.start;
        for n in 5..5 + MAX_LOGICAL {
            let mut s = vec![0u8; 512];
            let at = ebr.checked_mul(ss).ok_or(DiskError::NoPartition(number))?;
            if io.read_at(at, &mut s).is_err() || s[510..512] != [0x55, 0xaa] {
                break;
            }
            let (type_, _, sectors) = entry(&s, 0);
            if n == number && type_ != 0 && sectors != 0 {
                return Err(DiskError::Unsupported(format!(
                    "partition {number} is a logical partition (inside extended partition {}): \
                     ember grows and creates primary partitions only",
                    ext.number
                )));
            }
            let (next_type, next, _) = entry(&s, 1);
            if next_type == 0 || next == 0 {
                break;
            }
            ebr = ext.start + next;
        }
        Err(DiskError::NoPartition(number))
    }
}

/// CHS address of `lba` in the 255-head, 63-sector geometry tools use; past cylinder 1023
/// the maximum, as the spec says.
fn chs(lba: u64) -> [u8; 3] {
    let c = lba / (255 * 63);
    if c > 1023 {
        return [0xfe, 0xff, 0xff];
    }
    let (h, s) = ((lba / 63) % 255, lba % 63 + 1);
    [h as u8, (s as u8) | ((c >> 2) as u8 & 0xc0), c as u8]
}

fn set_entry(s: &mut [u8], i: usize, type_: u8, start: u64, sectors: u64) {
    let e = &mut s[446 + 16 * i..462 + 16 * i];
    e.fill(0);
    e[1..4].copy_from_slice(&chs(start));
    e[4] = type_;
    e[5..8].copy_from_slice(&chs(start + sectors - 1));
    e[8..12].copy_from_slice(&(start as u32).to_le_bytes());
    e[12..16].copy_from_slice(&(sectors as u32).to_le_bytes());
}

/// A protective MBR for a GPT disk whose last LBA is `last`.
pub fn protective(last: u64) -> Vec<u8> {
    let mut s = vec![0u8; 512];
    s[446 + 1..446 + 4].copy_from_slice(&[0x00, 0x02, 0x00]);
    s[446 + 4] = PROTECTIVE;
    s[446 + 5..446 + 8].copy_from_slice(&[0xff, 0xff, 0xff]);
    s[446 + 8..446 + 12].copy_from_slice(&1u32.to_le_bytes());
    s[446 + 12..446 + 16].copy_from_slice(&(last.min(MAX_SECTORS) as u32).to_le_bytes());
    s[510..512].copy_from_slice(&[0x55, 0xaa]);
    s
}

/// Sets a plain protective MBR's size to cover a disk whose last LBA is `last`; true when it
/// changed. A hybrid MBR (other entries beside the 0xEE one) is left alone.
pub fn fit_protective(s: &mut [u8], last: u64) -> bool {
    let Some(m) = parse(s) else { return false };
    let slots = m.slots();
    let [only] = slots.as_slice() else {
        return false;
    };
    let want = last.min(MAX_SECTORS);
    if only.type_ != PROTECTIVE || only.start != 1 || only.sectors == want {
        return false;
    }
    let at = 446 + 16 * (only.number as usize - 1) + 12;
    s[at..at + 4].copy_from_slice(&(want as u32).to_le_bytes());
    true
}

/// `table::grow` for an MBR disk: one write of the first sector.
pub fn grow(io: &mut dyn BlockIo, number: u32) -> Result<Growth, DiskError> {
    let m = read(io)?.ok_or(DiskError::NoTable)?;
    m.check_primary(io, number)?;
    let slots = m.slots();
    let part = slots
        .iter()
        .find(|s| s.number == number)
        .ok_or(DiskError::NoPartition(number))?;
    if is_extended(part.type_) {
        return Err(DiskError::Unsupported(format!(
            "partition {number} is an extended partition"
        )));
    }
    if let Some(next) = slots
        .iter()
        .filter(|s| s.start > part.start)
        .min_by_key(|s| s.start)
    {
        return Ok(Growth::NotLast { next: next.number });
    }
    let disk = io.size() / io.sector_size();
    let (end, capped) = (disk.min(MAX_SECTORS), disk > MAX_SECTORS);
    let old_end = part.start + part.sectors;
    if old_end > disk {
        return Err(DiskError::Corrupt(format!(
            "partition {number} ends at sector {}, past the disk's {disk} sectors",
            old_end - 1
        )));
    }
    if old_end >= end {
        return Ok(Growth::Full {
            sectors: part.sectors,
            capped,
        });
    }
    let mut s = m.sector.clone();
    let type_ = part.type_;
    let boot = s[446 + 16 * (number as usize - 1)];
    set_entry(
        &mut s,
        number as usize - 1,
        type_,
        part.start,
        end - part.start,
    );
    s[446 + 16 * (number as usize - 1)] = boot;
    io.write_at(0, &s)
        .map_err(DiskError::io("writing the MBR"))?;
    io.sync().map_err(DiskError::io("syncing the disk"))?;
    Ok(Growth::Grown {
        start: part.start,
        old_sectors: part.sectors,
        new_sectors: end - part.start,
        capped,
    })
}

/// `table::create` for MBR: `placed` is (start, sectors, type), already checked to fit.
/// The new MBR is written first (the switch is one sector), then what a GPT left behind is
/// wiped: its primary header and entries, and its backup header at the last LBA.
pub fn create(
    io: &mut dyn BlockIo,
    placed: &[(u64, u64, PartType)],
) -> Result<Vec<Part>, DiskError> {
    let mut s = vec![0u8; 512];
    let mut id = [0u8; 4];
    rustix::rand::getrandom(&mut id, rustix::rand::GetRandomFlags::empty())
        .map_err(|e| DiskError::io("getrandom")(e.into()))?;
    s[440..444].copy_from_slice(&id);
    s[510..512].copy_from_slice(&[0x55, 0xaa]);
    let mut parts = Vec::new();
    for (i, &(start, sectors, type_)) in placed.iter().enumerate() {
        let PartType::Mbr(t) = type_ else {
            return Err(DiskError::Layout(format!(
                "partition {}: not an MBR type",
                i + 1
            )));
        };
        set_entry(&mut s, i, t, start, sectors);
        parts.push(Part {
            number: i as u32 + 1,
            start,
            sectors,
            type_: format!("{t:x}"),
        });
    }
    io.write_at(0, &s)
        .map_err(DiskError::io("writing the MBR"))?;
    io.sync().map_err(DiskError::io("syncing the disk"))?;
    let ss = io.sector_size();
    let last = (io.size() / ss).saturating_sub(1);
    let first = placed.first().map_or(1, |p| p.0);
    let head = (first.min(2 + (16384 / ss)) - 1) * ss;
    let wipe = vec![0u8; head as usize];
    io.write_at(ss, &wipe)
        .map_err(DiskError::io("wiping an old GPT after the MBR"))?;
    let mut tail = vec![0u8; ss as usize];
    io.read_at(last * ss, &mut tail)
        .map_err(DiskError::io("reading the last sector"))?;
    if tail.starts_with(b"EFI PART") {
        io.write_at(last * ss, &vec![0u8; ss as usize])
            .map_err(DiskError::io("wiping an old backup GPT header"))?;
    }
    io.sync().map_err(DiskError::io("syncing the disk"))?;
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Mem;
    use crate::layout::NewPart;
    use crate::table::{create, grow, TableKind};
    use std::io;

    #[test]
    fn chs_follows_the_255_63_geometry() {
        assert_eq!(chs(0), [0, 1, 0]);
        assert_eq!(chs(2048), [32, 33, 0]);
        assert_eq!(chs((1023 * 255 + 254) * 63 + 62), [254, 0xff, 0xff]);
        assert_eq!(chs(1 << 40), [0xfe, 0xff, 0xff]);
    }

    #[test]
    fn filesystem_boot_sectors_are_not_tables() {
        let mut s = vec![0u8; 512];
        s[510..].copy_from_slice(&[0x55, 0xaa]);
        assert!(parse(&s).is_some());
        s[82..87].copy_from_slice(b"FAT32");
        assert!(parse(&s).is_none());
        s[82..87].fill(0);
        s[446] = 0x12; // not a boot flag
        assert!(parse(&s).is_none());
    }

    #[test]
    fn mbr_cap_bites_past_two_tib() {
        // 2^32 + 2048 sectors, sparse enough in memory: only the first sector matters.
        struct Huge(Mem);
        impl BlockIo for Huge {
            fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()> {
                if off >= self.0.size() {
                    buf.fill(0);
                    return Ok(());
                }
                self.0.read_at(off, buf)
            }
            fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()> {
                if off >= self.0.size() {
                    return Ok(());
                }
                self.0.write_at(off, buf)
            }
            fn sync(&mut self) -> io::Result<()> {
                Ok(())
            }
            fn size(&self) -> u64 {
                ((1u64 << 32) + 2048) * 512
            }
            fn sector_size(&self) -> u64 {
                512
            }
        }
        let mut d = Huge(Mem {
            data: vec![0; 1 << 20],
            ss: 512,
        });
        let t = PartType::Mbr(0x83);
        create(
            &mut d,
            TableKind::Mbr,
            &[NewPart {
                sectors: Some(4096),
                type_: t,
            }],
        )
        .unwrap();
        let g = grow(&mut d, 1).unwrap();
        let want = Growth::Grown {
            start: 2048,
            old_sectors: 4096,
            new_sectors: u32::MAX as u64 - 2048,
            capped: true,
        };
        assert_eq!(g, want);
        assert_eq!(
            grow(&mut d, 1).unwrap(),
            Growth::Full {
                sectors: u32::MAX as u64 - 2048,
                capped: true
            }
        );
    }
}

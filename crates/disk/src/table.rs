//! The partition-table API the rest of ember calls: probe a disk, look up a partition, grow
//! one to the end of the disk (growpart), write a fresh table (disk_setup). GPT and MBR; MBR
//! logical partitions are recognised, not edited. Nothing here tells the kernel (BLKPG) or
//! touches a filesystem.

use super::io::BlockIo;
use super::layout::{Guid, NewPart, PartType};
use super::{gpt, mbr};
use crate::reason::Reason;
use std::{fmt, io};

/// Which partition table a disk carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableKind {
    Mbr,
    Gpt,
}

/// What `grow` did; sizes in sectors of `io.sector_size()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Growth {
    /// The partition now ends where the usable space ends. `capped`: an MBR disk is larger
    /// than the 2^32-1 sectors MBR can address, and the partition stops there.
    Grown {
        start: u64,
        old_sectors: u64,
        new_sectors: u64,
        capped: bool,
    },
    /// Already ends where the free space ends: the partition is unchanged. The tables may
    /// still have been rewritten, when one GPT copy was damaged or an earlier grow was cut
    /// short (so a second run finishes the job).
    Full { sectors: u64, capped: bool },
    /// Another partition (number `next`) starts after it: nothing done.
    NotLast { next: u32 },
}

/// A partition as the table describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Kernel partition number, from 1.
    pub number: u32,
    pub start: u64,
    pub sectors: u64,
    /// GPT: the type GUID in upper case; MBR: the type byte in hex ("83"), as sfdisk prints.
    pub type_: String,
}

/// Why a table could not be read or written. The caller adds the device name.
#[derive(Debug)]
pub enum DiskError {
    /// A read, write or sync failed; `what` names the structure.
    Io { what: String, source: io::Error },
    /// A table was found but is damaged: what is wrong and where.
    Corrupt(String),
    /// A valid table that ember does not edit (logical partitions, hybrid MBR, ...).
    Unsupported(String),
    /// There is no partition with this number.
    NoPartition(u32),
    /// No partition table on the disk.
    NoTable,
    /// `create` was given parts that do not fit the disk or the table kind.
    Layout(String),
}

impl DiskError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(io::Error) -> DiskError {
        let what = what.into();
        move |source| DiskError::Io { what, source }
    }

    /// Stable short reason code for status.json.
    pub fn reason(&self) -> Reason {
        match self {
            DiskError::Io { .. } => Reason::DiskIo,
            DiskError::Corrupt(_) => Reason::TableCorrupt,
            DiskError::Unsupported(_) => Reason::TableUnsupported,
            DiskError::NoPartition(_) => Reason::NoPartition,
            DiskError::NoTable => Reason::NoTable,
            DiskError::Layout(_) => Reason::LayoutInvalid,
        }
    }
}

impl fmt::Display for DiskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiskError::Io { what, source } => write!(f, "{what}: {source}"),
            DiskError::Corrupt(why) => write!(f, "corrupt partition table: {why}"),
            DiskError::Unsupported(why) => write!(f, "not supported: {why}"),
            DiskError::NoPartition(n) => write!(f, "no partition {n}"),
            DiskError::NoTable => write!(f, "no partition table"),
            DiskError::Layout(why) => write!(f, "partition layout: {why}"),
        }
    }
}

impl std::error::Error for DiskError {}

/// Reads the disk's first sector and says which table it holds: a GPT only behind a
/// protective MBR (as the kernel and libfdisk require), an MBR by its 0x55AA signature.
/// A protective MBR with no valid GPT header is an error, not "no table".
pub fn probe(io: &mut dyn BlockIo) -> Result<Option<TableKind>, DiskError> {
    if io.size() < 512 {
        return Ok(None);
    }
    match mbr::read(io)? {
        None => Ok(None),
        Some(m) if m.is_protective() => {
            gpt::read(io)?;
            Ok(Some(TableKind::Gpt))
        }
        Some(_) => Ok(Some(TableKind::Mbr)),
    }
}

/// All partitions of the disk's table, by number.
pub fn partitions(io: &mut dyn BlockIo) -> Result<Vec<Part>, DiskError> {
    match probe(io)? {
        None => Err(DiskError::NoTable),
        Some(TableKind::Gpt) => Ok(gpt::read(io)?.parts()?),
        Some(TableKind::Mbr) => mbr::read(io)?.ok_or(DiskError::NoTable)?.parts(),
    }
}

/// Partition `number` (1-based, as the kernel numbers them), or None when that slot is empty.
/// An MBR logical partition (5 and up) is an `Unsupported` error.
pub fn partition(io: &mut dyn BlockIo, number: u32) -> Result<Option<Part>, DiskError> {
    if let Some(TableKind::Mbr) = probe(io)? {
        let m = mbr::read(io)?.ok_or(DiskError::NoTable)?;
        match m.check_primary(io, number) {
            Err(DiskError::NoPartition(_)) => return Ok(None),
            r => r?,
        }
    }
    Ok(partitions(io)?.into_iter().find(|p| p.number == number))
}

/// Grows partition `number` to the end of the usable space (cloud-init's growpart). GPT: the
/// backup table moves to the disk's current end first; see `gpt::commit` for the write
/// order that survives a power cut. MBR: one sector write. Never shrinks; a second call
/// returns `Full`.
/// <https://docs.cloud-init.io/en/latest/reference/modules.html#growpart>
pub fn grow(io: &mut dyn BlockIo, number: u32) -> Result<Growth, DiskError> {
    match probe(io)? {
        None => Err(DiskError::NoTable),
        Some(TableKind::Gpt) => grow_gpt(io, number),
        Some(TableKind::Mbr) => mbr::grow(io, number),
    }
}

/// Writes a fresh table holding `parts` (cloud-init's disk_setup), replacing whatever table
/// was there: partitions start on 1 MiB boundaries as sfdisk puts them, sized as given in
/// sectors; only the last may be `None`, the rest of the disk. Filesystem signatures inside
/// the new partitions are left alone (fs_setup decides about those).
/// <https://docs.cloud-init.io/en/latest/reference/modules.html#disk-setup>
pub fn create(
    io: &mut dyn BlockIo,
    kind: TableKind,
    parts: &[NewPart],
) -> Result<Vec<Part>, DiskError> {
    let ss = io.sector_size();
    let sectors = io.size() / ss;
    let (first, end) = match kind {
        TableKind::Mbr => (1, sectors.min(mbr::MAX_SECTORS)),
        TableKind::Gpt => gpt::usable(sectors, ss),
    };
    let max = match kind {
        TableKind::Mbr => 4,
        TableKind::Gpt => gpt::ENTRIES as usize,
    };
    if parts.is_empty() || parts.len() > max {
        return Err(DiskError::Layout(format!(
            "{} partitions: a {kind:?} table holds 1 to {max}",
            parts.len()
        )));
    }
    let align = ((1 << 20) / ss).max(1);
    let mut placed = Vec::with_capacity(parts.len());
    let mut cursor = first;
    for (i, p) in parts.iter().enumerate() {
        let start = cursor.div_ceil(align) * align;
        let size = match p.sectors {
            Some(n) if n > 0 => n,
            Some(_) => return Err(DiskError::Layout(format!("partition {}: size 0", i + 1))),
            None if i + 1 == parts.len() => end.saturating_sub(start),
            None => {
                return Err(DiskError::Layout(format!(
                    "partition {}: only the last may take the rest of the disk",
                    i + 1
                )))
            }
        };
        if size == 0 || start.checked_add(size).is_none_or(|e| e > end) {
            return Err(DiskError::Layout(format!(
                "partition {} ({size} sectors from sector {start}) does not fit a disk whose \
                 usable space ends at sector {end}",
                i + 1
            )));
        }
        match (kind, &p.type_) {
            (TableKind::Mbr, PartType::Mbr(_)) | (TableKind::Gpt, PartType::Gpt(_)) => {}
            _ => {
                return Err(DiskError::Layout(format!(
                    "partition {}: type {:?} does not belong in a {kind:?} table",
                    i + 1,
                    p.type_
                )))
            }
        }
        placed.push((start, size, p.type_));
        cursor = start + size;
    }
    match kind {
        TableKind::Mbr => mbr::create(io, &placed),
        TableKind::Gpt => create_gpt(io, &placed),
    }
}

/// `grow` for a GPT disk.
fn grow_gpt(io: &mut dyn BlockIo, number: u32) -> Result<Growth, DiskError> {
    let gpt = gpt::read(io)?;
    let used = gpt.used()?;
    let part = used
        .iter()
        .find(|e| e.number == number)
        .ok_or(DiskError::NoPartition(number))?;
    if let Some(next) = used
        .iter()
        .filter(|e| e.first > part.first)
        .min_by_key(|e| e.first)
    {
        return Ok(Growth::NotLast { next: next.number });
    }
    let (primary, _) = gpt::targets(io, &gpt.header, &gpt.entries)?;
    let old = part.last - part.first + 1;
    if part.last > primary.last_usable {
        return Err(DiskError::Corrupt(format!(
            "partition {number} ends at sector {}, past the last usable sector {} (did the \
             disk shrink?)",
            part.last, primary.last_usable
        )));
    }
    if part.last == primary.last_usable {
        // Only the tables may need finishing (a damaged copy, a cut-short run).
        gpt::commit(io, &gpt.header, &gpt.entries)?;
        return Ok(Growth::Full {
            sectors: old,
            capped: false,
        });
    }
    let mut entries = gpt.entries.clone();
    let at = (number - 1) as usize * gpt.header.entry_size as usize + 40;
    entries[at..at + 8].copy_from_slice(&primary.last_usable.to_le_bytes());
    gpt::commit(io, &gpt.header, &entries)?;
    Ok(Growth::Grown {
        start: part.first,
        old_sectors: old,
        new_sectors: primary.last_usable - part.first + 1,
        capped: false,
    })
}

/// `create` for GPT: `placed` is (start, sectors, type) per partition, already
/// checked to fit. Old tables are replaced; the protective MBR is written last, so a disk
/// that held an MBR table keeps it until the GPT is complete.
fn create_gpt(
    io: &mut dyn BlockIo,
    placed: &[(u64, u64, PartType)],
) -> Result<Vec<Part>, DiskError> {
    let ss = io.sector_size();
    let random = |_| Guid::random().map_err(DiskError::io("getrandom"));
    let mut entries = vec![0u8; (gpt::ENTRIES * gpt::ENTRY_SIZE) as usize];
    let mut parts = Vec::new();
    for (i, (start, sectors, type_)) in placed.iter().enumerate() {
        let PartType::Gpt(guid) = type_ else {
            return Err(DiskError::Layout(format!(
                "partition {}: not a GPT type",
                i + 1
            )));
        };
        let e = &mut entries[i * gpt::ENTRY_SIZE as usize..(i + 1) * gpt::ENTRY_SIZE as usize];
        e[..16].copy_from_slice(&guid.0);
        e[16..32].copy_from_slice(&random(())?.0);
        e[32..40].copy_from_slice(&start.to_le_bytes());
        e[40..48].copy_from_slice(&(start + sectors - 1).to_le_bytes());
        parts.push(Part {
            number: i as u32 + 1,
            start: *start,
            sectors: *sectors,
            type_: guid.to_string(),
        });
    }
    let (first_usable, _) = gpt::usable(io.size() / ss, ss);
    let tpl = gpt::Header {
        revision: 0x0001_0000,
        header_size: gpt::HEADER_SIZE,
        my_lba: 1,
        alternate_lba: 0,
        first_usable,
        last_usable: 0,
        disk_guid: random(())?,
        entries_lba: 2,
        num_entries: gpt::ENTRIES,
        entry_size: gpt::ENTRY_SIZE,
        entries_crc: 0,
    };
    gpt::commit(io, &tpl, &entries)?;
    let pmbr = mbr::protective((io.size() / ss).saturating_sub(1));
    io.write_at(0, &pmbr)
        .map_err(DiskError::io("writing the protective MBR"))?;
    io.sync().map_err(DiskError::io("syncing the disk"))?;
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Mem;
    use crate::signature;

    /// xorshift: reproducible noise without a crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn crc(b: &[u8]) -> u32 {
        let mut c = flate2::Crc::new();
        c.update(b);
        c.sum()
    }

    /// Fixes both CRCs of the header at `lba` so a damaged field reaches the deeper checks.
    fn recrc(d: &mut Mem, lba: usize) {
        let ss = d.ss as usize;
        let h = lba * ss;
        let (el, n, sz) = (
            u64::from_le_bytes(d.data[h + 72..h + 80].try_into().unwrap()) as usize,
            u32::from_le_bytes(d.data[h + 80..h + 84].try_into().unwrap()) as usize,
            u32::from_le_bytes(d.data[h + 84..h + 88].try_into().unwrap()) as usize,
        );
        if let Some(e) = d
            .data
            .get(el.saturating_mul(ss)..el.saturating_mul(ss).saturating_add(n.saturating_mul(sz)))
        {
            let c = crc(e);
            d.data[h + 88..h + 92].copy_from_slice(&c.to_le_bytes());
        }
        d.data[h + 16..h + 20].fill(0);
        let c = crc(&d.data[h..h + 92]);
        d.data[h + 16..h + 20].copy_from_slice(&c.to_le_bytes());
    }

    #[test]
    fn damaged_tables_are_errors_never_panics() {
        let gpt = |t| PartType::Gpt(t);
        let linux = super::Guid::parse("0FC63DAF-8483-4772-8E79-3D69D8477DE4").unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (kind, ss) in [
            (TableKind::Gpt, 512),
            (TableKind::Gpt, 4096),
            (TableKind::Mbr, 512),
        ] {
            let mut base = Mem {
                data: vec![0; 4 << 20],
                ss,
            };
            let type_ = if kind == TableKind::Gpt {
                gpt(linux)
            } else {
                PartType::Mbr(0x83)
            };
            let parts = [
                NewPart {
                    sectors: Some(100),
                    type_,
                },
                NewPart {
                    sectors: None,
                    type_,
                },
            ];
            create(&mut base, kind, &parts).unwrap();
            base.data.resize(4 << 20, 0);
            let last = base.data.len() / ss as usize - 1;
            for round in 0..1500 {
                let mut d = Mem {
                    data: base.data.clone(),
                    ss,
                };
                for _ in 0..1 + rng.next() % 4 {
                    let region = match rng.next() % 3 {
                        0 => 0..ss as usize * 2 + 256,
                        1 => ss as usize * 2..ss as usize * 2 + 512,
                        _ => (last - 4) * ss as usize..(last + 1) * ss as usize,
                    };
                    let at = region.start + (rng.next() as usize % region.len());
                    let len = (1 + rng.next() % 8) as usize;
                    let end = (at + len).min(d.data.len());
                    let noise = rng.next().to_le_bytes();
                    d.data[at..end].copy_from_slice(&noise[..end - at]);
                }
                if kind == TableKind::Gpt && round % 2 == 0 {
                    recrc(&mut d, 1);
                }
                let _ = probe(&mut d);
                let _ = partitions(&mut d);
                let _ = partition(&mut d, 1 + (rng.next() % 6) as u32);
                let _ = signature::probe(&mut d, 0);
                let _ = grow(&mut d, 1 + (rng.next() % 3) as u32);
                let _ = grow(&mut d, 2);
            }
        }
    }

    #[test]
    fn layout_errors_name_the_partition() {
        let mut d = Mem {
            data: vec![0; 4 << 20],
            ss: 512,
        };
        let t = PartType::Mbr(0x83);
        let too_big = [NewPart {
            sectors: Some(10_000),
            type_: t,
        }];
        let e = create(&mut d, TableKind::Mbr, &too_big).unwrap_err();
        assert!(e.to_string().contains("partition 1"), "{e}");
        let rest_first = [
            NewPart {
                sectors: None,
                type_: t,
            },
            NewPart {
                sectors: Some(8),
                type_: t,
            },
        ];
        assert!(create(&mut d, TableKind::Mbr, &rest_first).is_err());
        let wrong = [NewPart {
            sectors: None,
            type_: t,
        }];
        assert!(create(&mut d, TableKind::Gpt, &wrong).is_err());
        assert_eq!(
            probe(&mut d).unwrap(),
            None,
            "a refused layout writes nothing"
        );
        let five = [NewPart {
            sectors: Some(8),
            type_: t,
        }; 5];
        assert!(create(&mut d, TableKind::Mbr, &five).is_err());
    }
}

//! GPT (UEFI spec, chapter 5): reading either header copy with its entry array, CRCs
//! checked, and writing both copies in an order that keeps one valid at every moment. Any
//! entry size and count the spec allows, within a budget; 512- and 4096-byte sectors.

use super::io::BlockIo;
pub use super::layout::Guid;
use super::mbr;
use super::table::{DiskError, Part};
use flate2::Crc;

const SIGNATURE: &[u8; 8] = b"EFI PART";
pub const HEADER_SIZE: u32 = 92;
/// What `create` writes: 128 entries of 128 bytes, as every tool does.
pub const ENTRIES: u32 = 128;
pub const ENTRY_SIZE: u32 = 128;
/// The spec sets no upper bound on the entry array; real ones are 16 KiB.
const MAX_ENTRIES_BYTES: u64 = 8 << 20;

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc::new();
    c.update(data);
    c.sum()
}

/// One GPT header, either copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub revision: u32,
    pub header_size: u32,
    pub my_lba: u64,
    pub alternate_lba: u64,
    pub first_usable: u64,
    pub last_usable: u64,
    pub disk_guid: Guid,
    pub entries_lba: u64,
    pub num_entries: u32,
    pub entry_size: u32,
    pub entries_crc: u32,
}

impl Header {
    /// Parses a header sector; checks the signature, the size and the header CRC only.
    fn parse(sector: &[u8]) -> Result<Header, String> {
        if sector.get(..8) != Some(SIGNATURE) {
            return Err("no \"EFI PART\" signature".into());
        }
        let header_size = le32(sector, 12);
        if header_size < HEADER_SIZE || header_size as usize > sector.len() {
            return Err(format!("header size {header_size} out of range"));
        }
        let mut copy = sector[..header_size as usize].to_vec();
        copy[16..20].fill(0);
        if crc32(&copy) != le32(sector, 16) {
            return Err("header CRC mismatch".into());
        }
        Ok(Header {
            revision: le32(sector, 8),
            header_size,
            my_lba: le64(sector, 24),
            alternate_lba: le64(sector, 32),
            first_usable: le64(sector, 40),
            last_usable: le64(sector, 48),
            disk_guid: Guid(sector[56..72].try_into().unwrap_or([0; 16])),
            entries_lba: le64(sector, 72),
            num_entries: le32(sector, 80),
            entry_size: le32(sector, 84),
            entries_crc: le32(sector, 88),
        })
    }

    /// The header as one sector, its CRC filled in; bytes past `header_size` are zero.
    fn to_sector(&self, ss: u64) -> Vec<u8> {
        let mut s = vec![0u8; ss as usize];
        s[..8].copy_from_slice(SIGNATURE);
        s[8..12].copy_from_slice(&self.revision.to_le_bytes());
        s[12..16].copy_from_slice(&self.header_size.to_le_bytes());
        s[24..32].copy_from_slice(&self.my_lba.to_le_bytes());
        s[32..40].copy_from_slice(&self.alternate_lba.to_le_bytes());
        s[40..48].copy_from_slice(&self.first_usable.to_le_bytes());
        s[48..56].copy_from_slice(&self.last_usable.to_le_bytes());
        s[56..72].copy_from_slice(&self.disk_guid.0);
        s[72..80].copy_from_slice(&self.entries_lba.to_le_bytes());
        s[80..84].copy_from_slice(&self.num_entries.to_le_bytes());
        s[84..88].copy_from_slice(&self.entry_size.to_le_bytes());
        s[88..92].copy_from_slice(&self.entries_crc.to_le_bytes());
        let crc = crc32(&s[..self.header_size as usize]);
        s[16..20].copy_from_slice(&crc.to_le_bytes());
        s
    }

    fn entries_bytes(&self) -> u64 {
        u64::from(self.num_entries) * u64::from(self.entry_size)
    }

    fn entry_sectors(&self, ss: u64) -> u64 {
        self.entries_bytes().div_ceil(ss)
    }
}

/// A table as read: the header of the copy in use and its raw entry array (unknown bytes
/// of larger entries are kept as they are).
#[derive(Clone, Debug)]
pub struct Gpt {
    pub header: Header,
    pub entries: Vec<u8>,
    /// The primary copy was damaged and the backup is in use.
    pub from_backup: bool,
}

/// A used entry of the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Kernel partition number: the entry's index plus one.
    pub number: u32,
    pub type_: Guid,
    pub first: u64,
    pub last: u64,
}

impl Gpt {
    /// The used entries, each checked to lie inside the disk.
    pub fn used(&self) -> Result<Vec<Entry>, DiskError> {
        let size = self.header.entry_size as usize;
        let mut out = Vec::new();
        for (i, e) in self.entries.chunks_exact(size).enumerate() {
            let type_ = Guid(e[..16].try_into().unwrap_or([0; 16]));
            if type_.is_zero() {
                continue;
            }
            let (first, last) = (le64(e, 32), le64(e, 40));
            if first > last || first < self.header.first_usable {
                return Err(DiskError::Corrupt(format!(
                    "GPT entry {} spans sectors {first}..{last}, outside the usable space",
                    i + 1
                )));
            }
            out.push(Entry {
                number: i as u32 + 1,
                type_,
                first,
                last,
            });
        }
        Ok(out)
    }

    pub fn parts(&self) -> Result<Vec<Part>, DiskError> {
        Ok(self
            .used()?
            .into_iter()
            .map(|e| Part {
                number: e.number,
                start: e.first,
                sectors: e.last - e.first + 1,
                type_: e.type_.to_string(),
            })
            .collect())
    }
}

/// Reads and fully checks the copy whose header is at `lba`.
fn read_copy(io: &mut dyn BlockIo, lba: u64) -> Result<(Header, Vec<u8>), String> {
    let ss = io.sector_size();
    let last = (io.size() / ss).saturating_sub(1);
    if lba == 0 || lba > last {
        return Err(format!("header LBA {lba} is outside the disk"));
    }
    let mut sector = vec![0u8; ss as usize];
    io.read_at(lba * ss, &mut sector)
        .map_err(|e| format!("reading LBA {lba}: {e}"))?;
    let h = Header::parse(&sector)?;
    if h.my_lba != lba {
        return Err(format!(
            "header at LBA {lba} says it is at LBA {}",
            h.my_lba
        ));
    }
    if h.entry_size < 128 || !h.entry_size.is_power_of_two() {
        return Err(format!("entry size {} is not 128 * 2^n", h.entry_size));
    }
    if h.num_entries == 0 || h.entries_bytes() > MAX_ENTRIES_BYTES {
        return Err(format!("{} entries is out of range", h.num_entries));
    }
    if h.first_usable > h.last_usable || h.last_usable > last {
        return Err(format!(
            "usable sectors {}..{} do not fit the disk's {} sectors",
            h.first_usable,
            h.last_usable,
            last + 1
        ));
    }
    let es = h.entry_sectors(ss);
    let within = |lo: u64, hi: u64| lo >= h.first_usable && hi <= h.last_usable;
    if h.entries_lba == 0
        || h.entries_lba.saturating_add(es) > last + 1
        || (h.first_usable..=h.last_usable).contains(&lba)
        || within(h.entries_lba, h.entries_lba + es - 1)
    {
        return Err("header or entries lie inside the usable space or past the end".into());
    }
    let mut entries = vec![0u8; h.entries_bytes() as usize];
    io.read_at(h.entries_lba * ss, &mut entries)
        .map_err(|e| format!("reading the entries at LBA {}: {e}", h.entries_lba))?;
    if crc32(&entries) != h.entries_crc {
        return Err("entry array CRC mismatch".into());
    }
    Ok((h, entries))
}

/// Reads the table: the primary at LBA 1; when it is damaged, the backup at the last LBA
/// (where libfdisk looks), else the one the primary header names, if that header is intact.
pub fn read(io: &mut dyn BlockIo) -> Result<Gpt, DiskError> {
    let ss = io.sector_size();
    let last = (io.size() / ss).saturating_sub(1);
    let primary_err = match read_copy(io, 1) {
        Ok((header, entries)) => {
            return Ok(Gpt {
                header,
                entries,
                from_backup: false,
            })
        }
        Err(e) => e,
    };
    let mut sector = vec![0u8; ss as usize];
    let named = io
        .read_at(ss, &mut sector)
        .ok()
        .and_then(|_| Header::parse(&sector).ok())
        .map(|h| h.alternate_lba)
        .filter(|&alt| alt != last && alt > 1);
    let mut backup_err = String::new();
    for lba in std::iter::once(last).chain(named) {
        match read_copy(io, lba) {
            Ok((header, entries)) => {
                return Ok(Gpt {
                    header,
                    entries,
                    from_backup: true,
                })
            }
            Err(e) => backup_err += &format!("; backup at LBA {lba}: {e}"),
        }
    }
    Err(DiskError::Corrupt(format!(
        "no valid GPT header: primary: {primary_err}{backup_err}"
    )))
}

/// First usable sector and end (exclusive) of the usable space of a fresh 128-entry table.
pub fn usable(sectors: u64, ss: u64) -> (u64, u64) {
    let es = (u64::from(ENTRIES) * u64::from(ENTRY_SIZE)).div_ceil(ss);
    (2 + es, sectors.saturating_sub(1 + es))
}

/// Where the finished copies go on this disk: the backup header at the last LBA with its
/// entries just before it, the primary's entries where they were (normally LBA 2).
pub fn targets(
    io: &dyn BlockIo,
    tpl: &Header,
    entries: &[u8],
) -> Result<(Header, Header), DiskError> {
    let ss = io.sector_size();
    let last = (io.size() / ss).saturating_sub(1);
    let es = tpl.entry_sectors(ss);
    let p_entries = if tpl.entries_lba >= 2 && tpl.entries_lba + es <= tpl.first_usable {
        tpl.entries_lba
    } else {
        2
    };
    let b_entries = last.saturating_sub(es);
    if 2 + es > tpl.first_usable || b_entries <= tpl.first_usable {
        return Err(DiskError::Corrupt(format!(
            "the entry arrays ({es} sectors) do not fit around usable sectors from {} on a \
             disk of {} sectors",
            tpl.first_usable,
            last + 1
        )));
    }
    let primary = Header {
        revision: tpl.revision,
        header_size: tpl.header_size,
        my_lba: 1,
        alternate_lba: last,
        first_usable: tpl.first_usable,
        last_usable: b_entries - 1,
        disk_guid: tpl.disk_guid,
        entries_lba: p_entries,
        num_entries: tpl.num_entries,
        entry_size: tpl.entry_size,
        entries_crc: crc32(entries),
    };
    let backup = Header {
        my_lba: last,
        alternate_lba: 1,
        entries_lba: b_entries,
        ..primary.clone()
    };
    Ok((primary, backup))
}

/// Sector ranges `[a, a+n)` and `[b, b+m)` overlap.
fn overlap(a: u64, n: u64, b: u64, m: u64) -> bool {
    a < b + m && b < a + n
}

/// Writes `bytes` at `lba` unless they are there already; true when it wrote.
fn put(io: &mut dyn BlockIo, lba: u64, bytes: &[u8], what: &str) -> Result<bool, DiskError> {
    let ss = io.sector_size();
    let mut now = vec![0u8; bytes.len()];
    io.read_at(lba * ss, &mut now)
        .map_err(DiskError::io(format!("reading the {what} at LBA {lba}")))?;
    if now == bytes {
        return Ok(false);
    }
    io.write_at(lba * ss, bytes)
        .map_err(DiskError::io(format!("writing the {what} at LBA {lba}")))?;
    Ok(true)
}

fn sync(io: &mut dyn BlockIo) -> Result<(), DiskError> {
    io.sync().map_err(DiskError::io("syncing the disk"))
}

/// Writes `entries` as both copies of the table laid out on the disk's current size,
/// `tpl` giving the fields that stay (GUID, first usable, entry geometry). Returns false
/// when both copies and the protective MBR were already exactly so (nothing written).
///
/// The order keeps a valid primary at every moment, because the kernel reads only the
/// primary (the backup only with `gpt` on its command line), and a valid backup at the last
/// LBA for libfdisk whenever the primary is being rewritten. With a valid primary:
/// 1. backup entries, then backup header, at the disk's end; sync. The old primary still
///    names the old backup, untouched (it lies elsewhere, or is rewritten in place while the
///    primary stays valid).
/// 2. the primary header alone, pointing at the backup's entries (a single-sector write:
///    the old valid primary becomes a new valid one); sync.
/// 3. the primary entries at their own place, which no header names now; sync.
/// 4. the primary header pointing at them; sync.
///
/// Step 2 is skipped when the primary entries do not change (a repair). With a damaged
/// primary, or one whose entries lie where the backup goes (a run cut after step 2, on a
/// disk grown a little since), the primary is written first instead (entries, header,
/// sync), then the backup. Last, the protective MBR's size field follows the disk's size.
pub fn commit(io: &mut dyn BlockIo, tpl: &Header, entries: &[u8]) -> Result<bool, DiskError> {
    let ss = io.sector_size();
    let (primary, backup) = targets(io, tpl, entries)?;
    let es = primary.entry_sectors(ss);
    let mut padded = entries.to_vec();
    padded.resize((es * ss) as usize, 0);
    let mut wrote = false;
    let current = read_copy(io, 1).ok().map(|(h, _)| h);
    let primary_first = current.as_ref().is_none_or(|h| {
        let n = h.entry_sectors(ss);
        overlap(h.entries_lba, n, backup.entries_lba, es + 1)
    });
    let write_primary = |io: &mut dyn BlockIo, wrote: &mut bool| -> Result<(), DiskError> {
        let at_home = current
            .as_ref()
            .is_some_and(|h| overlap(h.entries_lba, h.entry_sectors(ss), primary.entries_lba, es));
        let mut now = vec![0u8; padded.len()];
        io.read_at(primary.entries_lba * ss, &mut now)
            .map_err(DiskError::io("reading the primary GPT entries"))?;
        if at_home && !primary_first && now != padded {
            let step = Header {
                entries_lba: backup.entries_lba,
                ..primary.clone()
            };
            if put(io, 1, &step.to_sector(ss), "primary GPT header")? {
                *wrote = true;
                sync(io)?;
            }
        }
        *wrote |= put(io, primary.entries_lba, &padded, "primary GPT entries")?;
        sync(io)?;
        *wrote |= put(io, 1, &primary.to_sector(ss), "primary GPT header")?;
        sync(io)
    };
    if primary_first {
        write_primary(io, &mut wrote)?;
    }
    wrote |= put(io, backup.entries_lba, &padded, "backup GPT entries")?;
    wrote |= put(
        io,
        backup.my_lba,
        &backup.to_sector(ss),
        "backup GPT header",
    )?;
    sync(io)?;
    if !primary_first {
        write_primary(io, &mut wrote)?;
    }
    let mut pmbr = mbr::read_sector(io)?;
    if mbr::fit_protective(&mut pmbr, backup.my_lba) {
        io.write_at(0, &pmbr)
            .map_err(DiskError::io("writing the protective MBR"))?;
        sync(io)?;
        wrote = true;
    }
    Ok(wrote)
}

//! ISO9660 (ECMA-119) reader: primary and Joliet volume descriptors, directory records, file
//! extents. Names come from Rock Ridge (see `susp`), else Joliet, else the plain ISO name.
//! Not supported: multi-extent and interleaved files, Rock Ridge deep-directory relocation (CL).

use super::susp;
use super::{check_size, eq_ignore_case, split_path, SeedFs, SeedFsError, Volume};
use std::io::{self, Read, Seek};

/// Volume descriptors always sit in 2048-byte sectors from sector 16, whatever the block size.
const SECTOR: usize = 2048;
const FIRST_DESCRIPTOR: u64 = 16 * SECTOR as u64;
/// Real images have three or four descriptors; the cap bounds a missing terminator.
const MAX_DESCRIPTORS: u64 = 32;
/// Seed directories hold a handful of records; this bounds the buffer a forged size can ask for.
const MAX_DIR_BYTES: u64 = 4 << 20;
const FLAG_DIR: u8 = 0x02;
const FLAG_MULTI_EXTENT: u8 = 0x80;

#[derive(Clone, Copy, PartialEq)]
enum Names {
    RockRidge { skip: usize },
    Joliet,
    Plain,
}

struct Descriptors {
    pvd: Vec<u8>,
    joliet: Option<Vec<u8>>,
}

pub(crate) struct Iso<R> {
    vol: Volume<R>,
    block: u64,
    root: Entry,
    names: Names,
}

#[derive(Clone)]
struct Entry {
    name: String,
    is_dir: bool,
    offset: u64,
    size: u64,
    flags: u8,
    interleaved: bool,
}

fn read_descriptors<R: Read + Seek>(
    vol: &mut Volume<R>,
    max: u64,
) -> Result<Option<Descriptors>, SeedFsError> {
    let mut found = Descriptors {
        pvd: Vec::new(),
        joliet: None,
    };
    for i in 0..max {
        let offset = FIRST_DESCRIPTOR + i * SECTOR as u64;
        if offset + SECTOR as u64 > vol.len() {
            break;
        }
        let mut d = vec![0u8; SECTOR];
        vol.read_at(offset, &mut d)?;
        if &d[1..6] != b"CD001" {
            break;
        }
        match d[0] {
            1 if found.pvd.is_empty() => found.pvd = d,
            // Joliet is a supplementary descriptor whose escape sequence names UCS-2 level 1-3.
            2 if &d[88..90] == b"%/" && matches!(d[90], b'@' | b'C' | b'E') => {
                found.joliet.get_or_insert(d);
            }
            255 => break,
            _ => {}
        }
    }
    Ok((!found.pvd.is_empty()).then_some(found))
}

pub(crate) fn probe<R: Read + Seek>(
    vol: &mut Volume<R>,
) -> Result<Option<Vec<String>>, SeedFsError> {
    // Eight descriptors (16 KiB) is plenty for the PVD, a boot record and a Joliet SVD.
    let Some(d) = read_descriptors(vol, 8)? else {
        return Ok(None);
    };
    let mut labels = Vec::new();
    let primary = latin1(&d.pvd[40..72]).trim().to_string();
    if !primary.is_empty() {
        labels.push(primary);
    }
    if let Some(j) = &d.joliet {
        let joliet = ucs2(&j[40..72]).trim().to_string();
        if !joliet.is_empty() && !labels.contains(&joliet) {
            labels.push(joliet);
        }
    }
    Ok(Some(labels))
}

impl<R: Read + Seek> Iso<R> {
    pub(crate) fn open(mut vol: Volume<R>) -> Result<Iso<R>, SeedFsError> {
        let d = read_descriptors(&mut vol, MAX_DESCRIPTORS)?
            .ok_or_else(|| SeedFsError::Corrupt("ISO9660 primary descriptor missing".into()))?;
        let block = u64::from(u16::from_le_bytes([d.pvd[128], d.pvd[129]]));
        if !matches!(block, 512 | 1024 | 2048) {
            return Err(SeedFsError::Corrupt(format!(
                "ISO9660 logical block size {block} in the primary descriptor"
            )));
        }
        let mut iso = Iso {
            vol,
            block,
            root: parse_record(&d.pvd[156..190], block, "the primary root record")?,
            names: Names::Plain,
        };
        // Rock Ridge is announced by an SP entry in the root's "." record (SUSP 5.3).
        let data = iso.dir_data(&iso.root.clone())?;
        if let Some(dot) = split_records(&data, iso.root.offset)?.first() {
            let info = susp::parse(&mut iso.vol, system_use(dot), block, 0)?;
            if let (Some(skip), true) = (info.sp_skip, info.rock_ridge) {
                iso.names = Names::RockRidge { skip };
                return Ok(iso);
            }
        }
        if let Some(j) = &d.joliet {
            iso.root = parse_record(&j[156..190], block, "the Joliet root record")?;
            iso.names = Names::Joliet;
        }
        Ok(iso)
    }

    /// Reads a directory's extent, bounded first by `MAX_DIR_BYTES` and then by the volume.
    fn dir_data(&mut self, dir: &Entry) -> Result<Vec<u8>, SeedFsError> {
        if dir.size > MAX_DIR_BYTES {
            return Err(SeedFsError::Corrupt(format!(
                "ISO9660 directory at offset {} claims {} bytes",
                dir.offset, dir.size
            )));
        }
        self.vol.read_vec(dir.offset, dir.size)
    }

    fn entries(&mut self, dir: &Entry) -> Result<Vec<Entry>, SeedFsError> {
        let data = self.dir_data(dir)?;
        let mut out: Vec<Entry> = Vec::new();
        for rec in split_records(&data, dir.offset)? {
            let raw_name = &rec[33..33 + usize::from(rec[32])];
            if matches!(raw_name, [0] | [1]) {
                continue; // "." and ".."
            }
            let mut entry = parse_record(rec, self.block, "a directory record")?;
            let name = match self.names {
                Names::RockRidge { skip } => {
                    let info = susp::parse(&mut self.vol, system_use(rec), self.block, skip)?;
                    if info.relocated {
                        continue; // shown where its CL placeholder is; not followed here
                    }
                    info.name.unwrap_or_else(|| plain_name(raw_name))
                }
                Names::Joliet => strip_version(&ucs2(raw_name)),
                Names::Plain => plain_name(raw_name),
            };
            if name.is_empty() || out.last().is_some_and(|p| p.name == name) {
                continue; // extents after the first of a multi-extent file repeat its name
            }
            entry.name = name;
            out.push(entry);
        }
        Ok(out)
    }

    fn lookup(&mut self, path: &str) -> Result<Option<Entry>, SeedFsError> {
        let mut cur = self.root.clone();
        for part in split_path(path)? {
            if !cur.is_dir {
                return Ok(None);
            }
            let plain = self.names == Names::Plain;
            match self.entries(&cur)?.into_iter().find(|e| {
                // The kernel maps plain ISO names to lower case; RR and Joliet keep case.
                if plain {
                    eq_ignore_case(&e.name, part)
                } else {
                    e.name == part
                }
            }) {
                Some(e) => cur = e,
                None => return Ok(None),
            }
        }
        Ok(Some(cur))
    }
}

impl<R: Read + Seek> SeedFs for Iso<R> {
    fn read_file(&mut self, path: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, SeedFsError> {
        let Some(e) = self.lookup(path)? else {
            return Ok(None);
        };
        if e.is_dir {
            return Ok(None);
        }
        if e.flags & FLAG_MULTI_EXTENT != 0 {
            return Err(SeedFsError::Unsupported("multi-extent ISO9660 files"));
        }
        if e.interleaved {
            return Err(SeedFsError::Unsupported("interleaved ISO9660 files"));
        }
        check_size(path, e.size, max_bytes)?;
        self.vol.read_vec(e.offset, e.size).map(Some)
    }

    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, SeedFsError> {
        match self.lookup(path)? {
            Some(d) if d.is_dir => Ok(self.entries(&d)?.into_iter().map(|e| e.name).collect()),
            _ => Err(SeedFsError::Io(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no directory {path:?} on the seed volume"),
            ))),
        }
    }
}

/// Splits a directory extent into records, each checked to hold its name (ECMA-119 9.1).
fn split_records(data: &[u8], dir_offset: u64) -> Result<Vec<&[u8]>, SeedFsError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let len = usize::from(data[pos]);
        if len == 0 {
            // Records never cross a sector; a zero length pads to the next one.
            pos = (pos / SECTOR + 1) * SECTOR;
            continue;
        }
        let rec = data
            .get(pos..pos + len)
            .filter(|r| r.len() >= 33 && r.len() >= 33 + usize::from(r[32]));
        let Some(rec) = rec else {
            return Err(SeedFsError::Corrupt(format!(
                "ISO9660 directory record at offset {} is malformed",
                dir_offset + pos as u64
            )));
        };
        out.push(rec);
        pos += len;
    }
    Ok(out)
}

/// The system-use area follows the name and its padding byte (present when the name length is
/// even, so the area starts on an even offset).
fn system_use(rec: &[u8]) -> &[u8] {
    let name_len = usize::from(rec[32]);
    rec.get(33 + name_len + (1 - name_len % 2)..).unwrap_or(&[])
}

/// Decodes the fixed part of a directory record (ECMA-119 9.1).
fn parse_record(rec: &[u8], block: u64, what: &str) -> Result<Entry, SeedFsError> {
    let name_len = usize::from(*rec.get(32).unwrap_or(&0));
    if rec.len() < 33 + name_len || usize::from(rec[0]) < 33 + name_len {
        return Err(SeedFsError::Corrupt(format!("ISO9660 {what} is too short")));
    }
    let le32 = |at: usize| {
        u64::from(u32::from_le_bytes([
            rec[at],
            rec[at + 1],
            rec[at + 2],
            rec[at + 3],
        ]))
    };
    let ext_attr = u64::from(rec[1]);
    Ok(Entry {
        name: String::new(),
        is_dir: rec[25] & FLAG_DIR != 0,
        // Data follows any extended attribute record, which is counted in blocks.
        offset: (le32(2) + ext_attr) * block,
        size: le32(10),
        flags: rec[25],
        interleaved: rec[26] != 0 || rec[27] != 0,
    })
}

/// Plain ISO name as Linux shows it: version ";1" and a trailing "." gone, lower case.
fn plain_name(raw: &[u8]) -> String {
    strip_version(&latin1(raw)).to_lowercase()
}

fn strip_version(name: &str) -> String {
    let base = match name.rfind(';') {
        Some(i) if name[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &name[..i],
        _ => name,
    };
    base.strip_suffix('.').unwrap_or(base).to_string()
}

fn latin1(raw: &[u8]) -> String {
    raw.iter().map(|&b| char::from(b)).collect()
}

/// Joliet names are UCS-2 big-endian; unpaired surrogates become U+FFFD rather than an error.
fn ucs2(raw: &[u8]) -> String {
    let units = raw
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

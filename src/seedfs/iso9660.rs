//! ISO9660 (ECMA-119) reader: primary and Joliet volume descriptors, directory records, file
//! extents. Names come from Rock Ridge (see `susp`), else Joliet, else the plain ISO name.
//! Not supported: multi-extent and interleaved files, Rock Ridge deep-directory relocation (CL).

use super::iso9660_dir::{
    latin1, parse_record, plain_name, split_records, strip_version, system_use, ucs2, Entry,
    FLAG_MULTI_EXTENT, SECTOR,
};
use super::susp;
use super::{check_size, eq_ignore_case, prefix, split_path, SeedFs, SeedFsError, Volume};
use std::io::{self, Read, Seek};

/// Volume descriptors sit in 2048-byte sectors from sector 16, whatever the block size.
const FIRST_DESCRIPTOR: u64 = 16 * SECTOR as u64;
/// Real images have three or four descriptors; the cap bounds a missing terminator.
const MAX_DESCRIPTORS: u64 = 32;
/// Seed directories hold a handful of records; this bounds the buffer a forged size can ask for.
const MAX_DIR_BYTES: u64 = 4 << 20;

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
                    entry.is_link = info.symlink;
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
        let parts = split_path(path)?;
        for (i, part) in parts.iter().enumerate() {
            if !cur.is_dir {
                return Ok(None);
            }
            let plain = self.names == Names::Plain;
            match self.entries(&cur)?.into_iter().find(|e| {
                // The kernel maps plain ISO names to lower case; RR and Joliet keep case.
                if plain {
                    eq_ignore_case(&e.name, part)
                } else {
                    e.name == *part
                }
            }) {
                Some(e) if e.is_link => return Err(SeedFsError::Link(prefix(&parts, i + 1))),
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

//! FAT12/16/32 reader (Microsoft FAT specification): boot sector, FAT chains, directories
//! with long names (see `vfat_dir`), file contents. Case-insensitive lookups, as Linux's vfat.
//! Not supported: exFAT, writing, and FAT copies other than the first.

use super::vfat_bpb::{read_layout, Kind, Layout, Root};
use super::vfat_dir::{self, DirEntry};
use super::{check_size, eq_ignore_case, split_path, SeedFs, SeedFsError, Volume};
use std::collections::HashSet;
use std::io::{self, Read, Seek};

/// The specification caps a directory at 65536 entries of 32 bytes.
const MAX_DIR_BYTES: u64 = 65536 * 32;
/// Probing reads at most this much of the root directory, looking for the label entry.
const PROBE_ROOT_BYTES: u64 = 4096;

pub(crate) struct Fat<R> {
    vol: Volume<R>,
    l: Layout,
    /// One FAT sector, since chains mostly walk forward through the same sector.
    cache: Option<(u64, Vec<u8>)>,
}

pub(crate) fn probe<R: Read + Seek>(
    vol: &mut Volume<R>,
) -> Result<Option<Vec<String>>, SeedFsError> {
    let Some(l) = read_layout(vol)? else {
        return Ok(None);
    };
    // Like blkid, the root directory's label entry comes first: tools that relabel a volume
    // update it, while some leave the boot sector's copy stale.
    let (offset, len) = match l.root {
        Root::Fixed { offset, len } => (offset, len.min(PROBE_ROOT_BYTES)),
        Root::Chain(c) if (2..=l.max_cluster).contains(&c) => (
            l.data_offset + u64::from(c - 2) * l.cluster_bytes,
            l.cluster_bytes.min(PROBE_ROOT_BYTES),
        ),
        Root::Chain(_) => (0, 0),
    };
    let mut labels = Vec::new();
    if let Ok(data) = vol.read_vec(offset, len) {
        labels.extend(vfat_dir::parse(&data, l.kind == Kind::Fat32).label);
    }
    labels.extend(l.label.filter(|b| !labels.contains(b)));
    Ok(Some(labels))
}

impl<R: Read + Seek> Fat<R> {
    pub(crate) fn open(mut vol: Volume<R>) -> Result<Fat<R>, SeedFsError> {
        let l = read_layout(&mut vol)?
            .ok_or_else(|| SeedFsError::Corrupt("FAT boot sector is not consistent".into()))?;
        Ok(Fat {
            vol,
            l,
            cache: None,
        })
    }

    fn fat_byte(&mut self, at: u64) -> Result<u8, SeedFsError> {
        let (sector, within) = (at / self.l.bps, (at % self.l.bps) as usize);
        if self.cache.as_ref().is_none_or(|(s, _)| *s != sector) {
            let off = self.l.fat_offset + sector * self.l.bps;
            self.cache = Some((sector, self.vol.read_vec(off, self.l.bps)?));
        }
        Ok(self.cache.as_ref().map_or(0, |(_, d)| d[within]))
    }

    /// The cluster after `c`, `None` at end of chain; free, bad or out-of-range links are
    /// corruption. `c` is always within 2..=max_cluster, so its FAT entry is within the FAT.
    fn next(&mut self, c: u32) -> Result<Option<u32>, SeedFsError> {
        let c64 = u64::from(c);
        let (v, eoc) = match self.l.kind {
            Kind::Fat12 => {
                let at = c64 + c64 / 2;
                let v = u32::from(self.fat_byte(at)?) | u32::from(self.fat_byte(at + 1)?) << 8;
                (if c % 2 == 1 { v >> 4 } else { v & 0xFFF }, 0xFF8)
            }
            Kind::Fat16 => {
                let v = u32::from(self.fat_byte(c64 * 2)?)
                    | u32::from(self.fat_byte(c64 * 2 + 1)?) << 8;
                (v, 0xFFF8)
            }
            Kind::Fat32 => {
                let mut v = 0u32;
                for i in 0..4 {
                    v |= u32::from(self.fat_byte(c64 * 4 + i)?) << (8 * i);
                }
                (v & 0x0FFF_FFFF, 0x0FFF_FFF8)
            }
        };
        match v {
            _ if v >= eoc => Ok(None),
            2.. if v <= self.l.max_cluster => Ok(Some(v)),
            _ => Err(SeedFsError::Corrupt(format!(
                "FAT entry of cluster {c} links to {v:#x}, outside 2..={}",
                self.l.max_cluster
            ))),
        }
    }

    /// Reads `want` bytes along the chain from `start`, or the whole chain when `want` is
    /// `None` (directories), stopping with `Corrupt` past `cap` bytes or on a loop.
    fn read_chain(
        &mut self,
        start: u32,
        want: Option<u64>,
        cap: u64,
    ) -> Result<Vec<u8>, SeedFsError> {
        let mut out = Vec::new();
        let mut cur = Some(start);
        let mut visited = HashSet::new();
        while let Some(c) = cur {
            if want.is_some_and(|w| out.len() as u64 >= w) {
                break;
            }
            if !(2..=self.l.max_cluster).contains(&c) {
                return Err(SeedFsError::Corrupt(format!(
                    "FAT cluster {c} is out of range"
                )));
            }
            // Reads stop at `want` or `cap`, so the set stays small; it catches a loop exactly,
            // where the count alone (a chain longer than the volume has clusters) is a backstop.
            if !visited.insert(c) || visited.len() as u64 > u64::from(self.l.max_cluster) {
                return Err(SeedFsError::Corrupt(format!(
                    "FAT cluster chain loops at cluster {c}"
                )));
            }
            if out.len() as u64 >= cap {
                return Err(SeedFsError::Corrupt(format!(
                    "FAT directory chain from cluster {start} exceeds {cap} bytes at cluster {c}"
                )));
            }
            let take = want.map_or(self.l.cluster_bytes, |w| {
                (w - out.len() as u64).min(self.l.cluster_bytes)
            });
            let off = self.l.data_offset + u64::from(c - 2) * self.l.cluster_bytes;
            out.extend(self.vol.read_vec(off, take)?);
            cur = self.next(c)?;
        }
        match want {
            Some(w) if (out.len() as u64) < w => Err(SeedFsError::Corrupt(format!(
                "FAT cluster chain from cluster {start} ends before the file's {w} bytes"
            ))),
            _ => Ok(out),
        }
    }

    fn entries(&mut self, dir: Option<&DirEntry>) -> Result<Vec<DirEntry>, SeedFsError> {
        Ok(self.directory(dir)?.entries)
    }

    fn directory(&mut self, dir: Option<&DirEntry>) -> Result<vfat_dir::Parsed, SeedFsError> {
        let data = match (dir, self.l.root) {
            (None, Root::Fixed { offset, len }) => self.vol.read_vec(offset, len)?,
            (None, Root::Chain(c)) => self.read_chain(c, None, MAX_DIR_BYTES)?,
            (Some(d), _) => self.read_chain(d.cluster, None, MAX_DIR_BYTES)?,
        };
        Ok(vfat_dir::parse(&data, self.l.kind == Kind::Fat32))
    }

    /// Resolves a path: `Some(None)` is the root, `Some(Some(e))` an entry, `None` missing.
    fn lookup(&mut self, path: &str) -> Result<Option<Option<DirEntry>>, SeedFsError> {
        let mut cur: Option<DirEntry> = None;
        for part in split_path(path)? {
            if cur.as_ref().is_some_and(|d| !d.is_dir) {
                return Ok(None);
            }
            let dir = self.directory(cur.as_ref())?;
            let found = dir
                .entries
                .into_iter()
                .find(|e| eq_ignore_case(&e.name, part) || eq_ignore_case(&e.short, part));
            match found {
                Some(e) => cur = Some(e),
                // A name not found where long names were damaged may be one of them: the
                // volume is corrupt, not without the file.
                None if !dir.bad_long_names.is_empty() => {
                    let shown: Vec<&str> = dir
                        .bad_long_names
                        .iter()
                        .take(8)
                        .map(String::as_str)
                        .collect();
                    return Err(SeedFsError::Corrupt(format!(
                        "no {part}, and the long names of {} do not match their checksums \
                         (the VFAT directory is damaged)",
                        shown.join(", ")
                    )));
                }
                None => return Ok(None),
            }
        }
        Ok(Some(cur))
    }
}

impl<R: Read + Seek> SeedFs for Fat<R> {
    fn read_file(&mut self, path: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, SeedFsError> {
        let Some(Some(e)) = self.lookup(path)? else {
            return Ok(None);
        };
        if e.is_dir {
            return Ok(None);
        }
        let size = u64::from(e.size);
        check_size(path, size, max_bytes)?;
        if size == 0 {
            return Ok(Some(Vec::new()));
        }
        let data_bytes = u64::from(self.l.max_cluster.saturating_sub(1)) * self.l.cluster_bytes;
        if size > data_bytes {
            return Err(SeedFsError::Corrupt(format!(
                "{path} claims {size} bytes, more than the volume's data area"
            )));
        }
        self.read_chain(e.cluster, Some(size), size).map(Some)
    }

    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, SeedFsError> {
        let dir = match self.lookup(path)? {
            Some(None) => None,
            Some(Some(d)) if d.is_dir => Some(d),
            _ => {
                return Err(SeedFsError::Io(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("no directory {path:?} on the seed volume"),
                )))
            }
        };
        Ok(self
            .entries(dir.as_ref())?
            .into_iter()
            .map(|e| e.name)
            .collect())
    }
}

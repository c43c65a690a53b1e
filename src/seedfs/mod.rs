//! Read-only readers for seed volumes (UDF 1.02-2.01, ISO9660 with Rock Ridge/Joliet,
//! FAT12/16/32 with long names) over any `Read + Seek`, plus label detection for ext2/3/4. No mounting, no kernel
//! modules, no writing; every on-disk number is treated as untrusted and bounds-checked.

mod ext;
mod iso9660;
mod iso9660_dir;
mod susp;
mod udf;
mod udf_desc;
mod udf_file;
mod udf_vds;
mod vfat;
mod vfat_bpb;
mod vfat_dir;

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod test_images;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod udf_images;
#[cfg(test)]
mod udf_tests;

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};
use std::time::Instant;

/// Deepest directory nesting a path may walk; seeds are at most a few levels deep.
pub(crate) const MAX_DEPTH: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsKind {
    Udf,
    Iso9660,
    Vfat,
    Ext,
}

/// What `probe` found: the filesystem and its non-empty labels (the first is the primary one).
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub kind: FsKind,
    pub labels: Vec<String>,
    /// The filesystem UUID as blkid shows it, where ember reads one (a VFAT serial).
    pub uuid: Option<String>,
}

/// What one volume session may cost, whatever the on-disk structures say: bytes read from the
/// device in all (a chain of continuation areas or a directory met again and again adds up,
/// even when each step is within its own bound) and a deadline, checked on every read.
#[derive(Clone, Copy, Debug)]
pub struct ReadBudget {
    pub max_bytes: u64,
    pub deadline: Option<Instant>,
}

impl ReadBudget {
    /// No limit but the structures' own bounds: for probing a few KiB, tests and the fuzzer.
    pub fn unlimited() -> ReadBudget {
        ReadBudget {
            max_bytes: u64::MAX,
            deadline: None,
        }
    }
}

#[derive(Debug)]
pub enum SeedFsError {
    Io(io::Error),
    NotRecognised,
    Unsupported(&'static str),
    /// What is wrong and where, e.g. "FAT cluster chain loops at cluster 7".
    Corrupt(String),
    TooLarge {
        path: String,
        size: u64,
        max_bytes: u64,
    },
    /// A symbolic link where a seed file or directory was looked up: never followed, since
    /// its target lies outside the volume (and reading the link as a file gives nothing).
    Link(String),
    /// The session read `max_bytes` from the device (`ReadBudget`) and wanted more.
    ReadBudget {
        max_bytes: u64,
    },
    /// The session's deadline passed while the volume was being read.
    Deadline,
}

impl fmt::Display for SeedFsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeedFsError::Io(e) => write!(f, "seed volume read failed: {e}"),
            SeedFsError::NotRecognised => {
                write!(f, "no UDF, ISO9660, VFAT or ext filesystem found")
            }
            SeedFsError::Unsupported(what) => write!(f, "unsupported: {what}"),
            SeedFsError::Corrupt(what) => write!(f, "corrupt seed volume: {what}"),
            SeedFsError::TooLarge {
                path,
                size,
                max_bytes,
            } => write!(
                f,
                "{path} is {size} bytes, over the limit of {max_bytes} bytes"
            ),
            SeedFsError::ReadBudget { max_bytes } => write!(
                f,
                "reading the volume took over {max_bytes} bytes from the device \
                 (continuation areas or directories read again and again?)"
            ),
            SeedFsError::Deadline => write!(f, "the volume was still being read at the deadline"),
            SeedFsError::Link(path) => write!(
                f,
                "{path} is a symbolic link; links on a seed volume are refused, not followed"
            ),
        }
    }
}

impl std::error::Error for SeedFsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SeedFsError::Io(e) => Some(e),
            _ => None,
        }
    }
}

pub trait SeedFs {
    /// Reads a file by path relative to the root ("meta-data", "openstack/latest/meta_data.json").
    /// Ok(None) when absent. Err(TooLarge) when the file is bigger than max_bytes (checked
    /// before anything is read or allocated).
    fn read_file(&mut self, path: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, SeedFsError>;
    /// Names in a directory ("" = root), for diagnostics.
    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, SeedFsError>;
}

fn vfat_uuid<R: Read + Seek>(vol: &mut Volume<R>) -> Option<String> {
    vfat_bpb::read_layout(vol).ok().flatten()?.serial
}

/// Identifies the filesystem on `dev` and its labels, reading only a few KiB.
/// `Ok(None)` means no known filesystem (including a device too short to hold one).
pub fn probe<R: Read + Seek>(dev: &mut R) -> io::Result<Option<Probe>> {
    let mut vol = match Volume::new(dev) {
        Ok(v) => v,
        Err(SeedFsError::Io(e)) => return Err(e),
        Err(_) => return Ok(None),
    };
    // A FAT boot sector written by a formatter comes first: mkfs.vfat over an old ISO seed
    // leaves the ISO's descriptors in the FAT data area, and the stale seed must not win.
    // Hybrid ISOs carry an MBR at offset 0, never a FAT BPB, so they still probe as ISO.
    match vfat_bpb::read_formatted(&mut vol) {
        Ok(true) => {
            if let Ok(Some(labels)) = vfat::probe(&mut vol) {
                let kind = FsKind::Vfat;
                let uuid = vfat_uuid(&mut vol);
                return Ok(Some(Probe { kind, labels, uuid }));
            }
        }
        Err(SeedFsError::Io(e)) => return Err(e),
        Ok(false) | Err(_) => {}
    }
    // UDF before ISO9660: a bridge disc carries both, and its UDF side is the one its maker
    // (Windows, for Azure's provisioning media) wrote with full names; the ISO side may hold
    // only 8.3 names. ISO next: its magic is the most specific. VFAT before ext, because offset
    // 1080 (the ext magic) lies inside a FAT12/16 file allocation table and may hold anything.
    type ProbeFn<R> = fn(&mut Volume<R>) -> Result<Option<Vec<String>>, SeedFsError>;
    let probes: [(FsKind, ProbeFn<&mut R>); 4] = [
        (FsKind::Udf, udf::probe),
        (FsKind::Iso9660, iso9660::probe),
        (FsKind::Vfat, vfat::probe),
        (FsKind::Ext, ext::probe),
    ];
    for (kind, probe_fn) in probes {
        match probe_fn(&mut vol) {
            Ok(Some(labels)) => {
                let uuid = (kind == FsKind::Vfat)
                    .then(|| vfat_uuid(&mut vol))
                    .flatten();
                return Ok(Some(Probe { kind, labels, uuid }));
            }
            Err(SeedFsError::Io(e)) => return Err(e),
            // A damaged structure under one magic does not rule out the next filesystem.
            Ok(None) | Err(_) => {}
        }
    }
    Ok(None)
}

/// `open_within` without a read budget (tests and the fuzzer).
pub fn open<R: Read + Seek + 'static>(dev: R) -> Result<Box<dyn SeedFs>, SeedFsError> {
    open_within(dev, ReadBudget::unlimited())
}

/// Opens a UDF, ISO9660 or VFAT seed volume for reading; an ext volume is `Unsupported`.
/// Every read from then on, by any reader, is charged to `budget`.
pub fn open_within<R: Read + Seek + 'static>(
    mut dev: R,
    budget: ReadBudget,
) -> Result<Box<dyn SeedFs>, SeedFsError> {
    let kind = match probe(&mut dev).map_err(SeedFsError::Io)? {
        Some(p) => p.kind,
        None => return Err(SeedFsError::NotRecognised),
    };
    let mut vol = Volume::new(dev)?;
    vol.budget = budget;
    match kind {
        FsKind::Udf => match udf::read_layout(&mut vol) {
            Ok(layout) => Ok(Box::new(udf::Udf::new(vol, layout)?)),
            // A bridge disc whose UDF side this reader refuses (a UDF 2.50 metadata partition)
            // still has a readable ISO9660 side.
            Err(SeedFsError::Unsupported(why)) => match iso9660::probe(&mut vol) {
                Ok(Some(_)) => Ok(Box::new(iso9660::Iso::open(vol)?)),
                _ => Err(SeedFsError::Unsupported(why)),
            },
            Err(e) => Err(e),
        },
        FsKind::Iso9660 => Ok(Box::new(iso9660::Iso::open(vol)?)),
        FsKind::Vfat => Ok(Box::new(vfat::Fat::open(vol)?)),
        FsKind::Ext => Err(SeedFsError::Unsupported(
            "ext filesystems are detected by label only, not read",
        )),
    }
}

/// A device with a known length, so every read can be checked against the end of the volume
/// before a buffer is sized from on-disk numbers.
/// It also charges every read to the session's `ReadBudget`: the one place all readers pass.
pub(crate) struct Volume<R> {
    dev: R,
    len: u64,
    budget: ReadBudget,
    /// Bytes read so far in this session.
    read: u64,
}

impl<R: Read + Seek> Volume<R> {
    pub(crate) fn new(mut dev: R) -> Result<Volume<R>, SeedFsError> {
        let len = dev.seek(SeekFrom::End(0)).map_err(SeedFsError::Io)?;
        Ok(Volume {
            dev,
            len,
            budget: ReadBudget::unlimited(),
            read: 0,
        })
    }

    /// Charges `n` bytes to the budget, refusing the read once it would go over or the
    /// deadline has passed.
    fn charge(&mut self, n: u64) -> Result<(), SeedFsError> {
        if self.budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(SeedFsError::Deadline);
        }
        let total = self.read.saturating_add(n);
        if total > self.budget.max_bytes {
            return Err(SeedFsError::ReadBudget {
                max_bytes: self.budget.max_bytes,
            });
        }
        self.read = total;
        Ok(())
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Fills `buf` from byte `offset`; a range past the end is `Corrupt`, not an I/O error,
    /// because it means an on-disk pointer is wrong (or the image is truncated).
    pub(crate) fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), SeedFsError> {
        let end = offset.checked_add(buf.len() as u64);
        if end.is_none_or(|end| end > self.len) {
            return Err(SeedFsError::Corrupt(format!(
                "{} bytes at offset {offset} lie past the end of the volume ({} bytes)",
                buf.len(),
                self.len
            )));
        }
        self.charge(buf.len() as u64)?;
        self.dev
            .seek(SeekFrom::Start(offset))
            .map_err(SeedFsError::Io)?;
        self.dev.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                SeedFsError::Corrupt(format!("volume ends early, reading at offset {offset}"))
            }
            _ => SeedFsError::Io(e),
        })
    }

    /// Reads `len` bytes at `offset` after checking the range lies on the volume, so a forged
    /// length can never allocate more than the volume holds.
    pub(crate) fn read_vec(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SeedFsError> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(SeedFsError::Corrupt(format!(
                "{len} bytes at offset {offset} lie past the end of the volume ({} bytes)",
                self.len
            )));
        }
        let len = usize::try_from(len).map_err(|_| {
            SeedFsError::Corrupt(format!(
                "{len} bytes at offset {offset} do not fit in memory"
            ))
        })?;
        let mut buf = vec![0u8; len];
        self.read_at(offset, &mut buf)?;
        Ok(buf)
    }
}

/// Splits a seed path into components, ignoring empty and "." parts; ".." and over-deep paths
/// are refused because a seed reader has no reason to climb or to descend without limit.
pub(crate) fn split_path(path: &str) -> Result<Vec<&str>, SeedFsError> {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(SeedFsError::Unsupported("'..' in a seed path"));
    }
    if parts.len() > MAX_DEPTH {
        return Err(SeedFsError::Unsupported(
            "seed path deeper than 16 directories",
        ));
    }
    Ok(parts)
}

/// The first `n` components of a split path, joined again, to name a link met on the way.
pub(crate) fn prefix(parts: &[&str], n: usize) -> String {
    parts[..n].join("/")
}

/// Refuses a file over the caller's budget before any buffer is sized from its length.
pub(crate) fn check_size(path: &str, size: u64, max_bytes: u64) -> Result<(), SeedFsError> {
    if size > max_bytes {
        return Err(SeedFsError::TooLarge {
            path: path.to_string(),
            size,
            max_bytes,
        });
    }
    Ok(())
}

/// Case-insensitive name match as VFAT and the kernel's plain-ISO mapping do it (Unicode
/// lowercase, so "É" matches "é" as Linux's vfat with utf8 does for common letters).
pub(crate) fn eq_ignore_case(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.eq_ignore_ascii_case(b)
        || a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
}

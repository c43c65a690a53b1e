//! System Use Sharing Protocol (SUSP 1.12) walker for ISO9660 records, extracting what the
//! reader needs from Rock Ridge (RRIP 1.12): SP, NM names (multi-part, across CE continuation
//! areas), RE, and whether the record is a symbolic link (SL, or a PX mode of S_IFLNK), so the
//! reader can refuse it. Permissions, timestamps and CL relocation are not interpreted.

use super::{SeedFsError, Volume};
use std::io::{Read, Seek};

/// One record's chain of continuation areas; real images use one at most. Bounds CE loops.
const MAX_CONTINUATIONS: usize = 16;
/// A continuation area lies within one logical block (SUSP 5.1); this is a generous cap.
const MAX_CE_BYTES: u64 = 64 * 1024;
/// Linux caps names at 255 bytes; anything far beyond is a forged NM chain.
const MAX_NAME_BYTES: usize = 4096;

#[derive(Default)]
pub(crate) struct Susp {
    /// The concatenated NM parts, when the record has any (and is not "." or "..").
    pub(crate) name: Option<String>,
    /// RE: a directory relocated under rr_moved, which readers hide.
    pub(crate) relocated: bool,
    /// Bytes to skip in every later record's area, from an SP entry (root "." record only).
    pub(crate) sp_skip: Option<usize>,
    /// SL, or PX with a symlink mode: the record is a symbolic link, its target off the volume.
    pub(crate) symlink: bool,
    /// Whether RRIP entries (ER, RR, PX, NM) were seen, i.e. Rock Ridge rather than bare SUSP.
    pub(crate) rock_ridge: bool,
}

/// Walks the entries of one system-use area, following CE continuation areas.
pub(crate) fn parse<R: Read + Seek>(
    vol: &mut Volume<R>,
    su: &[u8],
    block: u64,
    skip: usize,
) -> Result<Susp, SeedFsError> {
    let mut out = Susp::default();
    let mut name: Vec<u8> = Vec::new();
    let mut has_name = false;
    let mut area: Vec<u8> = su.get(skip..).unwrap_or(&[]).to_vec();
    let mut first_area = true;
    for _ in 0..=MAX_CONTINUATIONS {
        let mut next = None;
        let mut pos = 0;
        // An entry is at least signature, length and version; shorter tails are padding.
        while pos + 4 <= area.len() {
            let len = usize::from(area[pos + 2]);
            if len < 4 || pos + len > area.len() {
                break;
            }
            let e = &area[pos..pos + len];
            match &e[..2] {
                b"SP" if first_area && pos == 0 && len >= 7 && e[4..6] == [0xBE, 0xEF] => {
                    out.sp_skip = Some(usize::from(e[6]));
                }
                b"CE" if len >= 28 => {
                    let le32 = |at: usize| {
                        u64::from(u32::from_le_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]))
                    };
                    next = Some((le32(4) * block + le32(12), le32(20)));
                }
                b"NM" if len >= 5 => {
                    out.rock_ridge = true;
                    // CURRENT (2) and PARENT (4) name "." and ".."; those are skipped anyway.
                    if e[4] & 0x06 == 0 {
                        has_name = true;
                        name.extend_from_slice(&e[5..]);
                        if name.len() > MAX_NAME_BYTES {
                            return Err(SeedFsError::Corrupt(
                                "Rock Ridge NM name longer than 4096 bytes".into(),
                            ));
                        }
                    }
                }
                b"RE" => out.relocated = true,
                b"SL" => {
                    out.rock_ridge = true;
                    out.symlink = true;
                }
                b"PX" if len >= 12 => {
                    out.rock_ridge = true;
                    // File mode, both-endian; S_IFMT 0o170000, S_IFLNK 0o120000.
                    let mode = u32::from_le_bytes([e[4], e[5], e[6], e[7]]);
                    out.symlink |= mode & 0o170000 == 0o120000;
                }
                b"ER" | b"RR" | b"PX" => out.rock_ridge = true,
                b"ST" => break,
                _ => {}
            }
            pos += len;
        }
        let Some((offset, len)) = next else {
            out.name = has_name.then(|| String::from_utf8_lossy(&name).into_owned());
            return Ok(out);
        };
        if len > MAX_CE_BYTES {
            return Err(SeedFsError::Corrupt(format!(
                "Rock Ridge continuation area at offset {offset} claims {len} bytes"
            )));
        }
        area = vol.read_vec(offset, len)?;
        first_area = false;
    }
    Err(SeedFsError::Corrupt(format!(
        "Rock Ridge continuation areas chain more than {MAX_CONTINUATIONS} deep (a loop?)"
    )))
}

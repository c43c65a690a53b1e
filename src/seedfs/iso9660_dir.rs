//! ISO9660 directory records (ECMA-119 9.1) and the name forms readers show: plain ISO names
//! as Linux maps them, and Joliet UCS-2. Bounds-checks every record against its directory.

use super::SeedFsError;

/// Logical sectors are 2048 bytes on every ISO9660 volume; records never cross one.
pub(crate) const SECTOR: usize = 2048;
const FLAG_DIR: u8 = 0x02;
pub(crate) const FLAG_MULTI_EXTENT: u8 = 0x80;

#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) is_dir: bool,
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) flags: u8,
    pub(crate) interleaved: bool,
    /// A Rock Ridge symbolic link (see `susp`).
    pub(crate) is_link: bool,
}

/// Splits a directory extent into records, each checked to hold its name (ECMA-119 9.1).
pub(crate) fn split_records(data: &[u8], dir_offset: u64) -> Result<Vec<&[u8]>, SeedFsError> {
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
pub(crate) fn system_use(rec: &[u8]) -> &[u8] {
    let name_len = usize::from(rec[32]);
    rec.get(33 + name_len + (1 - name_len % 2)..).unwrap_or(&[])
}

/// Decodes the fixed part of a directory record (ECMA-119 9.1).
pub(crate) fn parse_record(rec: &[u8], block: u64, what: &str) -> Result<Entry, SeedFsError> {
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
        is_link: false,
    })
}

/// Plain ISO name as Linux shows it: version ";1" and a trailing "." gone, lower case.
pub(crate) fn plain_name(raw: &[u8]) -> String {
    strip_version(&latin1(raw)).to_lowercase()
}

pub(crate) fn strip_version(name: &str) -> String {
    let base = match name.rfind(';') {
        Some(i) if name[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &name[..i],
        _ => name,
    };
    base.strip_suffix('.').unwrap_or(base).to_string()
}

pub(crate) fn latin1(raw: &[u8]) -> String {
    raw.iter().map(|&b| char::from(b)).collect()
}

/// Joliet names are UCS-2 big-endian; unpaired surrogates become U+FFFD rather than an error.
pub(crate) fn ucs2(raw: &[u8]) -> String {
    let units = raw
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

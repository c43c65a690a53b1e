//! FAT directory entries (Microsoft FAT specification, sections 6 and 7): 8.3 short entries and
//! the VFAT long-name entries before them, accepted only when their checksum matches. A long
//! name whose checksum does not match its short entry is listed, so a lookup that misses can
//! say the directory is damaged rather than that the file is not there.

/// Attribute bits of a short entry.
const ATTR_VOLUME_ID: u8 = 0x08;
const ATTR_DIRECTORY: u8 = 0x10;
/// READ_ONLY | HIDDEN | SYSTEM | VOLUME_ID marks a long-name entry.
const ATTR_LONG_NAME: u8 = 0x0F;
const ENTRY: usize = 32;
/// A long name is at most 255 UTF-16 units, so at most 20 entries of 13.
const MAX_LFN_ENTRIES: usize = 20;
/// Where a long-name entry keeps its 13 UTF-16 units.
const LFN_UNITS: [usize; 13] = [1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30];

#[derive(Clone, Debug)]
pub(crate) struct DirEntry {
    /// The long name when present and valid, else the 8.3 name.
    pub(crate) name: String,
    /// The 8.3 alias, which Linux also accepts for lookups.
    pub(crate) short: String,
    pub(crate) is_dir: bool,
    pub(crate) cluster: u32,
    pub(crate) size: u32,
}

/// A long name being assembled: its units, the next ordinal expected and its checksum.
struct Lfn {
    units: Vec<u16>,
    next: usize,
    checksum: u8,
}

/// A directory's entries (without "." and ".."), its volume label entry if any, and the 8.3
/// names whose long name was there, whole, but failed its checksum.
pub(crate) struct Parsed {
    pub(crate) entries: Vec<DirEntry>,
    pub(crate) label: Option<String>,
    pub(crate) bad_long_names: Vec<String>,
}

/// Decodes a directory.
pub(crate) fn parse(data: &[u8], fat32: bool) -> Parsed {
    let mut bad_long_names = Vec::new();
    let mut out = Vec::new();
    let mut label = None;
    let mut lfn: Option<Lfn> = None;
    for e in data.chunks_exact(ENTRY) {
        match e[0] {
            0x00 => break, // no entries follow a free one
            0xE5 => {
                lfn = None;
                continue;
            }
            _ => {}
        }
        let attr = e[11];
        if attr & 0x3F == ATTR_LONG_NAME {
            lfn = long_entry(lfn.take(), e);
            continue;
        }
        let pending = lfn.take();
        if attr & ATTR_VOLUME_ID != 0 {
            if label.is_none() {
                label = Some(latin1(&e[..11]).trim_end().to_string()).filter(|l| !l.is_empty());
            }
            continue;
        }
        let short = short_name(e);
        if short.is_empty() || short == "." || short == ".." {
            continue;
        }
        let whole = pending.filter(|l| l.next == 0);
        if whole
            .as_ref()
            .is_some_and(|l| l.checksum != checksum(&e[..11]))
        {
            bad_long_names.push(short.clone());
        }
        let long = whole
            .filter(|l| l.checksum == checksum(&e[..11]))
            .map(|l| {
                let end = l
                    .units
                    .iter()
                    .position(|&u| u == 0)
                    .unwrap_or(l.units.len());
                char::decode_utf16(l.units[..end].iter().copied())
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect::<String>()
            })
            .filter(|n| !n.is_empty());
        let hi = if fat32 {
            u32::from(u16::from_le_bytes([e[20], e[21]])) << 16
        } else {
            0
        };
        out.push(DirEntry {
            name: long.unwrap_or_else(|| short.clone()),
            short,
            is_dir: attr & ATTR_DIRECTORY != 0,
            cluster: hi | u32::from(u16::from_le_bytes([e[26], e[27]])),
            size: u32::from_le_bytes([e[28], e[29], e[30], e[31]]),
        });
    }
    Parsed {
        entries: out,
        label,
        bad_long_names,
    }
}

/// Adds one long-name entry; an out-of-order or mismatched entry drops the partial name, so
/// the short entry that follows falls back to its 8.3 name as the specification asks.
fn long_entry(pending: Option<Lfn>, e: &[u8]) -> Option<Lfn> {
    let ord = usize::from(e[0] & 0x1F);
    let mut lfn = if e[0] & 0x40 != 0 {
        if ord == 0 || ord > MAX_LFN_ENTRIES {
            return None;
        }
        Lfn {
            units: vec![0xFFFF; ord * 13],
            next: ord,
            checksum: e[13],
        }
    } else {
        pending.filter(|l| l.next == ord && ord != 0 && l.checksum == e[13])?
    };
    let base = (ord - 1) * 13;
    for (i, &at) in LFN_UNITS.iter().enumerate() {
        lfn.units[base + i] = u16::from_le_bytes([e[at], e[at + 1]]);
    }
    lfn.next = ord - 1;
    Some(lfn)
}

/// The checksum of an 8.3 name that its long-name entries carry (FAT spec 7.2).
fn checksum(short: &[u8]) -> u8 {
    short
        .iter()
        .fold(0u8, |sum, &b| sum.rotate_right(1).wrapping_add(b))
}

/// "BASE.EXT", honouring the lower-case flags Windows NT keeps in byte 12 (as Linux does).
fn short_name(e: &[u8]) -> String {
    let mut raw = [0u8; 11];
    raw.copy_from_slice(&e[..11]);
    if raw[0] == 0x05 {
        raw[0] = 0xE5; // 0xE5 is a real first character stored as 0x05
    }
    let mut base = latin1(&raw[..8]).trim_end().to_string();
    let mut ext = latin1(&raw[8..]).trim_end().to_string();
    if e[12] & 0x08 != 0 {
        base = base.to_lowercase();
    }
    if e[12] & 0x10 != 0 {
        ext = ext.to_lowercase();
    }
    if ext.is_empty() {
        base
    } else {
        format!("{base}.{ext}")
    }
}

/// Short names are in an OEM code page; Latin-1 keeps ASCII exact and never fails.
pub(crate) fn latin1(raw: &[u8]) -> String {
    raw.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One long-name entry for `long` (up to 13 characters) and its short entry `short`, the
    /// long one carrying the checksum `skew` away from the right one.
    fn dir(long: &str, short: &[u8; 11], skew: u8) -> Vec<u8> {
        let mut lfn = [0xFFu8; ENTRY];
        lfn[0] = 0x41;
        lfn[11] = ATTR_LONG_NAME;
        lfn[12] = 0;
        lfn[13] = checksum(short).wrapping_add(skew);
        lfn[26..28].copy_from_slice(&[0, 0]);
        let mut units: Vec<u16> = long.encode_utf16().collect();
        units.push(0);
        for (i, &at) in LFN_UNITS.iter().enumerate() {
            if let Some(u) = units.get(i) {
                lfn[at..at + 2].copy_from_slice(&u.to_le_bytes());
            }
        }
        let mut e = [0u8; ENTRY];
        e[..11].copy_from_slice(short);
        e[11] = 0x20;
        [lfn.as_slice(), &e].concat()
    }

    #[test]
    fn long_names_whose_checksum_fails_are_listed() {
        let good = parse(&dir("meta-data", b"META-D~1   ", 0), false);
        assert_eq!(good.entries[0].name, "meta-data");
        assert!(good.bad_long_names.is_empty());
        let bad = parse(&dir("meta-data", b"META-D~1   ", 1), false);
        assert_eq!(bad.entries[0].name, "META-D~1");
        assert_eq!(bad.bad_long_names, ["META-D~1"]);
    }
}

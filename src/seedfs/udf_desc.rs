//! UDF (ECMA-167 / OSTA UDF) descriptor primitives: tag checks (identifier, checksum, CRC,
//! location), little-endian fields, allocation descriptors and OSTA compressed Unicode (CS0).
//! Pure functions over byte slices; nothing here reads the volume.

use super::SeedFsError;

pub(crate) const TAG_PVD: u16 = 1;
pub(crate) const TAG_AVDP: u16 = 2;
pub(crate) const TAG_VDP: u16 = 3;
pub(crate) const TAG_PD: u16 = 5;
pub(crate) const TAG_LVD: u16 = 6;
pub(crate) const TAG_TD: u16 = 8;
pub(crate) const TAG_FSD: u16 = 256;
pub(crate) const TAG_FID: u16 = 257;
pub(crate) const TAG_AED: u16 = 258;
pub(crate) const TAG_IE: u16 = 259;
pub(crate) const TAG_FE: u16 = 261;
pub(crate) const TAG_EFE: u16 = 266;

/// Reads a little-endian field; a field past the slice reads as zero, so a caller's length
/// check is the only guard needed and a missed one cannot panic.
pub(crate) fn le16(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}

pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

pub(crate) fn le64(b: &[u8], at: usize) -> u64 {
    u64::from(le32(b, at)) | u64::from(le32(b, at + 4)) << 32
}

/// CRC-ITU-T (polynomial 0x1021, initial value 0), as ECMA-167 7.2.6 defines the tag CRC.
pub(crate) fn crc_itu(data: &[u8]) -> u16 {
    data.iter().fold(0u16, |crc, &byte| {
        crc << 8 ^ CRC_TABLE[usize::from((crc >> 8) as u8 ^ byte)]
    })
}

/// The CRC of each byte value, so a directory's entries cost a lookup per byte, not eight steps.
const CRC_TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                crc << 1 ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

fn checksum_ok(b: &[u8]) -> bool {
    let sum = b[..4]
        .iter()
        .chain(&b[5..16])
        .fold(0u8, |s, &x| s.wrapping_add(x));
    sum == b[4]
}

/// The tag identifier when `b` starts with a tag whose checksum holds; `None` for anything else
/// (an unrecorded sector, random data).
pub(crate) fn tag_id(b: &[u8]) -> Option<u16> {
    (b.len() >= 16 && b[..16].iter().any(|&x| x != 0) && checksum_ok(b)).then(|| le16(b, 0))
}

/// Checks that `b` holds descriptor `want` recorded at `location` (a sector or a block in its
/// partition; `None` where writers disagree on it), with a valid checksum and CRC.
/// `what` names the descriptor and where it was read, for the error.
pub(crate) fn check_tag(
    b: &[u8],
    want: u16,
    location: Option<u32>,
    what: &dyn Fn() -> String,
) -> Result<(), SeedFsError> {
    let bad = |why: &str| Err(SeedFsError::Corrupt(format!("UDF {}: {why}", what())));
    if b.len() < 16 || !checksum_ok(b) {
        return bad("descriptor tag checksum mismatch");
    }
    let id = le16(b, 0);
    if id != want {
        return bad(&format!("tag identifier {id}, expected {want}"));
    }
    if let Some(loc) = location.filter(|&l| le32(b, 12) != l) {
        return bad(&format!("tag says it is at {}, read at {loc}", le32(b, 12)));
    }
    let crc_len = usize::from(le16(b, 10));
    match b.get(16..16 + crc_len) {
        Some(body) if crc_itu(body) == le16(b, 8) => Ok(()),
        Some(_) => bad("descriptor CRC mismatch"),
        None => bad(&format!("CRC length {crc_len} runs past the descriptor")),
    }
}

/// Extent types in the top two bits of an allocation descriptor's length (ECMA-167 4/14.14.1.1).
pub(crate) const EXT_RECORDED: u8 = 0;
pub(crate) const EXT_NEXT_ADS: u8 = 3;

/// A short_ad or long_ad: `len` bytes from logical block `lbn` of partition reference `part`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    pub(crate) len: u32,
    pub(crate) kind: u8,
    pub(crate) lbn: u32,
    pub(crate) part: u16,
}

/// long_ad (ECMA-167 4/14.14.2): length, lb_addr (block, partition reference), 6 bytes of use.
pub(crate) fn long_ad(b: &[u8]) -> Extent {
    let raw = le32(b, 0);
    Extent {
        len: raw & 0x3FFF_FFFF,
        kind: (raw >> 30) as u8,
        lbn: le32(b, 4),
        part: le16(b, 8),
    }
}

/// short_ad (ECMA-167 4/14.14.1): length and block; the partition is the one holding the ICB.
pub(crate) fn short_ad(b: &[u8], part: u16) -> Extent {
    let raw = le32(b, 0);
    Extent {
        len: raw & 0x3FFF_FFFF,
        kind: (raw >> 30) as u8,
        lbn: le32(b, 4),
        part,
    }
}

/// OSTA compressed Unicode (UDF 2.1.1): a compression ID (8 or 16; 254/255 in UDF 2.50 mean
/// the same widths) then Latin-1 bytes or UTF-16BE units. `None` for an unknown ID.
pub(crate) fn cs0(raw: &[u8]) -> Option<String> {
    let (&id, rest) = raw.split_first()?;
    match id {
        8 | 254 => Some(rest.iter().map(|&b| char::from(b)).collect()),
        16 | 255 => {
            let units = rest
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]));
            Some(
                char::decode_utf16(units)
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect(),
            )
        }
        _ => None,
    }
}

/// A dstring field (ECMA-167 1/7.2.12): CS0 bytes, with the used length in the last byte.
/// Labels are shown trimmed; an unknown compression ID gives an empty label.
pub(crate) fn dstring(field: &[u8]) -> String {
    let Some((&used, body)) = field.split_last() else {
        return String::new();
    };
    let used = usize::from(used).min(body.len());
    cs0(&body[..used])
        .unwrap_or_default()
        .trim_end_matches(['\0', ' '])
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matches_the_ecma_example() {
        // ECMA-167 7.2.6: the CRC of bytes 70 6A 77 is 0x3299.
        assert_eq!(crc_itu(&[0x70, 0x6A, 0x77]), 0x3299);
    }

    #[test]
    fn cs0_forms() {
        assert_eq!(cs0(b"\x08ovf-env.xml").as_deref(), Some("ovf-env.xml"));
        assert_eq!(cs0(b"\x10\x00a\x00\xe9").as_deref(), Some("aé"));
        assert_eq!(cs0(b"\x10\xd8\x00").as_deref(), Some("\u{fffd}"));
        assert_eq!(cs0(b"\x07abc"), None);
        assert_eq!(cs0(b""), None);
        let mut field = [0u8; 32];
        field[..9].copy_from_slice(b"\x08rd_rdfe_");
        field[31] = 9;
        assert_eq!(dstring(&field), "rd_rdfe_");
        field[31] = 200;
        assert_eq!(dstring(&field), "rd_rdfe_");
    }
}

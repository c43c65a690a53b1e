//! ext2/3/4 detection: reads the superblock's magic and volume name only. Files on ext volumes
//! are not read (seeds are ISO9660 or VFAT; an ext label is only evidence for detection).

use super::{SeedFsError, Volume};
use std::io::{Read, Seek};

/// The superblock starts 1024 bytes in, whatever the block size.
const SUPERBLOCK: u64 = 1024;
const MAGIC_OFFSET: usize = 56;
const EXT_MAGIC: u16 = 0xEF53;
const LOG_BLOCK_SIZE_OFFSET: usize = 24;
const VOLUME_NAME: std::ops::Range<usize> = 120..136;

pub(crate) fn probe<R: Read + Seek>(
    vol: &mut Volume<R>,
) -> Result<Option<Vec<String>>, SeedFsError> {
    if vol.len() < SUPERBLOCK + 1024 {
        return Ok(None);
    }
    let mut sb = [0u8; 256];
    vol.read_at(SUPERBLOCK, &mut sb)?;
    if u16::from_le_bytes([sb[MAGIC_OFFSET], sb[MAGIC_OFFSET + 1]]) != EXT_MAGIC {
        return Ok(None);
    }
    // Block sizes run from 1 KiB (0) to 64 KiB (6); anything else means the magic was chance.
    let log = &sb[LOG_BLOCK_SIZE_OFFSET..LOG_BLOCK_SIZE_OFFSET + 4];
    if u32::from_le_bytes([log[0], log[1], log[2], log[3]]) > 6 {
        return Ok(None);
    }
    let raw = &sb[VOLUME_NAME];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let label = String::from_utf8_lossy(&raw[..end]).trim().to_string();
    Ok(Some(if label.is_empty() {
        Vec::new()
    } else {
        vec![label]
    }))
}

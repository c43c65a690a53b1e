//! UDF volume structure (ECMA-167 parts 2 and 3): the volume recognition sequence, the Anchor
//! Volume Descriptor Pointer (which fixes the sector size) and the volume descriptor sequence
//! (Primary, Partition and Logical Volume Descriptors). Not supported: type 2 partition maps
//! (metadata, virtual, sparable), volumes whose logical block size differs from the sector size.

use super::udf_desc::{
    check_tag, dstring, le16, le32, long_ad, tag_id, Extent, TAG_AVDP, TAG_LVD, TAG_PD, TAG_PVD,
    TAG_TD, TAG_VDP,
};
use super::{SeedFsError, Volume};
use std::io::{Read, Seek};

/// The recognition sequence starts at byte 32768 whatever the sector size (ECMA-167 2/8.3).
const VRS_START: u64 = 32768;
/// Bridge discs put ISO9660 descriptors (a handful) before BEA01; the cap bounds garbage.
const MAX_VRS: u64 = 32;
/// Sector sizes tried, the optical one first.
const SECTOR_SIZES: [u32; 4] = [2048, 512, 4096, 1024];
/// A descriptor sequence is 16 sectors on real media; the caps bound forged pointers.
const MAX_VDS_SECTORS: u32 = 64;
const MAX_VDS_HOPS: u32 = 8;
const MAX_PARTITION_MAPS: u32 = 16;

/// The descriptors the reader needs, from the main or the reserve sequence.
pub(crate) struct Vds {
    pub(crate) sector: u32,
    pvd: Option<Vec<u8>>,
    lvd: Vec<u8>,
    pds: Vec<Vec<u8>>,
}

/// A partition reference resolved to where it lies on the volume.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Partition {
    pub(crate) start: u64,
    pub(crate) blocks: u32,
}

pub(crate) struct Layout {
    pub(crate) block: u32,
    /// Indexed by partition reference number (the partition map's position).
    pub(crate) parts: Vec<Partition>,
    pub(crate) fsd: Extent,
}

/// Reads `len` bytes at `offset`, or `None` when the volume is too short to hold them.
fn read_opt<R: Read + Seek>(
    vol: &mut Volume<R>,
    offset: u64,
    len: u64,
) -> Result<Option<Vec<u8>>, SeedFsError> {
    if offset.saturating_add(len) > vol.len() {
        return Ok(None);
    }
    vol.read_vec(offset, len).map(Some)
}

/// True when the recognition sequence, read with `stride` bytes per descriptor, holds BEA01
/// followed by NSR02 or NSR03 (ECMA-167 2/9, 3/9.1).
fn has_nsr<R: Read + Seek>(vol: &mut Volume<R>, stride: u64) -> Result<bool, SeedFsError> {
    let mut in_extended_area = false;
    for i in 0..MAX_VRS {
        let Some(d) = read_opt(vol, VRS_START + i * stride, 7)? else {
            return Ok(false);
        };
        match &d[1..6] {
            b"BEA01" => in_extended_area = true,
            b"NSR02" | b"NSR03" if in_extended_area => return Ok(true),
            b"CD001" | b"CDW02" | b"BOOT2" | b"NSR02" | b"NSR03" => {}
            b"TEA01" => in_extended_area = false,
            _ => return Ok(false),
        }
    }
    Ok(false)
}

/// The anchor at sector `at`, if one is recorded there (tag, checksum, CRC and location).
fn anchor_at<R: Read + Seek>(
    vol: &mut Volume<R>,
    sector: u32,
    at: u64,
) -> Result<Option<Vec<u8>>, SeedFsError> {
    let Ok(loc) = u32::try_from(at) else {
        return Ok(None);
    };
    let Some(d) = read_opt(vol, at * u64::from(sector), 512)? else {
        return Ok(None);
    };
    let valid =
        tag_id(&d) == Some(TAG_AVDP) && check_tag(&d, TAG_AVDP, Some(loc), &String::new).is_ok();
    Ok(valid.then_some(d))
}

/// Finds the sector size and the anchor: a recognition sequence at the size's stride and an
/// anchor at sector 256, else at the last sector or 256 before it (ECMA-167 3/8.4.2.1).
/// `Ok(None)` when the volume is not UDF.
pub(crate) fn recognise<R: Read + Seek>(
    vol: &mut Volume<R>,
) -> Result<Option<(u32, Vec<u8>)>, SeedFsError> {
    let (mut nsr_2048, mut nsr_4096) = (None, None);
    for sector in SECTOR_SIZES {
        // Recognition descriptors take max(2048, sector size) bytes each (ECMA-167 2/8.4).
        let cached = if sector <= 2048 {
            &mut nsr_2048
        } else {
            &mut nsr_4096
        };
        let stride = u64::from(sector.max(2048));
        let found = match *cached {
            Some(found) => found,
            None => *cached.insert(has_nsr(vol, stride)?),
        };
        if !found {
            continue;
        }
        let last = (vol.len() / u64::from(sector)).saturating_sub(1);
        for at in [256, last, last.saturating_sub(256)] {
            if let Some(anchor) = anchor_at(vol, sector, at)? {
                return Ok(Some((sector, anchor)));
            }
        }
    }
    Ok(None)
}

/// Reads one descriptor sequence starting with the extent_ad at `ad` in `from`.
fn read_sequence<R: Read + Seek>(
    vol: &mut Volume<R>,
    sector: u32,
    from: &[u8],
    ad: usize,
) -> Result<Vds, SeedFsError> {
    let mut vds = Vds {
        sector,
        pvd: None,
        lvd: Vec::new(),
        pds: Vec::new(),
    };
    let (mut len, mut loc) = (le32(from, ad), le32(from, ad + 4));
    let (mut hops, mut read) = (0, 0);
    while len >= sector && read < MAX_VDS_SECTORS {
        let d = vol.read_vec(u64::from(loc) * u64::from(sector), u64::from(sector))?;
        read += 1;
        if d[..16].iter().all(|&b| b == 0) {
            break; // an unrecorded sector ends the sequence (ECMA-167 3/8.4.2)
        }
        let id = le16(&d, 0);
        check_tag(&d, id, Some(loc), &|| {
            format!("volume descriptor at sector {loc}")
        })?;
        let newer = |old: &[u8]| le32(&d, 16) >= le32(old, 16);
        match id {
            TAG_PVD if vds.pvd.as_deref().is_none_or(newer) => vds.pvd = Some(d),
            TAG_LVD if vds.lvd.is_empty() || newer(&vds.lvd) => vds.lvd = d,
            TAG_PD => vds.pds.push(d),
            TAG_VDP if hops < MAX_VDS_HOPS => {
                hops += 1;
                (len, loc) = (le32(&d, 20), le32(&d, 24));
                continue;
            }
            TAG_TD | TAG_VDP => break,
            _ => {}
        }
        len -= sector;
        loc = loc.wrapping_add(1);
    }
    if vds.lvd.is_empty() {
        return Err(SeedFsError::Corrupt(
            "UDF volume descriptor sequence has no Logical Volume Descriptor".into(),
        ));
    }
    Ok(vds)
}

/// The main descriptor sequence, else the reserve one when the main is damaged.
pub(crate) fn read_vds<R: Read + Seek>(
    vol: &mut Volume<R>,
    sector: u32,
    anchor: &[u8],
) -> Result<Vds, SeedFsError> {
    read_sequence(vol, sector, anchor, 16).or_else(|main| {
        if matches!(main, SeedFsError::Io(_)) {
            return Err(main);
        }
        read_sequence(vol, sector, anchor, 24).map_err(|_| main)
    })
}

/// The logical volume identifier, then the primary volume identifier when it differs.
pub(crate) fn labels(vds: &Vds) -> Vec<String> {
    let mut labels = Vec::new();
    let pvd = vds.pvd.as_ref().map(|p| dstring(&p[24..56]));
    for label in [Some(dstring(&vds.lvd[84..212])), pvd]
        .into_iter()
        .flatten()
    {
        if !label.is_empty() && !labels.contains(&label) {
            labels.push(label);
        }
    }
    labels
}

fn type2_map(map: &[u8]) -> SeedFsError {
    let ident = map.get(5..28).unwrap_or_default();
    SeedFsError::Unsupported(if ident.starts_with(b"*UDF Metadata Partition") {
        "UDF metadata partitions (UDF 2.50 and later); only plain type 1 partitions are read"
    } else if ident.starts_with(b"*UDF Virtual Partition") {
        "UDF virtual partitions (VAT, write-once media); only plain type 1 partitions are read"
    } else if ident.starts_with(b"*UDF Sparable Partition") {
        "UDF sparable partitions (rewritable media); only plain type 1 partitions are read"
    } else {
        "UDF type 2 partition maps; only plain type 1 partitions are read"
    })
}

/// Resolves a type 1 partition map's partition number through its Partition Descriptor.
fn type1_partition(vds: &Vds, number: u16) -> Result<Partition, SeedFsError> {
    let pd = vds
        .pds
        .iter()
        .find(|pd| le16(pd, 22) == number)
        .ok_or_else(|| {
            SeedFsError::Corrupt(format!(
                "UDF partition {number} has no Partition Descriptor"
            ))
        })?;
    Ok(Partition {
        start: u64::from(le32(pd, 188)) * u64::from(vds.sector),
        blocks: le32(pd, 192),
    })
}

/// The Logical Volume Descriptor's block size, partition maps and File Set Descriptor address.
pub(crate) fn layout(vds: &Vds) -> Result<Layout, SeedFsError> {
    let lvd = &vds.lvd;
    let block = le32(lvd, 212);
    if block != vds.sector {
        return Err(SeedFsError::Unsupported(
            "UDF logical block size different from the sector size",
        ));
    }
    let (table_len, count) = (le32(lvd, 264) as usize, le32(lvd, 268));
    let table = lvd
        .get(440..440 + table_len)
        .filter(|_| count <= MAX_PARTITION_MAPS);
    let Some(table) = table else {
        return Err(SeedFsError::Corrupt(format!(
            "UDF logical volume has {count} partition maps in {table_len} bytes"
        )));
    };
    let mut parts = Vec::new();
    let mut pos = 0;
    for i in 0..count {
        let map = table.get(pos..).unwrap_or_default();
        let len = usize::from(*map.get(1).unwrap_or(&0));
        match (map.first(), map.get(..len)) {
            (Some(1), Some(m)) if len >= 6 => parts.push(type1_partition(vds, le16(m, 4))?),
            (Some(2), Some(m)) if len >= 28 => return Err(type2_map(m)),
            _ => {
                return Err(SeedFsError::Corrupt(format!(
                    "UDF partition map {i} is malformed"
                )))
            }
        }
        pos += len;
    }
    Ok(Layout {
        block,
        parts,
        fsd: long_ad(&lvd[248..264]),
    })
}

//! UDF file structure (ECMA-167 part 4): File Entries and Extended File Entries with their
//! allocation descriptors or embedded data, and the File Identifier Descriptors of a
//! directory. Pure parsing of one block or one directory's bytes; `udf` does the reading.

use super::udf_desc::{
    check_tag, cs0, le16, le32, le64, long_ad, short_ad, Extent, EXT_NEXT_ADS, TAG_EFE, TAG_FE,
    TAG_FID,
};
use super::SeedFsError;

const FILE_TYPE_DIR: u8 = 4;
/// ECMA-167 4/14.6.6: a symbolic link, whose body is a path (usually off the volume).
const FILE_TYPE_SYMLINK: u8 = 12;
const FID_DELETED: u8 = 0x04;
const FID_PARENT: u8 = 0x08;
/// Fixed part of a File Identifier Descriptor before its implementation use and name.
const FID_FIXED: usize = 38;

/// Where a file's bytes are: inside its ICB, or in extents on the volume.
#[derive(Debug)]
pub(crate) enum Body {
    Embedded(Vec<u8>),
    Extents {
        extents: Vec<Extent>,
        /// A further Allocation Extent Descriptor to read (extent type 3).
        next: Option<Extent>,
        /// The descriptor form, which Allocation Extent Descriptors share with the entry.
        form: AdForm,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum AdForm {
    /// short_ads, in the partition holding the ICB.
    Short(u16),
    Long,
}

#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) is_dir: bool,
    pub(crate) is_link: bool,
    pub(crate) size: u64,
    pub(crate) body: Body,
}

/// One directory entry; parent and deleted entries are never returned.
#[derive(Clone, Debug)]
pub(crate) struct Fid {
    pub(crate) name: String,
    pub(crate) icb: Extent,
}

/// Parses the File Entry or Extended File Entry in `block`, recorded at block `lbn` of
/// partition reference `part` (used for the tag check and for short_ads).
pub(crate) fn parse_entry(block: &[u8], lbn: u32, part: u16) -> Result<Node, SeedFsError> {
    let what = || format!("file entry at block {lbn} of partition {part}");
    // The tag decides the layout: FE (ECMA-167 4/14.9) or EFE (4/14.17).
    let (tag, ea_at, fixed): (u16, usize, usize) = match le16(block, 0) {
        TAG_EFE => (TAG_EFE, 208, 216),
        _ => (TAG_FE, 168, 176),
    };
    check_tag(block, tag, Some(lbn), &what)?;
    let (l_ea, l_ad) = (le32(block, ea_at) as usize, le32(block, ea_at + 4) as usize);
    let ads = fixed
        .checked_add(l_ea)
        .and_then(|start| Some(start..start.checked_add(l_ad)?))
        .and_then(|range| block.get(range))
        .ok_or_else(|| {
            SeedFsError::Corrupt(format!(
                "UDF {}: extended attributes ({l_ea} bytes) and allocation descriptors \
                 ({l_ad} bytes) overrun the block",
                what()
            ))
        })?;
    let size = le64(block, 56);
    let flags = le16(block, 34);
    let body = match flags & 7 {
        0 => extents_body(ads, AdForm::Short(part)),
        1 => extents_body(ads, AdForm::Long),
        3 => {
            if size > ads.len() as u64 {
                return Err(SeedFsError::Corrupt(format!(
                    "UDF {}: {size} bytes claimed, {} embedded",
                    what(),
                    ads.len()
                )));
            }
            Body::Embedded(ads[..size as usize].to_vec())
        }
        _ => {
            return Err(SeedFsError::Unsupported(
                "UDF extended allocation descriptors",
            ))
        }
    };
    Ok(Node {
        is_dir: block.get(27) == Some(&FILE_TYPE_DIR),
        is_link: block.get(27) == Some(&FILE_TYPE_SYMLINK),
        size,
        body,
    })
}

fn extents_body(ads: &[u8], form: AdForm) -> Body {
    let (extents, next) = parse_ads(ads, form);
    Body::Extents {
        extents,
        next,
        form,
    }
}

/// Splits an allocation descriptor area (in a file entry or an Allocation Extent Descriptor)
/// into extents, and the next area when extent type 3 points at one; a zero length ends it.
pub(crate) fn parse_ads(ads: &[u8], form: AdForm) -> (Vec<Extent>, Option<Extent>) {
    let width = match form {
        AdForm::Short(_) => 8,
        AdForm::Long => 16,
    };
    let mut extents = Vec::new();
    for raw in ads.chunks_exact(width) {
        let ext = match form {
            AdForm::Short(part) => short_ad(raw, part),
            AdForm::Long => long_ad(raw),
        };
        if ext.len == 0 {
            break;
        }
        if ext.kind == EXT_NEXT_ADS {
            return (extents, Some(ext));
        }
        extents.push(ext);
    }
    (extents, None)
}

/// Splits a directory's bytes into its File Identifier Descriptors (ECMA-167 4/14.4).
/// `dir` names the directory for errors.
pub(crate) fn parse_fids(data: &[u8], dir: &str) -> Result<Vec<Fid>, SeedFsError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + FID_FIXED <= data.len() {
        let fid = &data[pos..];
        let (l_fi, l_iu) = (usize::from(fid[19]), usize::from(le16(fid, 36)));
        let used = FID_FIXED + l_iu + l_fi;
        // Each descriptor is padded to a multiple of four bytes (4/14.4.9).
        let total = (used + 3) & !3;
        let what = || format!("directory entry at byte {pos} of {dir}");
        check_tag(&fid[..total.min(fid.len())], TAG_FID, None, &what)?;
        if used > fid.len() {
            return Err(SeedFsError::Corrupt(format!(
                "UDF {}: runs past the end of the directory",
                what()
            )));
        }
        pos += total;
        let chars = fid[18];
        if chars & (FID_DELETED | FID_PARENT) != 0 {
            continue;
        }
        let Some(name) = cs0(&fid[FID_FIXED + l_iu..used]).filter(|n| !n.is_empty()) else {
            continue; // an unreadable name cannot be looked up; Linux skips it too
        };
        out.push(Fid {
            name,
            icb: long_ad(&fid[20..36]),
        });
    }
    Ok(out)
}

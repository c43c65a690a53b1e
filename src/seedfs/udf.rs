//! UDF reader (ECMA-167 as profiled by OSTA UDF 1.02-2.01), for Azure's provisioning media:
//! the File Set Descriptor's root directory, File Entries and Extended File Entries (short_ad,
//! long_ad, embedded data, Allocation Extent Descriptors) and directory entries. Volume
//! structure lives in `udf_vds`, descriptor parsing in `udf_desc` and `udf_file`.
//! Not supported: type 2 partitions (UDF 2.50 metadata, VAT, sparing), named streams, writing.

use super::udf_desc::{
    check_tag, le32, long_ad, tag_id, Extent, EXT_RECORDED, TAG_AED, TAG_FSD, TAG_IE,
};
use super::udf_file::{parse_ads, parse_entry, parse_fids, AdForm, Body, Fid, Node};
use super::udf_vds::{labels, layout, read_vds, recognise, Layout};
use super::{check_size, eq_ignore_case, prefix, split_path, SeedFs, SeedFsError, Volume};
use std::io::{self, Read, Seek};

/// Seed directories hold a handful of entries; this bounds the buffer a forged size can ask for.
const MAX_DIR_BYTES: u64 = 4 << 20;
/// Bounds on chains a forged volume could make endless.
const MAX_INDIRECT: usize = 8;
const MAX_AEDS: usize = 256;
const MAX_EXTENTS: usize = 4096;

pub(crate) struct Udf<R> {
    vol: Volume<R>,
    layout: Layout,
    root: Extent,
}

/// The volume's labels when it is UDF: `Ok(None)` when there is no UDF recognition sequence
/// and anchor, an error when there is one but its descriptors are damaged.
pub(crate) fn probe<R: Read + Seek>(
    vol: &mut Volume<R>,
) -> Result<Option<Vec<String>>, SeedFsError> {
    let Some((sector, anchor)) = recognise(vol)? else {
        return Ok(None);
    };
    Ok(Some(labels(&read_vds(vol, sector, &anchor)?)))
}

/// Reads the volume structure down to the partitions, before the reader owns the device, so
/// a caller can fall back to another filesystem on the same device when this one is refused.
pub(crate) fn read_layout<R: Read + Seek>(vol: &mut Volume<R>) -> Result<Layout, SeedFsError> {
    let (sector, anchor) = recognise(vol)?.ok_or(SeedFsError::NotRecognised)?;
    layout(&read_vds(vol, sector, &anchor)?)
}

impl<R: Read + Seek> Udf<R> {
    pub(crate) fn new(vol: Volume<R>, layout: Layout) -> Result<Udf<R>, SeedFsError> {
        let fsd_at = layout.fsd;
        let mut udf = Udf {
            vol,
            layout,
            root: fsd_at,
        };
        let fsd = udf.read_block(&fsd_at)?;
        let what = || format!("File Set Descriptor at block {}", fsd_at.lbn);
        check_tag(&fsd, TAG_FSD, Some(fsd_at.lbn), &what)?;
        udf.root = long_ad(&fsd[400..416]);
        if !udf.read_node(udf.root)?.is_dir {
            return Err(SeedFsError::Corrupt(
                "UDF root directory entry is not a directory".into(),
            ));
        }
        Ok(udf)
    }

    /// Byte offset of an extent, checked to lie inside its partition.
    fn addr(&self, ext: &Extent) -> Result<u64, SeedFsError> {
        let part = self
            .layout
            .parts
            .get(usize::from(ext.part))
            .ok_or_else(|| {
                SeedFsError::Corrupt(format!(
                    "UDF partition reference {} is not mapped",
                    ext.part
                ))
            })?;
        let block = u64::from(self.layout.block);
        let blocks = u64::from(ext.len).div_ceil(block).max(1);
        if u64::from(ext.lbn) + blocks > u64::from(part.blocks) {
            return Err(SeedFsError::Corrupt(format!(
                "UDF extent at block {} of partition {} ({} bytes) runs past the partition's {} \
                 blocks",
                ext.lbn, ext.part, ext.len, part.blocks
            )));
        }
        Ok(part.start + u64::from(ext.lbn) * block)
    }

    fn read_block(&mut self, at: &Extent) -> Result<Vec<u8>, SeedFsError> {
        let block = Extent {
            len: self.layout.block,
            ..*at
        };
        let offset = self.addr(&block)?;
        self.vol.read_vec(offset, u64::from(self.layout.block))
    }

    /// The file entry an ICB points at, through any Indirect Entries (strategy 4096).
    fn read_node(&mut self, mut icb: Extent) -> Result<Node, SeedFsError> {
        for _ in 0..MAX_INDIRECT {
            let block = self.read_block(&icb)?;
            if tag_id(&block) != Some(TAG_IE) {
                return parse_entry(&block, icb.lbn, icb.part);
            }
            let what = || format!("indirect entry at block {}", icb.lbn);
            check_tag(&block, TAG_IE, Some(icb.lbn), &what)?;
            icb = long_ad(&block[36..52]);
        }
        Err(SeedFsError::Corrupt(format!(
            "UDF indirect entries chain past {MAX_INDIRECT} hops at block {}",
            icb.lbn
        )))
    }

    /// All of a file's extents, following Allocation Extent Descriptors from `next`.
    fn all_extents(
        &mut self,
        mut extents: Vec<Extent>,
        mut next: Option<Extent>,
        form: AdForm,
        what: &str,
    ) -> Result<Vec<Extent>, SeedFsError> {
        for _ in 0..MAX_AEDS {
            let Some(aed) = next else {
                return Ok(extents);
            };
            let block = self.read_block(&aed)?;
            let at = || format!("allocation extent of {what} at block {}", aed.lbn);
            check_tag(&block, TAG_AED, Some(aed.lbn), &at)?;
            let l_ad = le32(&block, 20) as usize;
            let Some(ads) = block.get(24..24usize.saturating_add(l_ad)) else {
                return Err(SeedFsError::Corrupt(format!(
                    "UDF {}: {l_ad} bytes of descriptors overrun the block",
                    at()
                )));
            };
            let (more, after) = parse_ads(ads, form);
            if extents.len() + more.len() > MAX_EXTENTS {
                return Err(SeedFsError::Corrupt(format!(
                    "UDF {what} has over {MAX_EXTENTS} extents"
                )));
            }
            extents.extend(more);
            next = after;
        }
        Err(SeedFsError::Corrupt(format!(
            "UDF {what} chains over {MAX_AEDS} allocation extents"
        )))
    }

    /// A file's bytes; the caller has checked its size against its budget.
    fn read_body(&mut self, node: Node, what: &str) -> Result<Vec<u8>, SeedFsError> {
        let extents = match node.body {
            Body::Embedded(data) => return Ok(data),
            Body::Extents {
                extents,
                next,
                form,
            } => self.all_extents(extents, next, form, what)?,
        };
        let size = usize::try_from(node.size)
            .ok()
            .filter(|_| node.size <= self.vol.len())
            .ok_or_else(|| {
                SeedFsError::Corrupt(format!(
                    "UDF {what} claims {} bytes on a volume of {}",
                    node.size,
                    self.vol.len()
                ))
            })?;
        let mut buf = vec![0u8; size];
        let mut pos = 0;
        for ext in &extents {
            if pos == size {
                break;
            }
            let n = (ext.len as usize).min(size - pos);
            // Allocated-but-unrecorded and unallocated extents read as zeros (ECMA-167 4/12.1).
            if ext.kind == EXT_RECORDED {
                let offset = self.addr(ext)?;
                self.vol.read_at(offset, &mut buf[pos..pos + n])?;
            }
            pos += n;
        }
        if pos < size {
            return Err(SeedFsError::Corrupt(format!(
                "UDF {what}: extents hold {pos} of its {size} bytes"
            )));
        }
        Ok(buf)
    }

    fn entries(&mut self, dir: Node, what: &str) -> Result<Vec<Fid>, SeedFsError> {
        if dir.size > MAX_DIR_BYTES {
            return Err(SeedFsError::Corrupt(format!(
                "UDF directory {what} claims {} bytes",
                dir.size
            )));
        }
        let data = self.read_body(dir, what)?;
        parse_fids(&data, what)
    }

    /// Walks `path` from the root: exact names first, then case-insensitively (Windows writes
    /// the media; cloud-init asks for `ovf-env.xml` whatever its case on the disc).
    fn lookup(&mut self, path: &str) -> Result<Option<Node>, SeedFsError> {
        let mut node = self.read_node(self.root)?;
        let mut seen = vec![(self.root.part, self.root.lbn)];
        let mut walked = String::from("/");
        let parts = split_path(path)?;
        for (i, part) in parts.iter().enumerate() {
            if !node.is_dir {
                return Ok(None);
            }
            let fids = self.entries(node, &walked)?;
            let found = fids
                .iter()
                .find(|f| f.name == *part)
                .or_else(|| fids.iter().find(|f| eq_ignore_case(&f.name, part)));
            let Some(fid) = found else {
                return Ok(None);
            };
            walked.push_str(&fid.name);
            walked.push('/');
            let at = (fid.icb.part, fid.icb.lbn);
            if seen.contains(&at) {
                return Err(SeedFsError::Corrupt(format!(
                    "UDF directory loop: {walked} points back at block {} of partition {}",
                    at.1, at.0
                )));
            }
            seen.push(at);
            node = self.read_node(fid.icb)?;
            if node.is_link {
                return Err(SeedFsError::Link(prefix(&parts, i + 1)));
            }
        }
        Ok(Some(node))
    }
}

impl<R: Read + Seek> SeedFs for Udf<R> {
    fn read_file(&mut self, path: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, SeedFsError> {
        match self.lookup(path)? {
            Some(node) if !node.is_dir => {
                check_size(path, node.size, max_bytes)?;
                self.read_body(node, path).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, SeedFsError> {
        match self.lookup(path)? {
            Some(dir) if dir.is_dir => Ok(self
                .entries(dir, path)?
                .into_iter()
                .map(|f| f.name)
                .collect()),
            _ => Err(SeedFsError::Io(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no directory {path:?} on the seed volume"),
            ))),
        }
    }
}

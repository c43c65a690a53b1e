//! Test support: UDF images made by mkudffs (udftools) with a seed tree written into them here.
//! mkudffs makes the volume (recognition sequence, anchors, descriptor sequences, File Set
//! Descriptor, root entry) but cannot add files, and this kernel has no UDF driver to mount
//! one, so this small writer adds File Entries and directory entries to the real volume.

use super::test_images::{self as img, TempDir};
use super::udf_desc::crc_itu;
use std::process::Command;

pub(super) const OVF: &[u8] = b"<?xml version=\"1.0\"?>\n<Environment>seed</Environment>\n";
/// Directory entries added to the root so that it spans several blocks.
pub(super) const PADDING: usize = 48;

/// How the writer records files and directories.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Ads {
    /// Data inside the entry when it fits (mkudffs's default for the root), else short_ads.
    Inline,
    Short,
    /// long_ads, at most three in an entry and the rest in Allocation Extent Descriptors.
    Long,
}

/// The files the tests read back: the usual seed files, Azure's ovf-env.xml and a name that
/// needs 16-bit compressed Unicode.
pub(super) fn files() -> Vec<(String, Vec<u8>)> {
    let mut files = img::seed_files();
    files.push(("ovf-env.xml".into(), OVF.to_vec()));
    files.push(("ünïcødé-名前.txt".into(), b"wide name\n".to_vec()));
    files
}

/// Runs mkudffs on a new image of `blocks` blocks; `None` (after a SKIP line) without it.
pub(super) fn mkudffs(args: &[&str], blocks: u32) -> Option<Vec<u8>> {
    let prog = img::tool("mkudffs")?;
    let tmp = TempDir::new("udf");
    let path = tmp.0.join("seed.udf");
    let out = Command::new(&prog)
        .args(["--new-file", "--label=rd_rdfe_seed"])
        .args(args)
        .arg(&path)
        .arg(blocks.to_string())
        .output()
        .expect("spawn mkudffs");
    assert!(
        out.status.success(),
        "mkudffs {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(path).ok()
}

/// An mkudffs image (UDF revision `rev`, `block`-byte blocks) holding `files()` and, in its
/// root, a deleted entry and `PADDING` more.
pub(super) fn seed(rev: &str, block: u32, ads: Ads) -> Option<Vec<u8>> {
    let args = ["-m", "hd", "-r", rev, "-b", &block.to_string()].map(String::from);
    let image = mkudffs(&args.each_ref().map(String::as_str), (2 << 20) / block)?;
    Some(populate(image, block, ads, &files(), PADDING))
}

/// Writes `files` into an mkudffs image whose blocks are `block` bytes.
pub(super) fn populate(
    image: Vec<u8>,
    block: u32,
    ads: Ads,
    files: &[(String, Vec<u8>)],
    padding: usize,
) -> Vec<u8> {
    let mut w = Writer::new(image, block as usize, ads);
    let tree = w.tree(files, "");
    let root = w.root_lbn();
    w.padding = padding;
    w.dir(&tree, root, root);
    w.image
}

pub(super) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Recomputes a descriptor's CRC (over its recorded CRC length) and its tag checksum, after a
/// test has patched it.
pub(super) fn reseal(d: &mut [u8]) {
    let crc_len = usize::from(u16::from_le_bytes([d[10], d[11]]));
    let crc = crc_itu(&d[16..16 + crc_len]);
    d[8..10].copy_from_slice(&crc.to_le_bytes());
    d[4] = 0;
    d[4] = d[..16].iter().fold(0u8, |s, &x| s.wrapping_add(x));
}

fn put(d: &mut [u8], at: usize, v: &[u8]) {
    d[at..at + v.len()].copy_from_slice(v);
}

/// A descriptor tag (ECMA-167 3/7.2) over `d`, whose whole length is covered by the CRC.
fn seal(d: &mut [u8], id: u16, version: u16, location: u32) {
    put(d, 0, &id.to_le_bytes());
    put(d, 2, &version.to_le_bytes());
    put(d, 10, &((d.len() - 16) as u16).to_le_bytes());
    put(d, 12, &location.to_le_bytes());
    reseal(d);
}

/// A node of the tree being written: a file's bytes or a directory's children.
enum Node {
    File(Vec<u8>),
    Dir(Vec<(String, Node)>),
}

struct Writer {
    image: Vec<u8>,
    block: usize,
    ads: Ads,
    part_start: usize,
    part_len: u32,
    /// The next block to hand out; every allocation skips one block so extents never join.
    next: u32,
    efe: bool,
    version: u16,
    padding: usize,
}

impl Writer {
    /// Finds the partition and the descriptor forms mkudffs chose, by scanning for tags.
    fn new(image: Vec<u8>, block: usize, ads: Ads) -> Writer {
        let tagged = |id: u16| {
            (0..image.len() / block)
                .map(|s| s * block)
                .find(|&o| image[o..o + 2] == id.to_le_bytes() && image[o + 5] == 0)
                .expect("descriptor written by mkudffs")
        };
        let pd = tagged(5);
        let (start, len) = (le32(&image, pd + 188), le32(&image, pd + 192));
        let version = u16::from_le_bytes([image[pd + 2], image[pd + 3]]);
        let mut w = Writer {
            part_start: start as usize * block,
            part_len: len,
            next: len / 2,
            efe: false,
            version,
            padding: 0,
            image,
            block,
            ads,
        };
        let root = w.root_lbn();
        w.efe = w.at(root)[..2] == 266u16.to_le_bytes();
        w
    }

    fn at(&mut self, lbn: u32) -> &mut [u8] {
        let o = self.part_start + lbn as usize * self.block;
        &mut self.image[o..o + self.block]
    }

    /// The root directory's block, from the File Set Descriptor's root ICB.
    fn root_lbn(&mut self) -> u32 {
        let fsd = (0..self.part_len)
            .find(|&b| self.at(b)[..2] == 256u16.to_le_bytes())
            .expect("File Set Descriptor");
        le32(self.at(fsd), 404)
    }

    fn alloc(&mut self) -> u32 {
        let lbn = self.next;
        self.next += 2;
        assert!(self.next < self.part_len, "test image too small");
        lbn
    }

    /// Arranges `files` (paths under `prefix`) into a tree.
    fn tree(&self, files: &[(String, Vec<u8>)], prefix: &str) -> Vec<(String, Node)> {
        let mut out: Vec<(String, Node)> = Vec::new();
        for (path, data) in files {
            let Some(rest) = path.strip_prefix(prefix) else {
                continue;
            };
            match rest.split_once('/') {
                None => out.push((rest.to_string(), Node::File(data.clone()))),
                Some((dir, _)) if !out.iter().any(|(n, _)| n == dir) => {
                    let sub = self.tree(files, &format!("{prefix}{dir}/"));
                    out.push((dir.to_string(), Node::Dir(sub)));
                }
                Some(_) => {}
            }
        }
        out
    }

    /// Writes a directory's children, then its entries and its File Entry at `lbn`.
    fn dir(&mut self, children: &[(String, Node)], lbn: u32, parent: u32) {
        let mut fids = fid(self.version, lbn, 0x0A, "", parent, 0);
        let mut first_file = None;
        for (name, node) in children {
            let (child, chars) = match node {
                Node::File(data) => (self.file(data), 0),
                Node::Dir(sub) => {
                    let at = self.alloc();
                    self.dir(sub, at, lbn);
                    (at, 0x02)
                }
            };
            first_file = first_file.or((chars == 0).then_some(child));
            fids.extend(fid(self.version, lbn, chars, name, child, 0));
        }
        if lbn == parent && self.padding > 0 {
            let hidden = first_file.expect("a file in the root");
            // A deleted entry the reader must not show, then padding so the root spans blocks.
            fids.extend(fid(self.version, lbn, 0x04, "deleted-file", hidden, 0));
            for i in 0..self.padding {
                let name = format!("padding-entry-{i:02}");
                let iu = if i % 2 == 1 { 32 } else { 0 };
                fids.extend(fid(self.version, lbn, 0, &name, hidden, iu));
            }
        }
        self.entry(lbn, 4, &fids);
    }

    fn file(&mut self, data: &[u8]) -> u32 {
        let lbn = self.alloc();
        self.entry(lbn, 5, data);
        lbn
    }

    /// A File Entry (or Extended File Entry, as mkudffs chose for the root) at `lbn`.
    fn entry(&mut self, lbn: u32, file_type: u8, data: &[u8]) {
        let fixed = if self.efe { 216 } else { 176 };
        let (flags, ads) = if self.ads == Ads::Inline && fixed + data.len() <= self.block {
            (3u16, data.to_vec())
        } else {
            self.extents(data)
        };
        let mut d = vec![0u8; fixed + ads.len()];
        put(&mut d, 20, &4u16.to_le_bytes()); // strategy 4
        put(&mut d, 24, &1u16.to_le_bytes());
        d[27] = file_type;
        put(&mut d, 34, &flags.to_le_bytes());
        put(&mut d, 44, &0x14A5u32.to_le_bytes()); // r-xr-xr-x in UDF's five-bit groups
        put(&mut d, 48, &1u16.to_le_bytes());
        put(&mut d, 56, &(data.len() as u64).to_le_bytes());
        if self.efe {
            put(&mut d, 64, &(data.len() as u64).to_le_bytes());
        }
        put(&mut d, fixed - 4, &(ads.len() as u32).to_le_bytes());
        put(&mut d, fixed, &ads);
        seal(&mut d, if self.efe { 266 } else { 261 }, self.version, lbn);
        put(self.at(lbn), 0, &d);
    }

    /// Writes `data` a block per extent and returns the ICB flags and descriptors for it.
    fn extents(&mut self, data: &[u8]) -> (u16, Vec<u8>) {
        let mut ads = Vec::new();
        for chunk in data.chunks(self.block) {
            let lbn = self.alloc();
            put(self.at(lbn), 0, chunk);
            ads.push((chunk.len() as u32, lbn));
        }
        match self.ads {
            Ads::Long => (1, self.long_ads(&ads)),
            _ => (
                0,
                ads.iter().flat_map(|&(len, lbn)| short(len, lbn)).collect(),
            ),
        }
    }

    /// At most three long_ads here; the rest go to an Allocation Extent Descriptor.
    fn long_ads(&mut self, ads: &[(u32, u32)]) -> Vec<u8> {
        let mut out: Vec<u8> = ads.iter().take(3).flat_map(|&(l, b)| long(l, b)).collect();
        if ads.len() > 3 {
            let aed = self.alloc();
            let rest = self.long_ads(&ads[3..]);
            let mut d = vec![0u8; 24 + rest.len()];
            put(&mut d, 20, &(rest.len() as u32).to_le_bytes());
            put(&mut d, 24, &rest);
            seal(&mut d, 258, self.version, aed);
            put(self.at(aed), 0, &d);
            out.extend(long(3 << 30 | self.block as u32, aed));
        }
        out
    }
}

fn short(len: u32, lbn: u32) -> Vec<u8> {
    [len.to_le_bytes(), lbn.to_le_bytes()].concat()
}

fn long(len: u32, lbn: u32) -> Vec<u8> {
    [&short(len, lbn)[..], &[0u8; 8]].concat()
}

/// CS0 for a name: 8-bit when every character fits, else 16-bit big-endian.
fn cs0(name: &str) -> Vec<u8> {
    if name.chars().all(|c| u32::from(c) < 256) {
        std::iter::once(8)
            .chain(name.chars().map(|c| c as u8))
            .collect()
    } else {
        std::iter::once(16)
            .chain(name.encode_utf16().flat_map(u16::to_be_bytes))
            .collect()
    }
}

/// A File Identifier Descriptor (ECMA-167 4/14.4) naming the entry at `icb`, with `iu` bytes
/// of implementation use before the name (some writers put their identifier there).
fn fid(version: u16, dir: u32, chars: u8, name: &str, icb: u32, iu: usize) -> Vec<u8> {
    let name = if name.is_empty() {
        Vec::new()
    } else {
        cs0(name)
    };
    let mut d = vec![0u8; (38 + iu + name.len() + 3) & !3];
    put(&mut d, 16, &1u16.to_le_bytes());
    d[18] = chars;
    d[19] = name.len() as u8;
    // The ICB's extent length is not used by readers; the entry is one block.
    put(&mut d, 20, &long(2048, icb));
    put(&mut d, 36, &(iu as u16).to_le_bytes());
    put(&mut d, 38, &vec![0xEE; iu]);
    put(&mut d, 38 + iu, &name);
    seal(&mut d, 257, version, dir);
    d
}

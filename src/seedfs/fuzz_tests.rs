//! Robustness tests: real images truncated at many lengths and corrupted by deterministic
//! pseudo-random byte changes in their metadata. Any panic, hang or huge allocation fails.

use super::test_images as img;
use super::udf_images::{self as udf, Ads};
use super::{open, probe};
use std::io::Cursor;
use std::ops::Range;

const MAX: u64 = 1 << 20;

/// splitmix64: deterministic, so a failure reproduces from the seed and iteration number.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Runs every reader operation; results are ignored, only panics matter.
fn exercise(image: Vec<u8>) {
    let _ = probe(&mut Cursor::new(&image));
    let Ok(mut fs) = open(Cursor::new(image)) else {
        return;
    };
    let mut paths: Vec<String> = img::seed_files().into_iter().map(|f| f.0).collect();
    paths.extend(
        [
            "meta_dat",
            "openstac/latest/meta_dat.jso",
            "x/y/z",
            "OVF-ENV.XML",
        ]
        .map(String::from),
    );
    paths.extend(fs.list_dir("").unwrap_or_default());
    for p in &paths {
        let _ = fs.read_file(p, MAX);
    }
    for d in [
        "",
        "openstack",
        "openstack/latest",
        "openstac",
        "openstac/latest",
    ] {
        let _ = fs.list_dir(d);
    }
}

/// Where the ISO's metadata lives: descriptors, path tables and directories follow sector 16.
fn iso_regions(image: &[u8]) -> Vec<Range<usize>> {
    let end = image.len().min(32768 + 96 * 1024);
    vec![32768..38912, 38912..end]
}

/// Boot sector, start of the first FAT, root directory and the first data clusters.
fn fat_regions(image: &[u8]) -> Vec<Range<usize>> {
    let le16 = |at: usize| usize::from(u16::from_le_bytes([image[at], image[at + 1]]));
    let le32 = |at: usize| {
        u32::from_le_bytes([image[at], image[at + 1], image[at + 2], image[at + 3]]) as usize
    };
    let (bps, rsvd, nfats) = (le16(11), le16(14), usize::from(image[16]));
    let fatsz = if le16(22) != 0 { le16(22) } else { le32(36) };
    let fat = rsvd * bps;
    let root = fat + nfats * fatsz * bps;
    let end = image.len().min(root + le16(17) * 32 + 32 * 1024);
    vec![0..512, fat..fat + 4096, root..end]
}

fn corrupt(name: &str, image: &[u8], regions: &[Range<usize>], iterations: usize, seed: u64) {
    let mut rng = Rng(seed);
    for i in 0..iterations {
        let mut copy = image.to_vec();
        for _ in 0..1 + rng.below(8) {
            let r = &regions[rng.below(regions.len())];
            let at = r.start + rng.below(r.len());
            copy[at] = match rng.below(4) {
                0 => 0x00,
                1 => 0xFF,
                _ => copy[at] ^ (1 + rng.below(255)) as u8,
            };
        }
        if i % 8 == 7 {
            let end = regions.last().map_or(copy.len(), |r| r.end);
            copy.truncate(rng.below(end));
        }
        eprintln!("{name} corruption iteration {i}");
        exercise(copy);
    }
}

fn truncate(image: &[u8], regions: &[Range<usize>]) {
    let end = regions.last().map_or(image.len(), |r| r.end);
    for len in (0..end).step_by(509).chain([end, image.len() - 1]) {
        exercise(image[..len].to_vec());
    }
}

fn run(name: &str, image: Option<Vec<u8>>, iso: bool, iterations: usize, seed: u64) {
    let Some(image) = image else { return };
    let regions = if iso {
        iso_regions(&image)
    } else {
        fat_regions(&image)
    };
    truncate(&image, &regions);
    corrupt(name, &image, &regions, iterations, seed);
}

#[test]
fn corrupted_iso_rock_ridge_joliet() {
    run(
        "iso-rr-joliet",
        img::iso(&["-V", "cidata", "-J", "-R"], true),
        true,
        400,
        1,
    );
}

#[test]
fn corrupted_iso_joliet_only() {
    run(
        "iso-joliet",
        img::iso(&["-V", "cidata", "--norock", "-J"], false),
        true,
        200,
        2,
    );
}

#[test]
fn corrupted_iso_plain() {
    let image = img::iso(&["-V", "CIDATA", "--norock", "-iso-level", "1"], false);
    run("iso-plain", image, true, 200, 3);
}

#[test]
fn corrupted_fat12() {
    run("fat12", img::fat("12", "2048", &[]), false, 400, 4);
}

#[test]
fn corrupted_fat16() {
    run("fat16", img::fat("16", "8192", &["-s", "2"]), false, 200, 5);
}

#[test]
fn corrupted_fat32() {
    run("fat32", img::fat("32", "40960", &[]), false, 100, 6);
}

/// Every block holding anything: the volume structure and the seed tree written into it.
fn udf_regions(image: &[u8], block: usize) -> Vec<Range<usize>> {
    let used = |(i, b): (usize, &[u8])| b.iter().any(|&x| x != 0).then_some(i * block);
    let starts = image.chunks(block).enumerate().filter_map(used);
    starts.map(|at| at..at + block).collect()
}

fn run_udf(name: &str, image: Option<Vec<u8>>, block: usize, seed: u64) {
    let Some(image) = image else { return };
    let regions = udf_regions(&image, block);
    // Cuts inside and at the edges of every recorded block; the image is mostly empty space.
    for r in &regions {
        for len in [r.start, r.start + 17, r.end - 1] {
            exercise(image[..len].to_vec());
        }
    }
    corrupt(name, &image, &regions, 300, seed);
}

#[test]
fn corrupted_udf_102_inline() {
    run_udf("udf-102", udf::seed("0x0102", 2048, Ads::Inline), 2048, 7);
}

#[test]
fn corrupted_udf_201_long_512() {
    run_udf("udf-201", udf::seed("0x0201", 512, Ads::Long), 512, 8);
}

#[test]
fn rock_ridge_continuation_loop_is_corrupt() {
    let Some(mut image) = img::iso(&["-V", "cidata", "-R"], true) else {
        return;
    };
    // Point every CE entry at itself: its continuation area is then the CE entry again.
    let mut patched = 0;
    for at in 0..image.len().saturating_sub(28) {
        if image[at..at + 4] == *b"CE\x1c\x01" {
            let (block, offset) = ((at / 2048) as u32, (at % 2048) as u32);
            image[at + 4..at + 8].copy_from_slice(&block.to_le_bytes());
            image[at + 12..at + 16].copy_from_slice(&offset.to_le_bytes());
            image[at + 20..at + 24].copy_from_slice(&28u32.to_le_bytes());
            patched += 1;
        }
    }
    assert!(
        patched > 0,
        "the long Rock Ridge name should need a CE area"
    );
    let err = match open(Cursor::new(image)) {
        Err(e) => e,
        Ok(mut fs) => fs.list_dir("").expect_err("looping CE must not list"),
    };
    assert!(err.to_string().contains("continuation"), "{err}");
}

//! UDF reader tests against mkudffs-made volumes holding a seed tree (see `udf_images`), and
//! against damaged copies of them: truncated, a bad tag checksum, a directory loop.

use super::udf_images::{self as udf, reseal, Ads, OVF, PADDING};
use super::{open, probe, FsKind, SeedFs, SeedFsError};
use std::io::Cursor;

const MAX: u64 = 1 << 20;

fn labels(image: &[u8]) -> Option<(FsKind, Vec<String>)> {
    probe(&mut Cursor::new(image))
        .expect("probe io")
        .map(|p| (p.kind, p.labels))
}

fn check_seed(fs: &mut dyn SeedFs) {
    for (name, data) in udf::files() {
        let got = fs
            .read_file(&name, MAX)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.as_deref(), Some(&data[..]), "contents of {name}");
    }
    // cloud-init asks for ovf-env.xml; the exact name wins, any case is found.
    for name in ["OVF-ENV.XML", "Ovf-Env.xml", "/ovf-env.xml"] {
        assert_eq!(fs.read_file(name, MAX).expect(name).as_deref(), Some(OVF));
    }
    assert!(fs
        .read_file("OpenStack/LATEST/meta_data.json", MAX)
        .expect("case-insensitive path")
        .is_some());
    for absent in [
        "absent",
        "deleted-file",
        "openstack/none/x",
        "meta-data/x",
        "openstack",
    ] {
        assert_eq!(fs.read_file(absent, MAX).expect(absent), None, "{absent}");
    }
    match fs.read_file("user-data", 100) {
        Err(SeedFsError::TooLarge { path, size, .. }) => {
            assert_eq!(path, "user-data");
            assert!(size > 4096, "user-data spans several blocks: {size}");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    let root = fs.list_dir("").expect("list root");
    for want in ["meta-data", "ovf-env.xml", "openstack", "ünïcødé-名前.txt"] {
        assert!(root.iter().any(|n| n == want), "{want} in {root:?}");
    }
    assert!(!root.iter().any(|n| n == "deleted-file" || n.is_empty()));
    assert_eq!(root.len(), udf::files().len() + PADDING, "{root:?}");
    let sub = fs.list_dir("openstack/latest").expect("list subdir");
    assert_eq!(sub, vec!["meta_data.json".to_string()]);
    assert!(fs.list_dir("no-such-dir").is_err());
    assert!(fs.list_dir("meta-data").is_err());
}

fn check_variant(rev: &str, block: u32, ads: Ads) {
    let Some(image) = udf::seed(rev, block, ads) else {
        return;
    };
    assert_eq!(
        labels(&image),
        Some((FsKind::Udf, vec!["rd_rdfe_seed".to_string()]))
    );
    let mut fs = open(Cursor::new(image)).expect("open");
    check_seed(fs.as_mut());
}

#[test]
fn udf_102_file_entries_inline_2048() {
    check_variant("0x0102", 2048, Ads::Inline);
}

#[test]
fn udf_201_extended_entries_short_ads_512() {
    check_variant("0x0201", 512, Ads::Short);
}

#[test]
fn udf_201_long_ads_and_allocation_extents_2048() {
    check_variant("0x0201", 2048, Ads::Long);
}

#[test]
fn udf_102_long_ads_4096() {
    check_variant("0x0102", 4096, Ads::Long);
}

#[test]
fn udf_201_inline_512() {
    check_variant("0x0201", 512, Ads::Inline);
}

#[test]
fn empty_mkudffs_volume_and_labels() {
    let args = [
        "-m",
        "hd",
        "-r",
        "0x0201",
        "--lvid=rd_rdfe_lv",
        "--vid=primary",
    ];
    let Some(image) = udf::mkudffs(&args, 600) else {
        return;
    };
    let want = vec!["rd_rdfe_lv".to_string(), "primary".to_string()];
    assert_eq!(labels(&image), Some((FsKind::Udf, want)));
    let mut fs = open(Cursor::new(image)).expect("open");
    assert_eq!(fs.list_dir("").expect("root"), Vec::<String>::new());
    assert_eq!(fs.read_file("ovf-env.xml", MAX).expect("absent"), None);
}

fn expect_unsupported(image: Vec<u8>, want: &str) {
    assert_eq!(labels(&image).map(|l| l.0), Some(FsKind::Udf));
    match open(Cursor::new(image)) {
        Err(SeedFsError::Unsupported(why)) => assert!(why.contains(want), "{why}"),
        Err(e) => panic!("expected Unsupported {want}, got {e}"),
        Ok(_) => panic!("expected Unsupported {want}"),
    }
}

#[test]
fn virtual_and_sparable_partitions_are_unsupported() {
    // mkudffs makes UDF 2.50 only for write-once media, with a virtual (VAT) partition.
    if let Some(image) = udf::mkudffs(&["-m", "bdr", "-r", "0x0250"], 4000) {
        expect_unsupported(image, "virtual partitions");
    }
    if let Some(image) = udf::mkudffs(&["-m", "cdrw", "--spartable"], 4000) {
        expect_unsupported(image, "sparable partitions");
    }
}

/// Replaces the volume's partition map by a type 1 and a UDF 2.50 metadata partition map,
/// which mkudffs cannot make.
fn add_metadata_map(image: &mut [u8]) {
    let main = udf::le32(image, 256 * 2048 + 20) as usize;
    let lvd = (main..main + 16)
        .map(|s| s * 2048)
        .find(|&o| image[o..o + 2] == [6, 0])
        .expect("Logical Volume Descriptor");
    let d = &mut image[lvd..lvd + 2048];
    let mut map = [0u8; 64];
    map[..2].copy_from_slice(&[2, 64]);
    map[5..28].copy_from_slice(b"*UDF Metadata Partition");
    d[446..510].copy_from_slice(&map);
    d[264..272].copy_from_slice(&[70, 0, 0, 0, 2, 0, 0, 0]);
    d[10..12].copy_from_slice(&(510u16 - 16).to_le_bytes());
    reseal(d);
}

#[test]
fn metadata_partition_is_unsupported() {
    let Some(mut image) = udf::mkudffs(&["-m", "hd", "-r", "0x0201", "-b", "2048"], 600) else {
        return;
    };
    add_metadata_map(&mut image);
    expect_unsupported(image, "metadata partitions (UDF 2.50");
}

/// Makes a bridge disc of an mkudffs volume: an ISO9660 primary descriptor (label ISOLABEL,
/// an empty root directory at sector 20) at sector 16, the UDF recognition sequence one sector
/// on (CD001, then BEA01, NSR02, TEA01), as bridge discs have it.
fn make_bridge(image: &mut [u8]) {
    image.copy_within(16 * 2048..19 * 2048, 17 * 2048);
    let root_record = |name: u8| {
        let mut r = [0u8; 34];
        r[0] = 34;
        r[2..10].copy_from_slice(&[20, 0, 0, 0, 0, 0, 0, 20]);
        r[10..18].copy_from_slice(&[0, 8, 0, 0, 0, 0, 8, 0]);
        r[25] = 2;
        r[32..34].copy_from_slice(&[1, name]);
        r
    };
    let pvd = &mut image[16 * 2048..17 * 2048];
    pvd.fill(0);
    pvd[..7].copy_from_slice(b"\x01CD001\x01");
    pvd[40..72].copy_from_slice(&[b' '; 32]);
    pvd[40..48].copy_from_slice(b"ISOLABEL");
    pvd[128..132].copy_from_slice(&[0, 8, 8, 0]);
    pvd[156..190].copy_from_slice(&root_record(0));
    let dir = &mut image[20 * 2048..21 * 2048];
    dir[..34].copy_from_slice(&root_record(0));
    dir[34..68].copy_from_slice(&root_record(1));
}

#[test]
fn bridge_disc_prefers_udf() {
    let Some(mut image) = udf::seed("0x0102", 2048, Ads::Inline) else {
        return;
    };
    make_bridge(&mut image);
    let udf_labels = vec!["rd_rdfe_seed".to_string()];
    assert_eq!(labels(&image), Some((FsKind::Udf, udf_labels)));
    let mut fs = open(Cursor::new(image.clone())).expect("open");
    assert_eq!(
        fs.read_file("ovf-env.xml", MAX).expect("ovf").as_deref(),
        Some(OVF)
    );
    // A UDF side this reader refuses leaves the (here empty) ISO9660 side.
    let mut refused = image.clone();
    add_metadata_map(&mut refused);
    let mut fs = open(Cursor::new(refused)).expect("open the ISO9660 side");
    assert_eq!(fs.list_dir("").expect("ISO9660 root"), Vec::<String>::new());
    // Without BEA01 the UDF side is gone and the ISO9660 descriptor is what remains.
    image[17 * 2048 + 1] = b'X';
    assert_eq!(
        labels(&image),
        Some((FsKind::Iso9660, vec!["ISOLABEL".into()]))
    );
}

/// The byte offset of the first directory entry naming `name` (8-bit CS0).
fn fid_of(image: &[u8], name: &str) -> usize {
    let needle: Vec<u8> = [&[8u8][..], name.as_bytes()].concat();
    let at = image
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("name in image");
    at - 38
}

#[test]
fn directory_loop_is_corrupt() {
    let Some(mut image) = udf::seed("0x0201", 2048, Ads::Short) else {
        return;
    };
    // Point "latest" at the "openstack" directory that holds it.
    let outer = udf::le32(&image, fid_of(&image, "openstack") + 24);
    let latest = fid_of(&image, "latest");
    image[latest + 24..latest + 28].copy_from_slice(&outer.to_le_bytes());
    let len = (38 + 7 + 3) & !3;
    reseal(&mut image[latest..latest + len]);
    let mut fs = open(Cursor::new(image)).expect("open");
    let err = fs.list_dir("openstack/latest").expect_err("loop");
    assert!(err.to_string().contains("directory loop"), "{err}");
    match fs.read_file("openstack/latest/latest/latest/meta_data.json", MAX) {
        Err(SeedFsError::Corrupt(why)) => assert!(why.contains("loop"), "{why}"),
        other => panic!("expected a loop error, got {other:?}"),
    }
}

#[test]
fn bad_tag_checksum_is_corrupt() {
    let Some(image) = udf::seed("0x0102", 2048, Ads::Short) else {
        return;
    };
    let mut bad = image.clone();
    let at = fid_of(&bad, "meta-data");
    bad[at + 6] ^= 0x5A; // the tag serial number, covered by the checksum
    let mut fs = open(Cursor::new(bad)).expect("open");
    let err = fs.read_file("meta-data", MAX).expect_err("bad tag");
    assert!(err.to_string().contains("checksum"), "{err}");
    // A changed byte in the body breaks the CRC instead.
    let mut bad = image.clone();
    bad[at + 38 + 2] ^= 1;
    let err = open(Cursor::new(bad))
        .expect("open")
        .list_dir("")
        .expect_err("crc");
    assert!(err.to_string().contains("CRC"), "{err}");
}

#[test]
fn damaged_main_sequence_falls_back_to_the_reserve() {
    let Some(mut image) = udf::seed("0x0201", 2048, Ads::Inline) else {
        return;
    };
    let anchor = 256 * 2048;
    let main = udf::le32(&image, anchor + 20) as usize * 2048;
    image[main..main + 16 * 2048].fill(0xA5);
    let mut fs = open(Cursor::new(image)).expect("open through the reserve sequence");
    assert_eq!(
        fs.read_file("ovf-env.xml", MAX).expect("ovf").as_deref(),
        Some(OVF)
    );
}

#[test]
fn truncated_volume_is_corrupt() {
    let Some(image) = udf::seed("0x0201", 2048, Ads::Short) else {
        return;
    };
    // Cut where the root directory's entries start: the volume and its root entry are whole,
    // the directory is past the end.
    let cut = fid_of(&image, "meta-data") / 2048 * 2048;
    let mut fs = open(Cursor::new(image[..cut].to_vec())).expect("open");
    match fs.read_file("user-data", MAX) {
        Err(SeedFsError::Corrupt(why)) => assert!(why.contains("past the end"), "{why}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    // Cut before the anchor at sector 256: no longer recognisable as UDF.
    assert_eq!(labels(&image[..256 * 2048]), None);
}

const FUZZ_SEED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fuzz/seeds/seedfs/azure-udf.img"
);

fn tiny_files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("ovf-env.xml".into(), OVF.to_vec()),
        ("meta-data".into(), b"instance-id: iid-udf\n".to_vec()),
        ("dir/file".into(), b"nested\n".to_vec()),
    ]
}

/// The fuzz seed: 120 blocks of 512 bytes, so its only anchors are at the end of the volume.
/// Regenerate with `cargo test --lib write_udf_fuzz_seed -- --ignored`.
#[test]
#[ignore = "writes fuzz/seeds/seedfs/azure-udf.img"]
fn write_udf_fuzz_seed() {
    let args = [
        "-m",
        "hd",
        "-r",
        "0x0102",
        "-b",
        "512",
        "--label=rd_rdfe_fuzz",
    ];
    let image = udf::mkudffs(&args, 120).expect("mkudffs installed");
    let image = udf::populate(image, 512, Ads::Inline, &tiny_files(), 0);
    std::fs::write(FUZZ_SEED, image).expect("write seed");
}

#[test]
fn fuzz_seed_anchored_at_the_end() {
    let image = std::fs::read(FUZZ_SEED).expect("fuzz seed");
    assert!(image.len() < 256 * 512, "no anchor at sector 256");
    assert_eq!(
        labels(&image),
        Some((FsKind::Udf, vec!["rd_rdfe_fuzz".to_string()]))
    );
    let mut fs = open(Cursor::new(image)).expect("open");
    for (name, data) in tiny_files() {
        assert_eq!(
            fs.read_file(&name, MAX).expect("read").as_deref(),
            Some(&data[..])
        );
    }
}

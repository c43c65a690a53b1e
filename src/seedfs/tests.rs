//! Reader tests against real images made by xorriso, mkfs.vfat + mtools and mke2fs.

use super::test_images::{self as img, LFN_NAME};
use super::{open, probe, FsKind, SeedFs, SeedFsError};
use std::io::Cursor;

const MAX: u64 = 1 << 20;

fn probed(image: &[u8]) -> (FsKind, Vec<String>) {
    let p = probe(&mut Cursor::new(image))
        .expect("probe io")
        .expect("recognised");
    (p.kind, p.labels)
}

/// Checks every seed file under the names the reader should show for it.
fn check_files(fs: &mut dyn SeedFs, name_of: &dyn Fn(&str) -> String) {
    for (name, data) in img::seed_files() {
        let shown = name_of(&name);
        let got = fs
            .read_file(&shown, MAX)
            .unwrap_or_else(|e| panic!("{shown}: {e}"));
        assert_eq!(got.as_deref(), Some(&data[..]), "contents of {shown}");
    }
    assert_eq!(
        fs.read_file("absent-file", MAX).expect("absent").as_deref(),
        None
    );
    assert_eq!(
        fs.read_file("openstack/none/x", MAX)
            .expect("absent")
            .as_deref(),
        None
    );
    assert_eq!(
        fs.read_file(&name_of("openstack"), MAX)
            .expect("dir")
            .as_deref(),
        None
    );
    let user = name_of("user-data");
    match fs.read_file(&user, 100) {
        Err(SeedFsError::TooLarge {
            path,
            size,
            max_bytes: 100,
        }) => {
            assert_eq!(path, user);
            assert!(size > 2048, "user-data spans several blocks");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    let root = fs.list_dir("").expect("list root");
    for want in [
        "meta-data",
        "user-data",
        "vendor-data",
        "network-config",
        "openstack",
    ] {
        assert!(root.contains(&name_of(want)), "{want} in {root:?}");
    }
    let sub = fs
        .list_dir(&name_of("openstack/latest"))
        .expect("list subdir");
    assert_eq!(
        sub,
        vec![name_of("openstack/latest/meta_data.json")
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string()]
    );
    assert!(fs.list_dir("no-such-dir").is_err());
}

fn same(name: &str) -> String {
    name.to_string()
}

#[test]
fn iso_rock_ridge_and_joliet() {
    let Some(image) = img::iso(&["-V", "cidata", "-J", "-R"], true) else {
        return;
    };
    assert_eq!(
        probed(&image),
        (FsKind::Iso9660, vec!["cidata".to_string()])
    );
    let mut fs = open(Cursor::new(image)).expect("open");
    check_files(fs.as_mut(), &same);
    // Rock Ridge names are case-sensitive, as on Linux.
    assert_eq!(
        fs.read_file("META-DATA", MAX).expect("lookup").as_deref(),
        None
    );
    let long = img::long_rr_name();
    assert_eq!(
        fs.read_file(&long, MAX).expect("long").as_deref(),
        Some(&b"continued name\n"[..])
    );
    assert!(fs.list_dir("").expect("root").contains(&long));
}

#[test]
fn iso_rock_ridge_only() {
    let Some(image) = img::iso(&["-V", "CIDATA", "-R"], true) else {
        return;
    };
    assert_eq!(
        probed(&image),
        (FsKind::Iso9660, vec!["CIDATA".to_string()])
    );
    let mut fs = open(Cursor::new(image)).expect("open");
    check_files(fs.as_mut(), &same);
    let long = img::long_rr_name();
    assert!(fs.read_file(&long, MAX).expect("long").is_some());
}

#[test]
fn iso_joliet_only() {
    let Some(image) = img::iso(&["-V", "cidata", "--norock", "-J"], false) else {
        return;
    };
    assert_eq!(
        probed(&image),
        (FsKind::Iso9660, vec!["cidata".to_string()])
    );
    let mut fs = open(Cursor::new(image)).expect("open");
    check_files(fs.as_mut(), &same);
    assert_eq!(
        fs.read_file("USER-DATA", MAX).expect("lookup").as_deref(),
        None
    );
}

#[test]
fn iso_plain_level1() {
    let Some(image) = img::iso(&["-V", "CIDATA", "--norock", "-iso-level", "1"], false) else {
        return;
    };
    assert_eq!(
        probed(&image),
        (FsKind::Iso9660, vec!["CIDATA".to_string()])
    );
    let mut fs = open(Cursor::new(image)).expect("open");
    // Level 1 maps names to 8.3 d-characters; Linux shows them lower case without ";1".
    let level1 = |n: &str| match n {
        "meta-data" => "meta_dat".into(),
        "user-data" => "user_dat".into(),
        "vendor-data" => "vendor_d".into(),
        "network-config" => "network_".into(),
        "openstack" => "openstac".into(),
        "openstack/latest" => "openstac/latest".into(),
        "openstack/latest/meta_data.json" => "openstac/latest/meta_dat.jso".into(),
        LFN_NAME => "a_very_l.txt".into(),
        other => other.to_string(),
    };
    check_files(fs.as_mut(), &level1);
    assert!(fs
        .read_file("META_DAT", MAX)
        .expect("case-insensitive")
        .is_some());
}

fn check_fat(image: Vec<u8>) {
    assert_eq!(probed(&image), (FsKind::Vfat, vec!["CIDATA".to_string()]));
    let mut fs = open(Cursor::new(image)).expect("open");
    check_files(fs.as_mut(), &same);
    assert!(fs
        .list_dir("")
        .expect("root")
        .contains(&LFN_NAME.to_string()));
    // VFAT is case-insensitive and also answers to 8.3 aliases, as Linux's vfat does.
    assert!(fs.read_file("META-DATA", MAX).expect("case").is_some());
    assert!(fs
        .read_file("OPENST~1/LATEST/META_D~1.JSO", MAX)
        .expect("alias")
        .is_some());
}

#[test]
fn fat12() {
    if let Some(image) = img::fat("12", "2048", &[]) {
        check_fat(image);
    }
}

#[test]
fn fat16() {
    if let Some(image) = img::fat("16", "8192", &["-s", "2"]) {
        check_fat(image);
    }
}

#[test]
fn fat32() {
    if let Some(image) = img::fat("32", "40960", &[]) {
        check_fat(image);
    }
}

#[test]
fn fat_labels_differ() {
    let Some(mut image) = img::fat("12", "2048", &[]) else {
        return;
    };
    image[43..54].copy_from_slice(b"BOOTLBL    ");
    let labels = vec!["CIDATA".to_string(), "BOOTLBL".to_string()];
    assert_eq!(probed(&image), (FsKind::Vfat, labels));
}

#[test]
fn fat_chain_loop_is_corrupt() {
    let Some(mut image) = img::fat("16", "8192", &["-s", "2"]) else {
        return;
    };
    let le16 = |b: &[u8], at: usize| usize::from(u16::from_le_bytes([b[at], b[at + 1]]));
    let (bps, rsvd, nfats, fatsz) = (
        le16(&image, 11),
        le16(&image, 14),
        usize::from(image[16]),
        le16(&image, 22),
    );
    let root = (rsvd + nfats * fatsz) * bps;
    let entries = super::vfat_dir::parse(&image[root..root + le16(&image, 17) * 32], false).entries;
    let user = entries
        .iter()
        .find(|e| e.name == "user-data")
        .expect("user-data entry");
    // Point user-data's second cluster back at its first.
    let first = user.cluster as usize;
    let second = le16(&image, rsvd * bps + first * 2);
    image[rsvd * bps + second * 2..][..2].copy_from_slice(&(first as u16).to_le_bytes());
    let mut fs = open(Cursor::new(image)).expect("open");
    match fs.read_file("user-data", MAX) {
        Err(SeedFsError::Corrupt(what)) => assert!(what.contains("cluster"), "{what}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn ext4_label_only() {
    let Some(image) = img::ext4() else { return };
    assert_eq!(probed(&image), (FsKind::Ext, vec!["cidata".to_string()]));
    assert!(matches!(
        open(Cursor::new(image)),
        Err(SeedFsError::Unsupported(_))
    ));
}

#[test]
fn unknown_and_tiny_devices() {
    for len in [0usize, 100, 4096, 64 * 1024] {
        let zeros = vec![0u8; len];
        assert_eq!(probe(&mut Cursor::new(&zeros)).expect("io"), None);
        assert!(matches!(
            open(Cursor::new(zeros)),
            Err(SeedFsError::NotRecognised)
        ));
    }
}

#[test]
fn reads_from_a_file() {
    let Some(image) = img::iso(&["-V", "cidata", "-J", "-R"], false) else {
        return;
    };
    let tmp = img::TempDir::new("file");
    let path = tmp.0.join("seed.iso");
    std::fs::write(&path, image).expect("write image");
    let mut fs = open(std::fs::File::open(&path).expect("open file")).expect("open");
    assert!(fs.read_file("meta-data", MAX).expect("read").is_some());
}

#[test]
fn iso_with_a_boot_loader_mbr_is_still_iso() {
    // GRUB's hybrid MBR: a jump, an empty BPB, the 0x55AA signature. Not a FAT boot sector.
    let Some(mut image) = img::iso(&["-V", "cidata", "-R"], false) else {
        return;
    };
    image[..3].copy_from_slice(&[0xEB, 0x63, 0x90]);
    image[510..512].copy_from_slice(&[0x55, 0xAA]);
    assert_eq!(probed(&image).0, FsKind::Iso9660);
}

#[test]
fn formatted_fat_outranks_a_stale_iso_descriptor() {
    let (Some(iso), Some(mut fat)) = (img::iso(&["-V", "OLD"], false), img::fat("12", "2048", &[]))
    else {
        return;
    };
    // What mkfs.vfat leaves behind: the old primary descriptor in the FAT data area.
    fat[32768..34816].copy_from_slice(&iso[32768..34816]);
    assert_eq!(probed(&fat), (FsKind::Vfat, vec!["CIDATA".to_string()]));
}

#[test]
fn a_session_stops_at_its_read_budget_and_deadline() {
    use super::{open_within, ReadBudget};
    use std::time::{Duration, Instant};
    let Some(image) = img::iso(&["-V", "cidata", "-R", "-J"], false) else {
        return;
    };
    // Opening reads the descriptors and the root; the file's 2 KiB blocks then go over.
    let small = ReadBudget {
        max_bytes: 16 * 1024,
        deadline: None,
    };
    let mut fs = open_within(Cursor::new(image.clone()), small).expect("open");
    let read = fs.read_file("user-data", MAX).map(|d| d.map(|d| d.len()));
    assert!(
        matches!(read, Err(SeedFsError::ReadBudget { max_bytes: 16384 })),
        "{read:?}"
    );
    let past = ReadBudget {
        max_bytes: u64::MAX,
        deadline: Some(Instant::now() + Duration::from_millis(200)),
    };
    let mut fs = open_within(Cursor::new(image), past).expect("open");
    std::thread::sleep(Duration::from_millis(250));
    let read = fs.read_file("meta-data", MAX).map(|d| d.map(|d| d.len()));
    assert!(matches!(read, Err(SeedFsError::Deadline)), "{read:?}");
}

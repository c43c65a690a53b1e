//! The partition-table code against images written by sfdisk and sgdisk, with both tools as
//! independent readers of what ember wrote: grow (the GPT backup moves), not-last, full,
//! 4096-byte sectors, a corrupt primary, power cuts at every write, and create.

use crate::common;

use ember::disk::gpt;
use ember::disk::io::{BlockIo, DeviceFile};
use ember::disk::layout::{NewPart, PartType};
use ember::disk::table::{self, DiskError, Growth, TableKind};
use serde_json::Value;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

const MIB: u64 = 1 << 20;
static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A sparse image file, removed on drop; with 4096-byte sectors it is reached through a
/// loop device (`losetup -b 4096`), as sfdisk has no sector-size option for files.
struct Img {
    path: PathBuf,
    ss: u64,
    loopdev: Option<PathBuf>,
}

impl Drop for Img {
    fn drop(&mut self) {
        if let Some(dev) = &self.loopdev {
            let _ = Command::new("losetup").arg("-d").arg(dev).status();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Img {
    fn new(name: &str, bytes: u64, ss: u64) -> Img {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path =
            std::env::temp_dir().join(format!("ember-disk-{name}-{}-{n}.img", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(bytes).unwrap();
        Img {
            path,
            ss,
            loopdev: None,
        }
    }

    /// An image with `ss`-byte sectors, or None (after saying SKIP) when that needs a loop
    /// device and none can be set up here.
    fn with_sectors(name: &str, bytes: u64, ss: u64) -> Option<Img> {
        let mut img = Img::new(name, bytes, ss);
        if ss == 512 {
            return Some(img);
        }
        let out = Command::new("losetup")
            .args(["-f", "--show", "-b", &ss.to_string()])
            .arg(&img.path)
            .output();
        match out {
            Ok(o) if o.status.success() => {
                let dev = String::from_utf8_lossy(&o.stdout).trim().to_string();
                img.loopdev = Some(PathBuf::from(dev));
                Some(img)
            }
            _ => {
                common::skip(&format!(
                    "{ss}-byte sectors need a loop device (losetup -b, as root)"
                ));
                None
            }
        }
    }

    /// The path tools and ember open: the loop device, or the image itself.
    fn dev(&self) -> &std::path::Path {
        self.loopdev.as_deref().unwrap_or(&self.path)
    }

    fn resize(&self, bytes: u64) {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.path)
            .unwrap();
        f.set_len(bytes).unwrap();
        if let Some(dev) = &self.loopdev {
            let ok = Command::new("losetup").arg("-c").arg(dev).status().unwrap();
            assert!(ok.success(), "losetup -c failed");
        }
    }

    fn tool(&self, tool: &str, args: &[&str], stdin: &str) -> (bool, String, String) {
        let mut child = Command::new(tool)
            .args(args)
            .arg(self.dev())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
        (out.status.success(), text(out.stdout), text(out.stderr))
    }

    /// Writes a table with an sfdisk script.
    fn sfdisk(&self, script: &str) {
        let (ok, _, err) = self.tool("sfdisk", &["-q", "--no-reread"], script);
        assert!(ok, "sfdisk failed: {err}");
    }

    /// sfdisk's JSON view and whatever it printed on stderr.
    fn json(&self) -> (Value, String) {
        let (ok, out, err) = self.tool("sfdisk", &["--json"], "");
        assert!(ok, "sfdisk --json failed: {err}");
        (serde_json::from_str(&out).unwrap(), err)
    }

    /// (start, size) of partition `n` as sfdisk reads it.
    fn sfdisk_part(&self, n: usize) -> (u64, u64) {
        let (v, _) = self.json();
        let p = &v["partitiontable"]["partitions"][n - 1];
        (p["start"].as_u64().unwrap(), p["size"].as_u64().unwrap())
    }

    /// sfdisk --verify, and sgdisk -v on GPT: no problem reported.
    fn assert_clean(&self) {
        let (_, out, err) = self.tool("sfdisk", &["--verify"], "");
        assert!(
            out.contains("No errors detected") && err.is_empty(),
            "sfdisk --verify: {out}{err}"
        );
        let (v, err) = self.json();
        assert!(err.is_empty(), "sfdisk --json warned: {err}");
        if v["partitiontable"]["label"] == "gpt" {
            let (_, out, err) = self.tool("sgdisk", &["-v"], "");
            assert!(out.contains("No problems found"), "sgdisk -v: {out}{err}");
        }
    }

    fn open(&self) -> Disk {
        Disk {
            file: DeviceFile::open(self.dev(), true).unwrap(),
            ss: self.ss,
        }
    }

    fn sectors(&self) -> u64 {
        std::fs::metadata(&self.path).unwrap().len() / self.ss
    }
}

/// The image with the sector size the test chose (a regular file reads as 512 otherwise).
struct Disk {
    file: DeviceFile,
    ss: u64,
}

impl BlockIo for Disk {
    fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_at(off, buf)
    }
    fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()> {
        self.file.write_at(off, buf)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync()
    }
    fn size(&self) -> u64 {
        self.file.size()
    }
    fn sector_size(&self) -> u64 {
        self.ss
    }
}

fn tools() -> bool {
    common::have("sfdisk") && common::have("sgdisk")
}

/// The backup header sits at the last LBA and names LBA 1, as sgdisk reads it.
fn assert_backup_at_end(img: &Img) {
    let mut d = img.open();
    let mut s = vec![0u8; img.ss as usize];
    let last = img.sectors() - 1;
    d.read_at(last * img.ss, &mut s).unwrap();
    assert_eq!(&s[..8], b"EFI PART");
    assert_eq!(u64::from_le_bytes(s[24..32].try_into().unwrap()), last);
    assert_eq!(u64::from_le_bytes(s[32..40].try_into().unwrap()), 1);
}

fn grow_gpt_after_enlarging(ss: u64) {
    if !tools() {
        return;
    }
    let Some(img) = Img::with_sectors("grow-gpt", 8 * MIB, ss) else {
        return;
    };
    img.sfdisk("label: gpt\n,2MiB\n,2MiB\n");
    img.resize(16 * MIB);
    let mut d = img.open();
    assert_eq!(table::probe(&mut d).unwrap(), Some(TableKind::Gpt));
    let g = table::grow(&mut d, 2).unwrap();
    let last_usable = img.sectors() - 1 - 16384 / ss - 1;
    let start = 3 * MIB / ss;
    assert_eq!(
        g,
        Growth::Grown {
            start,
            old_sectors: 2 * MIB / ss,
            new_sectors: last_usable - start + 1,
            capped: false
        }
    );
    img.assert_clean();
    assert_backup_at_end(&img);
    assert_eq!(img.sfdisk_part(2), (start, last_usable - start + 1));
    assert_eq!(img.sfdisk_part(1), (MIB / ss, 2 * MIB / ss));
    let full = table::grow(&mut img.open(), 2).unwrap();
    assert_eq!(
        full,
        Growth::Full {
            sectors: last_usable - start + 1,
            capped: false
        }
    );
    assert_eq!(
        table::grow(&mut img.open(), 1).unwrap(),
        Growth::NotLast { next: 2 }
    );
}

#[test]
fn gpt_grows_and_backup_moves_512() {
    grow_gpt_after_enlarging(512);
}

#[test]
fn gpt_grows_and_backup_moves_4096() {
    grow_gpt_after_enlarging(4096);
}

#[test]
fn sgdisk_table_grows() {
    if !tools() {
        return;
    }
    let img = Img::new("sgdisk", 8 * MIB, 512);
    let (ok, _, err) = img.tool(
        "sgdisk",
        &["-n", "1:0:+1M", "-n", "2:0:+2M", "-t", "2:8200"],
        "",
    );
    assert!(ok, "sgdisk: {err}");
    img.resize(12 * MIB);
    let mut d = img.open();
    let p = table::partition(&mut d, 2).unwrap().unwrap();
    assert_eq!(p.type_, "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F");
    assert!(matches!(
        table::grow(&mut d, 2).unwrap(),
        Growth::Grown { .. }
    ));
    img.assert_clean();
    assert_backup_at_end(&img);
    let (start, size) = img.sfdisk_part(2);
    assert_eq!(start + size - 1, img.sectors() - 34);
}

#[test]
fn mbr_grows_to_the_disk_end() {
    if !tools() {
        return;
    }
    let img = Img::new("mbr", 8 * MIB, 512);
    img.sfdisk("label: dos\n,2MiB,83\n,2MiB,82\n");
    img.resize(12 * MIB);
    let mut d = img.open();
    assert_eq!(table::probe(&mut d).unwrap(), Some(TableKind::Mbr));
    assert_eq!(table::partition(&mut d, 2).unwrap().unwrap().type_, "82");
    assert_eq!(table::grow(&mut d, 1).unwrap(), Growth::NotLast { next: 2 });
    let g = table::grow(&mut d, 2).unwrap();
    let want = img.sectors() - 6144;
    assert_eq!(
        g,
        Growth::Grown {
            start: 6144,
            old_sectors: 4096,
            new_sectors: want,
            capped: false
        }
    );
    img.assert_clean();
    assert_eq!(img.sfdisk_part(2), (6144, want));
    let again = table::grow(&mut img.open(), 2).unwrap();
    assert_eq!(
        again,
        Growth::Full {
            sectors: want,
            capped: false
        }
    );
    assert!(matches!(
        table::grow(&mut img.open(), 3),
        Err(DiskError::NoPartition(3))
    ));
}

#[test]
fn mbr_logical_partition_is_named_not_edited() {
    if !tools() {
        return;
    }
    let img = Img::new("logical", 16 * MIB, 512);
    img.sfdisk("label: dos\n,2MiB\n,,E\n,2MiB\n,2MiB\n");
    let mut d = img.open();
    let e = table::grow(&mut d, 6).unwrap_err();
    assert!(matches!(e, DiskError::Unsupported(_)), "{e}");
    assert!(e.to_string().contains("logical"), "{e}");
    assert!(matches!(
        table::grow(&mut d, 7),
        Err(DiskError::NoPartition(7))
    ));
    assert!(matches!(
        table::grow(&mut d, 2),
        Err(DiskError::Unsupported(_))
    ));
}

#[test]
fn corrupt_primary_reads_the_backup_and_grow_repairs() {
    if !tools() {
        return;
    }
    let img = Img::new("corrupt", 8 * MIB, 512);
    img.sfdisk("label: gpt\n,2MiB\n,\n");
    let mut d = img.open();
    let full = table::partition(&mut d, 2).unwrap().unwrap();
    d.write_at(512 + 40, &[0xff; 8]).unwrap(); // the primary header's CRC no longer holds
    let g = gpt::read(&mut d).unwrap();
    assert!(g.from_backup);
    assert_eq!(table::partition(&mut d, 2).unwrap().unwrap(), full);
    assert!(matches!(
        table::grow(&mut d, 2).unwrap(),
        Growth::Grown { .. }
    ));
    assert!(!gpt::read(&mut img.open()).unwrap().from_backup);
    img.assert_clean();
    // Both copies broken: an error that says so, no panic.
    let mut d = img.open();
    d.write_at(512 + 40, &[0xff; 8]).unwrap();
    d.write_at((img.sectors() - 1) * 512 + 40, &[0xff; 8])
        .unwrap();
    let e = table::probe(&mut d).unwrap_err();
    assert!(e.to_string().contains("no valid GPT header"), "{e}");
}

#[test]
fn corrupt_primary_after_full_is_repaired_by_grow() {
    if !tools() {
        return;
    }
    let img = Img::new("repair", 8 * MIB, 512);
    img.sfdisk("label: gpt\n,\n");
    assert!(matches!(
        table::grow(&mut img.open(), 1).unwrap(),
        Growth::Grown { .. }
    ));
    let mut d = img.open();
    d.write_at(2 * 512 + 40, &[0x55; 8]).unwrap(); // primary entries CRC broken
    assert!(matches!(
        table::grow(&mut d, 1).unwrap(),
        Growth::Full { .. }
    ));
    img.assert_clean();
}

#[test]
fn create_is_read_back_by_sfdisk() {
    if !tools() {
        return;
    }
    let linux = gpt::Guid::parse("0FC63DAF-8483-4772-8E79-3D69D8477DE4").unwrap();
    let swap = gpt::Guid::parse("0657FD6D-A4AB-43C4-84E5-0933C84B4F4F").unwrap();
    for ss in [512, 4096] {
        let Some(img) = Img::with_sectors("create-gpt", 16 * MIB, ss) else {
            continue;
        };
        let small = 2_560_000 / ss; // not a whole MiB: the next start is rounded up
        img.sfdisk("label: dos\n,2MiB\n"); // replaced
        let parts = [
            NewPart {
                sectors: Some(small),
                type_: PartType::Gpt(swap),
            },
            NewPart {
                sectors: None,
                type_: PartType::Gpt(linux),
            },
        ];
        let made = table::create(&mut img.open(), TableKind::Gpt, &parts).unwrap();
        img.assert_clean();
        let (v, _) = img.json();
        assert_eq!(v["partitiontable"]["label"], "gpt");
        assert_eq!(img.sfdisk_part(1), (MIB / ss, small));
        assert_eq!(
            made[1].start,
            (MIB / ss + small).div_ceil(MIB / ss) * (MIB / ss)
        );
        assert_eq!(img.sfdisk_part(2), (made[1].start, made[1].sectors));
        let p = &v["partitiontable"]["partitions"];
        assert_eq!(p[0]["type"], swap.to_string());
        assert_ne!(p[0]["uuid"], p[1]["uuid"]);
        assert_eq!(
            table::grow(&mut img.open(), 2).unwrap(),
            Growth::Full {
                sectors: made[1].sectors,
                capped: false
            }
        );
    }
    let img = Img::new("create-mbr", 16 * MIB, 512);
    img.sfdisk("label: gpt\n,2MiB\n"); // replaced, backup header wiped
    let parts = [
        NewPart {
            sectors: Some(4096),
            type_: PartType::Mbr(0x82),
        },
        NewPart {
            sectors: None,
            type_: PartType::Mbr(0x83),
        },
    ];
    table::create(&mut img.open(), TableKind::Mbr, &parts).unwrap();
    img.assert_clean();
    let (v, _) = img.json();
    assert_eq!(v["partitiontable"]["label"], "dos");
    assert_eq!(v["partitiontable"]["partitions"][0]["type"], "82");
    assert_eq!(img.sfdisk_part(1), (2048, 4096));
    assert_eq!(img.sfdisk_part(2), (6144, img.sectors() - 6144));
    let bad = [NewPart {
        sectors: Some(1 << 40),
        type_: PartType::Mbr(0x83),
    }];
    assert!(matches!(
        table::create(&mut img.open(), TableKind::Mbr, &bad),
        Err(DiskError::Layout(_))
    ));
}

/// A power cut: every sector written after the first `left` is lost, though the writes
/// report success (the disk's cache died with the power).
struct PowerCut<'a> {
    inner: &'a mut dyn BlockIo,
    left: usize,
    sectors: usize,
}

/// A device that fails every write call after the first `left`.
struct FailAfter<'a> {
    inner: &'a mut dyn BlockIo,
    left: usize,
    calls: usize,
}

impl BlockIo for PowerCut<'_> {
    fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_at(off, buf)
    }
    fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()> {
        let ss = self.inner.sector_size() as usize;
        for (i, chunk) in buf.chunks(ss).enumerate() {
            self.sectors += 1;
            if self.left > 0 {
                self.left -= 1;
                self.inner.write_at(off + (i * ss) as u64, chunk)?;
            }
        }
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }
    fn size(&self) -> u64 {
        self.inner.size()
    }
    fn sector_size(&self) -> u64 {
        self.inner.sector_size()
    }
}

impl BlockIo for FailAfter<'_> {
    fn read_at(&mut self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_at(off, buf)
    }
    fn write_at(&mut self, off: u64, buf: &[u8]) -> io::Result<()> {
        self.calls += 1;
        if self.left == 0 {
            return Err(io::Error::other("injected write failure"));
        }
        self.left -= 1;
        self.inner.write_at(off, buf)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }
    fn size(&self) -> u64 {
        self.inner.size()
    }
    fn sector_size(&self) -> u64 {
        self.inner.sector_size()
    }
}

/// The image's whole content, to restore before each cut.
fn snapshot(img: &Img) -> Vec<u8> {
    let mut d = img.open();
    let mut all = vec![0u8; d.size() as usize];
    d.read_at(0, &mut all).unwrap();
    all
}

/// Grows partition 2 from the `base` content, cut after each possible number of writes
/// (sectors, or write calls when `!sector_cuts`); each time the primary stays valid (what
/// the kernel reads), sfdisk reads the table, partition 2 has its `old` or its `new` size
/// (the same for both readers), and a second grow finishes the job cleanly.
fn cut_everywhere(img: &Img, base: &[u8], old: u64, new: u64, sector_cuts: bool) {
    let mut n = 0;
    loop {
        let mut d = img.open();
        d.write_at(0, base).unwrap();
        d.sync().unwrap();
        let done = if sector_cuts {
            let mut cut = PowerCut {
                inner: &mut d,
                left: n,
                sectors: 0,
            };
            let r = table::grow(&mut cut, 2);
            assert!(
                matches!(r, Ok(Growth::Grown { .. })),
                "cut after {n}: {r:?}"
            );
            cut.sectors <= n
        } else {
            let mut fail = FailAfter {
                inner: &mut d,
                left: n,
                calls: 0,
            };
            let r = table::grow(&mut fail, 2);
            assert_eq!(r.is_ok(), fail.calls <= n, "fail after {n}: {r:?}");
            fail.calls <= n
        };
        let g = gpt::read(&mut img.open()).unwrap();
        assert!(
            !g.from_backup,
            "after {n} writes the primary GPT is damaged"
        );
        let mine = table::partition(&mut img.open(), 2).unwrap().unwrap();
        assert!(
            mine.sectors == old || mine.sectors == new,
            "after {n}: {mine:?}"
        );
        assert_eq!(
            img.sfdisk_part(2),
            (mine.start, mine.sectors),
            "after {n} writes"
        );
        let again = table::grow(&mut img.open(), 2).unwrap();
        assert!(
            matches!(again, Growth::Grown { .. } | Growth::Full { .. }),
            "{again:?}"
        );
        assert_eq!(img.sfdisk_part(2).1, new, "second grow after {n} writes");
        img.assert_clean();
        assert_backup_at_end(img);
        if done {
            break;
        }
        n += 1;
    }
    assert!(n >= 6, "only {n} writes: the cuts tested nothing");
}

/// An 8 MiB GPT image with partition 2 (2 MiB at 2 MiB) last, enlarged to 12 MiB; with the
/// size partition 2 has before and after growing.
fn grown_disk(ss: u64) -> Option<(Img, u64, u64)> {
    if !tools() {
        return None;
    }
    let img = Img::with_sectors("cut", 8 * MIB, ss)?;
    img.sfdisk("label: gpt\n,1MiB\n,2MiB\n");
    img.resize(12 * MIB);
    let new = img.sectors() - 1 - 16384 / ss - 1 - 2 * MIB / ss + 1;
    Some((img, 2 * MIB / ss, new))
}

#[test]
fn power_cut_at_every_sector_512() {
    if let Some((img, old, new)) = grown_disk(512) {
        cut_everywhere(&img, &snapshot(&img), old, new, true);
    }
}

#[test]
fn power_cut_at_every_sector_4096() {
    if let Some((img, old, new)) = grown_disk(4096) {
        cut_everywhere(&img, &snapshot(&img), old, new, true);
    }
}

#[test]
fn write_failure_at_every_call() {
    if let Some((img, old, new)) = grown_disk(512) {
        cut_everywhere(&img, &snapshot(&img), old, new, false);
    }
}

/// Cut right after the primary header was pointed at the backup's entries, then the disk
/// grows by less than an entry array: the new backup overlaps the entries the primary
/// uses, so the primary must be rewritten first. Cut that run everywhere too.
#[test]
fn power_cut_then_disk_grows_a_little() {
    let Some((img, _, mid)) = grown_disk(512) else {
        return;
    };
    let mut d = img.open();
    let mut cut = PowerCut {
        inner: &mut d,
        left: 32 + 1 + 1,
        sectors: 0,
    };
    table::grow(&mut cut, 2).unwrap();
    let g = gpt::read(&mut img.open()).unwrap();
    assert!(
        g.header.entries_lba > g.header.last_usable,
        "{:?}",
        g.header
    );
    img.resize(12 * MIB + 8 * 512);
    cut_everywhere(&img, &snapshot(&img), mid, mid + 8, true);
}

/// blkid's name for what is at the start of `path` (TYPE, else PTTYPE).
fn blkid(path: &std::path::Path) -> String {
    for tag in ["TYPE", "PTTYPE"] {
        let out = Command::new("blkid")
            .args(["-p", "-o", "value", "-s", tag])
            .arg(path)
            .output()
            .unwrap();
        let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !v.is_empty() {
            return v;
        }
    }
    String::new()
}

#[test]
fn signatures_match_blkid_on_real_filesystems() {
    use ember::disk::signature;
    let iso_src = std::env::temp_dir().join(format!("ember-disk-iso-{}", std::process::id()));
    std::fs::create_dir_all(&iso_src).unwrap();
    std::fs::write(iso_src.join("meta-data"), "").unwrap(); // xorriso writes no empty image
    let iso_dir = iso_src.to_str().unwrap().to_string();
    let makers: &[(&str, &[&str], &str)] = &[
        ("mkfs.ext2", &["-q", "-F"], "ext2"),
        ("mkfs.ext3", &["-q", "-F"], "ext3"),
        ("mkfs.ext4", &["-q", "-F"], "ext4"),
        ("mkfs.vfat", &[], "vfat"),
        ("mkswap", &["-q"], "swap"),
        ("xorriso", &["-as", "mkisofs", "-quiet", "-o"], "iso9660"),
    ];
    for (tool, args, name) in makers {
        if !common::have(tool) || !common::have("blkid") {
            continue;
        }
        let fs = Img::new("fs", 4 * MIB, 512);
        let mut cmd = Command::new(tool);
        cmd.args(*args).arg(&fs.path);
        if *tool == "xorriso" {
            std::fs::remove_file(&fs.path).unwrap(); // it leaves an existing file alone
            cmd.arg(&iso_dir);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(blkid(&fs.path), *name, "blkid on {tool}");
        let mut d = fs.open();
        assert_eq!(signature::probe(&mut d, 0).unwrap(), Some(*name), "{tool}");
        // The same volume inside a partition of a GPT disk.
        if !tools() {
            continue;
        }
        let disk = Img::new("fs-disk", 8 * MIB, 512);
        disk.sfdisk("label: gpt\n,4MiB\n");
        let mut bytes = vec![0u8; d.size() as usize];
        d.read_at(0, &mut bytes).unwrap();
        let mut dd = disk.open();
        dd.write_at(MIB, &bytes).unwrap();
        assert_eq!(signature::probe(&mut dd, 0).unwrap(), Some("gpt"));
        assert_eq!(
            signature::probe(&mut dd, MIB).unwrap(),
            Some(*name),
            "{tool} at 1 MiB"
        );
        assert_eq!(signature::probe(&mut dd, 5 * MIB).unwrap(), None);
    }
    let _ = std::fs::remove_dir_all(&iso_src);
    if tools() {
        let disk = Img::new("dos", 8 * MIB, 512);
        disk.sfdisk("label: dos\n,4MiB\n");
        assert_eq!(blkid(&disk.path), "dos");
        assert_eq!(signature::probe(&mut disk.open(), 0).unwrap(), Some("dos"));
    }
}

//! Fault suite, seed volumes: media reformatted from one filesystem to another, Rock Ridge
//! symlinks, continuation-area bombs, corrupt structures (each named by device and file),
//! and USB/SD disks that the kernel does not flag removable.

use crate::common;
use crate::seed_images;
use common::{have, Machine};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `/dev/<dev>` in `m`'s host tree, with its sysfs entry (not flagged removable).
fn device(m: &Machine, dev: &str) -> PathBuf {
    let sys = m.host.join("sys/class/block").join(dev);
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(sys.join("removable"), "0\n").unwrap();
    std::fs::write(sys.join("size"), "8192\n").unwrap();
    m.host.join("dev").join(dev)
}

fn run(cmd: &mut Command) {
    let out = cmd.env("MTOOLS_SKIP_CHECK", "1").output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A cidata seed for instance `id`, as files in a fresh directory.
fn seed_tree(m: &Machine, tag: &str, id: &str) -> PathBuf {
    let src = m.dir.join(format!("tree-{tag}"));
    m.seed_files(
        &src,
        "",
        &[
            ("meta-data", &format!("instance-id: {id}\n")),
            ("user-data", "#cloud-config\n"),
        ],
    );
    src
}

/// An ISO9660 cidata image of `tree` (Rock Ridge + Joliet, plus `extra` xorriso options).
fn iso_image(m: &Machine, tree: &Path, extra: &[&str]) -> Vec<u8> {
    let img = m.dir.join("iso.tmp");
    run(Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-V", "cidata", "-J", "-R"])
        .args(extra)
        .arg("-o")
        .arg(&img)
        .arg(tree));
    std::fs::read(img).unwrap()
}

/// mkfs.vfat (without wiping) over whatever `node` holds, then `tree`'s files copied in.
fn format_fat(node: &Path, tree: &Path) {
    run(Command::new("truncate").args(["-s", "4M"]).arg(node));
    run(Command::new("mkfs.vfat").args(["-n", "cidata"]).arg(node));
    for e in std::fs::read_dir(tree).unwrap() {
        let e = e.unwrap();
        let to = format!("::{}", e.file_name().to_str().unwrap());
        run(Command::new("mcopy")
            .arg("-i")
            .arg(node)
            .arg(e.path())
            .arg(to));
    }
}

/// Writes `image` over the start of `node`, keeping what lies beyond it (as dd does).
fn write_over(node: &Path, image: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().write(true).open(node).unwrap();
    f.write_all(image).unwrap();
}

fn have_tools() -> bool {
    have("xorriso") && have("mkfs.vfat") && have("mcopy")
}

#[test]
fn iso_stick_reformatted_as_fat_reads_the_new_fat_seed() {
    if !have_tools() {
        return;
    }
    let m = Machine::new("reformat-fat");
    let node = device(&m, "sdb");
    std::fs::write(
        &node,
        iso_image(&m, &seed_tree(&m, "old", "i-stale-iso"), &[]),
    )
    .unwrap();
    format_fat(&node, &seed_tree(&m, "new", "i-new-fat"));
    // The premise: mkfs.vfat left the old ISO's primary descriptor in the FAT data area.
    let bytes = std::fs::read(&node).unwrap();
    assert_eq!(&bytes[32769..32774], b"CD001");
    m.initrd("all");
    assert_eq!(m.status()["instance_id"], "i-new-fat", "{:#?}", m.diags());
}

#[test]
fn fat_stick_overwritten_by_an_iso_reads_the_iso_seed() {
    if !have_tools() {
        return;
    }
    // A plain ISO (zeros at offset 0) and a hybrid one (an MBR at offset 0, not a FAT BPB).
    for (tag, extra) in [
        ("plain", &[][..]),
        ("hybrid", &["--protective-msdos-label"][..]),
    ] {
        let m = Machine::new(&format!("reformat-iso-{tag}"));
        let node = device(&m, "sdb");
        format_fat(&node, &seed_tree(&m, "old", "i-stale-fat"));
        write_over(
            &node,
            &iso_image(&m, &seed_tree(&m, "new", "i-new-iso"), extra),
        );
        m.initrd("all");
        assert_eq!(
            m.status()["instance_id"],
            "i-new-iso",
            "{tag}: {:#?}",
            m.diags()
        );
    }
}

/// The diagnostic whose file is `<device>: <file>`, with its severity and code.
fn diag_for(m: &Machine, device: &str, file: &str) -> Option<serde_json::Value> {
    let want = format!("{device}: {file}");
    m.diags().into_iter().find(|d| d["file"] == want.as_str())
}

#[test]
fn rock_ridge_symlinked_seed_files_are_refused_by_name() {
    if !have("xorriso") {
        return;
    }
    for name in ["meta-data", "user-data"] {
        let m = Machine::new("rr-link");
        let tree = seed_tree(&m, "linked", "i-linked");
        std::fs::remove_file(tree.join(name)).unwrap();
        // Pointing outside the image: on a mounted seed this would read the host's file.
        std::os::unix::fs::symlink("/etc/hostname", tree.join(name)).unwrap();
        let node = device(&m, "sr0");
        std::fs::write(&node, iso_image(&m, &tree, &[])).unwrap();
        m.initrd("all");
        let d = diag_for(&m, "/dev/sr0", name).unwrap_or_else(|| panic!("{:#?}", m.diags()));
        // A linked meta-data refuses the seed and None stands in, so that is a warning; a
        // linked user-data is an error of a seed that was read.
        let severity = if name == "meta-data" {
            "warning"
        } else {
            "error"
        };
        assert_eq!(d["severity"], severity, "{d}");
        assert_eq!(d["code"], "seed-link", "{d}");
        assert!(
            d["message"].as_str().unwrap().contains("symbolic link"),
            "{d}"
        );
        // Never the fallback instance made from an empty meta-data.
        assert_ne!(m.status()["instance_id"], "nocloud", "{name}");
    }
}

/// `limits` (YAML lines under `ember: limits:`) in the image's cloud.cfg.
fn image_limits(m: &Machine, limits: &str) {
    let cfg = format!("ember:\n  limits:\n{limits}");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-limits.cfg",
        cfg.as_bytes(),
    );
}

/// Runs the whole initramfs on a machine whose `sr0` holds a continuation-area bomb;
/// returns how long it took, and its stderr.
fn boot_with_ce_bomb(m: &Machine) -> (std::time::Duration, String) {
    std::fs::write(device(m, "sr0"), seed_images::ce_bomb(54_000, "i-bomb")).unwrap();
    let t0 = std::time::Instant::now();
    let out = m.initrd("all");
    (t0.elapsed(), common::stderr(&out))
}

#[test]
fn continuation_area_bomb_stops_at_the_volume_read_budget() {
    // ~4.8 MB on disk, ~54,000 records each reading 1 MiB: ~54 GB per lookup, unbounded.
    let m = Machine::new("ce-bomb");
    let (took, err) = boot_with_ce_bomb(&m);
    let d =
        diag_for(&m, "/dev/sr0", "meta-data").unwrap_or_else(|| panic!("{:#}\n{err}", m.status()));
    assert_eq!(d["code"], "budget-exceeded", "{d}");
    assert_eq!(d["budget"], "volume_read_bytes", "{d}");
    assert!(took.as_secs() < 10, "took {took:?}");
}

#[test]
fn continuation_area_bomb_stops_at_the_deadline() {
    let m = Machine::new("ce-deadline");
    image_limits(
        &m,
        "    volume_read_bytes: 1099511627776\n    datasource_timeout_ms: 1500\n",
    );
    let (took, err) = boot_with_ce_bomb(&m);
    let d =
        diag_for(&m, "/dev/sr0", "meta-data").unwrap_or_else(|| panic!("{:#}\n{err}", m.status()));
    assert_eq!(d["budget"], "datasource_timeout_ms", "{d}");
    assert!(took.as_secs() < 10, "took {took:?}");
}

/// `/dev/<dev>` whose sysfs entry is, as on a real kernel, a link into /sys/devices along
/// `path` (the kernel's `removable` flag 0, as most USB disks and sticks report it).
fn device_at(m: &Machine, dev: &str, path: &str) -> PathBuf {
    let real = m
        .host
        .join("sys/devices")
        .join(path)
        .join("block")
        .join(dev);
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(real.join("removable"), "0\n").unwrap();
    std::fs::write(real.join("size"), "8192\n").unwrap();
    let link = m.host.join("sys/class/block").join(dev);
    std::os::unix::fs::symlink(format!("../../devices/{path}/block/{dev}"), link).unwrap();
    m.host.join("dev").join(dev)
}

/// The attack of `removable_seeds: first-boot`: a provisioned machine reboots with a disk
/// at `path` holding a cidata seed of a new instance. Returns the instance id it ends with.
fn plug_in_seed_after_first_boot(tag: &str, path: &str) -> (String, bool) {
    let m = Machine::new(&format!("hotplug-{tag}"));
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-ember.cfg",
        b"ember:\n  removable_seeds: first-boot\n",
    );
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", "instance-id: i-one\n"), ("user-data", "")],
    );
    m.initrd("all");
    assert_eq!(m.status()["instance_id"], "i-one");
    std::fs::remove_dir_all(&m.run).unwrap();
    std::fs::remove_dir_all(m.target.join("var/lib/cloud/seed")).unwrap();
    format_fat(
        &device_at(&m, "sdb", path),
        &seed_tree(&m, "usb", "i-attacker"),
    );
    m.initrd("all");
    let refused = m.diag_with_code("removable-seed-refused").is_some();
    (
        m.status()["instance_id"].as_str().unwrap().to_string(),
        refused,
    )
}

#[test]
fn seeds_on_hotplug_buses_are_removable_whatever_the_flag() {
    if !have("mkfs.vfat") || !have("mcopy") {
        return;
    }
    let buses = [
        (
            "usb",
            "pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0",
        ),
        (
            "firewire",
            "pci0000:00/0000:00:1e.0/0000:05:00.0/fw1/fw1.0/host7/target7:0:0/7:0:0:0",
        ),
        (
            "sd",
            "pci0000:00/0000:00:1c.0/0000:02:00.0/mmc_host/mmc0/mmc0:aaaa",
        ),
    ];
    for (tag, path) in buses {
        let (id, refused) = plug_in_seed_after_first_boot(tag, path);
        assert_eq!((id.as_str(), refused), ("i-one", true), "{tag}");
    }
    // The control: a fixed virtio disk still re-provisions, as in cloud-init.
    let (id, refused) = plug_in_seed_after_first_boot("virtio", "pci0000:00/0000:00:04.0/virtio2");
    assert_eq!((id.as_str(), refused), ("i-attacker", false));
}

/// The first cluster of `file` on the FAT image `node`, as mtools reports it (`<2>`).
fn first_cluster(node: &Path, file: &str) -> usize {
    let out = Command::new("mshowfat")
        .arg("-i")
        .arg(node)
        .arg(format!("::{file}"))
        .env("MTOOLS_SKIP_CHECK", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find('<').unwrap() + 1;
    let end = text[start..].find(['>', '-']).unwrap() + start;
    text[start..end].parse().unwrap()
}

/// Makes `file`'s first cluster its own successor in the first FAT (FAT12 or FAT16).
fn loop_fat_chain(node: &Path, file: &str) {
    let c = first_cluster(node, file);
    let mut img = std::fs::read(node).unwrap();
    let fat = usize::from(u16::from_le_bytes([img[14], img[15]])) * 512;
    if &img[54..59] == b"FAT12" {
        let at = fat + c + c / 2;
        let old = u16::from_le_bytes([img[at], img[at + 1]]);
        let v = if c % 2 == 1 {
            (old & 0x000F) | ((c as u16) << 4)
        } else {
            (old & 0xF000) | c as u16
        };
        img[at..at + 2].copy_from_slice(&v.to_le_bytes());
    } else {
        img[fat + 2 * c..fat + 2 * c + 2].copy_from_slice(&(c as u16).to_le_bytes());
    }
    std::fs::write(node, img).unwrap();
}

/// Points the primary directory record of the ISO file `iso_name` (`META_DAT.;1`) past the
/// end of the volume.
fn overrun_iso_extent(node: &Path, iso_name: &[u8]) {
    let mut img = std::fs::read(node).unwrap();
    let at = img
        .windows(iso_name.len())
        .position(|w| w == iso_name)
        .unwrap()
        - 33;
    img[at + 2..at + 6].copy_from_slice(&0x00FF_FFFFu32.to_le_bytes());
    img[at + 6..at + 10].copy_from_slice(&0x00FF_FFFFu32.to_be_bytes());
    std::fs::write(node, img).unwrap();
}

#[test]
fn corrupt_seed_volumes_are_named_by_device_and_file() {
    if !have_tools() || !have("mshowfat") {
        return;
    }
    type Corrupt = fn(&Machine, &Path);
    let cases: [(&str, &str, Corrupt); 4] = [
        ("fat-lfn-checksum", "sdb", |m, node| {
            // Every long name's checksum off by one: only 8.3 aliases (META-D~1) remain.
            format_fat(node, &seed_tree(m, "t", "i-lfn"));
            break_lfn_checksums(node);
        }),
        ("fat-loop", "sdb", |m, node| {
            // Several clusters long, so the reader must follow the chain into the loop.
            let tree = seed_tree(m, "t", "i-fat");
            let meta = format!("instance-id: i-fat\n{}", "# padding\n".repeat(2000));
            std::fs::write(tree.join("meta-data"), meta).unwrap();
            format_fat(node, &tree);
            loop_fat_chain(node, "meta-data");
        }),
        ("iso-overrun", "sr0", |m, node| {
            std::fs::write(node, iso_image(m, &seed_tree(m, "t", "i-iso"), &[])).unwrap();
            overrun_iso_extent(node, b"META_DAT.;1");
        }),
        ("rr-ce-loop", "sr0", |_, node| {
            std::fs::write(node, seed_images::ce_loop("i-loop")).unwrap();
        }),
    ];
    for (tag, dev, corrupt) in cases {
        let m = Machine::new(tag);
        corrupt(&m, &device(&m, dev));
        m.initrd("all");
        let shown = format!("/dev/{dev}");
        let d =
            diag_for(&m, &shown, "meta-data").unwrap_or_else(|| panic!("{tag}: {:#?}", m.diags()));
        assert_eq!(
            (d["code"].as_str(), d["severity"].as_str()),
            (Some("seed-unreadable"), Some("warning")),
            "{tag}: {d}"
        );
        assert!(
            d["message"].as_str().unwrap().contains("corrupt"),
            "{tag}: {d}"
        );
        assert_ne!(m.status()["instance_id"], "nocloud", "{tag}");
        if tag == "fat-lfn-checksum" {
            let msg = d["message"].as_str().unwrap();
            assert!(msg.contains("long name") && msg.contains("checksum"), "{d}");
        }
    }
}

/// Adds one to the checksum byte of every long-name entry in a FAT12/16 root directory.
fn break_lfn_checksums(node: &Path) {
    let mut img = std::fs::read(node).unwrap();
    let le16 = |at: usize| usize::from(u16::from_le_bytes([img[at], img[at + 1]]));
    let (bps, reserved, fats) = (le16(11), le16(14), usize::from(img[16]));
    let (entries, fat_sectors) = (le16(17), le16(22));
    let root = (reserved + fats * fat_sectors) * bps;
    let mut broken = 0;
    for e in (root..root + entries * 32).step_by(32) {
        if img[e] != 0 && img[e] != 0xE5 && img[e + 11] & 0x3F == 0x0F {
            img[e + 13] = img[e + 13].wrapping_add(1);
            broken += 1;
        }
    }
    assert!(broken > 0, "no long-name entries");
    std::fs::write(node, img).unwrap();
}

/// Issue 37 (QEMU boot-faults' vanish cell): a seed whose user-data cannot be read from its
/// volume (here its extent runs past the volume's end, as when the medium is taken out
/// mid-read) fails whole, as cloud-init's NoCloud does when its read raises: None stands in
/// and the failure is a warning naming the device and file. Before, the meta-data alone made
/// the instance and the boot ended in error.
#[test]
fn a_user_data_that_cannot_be_read_fails_the_seed_and_none_stands_in() {
    if !have_tools() {
        return;
    }
    let m = Machine::new("ud-unreadable");
    let node = device(&m, "sr0");
    std::fs::write(&node, iso_image(&m, &seed_tree(&m, "t", "i-ud"), &[])).unwrap();
    overrun_iso_extent(&node, b"USER_DAT.;1");
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = diag_for(&m, "/dev/sr0", "user-data").unwrap_or_else(|| panic!("{:#?}", m.diags()));
    assert_eq!(d["code"], "seed-unreadable", "{d}");
}

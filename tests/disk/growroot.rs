//! growpart and resizefs on real loop devices: a GPT or MBR partition under the mounted root
//! grown in the table and in the kernel's view (BLKPG, while mounted), the filesystem grown
//! online with the command the runner uses, then checked by sfdisk, e2fsck and xfs_repair as
//! independent readers. Root only (SKIP elsewhere).

use crate::common;
use common::loopdev::{self, sh, Loop};
use common::Machine;

struct Case {
    fs: &'static str,
    mkfs: &'static str,
    fsck: &'static str,
    label: &'static str,
    part_mib: u64,
    disk_mib: u64,
}

fn seed(m: &Machine, root: &str) {
    m.write(&m.target, "etc/os-release", b"ID=debian\n");
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-grow\n"),
            ("user-data", "#cloud-config\n{}\n"),
        ],
    );
    m.cmdline(&format!("root={root} ro"));
}

fn part_sectors(dev: &str) -> u64 {
    let json: serde_json::Value =
        serde_json::from_str(&sh(&format!("sfdisk --json {dev}"))).unwrap();
    json["partitiontable"]["partitions"][0]["size"]
        .as_u64()
        .unwrap()
}

fn grow(case: Case) {
    if !loopdev::available() || !common::have(case.mkfs) || !common::have("sfdisk") {
        return;
    }
    let m = Machine::new(&format!("growroot-{}-{}", case.fs, case.label));
    let img = m.dir.join("disk.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len((case.part_mib + 2) << 20)
        .unwrap();
    let img_s = img.display().to_string();
    let table = format!(
        "label: {}\nstart=2048, size={}, type=linux\n",
        case.label,
        case.part_mib * 2048
    );
    sh(&format!(
        "printf '{}' | sfdisk -q {img_s}",
        table.replace('\n', "\\n")
    ));
    // The disk is bigger at boot than the image was made.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&img)
        .unwrap()
        .set_len(case.disk_mib << 20)
        .unwrap();
    let lo = Loop::attach(&img);
    let part = lo.part(1);
    sh(&format!(
        "{} -q {part} >/dev/null 2>&1 || {} {part} >/dev/null",
        case.mkfs, case.mkfs
    ));
    let target = m.target.display().to_string();
    sh(&format!("mount {part} {target}"));
    let unmount = Unmount(target.clone());
    loopdev::real_host(&m);
    seed(&m, &part);

    m.write(&m.host, "proc/sys/kernel/random/boot_id", b"boot-1\n");
    let out = m.initrd("all");
    let console = common::stdout(&out);
    assert!(
        console.contains(&format!(
            "growpart: {part} grown from {} MiB",
            case.part_mib
        )),
        "{console}\n{}",
        common::stderr(&out)
    );
    let sectors = part_sectors(&lo.dev);
    assert!(sectors > (case.disk_mib - 2) * 2048 - 2048, "{sectors}");
    assert_eq!(
        Loop::kernel_sectors(&part),
        sectors,
        "the kernel was not told"
    );
    sh(&format!("sfdisk --verify {} >/dev/null", lo.dev));
    let pending = m.target_file("var/lib/ember/pending-resize");
    let name = part.trim_start_matches("/dev/");
    assert_eq!(pending, format!("/ {} {name}\n", case.fs));

    // What `ember init` runs in the booted system, with the mount point this test has.
    // Online ext4 growth needs CAP_SYS_RESOURCE, which some sandboxes drop: there the
    // filesystem is grown offline instead (the QEMU case growroot covers the online path).
    let argv = ember::disk::grow_command(case.fs, &target, &part).unwrap();
    let offline = case.fs.starts_with("ext") && !has_cap(24);
    if offline {
        common::skip("online resize2fs: no CAP_SYS_RESOURCE here; grown offline instead");
    } else {
        sh(&argv.join(" "));
    }
    // A reboot: unmounted (the superblock written), grown offline where online could not
    // be, mounted again.
    drop(unmount);
    if offline {
        sh(&format!(
            "e2fsck -fy {part} >/dev/null 2>&1; resize2fs {part} 2>&1"
        ));
    }
    sh(&format!("mount {part} {target}"));
    let unmount = Unmount(target.clone());

    // The next boot: nothing left to grow, nothing pending.
    m.write(&m.host, "proc/sys/kernel/random/boot_id", b"boot-2\n");
    let out = m.initrd("all");
    assert!(
        !common::stdout(&out).contains("growpart:"),
        "{}",
        common::stdout(&out)
    );
    assert!(!m.target.join("var/lib/ember/pending-resize").exists());
    drop(unmount);
    sh(&format!("{} {part} >/dev/null", case.fsck));
    let mut dev = std::fs::File::open(&part).unwrap();
    let (_, bytes) = ember::disk::fs_size::probe(&mut dev).unwrap().unwrap();
    assert!(
        bytes > (case.disk_mib - 4) << 20,
        "{} is {bytes} bytes",
        case.fs
    );
}

/// Whether this process has capability `bit` (CapEff in /proc/self/status).
fn has_cap(bit: u32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let eff = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .unwrap();
    u64::from_str_radix(eff.trim(), 16).unwrap() & (1 << bit) != 0
}

struct Unmount(String);
impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn ext4_on_gpt_grows_to_the_disk() {
    grow(Case {
        fs: "ext4",
        mkfs: "mkfs.ext4",
        fsck: "e2fsck -fn",
        label: "gpt",
        part_mib: 32,
        disk_mib: 96,
    });
}

#[test]
fn ext4_on_mbr_grows_to_the_disk() {
    grow(Case {
        fs: "ext4",
        mkfs: "mkfs.ext4",
        fsck: "e2fsck -fn",
        label: "dos",
        part_mib: 32,
        disk_mib: 80,
    });
}

#[test]
fn xfs_on_gpt_grows_to_the_disk() {
    grow(Case {
        fs: "xfs",
        mkfs: "mkfs.xfs",
        fsck: "xfs_repair -n",
        label: "gpt",
        part_mib: 320,
        disk_mib: 512,
    });
}

#[test]
fn growroot_disabled_mode_off_and_the_override_are_honoured() {
    if !loopdev::available() || !common::have("mkfs.ext4") || !common::have("sfdisk") {
        return;
    }
    let m = Machine::new("growroot-settings");
    let img = m.dir.join("disk.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(34 << 20)
        .unwrap();
    sh(&format!(
        "printf 'label: gpt\\nstart=2048, size=65536, type=linux\\n' | sfdisk -q {}",
        img.display()
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&img)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let lo = Loop::attach(&img);
    let part = lo.part(1);
    sh(&format!("mkfs.ext4 -q {part}"));
    let target = m.target.display().to_string();
    sh(&format!("mount {part} {target}"));
    let _unmount = Unmount(target);
    loopdev::real_host(&m);
    m.write(&m.target, "etc/os-release", b"ID=debian\n");
    m.cmdline(&format!("root={part} ro"));
    let boot = |n: u32, user_data: &str| {
        m.seed_files(
            &m.target,
            "var/lib/cloud/seed/nocloud",
            &[
                ("meta-data", &format!("instance-id: i-{n}\n")),
                ("user-data", user_data),
            ],
        );
        m.write(
            &m.host,
            "proc/sys/kernel/random/boot_id",
            format!("b{n}\n").as_bytes(),
        );
        common::stdout(&m.initrd("all"))
    };
    let original = part_sectors(&lo.dev);

    let out = boot(1, "#cloud-config\ngrowpart: {mode: 'off'}\n");
    assert!(!out.contains("growpart:"), "{out}");
    let out = boot(2, "#cloud-config\ngrowpart: {mode: false}\n");
    assert!(!out.contains("grown"), "{out}");
    assert!(m.diag_with_code("deprecated").is_some());
    m.write(&m.target, "etc/growroot-disabled", b"");
    let out = boot(3, "#cloud-config\n{}\n");
    assert!(out.contains("growroot-disabled exists"), "{out}");
    assert_eq!(part_sectors(&lo.dev), original, "grown although disabled");

    let out = boot(
        4,
        "#cloud-config\ngrowpart: {ignore_growroot_disabled: true}\n",
    );
    assert!(out.contains(&format!("growpart: {part} grown")), "{out}");
    assert!(part_sectors(&lo.dev) > original);
}

//! mounts, mount_default_fields and swap: fstab lines tagged comment=cloudconfig (a later
//! instance replaces only those), no line for a device that does not exist or holds no
//! filesystem, a null mount point removing a device, and a swap file blkid recognises.

use crate::common;
use common::Machine;

fn provision(m: &Machine, instance: &str, user_data: &str) -> std::process::Output {
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", &format!("instance-id: {instance}\n")),
            ("user-data", user_data),
        ],
    );
    m.initrd("all")
}

const ADMIN: &str = "UUID=1234 / ext4 defaults 0 1\n/dev/vdz9 /srv ext4 defaults 0 2\n";

#[test]
fn fstab_lines_are_tagged_replaced_and_never_for_missing_devices() {
    let m = Machine::new("mounts-fstab");
    m.write(&m.target, "etc/fstab", ADMIN.as_bytes());
    // A disk with a filesystem (an ext4 superblock magic), one with none.
    let mut ext = vec![0u8; 4096];
    ext[1024 + 0x38..1024 + 0x3a].copy_from_slice(&[0x53, 0xef]);
    m.write(&m.host, "dev/vdb", &ext);
    m.write(&m.host, "dev/vdc", &[0u8; 4096]);
    for d in ["vdb", "vdc"] {
        m.write(&m.host, &format!("sys/block/{d}/size"), b"8\n");
    }
    let user_data = "#cloud-config\nmounts:\n  - [vdb, /data]\n  - [vdc, /empty]\n  - [sdq, /nowhere]\n  - [\"LABEL=logs\", /var/log/app, ext4, \"defaults,noatime\"]\n  - [\"nfs.example:/export\", /nfs, nfs]\nmount_default_fields: [null, null, auto, \"defaults,nofail\", \"0\", \"2\"]\n";
    provision(&m, "i-1", user_data);
    let fstab = m.target_file("etc/fstab");
    assert!(
        fstab.starts_with(ADMIN),
        "the admin's lines stay first: {fstab}"
    );
    assert!(
        fstab.contains("/dev/vdb\t/data\tauto\tdefaults,nofail,comment=cloudconfig\t0\t2\n"),
        "{fstab}"
    );
    assert!(
        fstab.contains(
            "LABEL=logs\t/var/log/app\text4\tdefaults,noatime,comment=cloudconfig\t0\t2\n"
        ),
        "{fstab}"
    );
    assert!(
        fstab.contains("nfs.example:/export\t/nfs\tnfs\t"),
        "{fstab}"
    );
    assert!(!fstab.contains("vdc") && !fstab.contains("sdq"), "{fstab}");
    assert!(m.target.join("data").is_dir() && m.target.join("var/log/app").is_dir());
    for code in ["mount-no-filesystem", "mount-no-device"] {
        let d = m.diag_with_code(code).unwrap_or_else(|| panic!("{code}"));
        let text = d.to_string();
        assert!(text.contains("mounts."), "{text}");
        assert!(
            !text.contains("sdq") && !text.contains("vdc"),
            "values stay out: {text}"
        );
    }

    // A new instance: only ember's lines are replaced; a null mount point removes vdb.
    provision(&m, "i-2", "#cloud-config\nmounts:\n  - [vdb, null]\n");
    let fstab = m.target_file("etc/fstab");
    assert_eq!(fstab, ADMIN, "{fstab}");
}

#[test]
fn swap_file_is_made_whole_with_a_header_blkid_reads() {
    let m = Machine::new("mounts-swap");
    m.write(&m.host, "proc/meminfo", b"MemTotal:        1048576 kB\n");
    provision(
        &m,
        "i-1",
        "#cloud-config\nswap:\n  filename: /var/swap.img\n  size: 8M\n",
    );
    let file = m.target.join("var/swap.img");
    let meta = std::fs::metadata(&file).unwrap();
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    assert_eq!(meta.len(), 8 << 20);
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(meta.blocks() * 512 >= 8 << 20, "the file has holes");
    let fstab = m.target_file("etc/fstab");
    assert!(
        fstab.contains("/var/swap.img\tnone\tswap\tsw\t0\t0\n"),
        "{fstab}"
    );
    if common::have("blkid") {
        let out = std::process::Command::new("blkid")
            .args(["-p", "-o", "value", "-s", "TYPE"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(common::stdout(&out).trim(), "swap");
    }

    // size: auto, within maxsize.
    let m = Machine::new("mounts-swap-auto");
    m.write(&m.host, "proc/meminfo", b"MemTotal:        1048576 kB\n");
    provision(
        &m,
        "i-1",
        "#cloud-config\nswap: {filename: /swap.img, size: auto, maxsize: 4M}\n",
    );
    assert_eq!(
        std::fs::metadata(m.target.join("swap.img")).unwrap().len(),
        4 << 20
    );

    // A bad size is named by its key.
    let m = Machine::new("mounts-swap-bad");
    provision(
        &m,
        "i-1",
        "#cloud-config\nswap: {filename: /swap.img, size: lots}\n",
    );
    assert!(m
        .diag_with_code("bad-value")
        .unwrap()
        .to_string()
        .contains("swap.size"));
    assert!(!m.target.join("swap.img").exists());
}

//! Disks, set up from the initramfs: partition tables read, grown and created in Rust (GPT and
//! MBR), the kernel told of a grown partition (BLKPG), growpart and resize_rootfs, and
//! cloud-init's disk_setup, fs_setup, mounts and swap.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#growpart>
//!
//! Architecture invariant: block devices and their tables only, on `ember-core` alone; which
//! module asks for what is the modules' business. Every write to a device goes through
//! `io::BlockIo`, so a test runs the same code on a file.

use ember_core::{child, host, reason, root};

pub mod blkpg;
pub mod device;
pub mod fs_label;
pub mod fs_size;
pub mod gpt;
pub mod io;
pub mod layout;
pub mod mbr;
pub mod mountinfo;
pub mod signature;
pub mod swap;
pub mod table;
pub mod tools;

/// Whole mebibytes, for messages.
pub fn mib(bytes: u64) -> u64 {
    bytes >> 20
}

/// The node of partition `number` of the disk at `disk`: `sdb1`, or `nvme0n1p1` and
/// `loop0p1` where the disk's name ends in a digit, as the kernel names them.
pub fn device_node(disk: &std::path::Path, number: u32) -> std::path::PathBuf {
    let name = disk.display().to_string();
    let sep = if name.ends_with(|c: char| c.is_ascii_digit()) {
        "p"
    } else {
        ""
    };
    std::path::PathBuf::from(format!("{name}{sep}{number}"))
}

/// Whether the device at `path` holds a filesystem or swap, not only a partition table.
pub fn has_filesystem(path: &std::path::Path) -> bool {
    let Ok(mut dev) = io::DeviceFile::open(path, false) else {
        return false;
    };
    matches!(signature::probe(&mut dev, 0), Ok(Some(s)) if !matches!(s, "gpt" | "dos"))
}

/// The command that grows a mounted filesystem online to fill its device: resize2fs takes
/// the device, xfs_growfs and btrfs the mount point. `None` for other types.
pub fn grow_command(fstype: &str, mountpoint: &str, device: &str) -> Option<Vec<String>> {
    let argv: &[&str] = match fstype {
        "ext2" | "ext3" | "ext4" => &["resize2fs", device],
        "xfs" => &["xfs_growfs", mountpoint],
        "btrfs" => &["btrfs", "filesystem", "resize", "max", mountpoint],
        _ => return None,
    };
    Some(argv.iter().map(|s| s.to_string()).collect())
}

//! Disks, set up from the initramfs: partition tables read, grown and created in Rust (GPT and
//! MBR), the kernel told of a grown partition (BLKPG), growpart and resize_rootfs, and
//! cloud-init's disk_setup, fs_setup, mounts and swap.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#growpart>

pub mod blkpg;
pub mod device;
pub mod fs_size;
pub mod gpt;
pub mod io;
pub mod layout;
pub mod mbr;
pub mod mountinfo;
pub mod signature;
pub mod table;

/// Whole mebibytes, for messages.
pub fn mib(bytes: u64) -> u64 {
    bytes >> 20
}
pub mod swap;
pub mod tools;

//! Disks, set up from the initramfs: partition tables read, grown and created in Rust (GPT and
//! MBR), the kernel told of a grown partition (BLKPG), growpart and resize_rootfs, and
//! cloud-init's disk_setup, fs_setup, mounts and swap.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#growpart>

pub mod gpt;
pub mod io;
pub mod layout;
pub mod mbr;
pub mod signature;
pub mod table;

//! Telling the kernel about partitions one by one, with the BLKPG ioctl, as util-linux's
//! `resizepart` and `partx` do: a grown partition (which works while it and the others are
//! in use, unlike re-reading the whole table with BLKRRPART), and the partitions of a table
//! disk_setup wrote (which also works where the kernel does not parse partition tables).
//! linux/blkpg.h.
#![allow(unsafe_code)] // the one ioctl rustix has no safe wrapper for

use std::ffi::{c_int, c_longlong, c_void};
use std::os::fd::AsFd;

/// `BLKPG = _IO(0x12, 105)`.
const BLKPG: rustix::ioctl::Opcode = rustix::ioctl::opcode::none(0x12, 105);
const BLKPG_ADD_PARTITION: c_int = 1;
const BLKPG_DEL_PARTITION: c_int = 2;
const BLKPG_RESIZE_PARTITION: c_int = 3;

/// `struct blkpg_partition`.
#[repr(C)]
struct BlkpgPartition {
    start: c_longlong,
    length: c_longlong,
    pno: c_int,
    devname: [u8; 64],
    volname: [u8; 64],
}

/// `struct blkpg_ioctl_arg`.
#[repr(C)]
struct BlkpgIoctlArg {
    op: c_int,
    flags: c_int,
    datalen: c_int,
    data: *mut c_void,
}

/// Sets partition `number` of the disk open as `disk` to `start` and `length` bytes.
pub fn resize_partition(
    disk: impl AsFd,
    number: u32,
    start: u64,
    length: u64,
) -> std::io::Result<()> {
    blkpg(disk, BLKPG_RESIZE_PARTITION, number, start, length)
}

/// Adds partition `number` (`start` and `length` in bytes) to the kernel's view of the disk.
pub fn add_partition(disk: impl AsFd, number: u32, start: u64, length: u64) -> std::io::Result<()> {
    blkpg(disk, BLKPG_ADD_PARTITION, number, start, length)
}

/// Removes partition `number` from the kernel's view (EBUSY while it is in use).
pub fn delete_partition(disk: impl AsFd, number: u32) -> std::io::Result<()> {
    blkpg(disk, BLKPG_DEL_PARTITION, number, 0, 0)
}

fn blkpg(disk: impl AsFd, op: c_int, number: u32, start: u64, length: u64) -> std::io::Result<()> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidInput);
    let mut part = BlkpgPartition {
        start: c_longlong::try_from(start).map_err(|_| invalid())?,
        length: c_longlong::try_from(length).map_err(|_| invalid())?,
        pno: c_int::try_from(number).map_err(|_| invalid())?,
        devname: [0; 64],
        volname: [0; 64],
    };
    let arg = BlkpgIoctlArg {
        op,
        flags: 0,
        datalen: std::mem::size_of::<BlkpgPartition>() as c_int,
        data: (&mut part as *mut BlkpgPartition).cast(),
    };
    // SAFETY: BLKPG takes a pointer to a `blkpg_ioctl_arg` whose `data` points to a
    // `blkpg_partition` of `datalen` bytes; both are laid out as in linux/blkpg.h and live
    // until the call returns. The kernel only reads them.
    unsafe {
        let setter = rustix::ioctl::Setter::<BLKPG, BlkpgIoctlArg>::new(arg);
        rustix::ioctl::ioctl(disk, setter)?;
    }
    Ok(())
}

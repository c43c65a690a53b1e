//! The initramfs parts (`initramfs/`): the build hooks of dracut, initramfs-tools and
//! mkinitcpio, their boot hooks under a fake early userspace, and static checks of every shell
//! part and systemd unit. The shell stand-ins they run live next to this file.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod boot_hooks;
mod build_hooks;
mod lint;

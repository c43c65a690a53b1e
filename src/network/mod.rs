//! Networking: the ephemeral lease the network datasources need from the initramfs.

pub mod ephemeral;

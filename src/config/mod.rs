//! Configuration: the image's own files, cloud-init's merge rules, and the known keys.

pub mod image;
pub mod known_keys;
pub mod merge;

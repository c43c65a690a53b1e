//! Image and merged cloud-config.
pub mod merge;

//! The cloud-config readers of `ember_core::config`, and the image's config files, which only
//! the initramfs side reads (it parses YAML).

pub use ember_core::config::*;
pub mod image;

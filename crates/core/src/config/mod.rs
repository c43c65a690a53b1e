//! Configuration: the image's own files, cloud-init's merge rules, the known keys, and the
//! small shape language modules describe their keys with.

pub mod ember;
pub mod known_keys;
pub mod merge;
pub mod reader;
pub mod shape;

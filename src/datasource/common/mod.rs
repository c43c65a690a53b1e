//! What more than one cloud uses: metadata GETs with retries, the ephemeral-lease loop, NoCloud-
//! style seed files, and the seed-media filter (ISO9660, UDF, VFAT by label).

pub mod metadata_get;
pub mod over_lease;
pub mod seed;
pub mod seed_volume;

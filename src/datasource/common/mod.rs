//! What more than one cloud uses: metadata GETs with retries, NoCloud-style seed files, and the
//! seed-media filter (ISO9660, UDF, VFAT by label), the line channel of the serial-port clouds.
//! The way to a metadata service is the stage's (`datasource::link`).

pub mod metadata_get;
pub mod seed;
pub mod seed_volume;
#[cfg(any(feature = "ds-smartos", feature = "ds-cloudsigma"))]
pub mod serial;

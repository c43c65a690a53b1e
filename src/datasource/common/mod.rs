//! What more than one cloud uses: metadata GETs with retries, base64 payloads, NoCloud-style seed files, and the
//! seed-media filter (ISO9660, UDF, VFAT by label). The way to a metadata service is the
//! stage's (`datasource::link`).

#[cfg(feature = "ds-hetzner")]
pub mod b64;
pub mod metadata_get;
pub mod seed;
pub mod seed_volume;

//! What more than one cloud uses: metadata GETs with retries, base64 payloads, NoCloud-style
//! seed files, the seed-media filter (ISO9660, UDF, VFAT by label), the password server, the
//! EC2-style tree crawl, and the line channel of the serial-port clouds. The way to a metadata
//! service is the stage's (`datasource::link`).

#[cfg(feature = "ds-hetzner")]
pub mod b64;
pub mod client;
#[cfg(any(
    feature = "ds-aliyun",
    feature = "ds-exoscale",
    feature = "ds-cloudstack"
))]
pub mod ec2_tree;
pub mod metadata_get;
#[cfg(any(feature = "ds-exoscale", feature = "ds-cloudstack"))]
pub mod password_server;
pub mod seed;
pub mod seed_volume;
#[cfg(any(feature = "ds-smartos", feature = "ds-cloudsigma"))]
pub mod serial;

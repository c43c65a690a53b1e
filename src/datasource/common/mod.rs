//! What more than one cloud uses, so that no cloud imports another's folder: the metadata
//! client over metadata GETs with retries, EC2's IMDS client (Aliyun's too), the EC2-style tree
//! crawl, the OpenStack-format files (IBM Cloud's and RbxCloud's too), the OVF XML reader
//! (Azure's and VMware's), base64 payloads, NoCloud-style seed files, the seed-media filter
//! (ISO9660, UDF, VFAT by label), the password server, and the line channel of the serial-port
//! clouds. The way to a metadata service is the stage's (`datasource::link`).

#[cfg(feature = "ds-hetzner")]
pub mod b64;
pub mod client;
pub mod ec2_imds;
#[cfg(any(
    feature = "ds-aliyun",
    feature = "ds-exoscale",
    feature = "ds-cloudstack"
))]
pub mod ec2_tree;
pub mod metadata_get;
pub mod openstack_files;
#[cfg(any(feature = "ds-exoscale", feature = "ds-cloudstack"))]
pub mod password_server;
pub mod seed;
pub mod seed_volume;
#[cfg(any(feature = "ds-smartos", feature = "ds-cloudsigma"))]
pub mod serial;
pub mod xml;

/// The chassis asset tag of every Azure VM: Azure's evidence, and what tells VMware's OVF
/// datasource that an `ovf-env.xml` is Azure's.
pub const AZURE_CHASSIS_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

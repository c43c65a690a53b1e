//! An Oracle Cloud instance metadata service: `/opc/v2/instance/` and `/opc/v2/vnics/`, which
//! answer 401 without `Authorization: Bearer Oracle` as OCI's IMDSv2 does, and the same
//! documents under `/opc/v1/` without the header; fixture data modelled on OCI's documented
//! example (a VM with a primary and a secondary VNIC, a key, base64 user-data), and scripted
//! faults: answers per path in order, the last repeating.
//! <https://docs.oracle.com/en-us/iaas/Content/Compute/Tasks/gettingmetadata.htm>

use super::scripted;
pub use super::scripted::Server;
use super::{ok, Answer, Request};
use base64::Engine;
use serde_json::{json, Value};

pub const INSTANCE_V2: &str = "/opc/v2/instance/";
pub const VNICS_V2: &str = "/opc/v2/vnics/";
pub const INSTANCE_V1: &str = "/opc/v1/instance/";
pub const VNICS_V1: &str = "/opc/v1/vnics/";
pub const ID: &str = "ocid1.instance.oc1.phx.abyhqljtemulatorinstance";
pub const HOSTNAME: &str = "oci-vm-1";
pub const PRIMARY_MAC: &str = "02:00:17:05:d1:db";
pub const SECONDARY_MAC: &str = "02:00:17:05:d1:dc";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOracleKeyForTestsOnly oci-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/oci-secret\n    content: user-data-secret-9e2a\n    permissions: '0600'\n";

/// The instance document of a VM in PHX-AD-1.
pub fn instance() -> Value {
    let ud = base64::engine::general_purpose::STANDARD.encode(USER_DATA);
    json!({
        "availabilityDomain": "EMIr:PHX-AD-1",
        "faultDomain": "FAULT-DOMAIN-2",
        "compartmentId": "ocid1.tenancy.oc1..aaaaaaaaemulator",
        "displayName": "my-oci-vm",
        "hostname": HOSTNAME,
        "id": ID,
        "image": "ocid1.image.oc1.phx.aaaaaaaaemulator",
        "metadata": {
            "ssh_authorized_keys": KEY,
            "user_data": ud,
        },
        "region": "phx",
        "canonicalRegionName": "us-phoenix-1",
        "ociAdName": "phx-ad-1",
        "regionInfo": {"realmKey": "oc1", "regionIdentifier": "us-phoenix-1"},
        "shape": "VM.Standard.E4.Flex",
        "state": "Running",
        "timeCreated": 1_600_000_000_000u64,
    })
}

/// The VNICs: the primary first, a secondary on another subnet.
pub fn vnics() -> Value {
    json!([
        {"vnicId": "ocid1.vnic.oc1.phx.primary", "privateIp": "10.0.0.230", "vlanTag": 1039,
         "macAddr": "02:00:17:05:D1:DB", "virtualRouterIp": "10.0.0.1",
         "subnetCidrBlock": "10.0.0.0/24"},
        {"vnicId": "ocid1.vnic.oc1.phx.secondary", "privateIp": "10.0.4.5", "vlanTag": 1040,
         "macAddr": "02:00:17:05:D1:DC", "virtualRouterIp": "10.0.4.1",
         "subnetCidrBlock": "10.0.4.0/23"},
    ])
}

/// IMDSv2 refuses a request without its header before anything else is looked at.
fn guard(req: &Request) -> Option<Answer> {
    let v2 = req.path.starts_with("/opc/v2/");
    let authorised = req.header("authorization") == Some("Bearer Oracle");
    scripted::get_only(req).or_else(|| (v2 && !authorised).then(|| Answer::Body(401, Vec::new())))
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let (inst, vn) = (instance().to_string(), vnics().to_string());
    scripted::start_guarded(guard, move |req| match req.path.as_str() {
        INSTANCE_V2 | INSTANCE_V1 => ok(&inst),
        VNICS_V2 | VNICS_V1 => ok(&vn),
        _ => Answer::Body(404, Vec::new()),
    })
}

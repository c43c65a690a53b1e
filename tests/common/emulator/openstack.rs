//! An OpenStack (Nova) metadata service: `/openstack` lists the versions, each version's
//! `meta_data.json`, `user_data`, `vendor_data.json`, `vendor_data2.json` and
//! `network_data.json`, modelled on Nova's documented examples; plain GETs, no header needed.
//! Scripted faults per path, in order. The same files make the tests' config drives
//! (`drive_files`).
//! <https://docs.openstack.org/nova/latest/user/metadata.html>

use super::scripted::{self, Spec};
use super::{ok, Answer, Request};
use std::collections::HashMap;

pub const UUID: &str = "83679162-1378-4288-a2d4-70e13ec132aa";
pub const HOSTNAME: &str = "os-test.novalocal";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOpenStackKeyForTestsOnly0 mykey";
pub const ADMIN_PASS: &str = "admin-pass-secret-9b1c";
/// The NIC the tests' host (and the QEMU case's guest) has; a second one only bonded.
pub const MAC0: &str = "fa:16:3e:00:00:01";
pub const MAC1: &str = "fa:16:3e:00:00:02";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/os-secret\n    content: user-data-secret-5c2e\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str =
    r##"{"cloud-init": "#cloud-config\nruncmd:\n  - echo vendor-data-ran\n"}"##;
pub const VENDOR_DATA2: &str = r#"{"static": {"note": "no cloud-init key: nothing for ember"}}"#;
/// The versions Nova lists: older ones, the newest ember knows, one it does not, `latest`.
pub const VERSIONS: &str = "2012-08-10\n2013-04-04\n2016-06-30\n2018-08-27\n2020-10-14\nlatest";
/// The version ember picks from `VERSIONS`.
pub const CHOSEN: &str = "2018-08-27";

pub fn meta_data() -> String {
    format!(
        r#"{{"uuid": "{UUID}", "hostname": "{HOSTNAME}", "name": "os-test",
  "availability_zone": "nova", "launch_index": 0, "project_id": "f7ac731cc11f40efbc03a9f9e1d1d21f",
  "public_keys": {{"mykey": "{KEY}\n"}},
  "keys": [{{"name": "mykey", "type": "ssh", "data": "{KEY}\n"}}],
  "meta": {{"role": "webserver"}}, "admin_pass": "{ADMIN_PASS}", "random_seed": "cmFuZG9tLXNlZWQ="}}"#
    )
}

/// A bond of both NICs with a VLAN on it, static IPv4 with a default route, and a resolver.
pub fn network_data() -> String {
    format!(
        r#"{{
  "links": [
    {{"id": "tap-a", "type": "phy", "ethernet_mac_address": "{MAC0}", "mtu": 1500}},
    {{"id": "tap-b", "type": "ovs", "ethernet_mac_address": "{MAC1}", "vif_id": "x"}},
    {{"id": "bond-x", "type": "bond", "bond_links": ["tap-a", "tap-b"], "bond_mode": "active-backup",
     "bond_miimon": 100, "ethernet_mac_address": "{MAC0}"}},
    {{"id": "vlan-x", "type": "vlan", "vlan_link": "bond-x", "vlan_id": 42, "vlan_mac_address": "{MAC0}"}}
  ],
  "networks": [
    {{"id": "n0", "type": "ipv4", "link": "vlan-x", "ip_address": "10.42.0.5", "netmask": "255.255.255.0",
     "routes": [{{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.42.0.1"}}],
     "network_id": "da5bb487-5193-4a65-a3df-4a0055a8c0d7"}}
  ],
  "services": [{{"type": "dns", "address": "10.42.0.2"}}]
}}"#
    )
}

/// The files of one version directory, by name.
pub fn version_files() -> Vec<(&'static str, String)> {
    vec![
        ("meta_data.json", meta_data()),
        ("user_data", USER_DATA.to_string()),
        ("vendor_data.json", VENDOR_DATA.to_string()),
        ("vendor_data2.json", VENDOR_DATA2.to_string()),
        ("network_data.json", network_data()),
    ]
}

/// A config drive's tree: the full set under `CHOSEN` and `latest`, and an older version
/// whose instance is another, so reading the wrong one shows.
pub fn drive_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for v in [CHOSEN, "latest"] {
        for (name, body) in version_files() {
            out.push((format!("openstack/{v}/{name}"), body));
        }
    }
    let old = meta_data().replace(UUID, "old-version-uuid");
    out.push(("openstack/2012-08-10/meta_data.json".into(), old));
    out.push((
        "openstack/2012-08-10/user_data".into(),
        "#cloud-config\n{}".into(),
    ));
    out
}

/// Nova is the shared scripted server.
pub use super::scripted::Server as Nova;

fn fixture() -> HashMap<String, String> {
    let mut f = HashMap::new();
    f.insert("/openstack".to_string(), VERSIONS.to_string());
    for v in [CHOSEN, "latest"] {
        for (name, body) in version_files() {
            f.insert(format!("/openstack/{v}/{name}"), body);
        }
    }
    f.insert(
        "/openstack/2012-08-10/meta_data.json".into(),
        meta_data().replace(UUID, "old-version-uuid"),
    );
    f
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Nova {
    let fixture = fixture();
    let route = move |req: &Request| match fixture.get(&nova_path(&req.path)) {
        Some(body) => ok(body),
        None => Answer::Body(404, Vec::new()),
    };
    let spec = Spec::new(route)
        .guard(|req, _| scripted::get_only(req))
        .key(nova_path)
        .concurrent();
    scripted::serve(scripted::loopback(), spec)
}

/// Nova answers `/openstack/` as `/openstack`.
fn nova_path(path: &str) -> String {
    path.trim_end_matches('/').to_string()
}

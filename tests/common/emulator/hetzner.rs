//! A Hetzner Cloud metadata service: `/hetzner/v1/metadata` (YAML, modelled on Hetzner's
//! documented answer and cloud-init's test data: the public NIC's v1 network-config, a key,
//! vendor-data), `/hetzner/v1/metadata/private-networks` (one attached network) and
//! `/hetzner/v1/userdata`, GET only, with scripted faults (`scripted`).
//! <https://docs.hetzner.cloud/#server-metadata>

use super::scripted::{self, Server};
use super::{ok, Answer, Request};

pub const METADATA: &str = "/hetzner/v1/metadata";
pub const PRIVATE_NETWORKS: &str = "/hetzner/v1/metadata/private-networks";
pub const USERDATA: &str = "/hetzner/v1/userdata";
pub const SERVER_ID: u64 = 42881234;
pub const PUBLIC_MAC: &str = "96:00:00:08:19:da";
pub const PRIVATE_MAC: &str = "86:00:00:2a:7d:e0";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHetznerKeyForTestsOnly hetzner-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/hetzner-secret\n    content: user-data-secret-91fa\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nmanage_etc_hosts: true\n";

pub fn metadata() -> String {
    format!(
        "hostname: cx22-test
instance-id: {SERVER_ID}
local-ipv4: ''
public-ipv4: 203.0.113.17
availability-zone: fsn1-dc14
region: eu-central
public-keys:
- {KEY}
vendor_data: |
  #cloud-config
  manage_etc_hosts: true
network-config:
  config:
  - mac_address: {PUBLIC_MAC}
    name: eth0
    subnets:
    - dns_nameservers:
      - 185.12.64.1
      - 185.12.64.2
      ipv4: true
      type: dhcp
    - address: 2a01:4f8:c012:abcd::1/64
      dns_nameservers:
      - 2a01:4ff:ff00::add:2
      - 2a01:4ff:ff00::add:1
      gateway: fe80::1
      ipv6: true
      type: static
    type: physical
  version: 1
"
    )
}

pub fn private_networks() -> String {
    format!(
        "- ip: 10.0.0.2
  alias_ips: []
  interface_num: 1
  mac_address: {PRIVATE_MAC}
  network_id: 1234
  network_name: nw-test1
  network: 10.0.0.0/8
  subnet: 10.0.0.0/24
  gateway: 10.0.0.1
"
    )
}

fn route(req: &Request) -> Answer {
    if req.method != "GET" {
        return Answer::Body(405, Vec::new());
    }
    match req.path.as_str() {
        METADATA => ok(&metadata()),
        PRIVATE_NETWORKS => ok(&private_networks()),
        USERDATA => ok(USER_DATA),
        "/hetzner/v1/metadata/instance-id" => ok(&SERVER_ID.to_string()),
        _ => Answer::Body(404, Vec::new()),
    }
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    scripted::start(route)
}

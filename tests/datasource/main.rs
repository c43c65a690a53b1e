//! The datasources: NoCloud (seed volumes, HTTP and HTTPS seeds, the image config's
//! choices), the clouds against their metadata emulators (`common/emulator/`), and the state
//! kept across boots.

#[path = "../common/mod.rs"]
mod common;

mod akamai;
mod aliyun;
mod altcloud;
mod azure;
mod azure_wireserver;
mod bigstep;
mod boots;
mod canonical_seeds;
mod cloudcix;
mod cloudsigma;
mod cloudstack;
mod config_sources;
mod conformance;
mod digitalocean;
mod dns_seed;
mod ec2;
mod exoscale;
mod gce;
mod hetzner;
mod http_seed;
mod https_seed;
mod ibmcloud;
mod lxd;
mod maas;
mod nocloud;
mod none;
mod nwcs;
mod opennebula;
mod openstack;
mod oracle;
mod rbxcloud;
mod scaleway;
mod smartos;
mod templates;
mod upcloud;
mod vmware;
mod vps_machine;
mod vultr;
mod wsl;

//! The datasources: NoCloud (seed volumes, HTTP and HTTPS seeds, the image config's
//! choices), the clouds against their metadata emulators (`common/emulator/`), and the state
//! kept across boots.

#[path = "../common/mod.rs"]
mod common;

mod azure;
mod azure_wireserver;
mod boots;
mod canonical_seeds;
mod cloudsigma;
mod config_sources;
mod digitalocean;
mod dns_seed;
mod ec2;
mod gce;
mod http_seed;
mod https_seed;
mod maas;
mod nocloud;
mod none;
mod openstack;
mod smartos;
mod templates;

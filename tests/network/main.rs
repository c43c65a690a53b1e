//! Networking: network configs parsed, the renderers against golden trees (`tests/golden/`)
//! and judged by their consumers (libnm, netplan, ifup),
//! the local stage's network step, `net-convert`, the ephemeral DHCP and SLAAC clients in real
//! network namespaces, and no listening sockets.

#[path = "../common/mod.rs"]
mod common;
mod golden;

mod apply;
mod consumers;
mod convert;
mod ephemeral_dhcp;
mod ephemeral_slaac;
mod no_listening_sockets;
mod parse;
mod render_eni;
mod render_netplan;
mod render_networkd;
mod render_nm;

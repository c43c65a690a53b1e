//! Renderers: the network model turned into the files one network stack reads, one file per
//! stack. Rendering is pure (model in, files out); choosing the stack and writing the files
//! into the target (through `Root`) is the caller's job.

pub mod eni;
pub mod nm;
pub mod owned;

use crate::error::Diag;

pub mod netplan;
pub mod networkd;

/// The warning for a v1 bridge key of bridge-utils' own (`bridge_gcint`, `bridge_maxwait`,
/// `bridge_waitport`) where the stack is not ifupdown.
const IFUPDOWN_ONLY: &str = "bridge-utils' own setting: only ifupdown (ENI) has it; left out";

/// One file for the target root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedFile {
    /// Absolute path inside the target (`/etc/systemd/network/10-cloud-init-eth0.network`).
    pub path: String,
    pub content: String,
    /// Permission bits: keyfiles and netplan files are 0600, the rest 0644.
    pub mode: u32,
}

/// What a renderer produced: the files, and what the stack cannot express (a warning each,
/// naming the interface and the key).
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub files: Vec<RenderedFile>,
    pub warnings: Vec<Diag>,
}

impl Rendered {
    pub fn file(&mut self, path: impl Into<String>, content: String, mode: u32) {
        self.files.push(RenderedFile {
            path: path.into(),
            content,
            mode,
        });
    }

    pub fn warn(&mut self, diag: Diag) {
        self.warnings.push(diag);
    }
}

/// Whether a default gateway of `i` lies outside every static address of its family (a
/// gateway outside the subnet, as many clouds give a /32 with its router): its route must
/// then be on-link, or the kernel refuses it as unreachable. As cloud-init decides, an
/// interface without a static address of that family (DHCP) leaves it to the kernel.
pub(crate) fn gateway_on_link(i: &crate::model::Interface, gw: std::net::IpAddr) -> bool {
    let mut family = i
        .addresses
        .iter()
        .filter(|a| a.ip.is_ipv6() == gw.is_ipv6())
        .peekable();
    family.peek().is_some() && !family.any(|a| eni::util::holds(a, gw))
}

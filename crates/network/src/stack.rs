//! Which network stack the target root has, and so which renderer writes its config: the
//! first of `system_info.network.renderers` (cloud-init's names) whose stack is installed,
//! else the first in cloud-init's default order.
//! <https://docs.cloud-init.io/en/latest/reference/network-config.html#network-output-policy>

use super::model::Network;
use super::render::{self, Rendered};
use crate::root::Root;

/// The stacks ember renders for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    Eni,
    Netplan,
    NetworkManager,
    Networkd,
}

/// cloud-init's default priority (`renderers.DEFAULT_PRIORITY`); its BSD renderers never
/// apply to a Linux root.
pub const DEFAULT_ORDER: [&str; 5] = ["eni", "sysconfig", "netplan", "network-manager", "networkd"];

impl Stack {
    pub fn name(self) -> &'static str {
        match self {
            Stack::Eni => "eni",
            Stack::Netplan => "netplan",
            Stack::NetworkManager => "network-manager",
            Stack::Networkd => "networkd",
        }
    }

    /// What the stack reads its config with, in the target.
    fn installed(self, root: &Root) -> bool {
        let any = |paths: &[&str]| paths.iter().any(|p| root.exists(p));
        match self {
            Stack::Eni => {
                any(&["/sbin/ifup", "/usr/sbin/ifup"]) && root.exists("/etc/network/interfaces")
            }
            Stack::Netplan => any(&["/usr/sbin/netplan", "/sbin/netplan"]),
            Stack::NetworkManager => any(&["/usr/sbin/NetworkManager", "/sbin/NetworkManager"]),
            Stack::Networkd => any(&[
                "/usr/lib/systemd/systemd-networkd",
                "/lib/systemd/systemd-networkd",
            ]),
        }
    }

    pub fn render(self, net: &Network) -> Rendered {
        match self {
            Stack::Eni => render::eni::render(net),
            Stack::Netplan => render::netplan::render(net),
            Stack::NetworkManager => render::nm::render(net),
            Stack::Networkd => render::networkd::render(net),
        }
    }
}

/// cloud-init's renderer name as a stack. `sysconfig` (RHEL's ifcfg files) is rendered as
/// NetworkManager keyfiles, which RHEL's NetworkManager reads; without NetworkManager it is
/// unsupported. `Err` names what is not supported.
fn by_name(name: &str, root: &Root) -> Result<Option<Stack>, String> {
    Ok(Some(match name {
        "eni" => Stack::Eni,
        "netplan" => Stack::Netplan,
        "network-manager" => Stack::NetworkManager,
        "networkd" => Stack::Networkd,
        "sysconfig" if Stack::NetworkManager.installed(root) => Stack::NetworkManager,
        "sysconfig" => return Ok(None),
        "freebsd" | "netbsd" | "openbsd" => return Ok(None),
        other => return Err(format!("unknown renderer {other:?}")),
    }))
}

/// The image's `system_info.network.renderers`, when it names them.
pub fn wanted(cfg: &serde_json::Value) -> Option<Vec<String>> {
    let names = cfg.pointer("/system_info/network/renderers")?.as_array()?;
    Some(
        names
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
    )
}

/// The stack an image renders for and what its list got wrong: chosen once per boot, so the
/// datasource (EC2's policy routing) and the renderer agree.
pub struct Choice {
    pub stack: Option<Stack>,
    pub problems: Vec<String>,
}

impl Choice {
    /// The choice for the merged config `cfg` (its `system_info.network.renderers`).
    pub fn of(root: &Root, cfg: &serde_json::Value) -> Choice {
        let (stack, problems) = choose(root, wanted(cfg).as_deref());
        Choice { stack, problems }
    }
}

/// The stack to render for: the first installed one of `wanted` (the image's
/// `system_info.network.renderers`) or of cloud-init's default order. Unknown names are
/// reported and skipped.
pub fn choose(root: &Root, wanted: Option<&[String]>) -> (Option<Stack>, Vec<String>) {
    let default: Vec<String> = DEFAULT_ORDER.iter().map(|s| s.to_string()).collect();
    let names = wanted.unwrap_or(&default);
    let mut problems = Vec::new();
    for name in names {
        match by_name(name, root) {
            Ok(Some(stack)) if stack.installed(root) => return (Some(stack), problems),
            Ok(_) => {}
            Err(why) => problems.push(why),
        }
    }
    (None, problems)
}

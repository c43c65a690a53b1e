//! The systemd-networkd renderer's `.netdev` files (bonds, bridges, vlans: the devices networkd
//! makes, with netplan's parameter names mapped to networkd's) and `.link` files (a physical
//! device's new name and Wake-on-LAN, applied by udev when the device appears).

use super::ini::{span, yes_no, Ini};
use super::plan::warn;
use crate::error::Diag;
use crate::model::{BondParams, BridgeParams, Interface, Kind, Network};

/// The `.netdev` of a virtual device; `None` for a physical one.
pub(super) fn netdev_file(iface: &Interface, warnings: &mut Vec<Diag>) -> Option<Ini> {
    let kind = match &iface.kind {
        Kind::Physical { .. } => return None,
        Kind::Bond { .. } => "bond",
        Kind::Bridge { .. } => "bridge",
        Kind::Vlan { .. } => "vlan",
    };
    let mut ini = Ini::default();
    ini.section("NetDev")
        .key("Name", &iface.id)
        .key("Kind", kind)
        .opt("MACAddress", iface.mac_address.as_ref());
    match &iface.kind {
        Kind::Bond { params, .. } => bond(&iface.id, params, &mut ini, warnings),
        Kind::Bridge { params, .. } => {
            for key in params.ifupdown_only() {
                warnings.push(warn(&iface.id, key, crate::render::IFUPDOWN_ONLY));
            }
            bridge(params, &mut ini)
        }
        Kind::Vlan { id, .. } => {
            ini.section("VLAN").key("Id", id);
        }
        Kind::Physical { .. } => {}
    }
    if iface.wakeonlan {
        let msg = "Wake-on-LAN is for physical devices: not rendered";
        warnings.push(warn(&iface.id, "wakeonlan", msg));
    }
    Some(ini)
}

/// Bond modes networkd knows: the kernel's, without netplan's two Open vSwitch modes.
const BOND_MODES: &[&str] = crate::params::BOND_MODES.split_at(7).0;

fn bond(id: &str, b: &BondParams, ini: &mut Ini, warnings: &mut Vec<Diag>) {
    ini.section("Bond");
    match b.mode.as_deref() {
        Some(m) if !BOND_MODES.contains(&m) => {
            let msg = "an Open vSwitch bond mode, which networkd has not: not rendered";
            warnings.push(warn(id, "parameters.mode", msg));
        }
        m => {
            ini.opt("Mode", m);
        }
    }
    ini.opt("TransmitHashPolicy", b.transmit_hash_policy.as_ref())
        .opt("LACPTransmitRate", b.lacp_rate.as_ref())
        .opt("MIIMonitorSec", b.mii_monitor_interval_ms.map(span))
        .opt("UpDelaySec", b.up_delay_ms.map(span))
        .opt("DownDelaySec", b.down_delay_ms.map(span))
        .opt(
            "LearnPacketIntervalSec",
            b.learn_packet_interval_ms.map(span),
        )
        .opt("AdSelect", b.ad_select.as_ref())
        .opt("FailOverMACPolicy", b.fail_over_mac_policy.as_ref())
        .opt("ARPValidate", b.arp_validate.as_ref())
        .opt("ARPIntervalSec", b.arp_interval_ms.map(span));
    if !b.arp_ip_targets.is_empty() {
        let targets: Vec<String> = b.arp_ip_targets.iter().map(|t| t.to_string()).collect();
        ini.key("ARPIPTargets", targets.join(" "));
    }
    ini.opt("ARPAllTargets", b.arp_all_targets.as_ref())
        .opt("PrimaryReselectPolicy", b.primary_reselect_policy.as_ref())
        .opt("ResendIGMP", b.resend_igmp)
        .opt("PacketsPerSlave", b.packets_per_member)
        .opt("GratuitousARP", b.gratuitous_arp)
        .opt("AllSlavesActive", b.all_members_active.map(yes_no))
        .opt("MinLinks", b.min_links);
}

fn bridge(b: &BridgeParams, ini: &mut Ini) {
    ini.section("Bridge")
        .opt("STP", b.stp.map(yes_no))
        .opt("ForwardDelaySec", b.forward_delay_ms.map(span))
        .opt("HelloTimeSec", b.hello_time_ms.map(span))
        .opt("MaxAgeSec", b.max_age_ms.map(span))
        .opt("AgeingTimeSec", b.ageing_time_ms.map(span))
        .opt("Priority", b.priority);
}

/// The `.link` of a physical device that is renamed or woken on LAN; else `None`.
pub(super) fn link_file(net: &Network, iface: &Interface) -> Option<Ini> {
    let Kind::Physical { matching, set_name } = &iface.kind else {
        return None;
    };
    if set_name.is_none() && !iface.wakeonlan {
        return None;
    }
    let mut ini = Ini::default();
    // udev matches before any rename: by MAC, driver and the kernel's own name.
    ini.section("Match")
        .opt("MACAddress", matching.macaddress.as_ref());
    if !matching.driver.is_empty() {
        ini.key("Driver", matching.driver.join(" "));
    }
    if matching.macaddress.is_some() && super::makes_virtual_devices(net) {
        ini.key("Type", super::VIRTUAL_TYPES_EXCLUDED);
    }
    ini.opt(
        "OriginalName",
        matching
            .name
            .as_ref()
            .or(matching.is_empty().then_some(&iface.id)),
    );
    ini.section("Link");
    match set_name {
        Some(name) => {
            ini.key("Name", name);
        }
        // This file is the first .link to match, so it replaces the default one: keep the
        // default naming, which would otherwise be lost.
        None => {
            ini.key("NamePolicy", "keep kernel database onboard slot path");
        }
    }
    if iface.wakeonlan {
        ini.key("WakeOnLan", "magic");
    }
    Some(ini)
}

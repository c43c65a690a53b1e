//! Bond and bridge parameters, by netplan's names; v1 and OpenStack translate their own names
//! to these first, so each parameter is checked in one place.

use super::model::{BondParams, BridgeParams, Kind};
use super::read::{join, Reader, RefKind, Refs, UNSUPPORTED};
use serde_json::Value;
use std::net::IpAddr;

/// A string that must be one of `allowed`.
pub(super) fn one_of(v: &Value, p: &str, rd: &mut Reader, allowed: &[&str]) -> Option<String> {
    let s = rd.string(v, p)?;
    if allowed.contains(&s.as_str()) {
        Some(s)
    } else {
        rd.error(p, format!("expected one of: {}", allowed.join(", ")));
        None
    }
}

/// netplan's bond modes: the kernel's seven, then Open vSwitch's two.
pub(super) const BOND_MODES: [&str; 9] = [
    "balance-rr",
    "active-backup",
    "balance-xor",
    "broadcast",
    "802.3ad",
    "balance-tlb",
    "balance-alb",
    "balance-tcp",
    "balance-slb",
];

/// v1's names (after `bond-`/`bond_`, with `_` for `-`) and their netplan names.
const V1_BOND: [(&str, &str); 20] = [
    ("mode", "mode"),
    ("lacp_rate", "lacp-rate"),
    ("miimon", "mii-monitor-interval"),
    ("min_links", "min-links"),
    ("xmit_hash_policy", "transmit-hash-policy"),
    ("ad_select", "ad-select"),
    ("all_slaves_active", "all-members-active"),
    ("arp_interval", "arp-interval"),
    ("arp_ip_target", "arp-ip-targets"),
    ("arp_validate", "arp-validate"),
    ("arp_all_targets", "arp-all-targets"),
    ("updelay", "up-delay"),
    ("downdelay", "down-delay"),
    ("fail_over_mac", "fail-over-mac-policy"),
    ("num_grat_arp", "gratuitous-arp"),
    ("num_unsol_na", "gratuitous-arp"),
    ("packets_per_slave", "packets-per-member"),
    ("primary_reselect", "primary-reselect-policy"),
    ("resend_igmp", "resend-igmp"),
    ("lp_interval", "learn-packet-interval"),
];

/// The netplan name of a v1 or OpenStack bond parameter (`bond-miimon`, `bond_mode`,
/// `xmit_hash_policy`); `primary` is the same in all.
pub(super) fn v1_bond_name(key: &str) -> Option<&'static str> {
    let name = key
        .strip_prefix("bond")
        .map_or(key, |r| r.trim_start_matches(['-', '_']))
        .replace('-', "_");
    if name == "primary" {
        return Some("primary");
    }
    V1_BOND
        .iter()
        .find(|(v1, _)| *v1 == name)
        .map(|(_, v2)| *v2)
}

/// Bond modes that cannot monitor links by ARP: the kernel refuses `arp_interval` and
/// `arp_validate` there, and libnm refuses a keyfile that has them.
const NO_ARP_MODES: [&str; 3] = ["802.3ad", "balance-tlb", "balance-alb"];

/// Whether the bond's mode can monitor links by ARP.
pub(super) fn arp_usable(b: &BondParams) -> bool {
    !b.mode.as_deref().is_some_and(|m| NO_ARP_MODES.contains(&m))
}

/// Whether `key` (netplan's name) is a parameter of ARP monitoring only.
pub(super) fn is_arp(key: &str) -> bool {
    key.starts_with("arp-")
}

/// Drops the ARP-monitor parameters of a bond whose mode cannot use them, with a warning at
/// each key given (`arp` holds their key paths). Done once here, so no renderer writes them.
pub(super) fn drop_unusable_arp(b: &mut BondParams, arp: &[String], rd: &mut Reader) {
    let Some(mode) = b.mode.as_deref().filter(|_| !arp_usable(b)) else {
        return;
    };
    let msg = format!(
        "ARP monitoring does not apply to bond mode {mode} (the kernel refuses it): dropped"
    );
    for p in arp {
        rd.warn(UNSUPPORTED, p, msg.clone());
    }
    b.arp_interval_ms = None;
    b.arp_ip_targets.clear();
    b.arp_validate = None;
    b.arp_all_targets = None;
}

/// Sets the bond parameter `key` (netplan's name) from `x`; false when `key` is not one.
pub(super) fn bond(
    b: &mut BondParams,
    key: &str,
    x: &Value,
    p: String,
    id: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> bool {
    match key {
        // A mode by name, or by the kernel's number (0 to 6).
        "mode" => {
            b.mode = match x.as_u64() {
                Some(n) if n <= 6 => Some(BOND_MODES[n as usize].to_string()),
                _ => one_of(x, &p, rd, &BOND_MODES),
            }
        }
        "lacp-rate" => b.lacp_rate = one_of(x, &p, rd, &["slow", "fast"]),
        "mii-monitor-interval" => b.mii_monitor_interval_ms = rd.duration_ms(x, &p, 1),
        "min-links" => b.min_links = rd.num(x, &p, 0, u32::MAX),
        "transmit-hash-policy" => b.transmit_hash_policy = rd.string(x, &p),
        "ad-select" => b.ad_select = rd.string(x, &p),
        "all-slaves-active" | "all-members-active" => b.all_members_active = rd.bool(x, &p),
        "arp-interval" => b.arp_interval_ms = rd.duration_ms(x, &p, 1),
        "arp-ip-targets" => {
            for (i, ip) in rd.ips(x, &p).into_iter().enumerate() {
                match ip {
                    IpAddr::V4(ip) => b.arp_ip_targets.push(ip),
                    IpAddr::V6(_) => rd.error(&join(&p, i), "not an IPv4 address"),
                }
            }
        }
        "arp-validate" => b.arp_validate = rd.string(x, &p),
        "arp-all-targets" => b.arp_all_targets = rd.string(x, &p),
        "up-delay" => b.up_delay_ms = rd.duration_ms(x, &p, 1),
        "down-delay" => b.down_delay_ms = rd.duration_ms(x, &p, 1),
        "fail-over-mac-policy" => b.fail_over_mac_policy = rd.string(x, &p),
        "gratuitous-arp" | "gratuitious-arp" => b.gratuitous_arp = rd.num(x, &p, 0, 255),
        "packets-per-slave" | "packets-per-member" => {
            b.packets_per_member = rd.num(x, &p, 0, 65535)
        }
        "primary-reselect-policy" => b.primary_reselect_policy = rd.string(x, &p),
        "resend-igmp" => b.resend_igmp = rd.num(x, &p, 0, 255),
        "learn-packet-interval" => b.learn_packet_interval_ms = rd.duration_ms(x, &p, 1000),
        "primary" => {
            b.primary = rd.string(x, &p);
            if let Some(m) = &b.primary {
                refs.add(p, m, id, RefKind::Other);
            }
        }
        _ => return false,
    }
    true
}

/// Sets the bridge parameter `key` (netplan's name, or v1's) from `x`; false when it is not
/// one. Times are in seconds unless suffixed.
pub(super) fn bridge(b: &mut BridgeParams, key: &str, x: &Value, p: &str, rd: &mut Reader) -> bool {
    let time = match key {
        "ageing-time" | "aging-time" | "bridge_ageing" => &mut b.ageing_time_ms,
        "forward-delay" | "bridge_fd" => &mut b.forward_delay_ms,
        "hello-time" | "bridge_hello" => &mut b.hello_time_ms,
        "max-age" | "bridge_maxage" => &mut b.max_age_ms,
        "priority" | "bridge_bridgeprio" => {
            b.priority = rd.num(x, p, 0, 65535);
            return true;
        }
        "stp" | "bridge_stp" => {
            b.stp = rd.bool(x, p);
            return true;
        }
        _ => return false,
    };
    *time = rd.duration_ms(x, p, 1000);
    true
}

/// One port's path cost or priority.
#[allow(clippy::too_many_arguments)]
pub(super) fn port_value(
    b: &mut BridgeParams,
    cost: bool,
    port: &str,
    n: &Value,
    p: String,
    id: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) {
    let max = if cost { u32::MAX } else { 63 };
    let Some(n) = rd.num(n, &p, 0, max) else {
        return;
    };
    refs.add(p, port, id, RefKind::Other);
    let table = if cost {
        &mut b.path_cost
    } else {
        &mut b.port_priority
    };
    table.insert(port.to_string(), n);
}

/// A vlan from its id and link keys (v1 `vlan_id`/`vlan_link`, v2 `id`/`link`); the link is
/// checked later like every other reference.
pub(super) fn vlan(
    id: &str,
    obj: &serde_json::Map<String, Value>,
    path: &str,
    keys: (&str, &str),
    rd: &mut Reader,
    refs: &mut Refs,
) -> Option<Kind> {
    let (id_key, link_key) = keys;
    let vid = match obj.get(id_key) {
        Some(v) => rd.num(v, &join(path, id_key), 0, 4094),
        None => {
            rd.error(
                &join(path, id_key),
                format!("missing: a vlan needs `{id_key}`"),
            );
            None
        }
    };
    let link = match obj.get(link_key) {
        Some(v) => {
            let p = join(path, link_key);
            let link = rd.string(v, &p);
            if let Some(l) = &link {
                refs.add(p, l, id, RefKind::Other);
            }
            link
        }
        None => {
            rd.error(
                &join(path, link_key),
                format!("missing: a vlan needs `{link_key}`"),
            );
            None
        }
    };
    Some(Kind::Vlan {
        id: u16::try_from(vid?).ok()?,
        link: link?,
    })
}

/// A list of member interface ids at `path`, each recorded as a reference to check later.
pub(super) fn members(
    id: &str,
    v: &Value,
    path: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> Vec<String> {
    let mut out = Vec::new();
    for (i, m) in rd.list(v, path).iter().enumerate() {
        let p = join(path, i);
        if let Some(m) = rd.string(m, &p) {
            refs.add(p, &m, id, RefKind::Member);
            out.push(m);
        }
    }
    out
}

//! The netplan renderer's values: a few setters of map keys (one copy each, for many call
//! sites and a small binary) and the bond and bridge parameters by netplan's names.

use super::Obj;
use crate::model::{BondParams, BridgeParams};
use serde_json::Value;

#[inline(never)]
pub(super) fn set(m: &mut Obj, key: &str, v: Value) {
    m.insert(key.to_string(), v);
}

pub(super) fn text(m: &mut Obj, key: &str, v: Option<&str>) {
    if let Some(v) = v {
        set(m, key, Value::String(v.to_string()));
    }
}

pub(super) fn num(m: &mut Obj, key: &str, v: Option<u32>) {
    if let Some(v) = v {
        set(m, key, Value::from(v));
    }
}

pub(super) fn boolean(m: &mut Obj, key: &str, v: Option<bool>) {
    if let Some(v) = v {
        set(m, key, Value::Bool(v));
    }
}

/// `key: true` when `on`.
pub(super) fn flag(m: &mut Obj, key: &str, on: bool) {
    boolean(m, key, on.then_some(true));
}

pub(super) fn object(m: &mut Obj, key: &str, v: Obj) {
    if !v.is_empty() {
        set(m, key, Value::Object(v));
    }
}

pub(super) fn texts<T: ToString>(items: impl Iterator<Item = T>) -> Value {
    Value::Array(items.map(|t| Value::String(t.to_string())).collect())
}

/// A duration netplan reads as seconds when bare: whole seconds bare, else with `ms`.
fn seconds(m: &mut Obj, key: &str, ms: Option<u32>) {
    match ms {
        Some(ms) if ms % 1000 != 0 => text(m, key, Some(&format!("{ms}ms"))),
        _ => num(m, key, ms.map(|ms| ms / 1000)),
    }
}

/// Bond parameters by netplan's names; the intervals netplan reads as milliseconds when bare
/// are bare. The older spellings (`all-slaves-active`, `packets-per-slave`) are the ones every
/// netplan release reads.
pub(super) fn bond_params(b: &BondParams) -> Obj {
    let mut m = Obj::new();
    text(&mut m, "mode", b.mode.as_deref());
    text(&mut m, "lacp-rate", b.lacp_rate.as_deref());
    num(&mut m, "mii-monitor-interval", b.mii_monitor_interval_ms);
    num(&mut m, "min-links", b.min_links);
    text(
        &mut m,
        "transmit-hash-policy",
        b.transmit_hash_policy.as_deref(),
    );
    text(&mut m, "ad-select", b.ad_select.as_deref());
    boolean(&mut m, "all-slaves-active", b.all_members_active);
    num(&mut m, "arp-interval", b.arp_interval_ms);
    if !b.arp_ip_targets.is_empty() {
        set(&mut m, "arp-ip-targets", texts(b.arp_ip_targets.iter()));
    }
    text(&mut m, "arp-validate", b.arp_validate.as_deref());
    text(&mut m, "arp-all-targets", b.arp_all_targets.as_deref());
    num(&mut m, "up-delay", b.up_delay_ms);
    num(&mut m, "down-delay", b.down_delay_ms);
    text(
        &mut m,
        "fail-over-mac-policy",
        b.fail_over_mac_policy.as_deref(),
    );
    num(&mut m, "gratuitous-arp", b.gratuitous_arp);
    num(&mut m, "packets-per-slave", b.packets_per_member);
    text(
        &mut m,
        "primary-reselect-policy",
        b.primary_reselect_policy.as_deref(),
    );
    num(&mut m, "resend-igmp", b.resend_igmp);
    seconds(&mut m, "learn-packet-interval", b.learn_packet_interval_ms);
    text(&mut m, "primary", b.primary.as_deref());
    m
}

pub(super) fn bridge_params(b: &BridgeParams) -> Obj {
    let mut m = Obj::new();
    seconds(&mut m, "ageing-time", b.ageing_time_ms);
    num(&mut m, "priority", b.priority);
    seconds(&mut m, "forward-delay", b.forward_delay_ms);
    seconds(&mut m, "hello-time", b.hello_time_ms);
    seconds(&mut m, "max-age", b.max_age_ms);
    boolean(&mut m, "stp", b.stp);
    for (key, ports) in [
        ("path-cost", &b.path_cost),
        ("port-priority", &b.port_priority),
    ] {
        let mut p = Obj::new();
        for (port, n) in ports {
            num(&mut p, port, Some(*n));
        }
        object(&mut m, key, p);
    }
    m
}

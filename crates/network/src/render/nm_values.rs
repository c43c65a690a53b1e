//! What NetworkManager (libnm 1.42, Debian 12) refuses in a bond or bridge profile, found by
//! its own keyfile reader and `verify()` (tests/network/consumers.rs): a profile holding one
//! of these does not load at all, or loses the value. Each is left out with a warning naming
//! the key, and the rest of the profile loads.

use super::super::eni::util::warn;
use super::super::Rendered;
use crate::model::BridgeParams;
use crate::params::BOND_MODES;

/// The bond modes libnm knows: the kernel's seven, not Open vSwitch's. (The model holds a
/// mode by name: `params::bond` names numeric modes.)
const MODES: &[&str] = BOND_MODES.split_at(7).0;

/// The bond options without those libnm refuses for the bond's mode or for what is missing
/// beside them (libnm's defaults: balance-rr; MII monitoring unless ARP monitoring is on).
/// ARP monitoring in a mode that cannot use it is gone already (`params::drop_unusable_arp`).
pub(super) fn bond(
    mut opts: Vec<(&'static str, String)>,
    id: &str,
    out: &mut Rendered,
) -> Vec<(&'static str, String)> {
    let get = |opts: &[(&str, String)], k: &str| {
        opts.iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.clone())
    };
    let mut drop = |opts: &mut Vec<(&'static str, String)>, key: &str, msg: &str| {
        if opts.iter().any(|(k, _)| *k == key) {
            opts.retain(|(k, _)| *k != key);
            warn(out, id, key, msg);
        }
    };
    let mode = match get(&opts, "mode") {
        Some(m) => match MODES.iter().find(|x| **x == m) {
            Some(m) => m,
            None => {
                let msg = "not a bond mode NetworkManager has; left out (it uses balance-rr)";
                drop(&mut opts, "mode", msg);
                "balance-rr"
            }
        },
        None => "balance-rr",
    };
    let num = |opts: &[(&str, String)], k: &str| get(opts, k).and_then(|v| v.parse::<u64>().ok());
    if !matches!(mode, "active-backup" | "balance-tlb" | "balance-alb") {
        let msg = "a primary member needs mode active-backup, balance-tlb or balance-alb; left out";
        drop(&mut opts, "primary", msg);
    }
    let arp = num(&opts, "arp_interval").unwrap_or(0) > 0;
    if !arp {
        let msg = "ARP targets without arp_interval: NetworkManager refuses them; left out";
        drop(&mut opts, "arp_ip_target", msg);
    } else if get(&opts, "arp_ip_target").is_none() {
        let msg = "ARP monitoring without a target: NetworkManager refuses it; left out";
        drop(&mut opts, "arp_interval", msg);
    }
    let arp = num(&opts, "arp_interval").unwrap_or(0) > 0;
    // libnm's miimon is 100 unless given or ARP monitoring is on.
    let miimon = num(&opts, "miimon").unwrap_or(if arp { 0 } else { 100 });
    if miimon == 0 {
        for key in ["updelay", "downdelay"] {
            if num(&opts, key) > Some(0) {
                drop(&mut opts, key, "needs MII monitoring (miimon); left out");
            }
        }
    }
    if mode != "802.3ad" && get(&opts, "lacp_rate").is_some_and(|r| r != "slow" && r != "0") {
        drop(
            &mut opts,
            "lacp_rate",
            "only mode 802.3ad has a LACP rate; left out",
        );
    }
    opts
}

/// A bridge's time in whole seconds when libnm takes it (with STP, which is NetworkManager's
/// default, forward-delay 2–30, hello-time 1–10, max-age 6–40; without, 0 too), else a warning.
pub(super) fn bridge_time(
    p: &BridgeParams,
    key: &str,
    ms: u32,
    id: &str,
    out: &mut Rendered,
) -> Option<u32> {
    let (lo, hi) = match key {
        "forward-delay" => (2, 30),
        "hello-time" => (1, 10),
        "max-age" => (6, 40),
        _ => (0, 1_000_000),
    };
    let s = ms / 1000;
    let stp = p.stp != Some(false);
    if ms % 1000 != 0 {
        warn(
            out,
            id,
            key,
            "not whole seconds, as NetworkManager needs; left out",
        );
        None
    } else if (lo..=hi).contains(&s) || (s == 0 && !stp) {
        Some(s)
    } else {
        let msg = format!("NetworkManager takes {lo} to {hi} seconds here; left out");
        warn(out, id, key, &msg);
        None
    }
}

/// `v` when it is within `lo..=hi`, libnm's range for `key`, else a warning.
pub(super) fn ranged(
    key: &str,
    v: u32,
    (lo, hi): (u32, u32),
    id: &str,
    out: &mut Rendered,
) -> Option<u32> {
    if (lo..=hi).contains(&v) {
        return Some(v);
    }
    let msg = format!("NetworkManager takes {lo} to {hi} here; left out");
    warn(out, id, key, &msg);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(opts: &[(&'static str, &str)]) -> (Vec<String>, Vec<String>) {
        let mut out = Rendered::default();
        let opts = opts.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let kept = bond(opts, "b0", &mut out);
        let keys = kept.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let warned = out
            .warnings
            .iter()
            .map(|d| d.key.clone().unwrap())
            .collect();
        (keys, warned)
    }

    #[test]
    fn arp_interval_needs_a_target_and_delays_need_mii() {
        let (keys, warned) = kept(&[
            ("mode", "active-backup"),
            ("arp_interval", "100"),
            ("updelay", "50"),
        ]);
        assert_eq!(keys, ["mode=active-backup", "updelay=50"]);
        assert_eq!(warned, ["b0.arp_interval"]);
        // With ARP monitoring on, MII monitoring is off unless given.
        let with_arp = [("arp_interval", "100"), ("arp_ip_target", "10.0.0.1")];
        let (_, warned) = kept(&[&[("downdelay", "50")][..], &with_arp].concat());
        assert_eq!(warned, ["b0.downdelay"]);
    }

    #[test]
    fn a_primary_member_needs_a_mode_with_one() {
        for (mode, ok) in [
            (None, false),
            (Some("balance-xor"), false),
            (Some("balance-tlb"), true),
            // Open vSwitch's modes are none of libnm's.
            (Some("balance-slb"), false),
        ] {
            let mut opts = vec![("primary", "eth0")];
            opts.extend(mode.map(|m| ("mode", m)));
            let (keys, _) = kept(&opts);
            assert_eq!(keys.contains(&"primary=eth0".to_string()), ok, "{mode:?}");
        }
    }

    #[test]
    fn bridge_times_are_whole_seconds_in_range() {
        let mut out = Rendered::default();
        let stp = BridgeParams::default();
        let off = BridgeParams {
            stp: Some(false),
            ..Default::default()
        };
        let t = |p, key, ms, out: &mut Rendered| bridge_time(p, key, ms, "br0", out);
        assert_eq!(t(&stp, "forward-delay", 15_000, &mut out), Some(15));
        assert_eq!(t(&stp, "forward-delay", 0, &mut out), None);
        assert_eq!(t(&off, "forward-delay", 0, &mut out), Some(0));
        assert_eq!(t(&off, "hello-time", 11_000, &mut out), None);
        assert_eq!(t(&stp, "max-age", 20_500, &mut out), None);
        assert_eq!(t(&stp, "ageing-time", 0, &mut out), Some(0));
        assert_eq!(out.warnings.len(), 3);
    }
}

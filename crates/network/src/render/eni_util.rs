//! Helpers the ENI and NetworkManager renderers share: which values may be written into a
//! line, durations in seconds, bond options by their kernel names, and which interface a
//! route tied to no interface belongs to. Pure functions; no formatting of whole files.

use crate::error::Diag;
use crate::model::{Address, BondParams, Format, Interface, Kind, Network};
use crate::read::UNSUPPORTED;
use crate::render::Rendered;
use std::net::IpAddr;

/// The first lines of an ENI file and of a keyfile.
pub(crate) const HEADER: &str = "\
# Written by ember from this instance's network configuration; it is written again for
# every new instance, so change the configuration rather than this file.
";

/// A warning naming the interface and the key the stack cannot express.
pub(crate) fn warn(out: &mut Rendered, id: &str, key: &str, msg: &str) {
    out.warn(Diag::warning(UNSUPPORTED, msg).key(format!("{id}.{key}")));
}

/// `s` when it can stand as one value in a line of either file: not empty, no whitespace or
/// control character (a newline would start a new option, in ENI a command), no `;` (a
/// keyfile list separator), `#` or `=`. Free text of the input (ids, domains, bond
/// policies) passes here before it is written.
pub(crate) fn word(s: &str) -> Option<&str> {
    let bad = |c: char| c.is_whitespace() || c.is_control() || matches!(c, ';' | '#' | '=');
    (!s.is_empty() && !s.contains(bad)).then_some(s)
}

/// Whether `s` can be a kernel interface name (what `dev_valid_name` accepts, and a word).
pub(crate) fn ifname(s: &str) -> bool {
    s.len() < 16 && s != "." && s != ".." && !s.contains(['/', ':']) && word(s).is_some()
}

/// The device name the config gives `i`: [`Interface::device_name`], or in v1, where a
/// device's `name` is always its kernel name, the id of a NIC that `params.driver` matches.
pub(crate) fn kernel_name<'a>(net: &Network, i: &'a Interface) -> Option<&'a str> {
    let v1_nic = net.format == Format::V1 && matches!(i.kind, Kind::Physical { .. });
    i.device_name().or(v1_nic.then_some(i.id.as_str()))
}

/// Milliseconds as seconds: `2`, `1.5`.
pub(crate) fn secs(ms: u32) -> String {
    let (s, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        s.to_string()
    } else {
        format!("{s}.{frac:03}").trim_end_matches('0').to_string()
    }
}

/// The bond's options by their kernel (sysfs) names, in the order NetworkManager keyfiles
/// list them; `name` turns an interface id into its device name (for `primary`). A free-text
/// value that is not a [`word`] is left out with a warning.
pub(crate) fn bond_options(
    p: &BondParams,
    id: &str,
    name: &dyn Fn(&str) -> Option<String>,
    out: &mut Rendered,
) -> Vec<(&'static str, String)> {
    let num = |v: Option<u32>| v.map(|v| v.to_string());
    let text = |v: &Option<String>| v.clone();
    let all: [(&'static str, Option<String>); 20] = [
        ("mode", text(&p.mode)),
        ("miimon", num(p.mii_monitor_interval_ms)),
        ("xmit_hash_policy", text(&p.transmit_hash_policy)),
        ("num_grat_arp", num(p.gratuitous_arp)),
        ("downdelay", num(p.down_delay_ms)),
        ("updelay", num(p.up_delay_ms)),
        ("fail_over_mac", text(&p.fail_over_mac_policy)),
        ("primary_reselect", text(&p.primary_reselect_policy)),
        ("primary", p.primary.as_deref().and_then(name)),
        ("lacp_rate", text(&p.lacp_rate)),
        ("ad_select", text(&p.ad_select)),
        ("min_links", num(p.min_links)),
        ("arp_interval", num(p.arp_interval_ms)),
        (
            "arp_ip_target",
            (!p.arp_ip_targets.is_empty()).then(|| {
                let t: Vec<String> = p.arp_ip_targets.iter().map(|a| a.to_string()).collect();
                t.join(",")
            }),
        ),
        ("arp_validate", text(&p.arp_validate)),
        ("arp_all_targets", text(&p.arp_all_targets)),
        (
            "all_slaves_active",
            p.all_members_active.map(|b| u8::from(b).to_string()),
        ),
        ("packets_per_slave", num(p.packets_per_member)),
        ("resend_igmp", num(p.resend_igmp)),
        (
            "lp_interval",
            p.learn_packet_interval_ms.map(|v| (v / 1000).to_string()),
        ),
    ];
    let mut opts = Vec::new();
    for (key, value) in all {
        match value {
            Some(v) if word(&v).is_some() => opts.push((key, v)),
            Some(_) => warn(out, id, key, "not a single word: left out"),
            None => {}
        }
    }
    opts
}

/// Whether `a`'s subnet holds `ip`.
pub(crate) fn holds(a: &Address, ip: IpAddr) -> bool {
    let bits = |ip: IpAddr| match ip {
        IpAddr::V4(v) => (u128::from(u32::from(v)) << 96, 32),
        IpAddr::V6(v) => (u128::from(v), 128),
    };
    let ((net, width), (x, w2)) = (bits(a.ip), bits(ip));
    if width != w2 {
        return false;
    }
    let keep = u32::from(a.prefix.min(width as u8));
    let mask = u128::MAX.checked_shl(128 - keep).unwrap_or(0);
    net & mask == x & mask
}

/// The index of the interface a route of `net.routes` belongs to: the first with a static
/// address whose subnet holds the route's `via`.
pub(crate) fn owner(net: &Network, via: Option<IpAddr>) -> Option<usize> {
    let via = via?;
    net.interfaces
        .iter()
        .position(|i| i.addresses.iter().any(|a| holds(a, via)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str, prefix: u8) -> Address {
        Address {
            ip: s.parse().unwrap(),
            prefix,
            label: None,
            lifetime: None,
        }
    }

    #[test]
    fn words_refuse_what_would_break_a_line() {
        assert_eq!(word("layer3+4"), Some("layer3+4"));
        for bad in ["", "a b", "a\nup rm", "a;b", "#x", "k=v", "tab\t"] {
            assert_eq!(word(bad), None, "{bad:?}");
        }
        assert!(ifname("bond0.42"));
        assert!(!ifname("a-name-of-16-chr"));
        assert!(!ifname(".."));
        assert!(!ifname("a/b"));
    }

    #[test]
    fn seconds_and_subnets() {
        assert_eq!(secs(0), "0");
        assert_eq!(secs(15000), "15");
        assert_eq!(secs(1500), "1.5");
        assert_eq!(secs(250), "0.25");
        let a = addr("10.1.2.3", 24);
        assert!(holds(&a, "10.1.2.254".parse().unwrap()));
        assert!(!holds(&a, "10.1.3.1".parse().unwrap()));
        assert!(!holds(&a, "::1".parse().unwrap()));
        assert!(holds(&addr("10.1.2.3", 0), "192.0.2.1".parse().unwrap()));
        assert!(holds(
            &addr("2001:db8::5", 64),
            "2001:db8::1".parse().unwrap()
        ));
    }
}

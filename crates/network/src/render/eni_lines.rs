//! Lines of the interfaces file that stand alone: the `ip route` commands (iproute2, which
//! Debian installs; net-tools' `route` it does not) that add and remove routes, and the udev
//! rules that name NICs matched by MAC.

use super::util::{warn, word};
use crate::model::{Kind, Network, Route, ROUTE_TYPES};
use crate::render::Rendered;

/// Route types that have no next hop: no `via`, no device.
const NO_NEXT_HOP: [&str; 4] = ["blackhole", "unreachable", "prohibit", "throw"];

/// The `post-up` and `pre-down` lines that add and remove `r` on device `dev` (`None`: a
/// route tied to no interface, reached through its gateway), with `|| true` as cloud-init
/// writes them so an existing route does not fail `ifup`; `None` (with a warning) for a type
/// or scope that is not one iproute2 knows.
pub(super) fn route(
    r: &Route,
    dev: Option<&str>,
    id: &str,
    out: &mut Rendered,
) -> Option<[String; 2]> {
    let kind = r.kind.as_deref().unwrap_or("unicast");
    let scope_ok = r
        .scope
        .as_deref()
        .is_none_or(|s| matches!(s, "global" | "link" | "host"));
    if !ROUTE_TYPES.contains(&kind) || !scope_ok {
        let msg = "a route type or scope iproute2 does not know; left out";
        warn(out, id, "routes", msg);
        return None;
    }
    let hop = !NO_NEXT_HOP.contains(&kind);
    let mut args = String::new();
    if kind != "unicast" {
        args.push_str(&format!(" {kind}"));
    }
    if r.to.is_default() {
        args.push_str(" default");
    } else {
        args.push_str(&format!(" {}", r.to));
    }
    if let Some(via) = r.via.filter(|_| hop) {
        args.push_str(&format!(" via {via}"));
    }
    // Without a gateway a route needs its device; loopback stands in as cloud-init's does.
    let dev = dev.or(r.via.is_none().then_some("lo"));
    if let Some(dev) = dev.filter(|_| hop).and_then(word) {
        args.push_str(&format!(" dev {dev}"));
    }
    if r.on_link && hop {
        args.push_str(" onlink");
    }
    if let Some(src) = r.from {
        args.push_str(&format!(" src {src}"));
    }
    if let Some(m) = r.metric {
        args.push_str(&format!(" metric {m}"));
    }
    if let Some(t) = r.table {
        args.push_str(&format!(" table {t}"));
    }
    if let Some(s) = &r.scope {
        args.push_str(&format!(" scope {s}"));
    }
    if let Some(m) = r.mtu {
        args.push_str(&format!(" mtu {m}"));
    }
    let ip = if r.to.ip.is_ipv6() { "ip -6" } else { "ip" };
    Some([
        format!("    post-up {ip} route add{args} || true"),
        format!("    pre-down {ip} route del{args} || true"),
    ])
}

/// One rule per NIC matched by MAC, naming it as the interfaces file does.
pub(super) fn udev_rules(net: &Network, names: &[Option<String>]) -> String {
    let mut rules = String::new();
    for (i, name) in net.interfaces.iter().zip(names) {
        let (Kind::Physical { matching, .. }, Some(name)) = (&i.kind, name) else {
            continue;
        };
        let Some(mac) = &matching.macaddress else {
            continue;
        };
        let driver = match matching.driver.as_slice() {
            [d] if word(d).is_some() && !d.contains('"') => d.as_str(),
            _ => "?*",
        };
        rules.push_str(&format!(
            "SUBSYSTEM==\"net\", ACTION==\"add\", DRIVERS==\"{driver}\", \
             ATTR{{address}}==\"{mac}\", NAME=\"{name}\"\n"
        ));
    }
    rules
}

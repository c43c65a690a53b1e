//! v1 subnets folded into their interface: addresses (with cloud-init's default prefix),
//! DHCP and IPv6 modes, gateways, DNS and routes; and v1's route entries.

use super::addr;
use super::model::{Address, Cidr, Control, Dns, Interface, Ipv6Auto, Route};
use super::read::{join, Reader, UNSUPPORTED};
use serde_json::{Map, Value};
use std::net::IpAddr;

type Obj = Map<String, Value>;

pub(super) fn extend_dns(into: &mut Dns, dns: Dns) {
    for ns in dns.nameservers {
        if !into.nameservers.contains(&ns) {
            into.nameservers.push(ns);
        }
    }
    for s in dns.search {
        if !into.search.contains(&s) {
            into.search.push(s);
        }
    }
}

/// An address and its prefix from `key` (`addr/prefix`), else with `netmask` or `prefix`;
/// with neither, /24 or /64 as cloud-init assumes, with a warning.
fn network(e: &Obj, key: &str, path: &str, rd: &mut Reader) -> Option<Cidr> {
    let kp = join(path, key);
    let text = rd.text(e.get(key)?, &kp)?;
    let (ip, prefix) = match addr::cidr(&text) {
        Ok(x) => x,
        Err(msg) => {
            rd.error(&kp, msg);
            return None;
        }
    };
    let prefix = match (prefix, e.get("netmask"), e.get("prefix")) {
        (Some(p), _, _) => p,
        (None, Some(m), _) => {
            let mp = join(path, "netmask");
            let m = rd.text(m, &mp)?;
            match addr::prefix_len(&m, ip) {
                Ok(p) => p,
                Err(msg) => {
                    rd.error(&mp, msg);
                    return None;
                }
            }
        }
        (None, None, Some(p)) => {
            let max = u32::from(addr::max_prefix(ip));
            u8::try_from(rd.num(p, &join(path, "prefix"), 0, max)?).ok()?
        }
        (None, None, None) => {
            let assumed = if ip.is_ipv4() { 24 } else { 64 };
            let msg =
                format!("no prefix length or netmask: /{assumed} assumed, as cloud-init does");
            rd.warn(UNSUPPORTED, &kp, msg);
            assumed
        }
    };
    Some(Cidr { ip, prefix })
}

pub(super) fn route(e: &Obj, path: &str, rd: &mut Reader) -> Option<Route> {
    let key = if e.contains_key("destination") {
        "destination"
    } else if e.contains_key("network") {
        "network"
    } else {
        let msg = "missing: a route needs a `destination` (or `network`)";
        rd.error(&join(path, "destination"), msg);
        return None;
    };
    let to = network(e, key, path, rd)?;
    let mut r = Route::to(to);
    if let Some(gw) = e.get("gateway") {
        let p = join(path, "gateway");
        r.via = rd.ip(gw, &p);
        if r.via.is_some_and(|v| v.is_ipv4() != to.ip.is_ipv4()) {
            rd.error(&p, "not of the same address family as the destination");
        }
    }
    if let Some(m) = e.get("metric") {
        r.metric = rd.num(m, &join(path, "metric"), 0, u32::MAX);
    }
    Some(r)
}

const SUBNET_KEYS: [&str; 14] = [
    "mtu",
    "type",
    "address",
    "netmask",
    "prefix",
    "gateway",
    "dns_nameservers",
    "dns_search",
    "routes",
    "control",
    "broadcast",
    "metric",
    "ipv4",
    "ipv6",
];

/// Folds one subnet into its interface.
pub(super) fn subnet(iface: &mut Interface, s: &Obj, path: &str, rd: &mut Reader) {
    for k in s.keys() {
        if !SUBNET_KEYS.contains(&k.as_str()) {
            rd.unknown(&join(path, k));
        }
    }
    let tpath = join(path, "type");
    let Some(ty) = s.get("type").and_then(|t| rd.string(t, &tpath)) else {
        if !s.contains_key("type") {
            rd.error(&tpath, "missing: a subnet needs a `type`");
        }
        return;
    };
    let before = iface.addresses.len();
    let metric = s
        .get("metric")
        .and_then(|m| rd.num(m, &join(path, "metric"), 0, u32::MAX));
    if let Some(c) = s.get("control") {
        control(iface, c, &join(path, "control"), rd);
    }
    let mut auto6 = |mode: Ipv6Auto, rd: &mut Reader| match iface.ipv6 {
        Some(prev) if prev != mode => rd.warn(
            UNSUPPORTED,
            &tpath,
            "a second IPv6 mode on one interface, ignored",
        ),
        _ => iface.ipv6 = Some(mode),
    };
    match ty.as_str() {
        "dhcp" | "dhcp4" => {
            iface.dhcp4 = true;
            iface.dhcp4_overrides.route_metric = metric.or(iface.dhcp4_overrides.route_metric);
        }
        "dhcp6" => {
            auto6(Ipv6Auto::Dhcp6, rd);
            iface.dhcp6_overrides.route_metric = metric.or(iface.dhcp6_overrides.route_metric);
        }
        "ipv6_slaac" => auto6(Ipv6Auto::Slaac, rd),
        "ipv6_dhcpv6-stateless" => auto6(Ipv6Auto::Dhcp6Stateless, rd),
        "ipv6_dhcpv6-stateful" => auto6(Ipv6Auto::Dhcp6Stateful, rd),
        "static" | "static6" => {
            if !s.contains_key("address") {
                rd.error(
                    &join(path, "address"),
                    "missing: a static subnet needs an `address`",
                );
            } else if let Some(c) = network(s, "address", path, rd) {
                iface.addresses.push(Address {
                    ip: c.ip,
                    prefix: c.prefix,
                    label: None,
                    lifetime: None,
                });
            }
            // The metric is the gateway's (and, as NetworkManager's `route-metric`, that
            // of the family's routes that name none).
            let own_v6 = iface.addresses.get(before).map(|a| a.ip.is_ipv6());
            let slot = match own_v6.unwrap_or(ty == "static6") {
                true => &mut iface.metric6,
                false => &mut iface.metric4,
            };
            if let Some(m) = metric {
                if slot.is_some_and(|had| had != m) {
                    let msg =
                        "differs from an earlier subnet's metric of this family: this one is used";
                    rd.warn(UNSUPPORTED, &join(path, "metric"), msg);
                }
                *slot = Some(m);
            }
            if let Some(gw) = s.get("gateway") {
                // A gateway that is no address is left out alone: the address still works.
                let (p, mark) = (join(path, "gateway"), rd.mark());
                gateway(iface, gw, &p, rd);
                rd.skip(mark, &p, "this gateway");
            }
        }
        // Nothing to configure, but a subnet is brought up (`control` defaults to `auto`
        // in cloud-init): ENI says so with an `auto` line.
        "manual" if !s.contains_key("control") => {
            iface.control.get_or_insert(Control::Auto);
        }
        "manual" => {}
        _ => rd.error(&tpath, "unknown subnet type"),
    }
    if let Some(m) = s.get("mtu").filter(|m| !m.is_null()) {
        // This subnet's family alone, as cloud-init's `subnet_is_ipv6`: an earlier subnet's
        // address says nothing of a later `dhcp` or `manual` one.
        let own_v6 = iface.addresses.get(before).is_some_and(|a| a.ip.is_ipv6());
        let ipv6 = ty.contains('6') || (ty == "static" && own_v6);
        subnet_mtu(iface, m, ipv6, &join(path, "mtu"), rd);
    }
    let mut dns = Dns::default();
    if let Some(v) = s.get("dns_nameservers") {
        dns.nameservers = rd.ips(v, &join(path, "dns_nameservers"));
    }
    if let Some(v) = s.get("dns_search") {
        dns.search = rd.strings(v, &join(path, "dns_search"));
    }
    extend_dns(&mut iface.dns, dns);
    if let Some(v) = s.get("routes") {
        let rpath = join(path, "routes");
        for (i, r) in rd.list(v, &rpath).iter().enumerate() {
            let (p, mark) = (join(&rpath, i), rd.mark());
            let r = rd.map(r, &p).and_then(|r| route(r, &p, rd));
            if !rd.skip(mark, &p, "this route") {
                // A route that names no metric takes its subnet's, as cloud-init's netplan.
                let static_metric = metric.filter(|_| ty.starts_with("static"));
                iface.routes.extend(r.map(|r| Route {
                    metric: r.metric.or(static_metric),
                    ..r
                }));
            }
        }
    }
}

/// A subnet's gateway: the interface's default gateway of that family; a different second
/// one is ignored with a warning (one default route per family).
fn gateway(iface: &mut Interface, v: &Value, p: &str, rd: &mut Reader) {
    let taken = match rd.ip(v, p) {
        Some(IpAddr::V4(gw)) => *iface.gateway4.get_or_insert(gw) != gw,
        Some(IpAddr::V6(gw)) => *iface.gateway6.get_or_insert(gw) != gw,
        None => false,
    };
    if taken {
        rd.warn(
            UNSUPPORTED,
            p,
            "a second default gateway on one interface, ignored",
        );
    }
}

/// A subnet's `control`: one per interface (ifupdown brings up a device, not a subnet); a
/// different second one is ignored with a warning.
fn control(iface: &mut Interface, v: &Value, p: &str, rd: &mut Reader) {
    let Some(s) = rd.string(v, p) else { return };
    let c = match s.as_str() {
        "auto" => Control::Auto,
        "hotplug" => Control::Hotplug,
        "manual" => Control::Manual,
        _ => {
            // cloud-init passes any other word on to ENI as a comment.
            let msg = "unknown control (known: auto, hotplug, manual); kept for ENI, \
                       brought up at boot by the others";
            rd.warn(UNSUPPORTED, p, msg);
            Control::Other(s)
        }
    };
    if *iface.control.get_or_insert_with(|| c.clone()) != c {
        let msg = "a second control on one interface, ignored";
        rd.warn(UNSUPPORTED, p, msg);
    }
}

/// A subnet's `mtu`: an IPv6 subnet's is the IPv6 MTU, an IPv4 subnet's the device's (it
/// wins over the device's own `mtu`, as in cloud-init, with a warning when they differ).
fn subnet_mtu(iface: &mut Interface, v: &Value, ipv6: bool, p: &str, rd: &mut Reader) {
    let min = if ipv6 { 1280 } else { 68 };
    let Some(mtu) = rd.num(v, p, min, 65535) else {
        return;
    };
    let slot = if ipv6 {
        &mut iface.ipv6_mtu
    } else {
        &mut iface.mtu
    };
    if slot.is_some_and(|m| m != mtu) {
        let msg = "differs from the MTU given before: this subnet's is used";
        rd.warn(UNSUPPORTED, p, msg);
    }
    *slot = Some(mtu);
}

//! network-config version 1: a `config:` list of physical, bond, bridge, vlan, nameserver
//! and route entries, each device with `subnets`, into the model. Subnets are folded into
//! their interface (addresses, DHCP and IPv6 modes, gateways, DNS, routes).
//! <https://docs.cloud-init.io/en/latest/reference/network-config-format-v1.html>

use super::devices;
use super::model::{BondParams, BridgeParams, Dns, Format, Interface, Kind, Match, Network};
use super::params;
use super::read::{join, Reader, RefKind, Refs, UNSUPPORTED};
use super::v1_subnet::{extend_dns, route, subnet};
use serde_json::{Map, Value};

type Obj = Map<String, Value>;

/// Keys every device entry may have, beside its type's own.
const DEVICE_KEYS: [&str; 9] = [
    "type",
    "name",
    "mac_address",
    "mtu",
    "subnets",
    "accept-ra",
    "wakeonlan",
    "keep_configuration",
    "params",
];

/// What one `config` entry adds.
// One lives at a time: boxing the interface would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Entry {
    Device(Interface),
    /// Resolvers for the interface named at the key path, or global ones.
    Nameserver(Option<(String, String)>, Dns),
    Route(super::model::Route),
    Nothing,
}

pub(super) fn parse(map: &Obj, base: &str, rd: &mut Reader) -> Network {
    let mut net = Network {
        format: Format::V1,
        ..Network::default()
    };
    let mut refs = Refs::default();
    // Nameservers tied to an interface, applied once all interfaces are read.
    let mut iface_dns: Vec<(String, String, Dns)> = Vec::new();
    for (key, _) in map {
        if key != "version" && key != "config" {
            rd.unknown(&join(base, key));
        }
    }
    let cpath = join(base, "config");
    let Some(config) = map.get("config") else {
        rd.error(&cpath, "missing: a version 1 config needs a `config` list");
        return net;
    };
    for (i, e) in rd.list(config, &cpath).iter().enumerate() {
        let path = join(&cpath, i);
        // An entry with a problem is skipped, as cloud-init skips an invalid command.
        let (mark, refs_mark) = (rd.mark(), refs.mark());
        devices::refuse_controls(e, &path, rd);
        let entry = rd
            .map(e, &path)
            .map_or(Entry::Nothing, |e| entry(e, &path, rd, &mut refs));
        if rd.skip(mark, &path, "this entry") {
            refs.forget(refs_mark);
            continue;
        }
        match entry {
            Entry::Device(iface) => {
                refs.paths.push(path);
                net.interfaces.push(iface);
            }
            Entry::Nameserver(Some((p, name)), dns) => iface_dns.push((p, name, dns)),
            Entry::Nameserver(None, dns) => extend_dns(&mut net.dns, dns),
            Entry::Route(r) => net.routes.push(r),
            Entry::Nothing => {}
        }
    }
    refs.check(&mut net, rd);
    for (_, name, dns) in iface_dns {
        if let Some(iface) = net.interfaces.iter_mut().find(|i| i.id == name) {
            extend_dns(&mut iface.dns, dns);
        }
    }
    net
}

fn entry(e: &Obj, path: &str, rd: &mut Reader, refs: &mut Refs) -> Entry {
    let tpath = join(path, "type");
    let Some(ty) = e.get("type").and_then(|t| rd.string(t, &tpath)) else {
        if !e.contains_key("type") {
            rd.error(&tpath, "missing: an entry needs a `type`");
        }
        return Entry::Nothing;
    };
    match ty.as_str() {
        "physical" | "infiniband" | "bond" | "bridge" | "vlan" => {
            device(&ty, e, path, rd, refs).map_or(Entry::Nothing, Entry::Device)
        }
        "nameserver" => {
            let dns = nameserver(e, path, rd);
            let Some(v) = e.get("interface") else {
                return Entry::Nameserver(None, dns);
            };
            let p = join(path, "interface");
            match rd.string(v, &p) {
                Some(name) => {
                    refs.add(p.clone(), &name, "", RefKind::Other);
                    Entry::Nameserver(Some((p, name)), dns)
                }
                None => Entry::Nothing,
            }
        }
        "route" => {
            for (k, _) in e {
                let known = ["type", "destination", "network", "netmask", "prefix"];
                if !known.contains(&k.as_str()) && k != "gateway" && k != "metric" {
                    rd.unknown(&join(path, k));
                }
            }
            route(e, path, rd).map_or(Entry::Nothing, Entry::Route)
        }
        "loopback" => {
            rd.warn(UNSUPPORTED, &tpath, "loopback entries are ignored");
            Entry::Nothing
        }
        _ => {
            rd.error(&tpath, "unknown type");
            Entry::Nothing
        }
    }
}

fn device(ty: &str, e: &Obj, path: &str, rd: &mut Reader, refs: &mut Refs) -> Option<Interface> {
    let npath = join(path, "name");
    let Some(name) = e.get("name").and_then(|n| rd.string(n, &npath)) else {
        if !e.contains_key("name") {
            rd.error(&npath, "missing: a device needs a `name`");
        }
        return None;
    };
    if name.is_empty() || name.len() > 15 {
        rd.error(&npath, "an interface name has 1 to 15 characters");
    }
    let mac = e
        .get("mac_address")
        .and_then(|m| rd.mac(m, &join(path, "mac_address")));
    let params = e
        .get("params")
        .and_then(|p| rd.map(p, &join(path, "params")));
    let ppath = join(path, "params");
    let (kind, mac) = match ty {
        "bond" => (bond(&name, e, params, path, rd, refs), mac),
        "bridge" => {
            let (kind, hw) = bridge(&name, e, params, path, rd, refs);
            (kind, mac.or(hw))
        }
        "vlan" => (vlan(&name, e, path, rd, refs)?, mac),
        // A physical device with a MAC is matched by it and renamed to `name`.
        _ => {
            let mut matching = Match::default();
            for (k, v) in params.into_iter().flatten() {
                let p = join(&ppath, k);
                match k.as_str() {
                    "driver" => matching.driver = rd.strings(v, &p),
                    _ => rd.unknown(&p),
                }
            }
            let set_name = mac.is_some().then(|| name.clone());
            matching.macaddress = mac;
            (Kind::Physical { matching, set_name }, None)
        }
    };
    let mut iface = Interface::new(name, kind);
    iface.mac_address = mac;
    // Before the subnets: an IPv4 subnet's `mtu` wins over the device's.
    if let Some(v) = e.get("mtu").filter(|v| !v.is_null()) {
        iface.mtu = rd.num(v, &join(path, "mtu"), 68, 65535);
    }
    for (k, v) in e {
        let p = join(path, k);
        match k.as_str() {
            "accept-ra" => iface.accept_ra = rd.bool(v, &p),
            "wakeonlan" => iface.wakeonlan = rd.bool(v, &p).unwrap_or(false),
            "keep_configuration" => iface.keep_configuration = rd.bool(v, &p).unwrap_or(false),
            "subnets" => {
                for (i, s) in rd.list(v, &p).iter().enumerate() {
                    let sp = join(&p, i);
                    // A subnet with a problem is skipped alone, and leaves nothing behind.
                    let (mark, before) = (rd.mark(), iface.clone());
                    if let Some(s) = rd.map(s, &sp) {
                        subnet(&mut iface, s, &sp, rd);
                    }
                    if rd.skip(mark, &sp, "this subnet") {
                        iface = before;
                    }
                }
            }
            k if DEVICE_KEYS.contains(&k) => {}
            "bond_interfaces" if ty == "bond" => {}
            "bridge_interfaces" if ty == "bridge" => {}
            "vlan_link" | "vlan_id" if ty == "vlan" => {}
            _ => rd.unknown(&p),
        }
    }
    Some(iface)
}

fn members(
    id: &str,
    e: &Obj,
    key: &str,
    path: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> Vec<String> {
    let path = join(path, key);
    let Some(v) = e.get(key) else {
        rd.error(&path, "missing: the list of members (it may be empty)");
        return Vec::new();
    };
    params::members(id, v, &path, rd, refs)
}

fn bond(
    id: &str,
    e: &Obj,
    params: Option<&Obj>,
    path: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> Kind {
    let members = members(id, e, "bond_interfaces", path, rd, refs);
    let ppath = join(path, "params");
    let mut b = BondParams::default();
    let mut arp = Vec::new();
    for (k, x) in params.into_iter().flatten() {
        let p = join(&ppath, k);
        match params::v1_bond_name(k) {
            Some(name) => {
                if params::is_arp(name) {
                    arp.push(p.clone());
                }
                params::bond(&mut b, name, x, p, id, rd, refs);
            }
            // ifupdown's placeholder: the members are `bond_interfaces`.
            None if k.ends_with("slaves") => {}
            None => rd.warn(UNSUPPORTED, &p, "bond parameter not supported, ignored"),
        }
    }
    params::drop_unusable_arp(&mut b, &arp, rd);
    Kind::Bond { members, params: b }
}

/// The bridge, and the MAC `bridge_hw` sets.
fn bridge(
    id: &str,
    e: &Obj,
    params: Option<&Obj>,
    path: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> (Kind, Option<String>) {
    let members = members(id, e, "bridge_interfaces", path, rd, refs);
    let ppath = join(path, "params");
    let mut b = BridgeParams::default();
    let mut hw = None;
    for (k, x) in params.into_iter().flatten() {
        let p = join(&ppath, k);
        match k.as_str() {
            "bridge_hw" => hw = rd.mac(x, &p),
            "bridge_pathcost" | "bridge_portprio" => {
                // A list of "port value" strings.
                let items = match x {
                    Value::String(_) => std::slice::from_ref(x),
                    _ => rd.list(x, &p),
                };
                for (i, item) in items.iter().enumerate() {
                    let ip = join(&p, i);
                    let Some(item) = rd.text(item, &ip) else {
                        continue;
                    };
                    let mut words = item.split_whitespace();
                    let (Some(port), Some(n), None) = (words.next(), words.next(), words.next())
                    else {
                        rd.error(&ip, "expected a port name and a number");
                        continue;
                    };
                    let n = Value::String(n.into());
                    let cost = k == "bridge_pathcost";
                    params::port_value(&mut b, cost, port, &n, ip, id, rd, refs);
                }
            }
            // The member list is `bridge_interfaces`'.
            "bridge_ports" => {}
            "bridge_gcint" => b.gc_interval_s = rd.num(x, &p, 0, u32::MAX),
            "bridge_maxwait" => b.max_wait_s = rd.num(x, &p, 0, u32::MAX),
            "bridge_waitport" => b.wait_port = wait_port(x, &p, rd),
            _ if params::bridge(&mut b, k, x, &p, rd) => {}
            _ => rd.unknown(&p),
        }
    }
    (Kind::Bridge { members, params: b }, hw)
}

/// `bridge_waitport`: one `<seconds> [ports]` value or a list of them, each kept as a line
/// of ENI.
fn wait_port(v: &Value, path: &str, rd: &mut Reader) -> Vec<String> {
    let items = match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (join(path, i), v))
            .collect(),
        one => vec![(path.to_string(), one)],
    };
    let mut lines = Vec::new();
    for (p, item) in items {
        let Some(text) = rd.text(item, &p) else {
            continue;
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.split_first() {
            Some((secs, ports))
                if secs.parse::<u32>().is_ok()
                    && ports.iter().all(|w| devices::kernel_name_ok(w)) =>
            {
                lines.push(words.join(" "))
            }
            _ => rd.error(&p, "expected seconds to wait, then the ports to wait for"),
        }
    }
    lines
}

fn vlan(id: &str, e: &Obj, path: &str, rd: &mut Reader, refs: &mut Refs) -> Option<Kind> {
    params::vlan(id, e, path, ("vlan_id", "vlan_link"), rd, refs)
}

fn nameserver(e: &Obj, path: &str, rd: &mut Reader) -> Dns {
    let mut dns = Dns::default();
    for (k, v) in e {
        let p = join(path, k);
        match k.as_str() {
            "address" => dns.nameservers = rd.ips(v, &p),
            "search" => dns.search = rd.strings(v, &p),
            "type" | "interface" => {}
            _ => rd.unknown(&p),
        }
    }
    if !e.contains_key("address") {
        rd.error(
            &join(path, "address"),
            "missing: a nameserver entry needs an `address`",
        );
    }
    dns
}

//! OpenStack's network_data.json (config drive and metadata service): `links` become
//! interfaces, `networks` their addressing, `services` the resolvers, as cloud-init's
//! `convert_net_json` reads them. Keys of no use to the model (`vif_id`, `network_id`, …)
//! are ignored without a warning, since OpenStack adds its own.
//! <https://docs.openstack.org/nova/latest/user/metadata.html>

use super::addr;
use super::model::{Address, Format, Interface, Ipv6Auto, Kind, Match, Network, Route};
use super::params;
use super::read::{join, Reader, RefKind, Refs, INVALID, UNSUPPORTED};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::net::IpAddr;

/// Link types that stand for a NIC the guest sees (cloud-init's list).
const PHYSICAL: [&str; 9] = [
    "bridge",
    "ethernet",
    "hw_veb",
    "hyperv",
    "ovs",
    "phy",
    "tap",
    "vhostuser",
    "vif",
];

pub(super) fn parse(v: &Value, macs: &BTreeMap<String, String>, rd: &mut Reader) -> Network {
    let mut net = Network {
        format: Format::OpenStack,
        ..Network::default()
    };
    let Some(top) = rd.map(v, "") else {
        return net;
    };
    let mut refs = Refs::default();
    let links = top.get("links").map_or(&[][..], |l| rd.list(l, "links"));
    // Link id → interface id, for bond_links, vlan_link and networks' link.
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    // By link index: (key path, interface).
    let mut built: Vec<Option<(String, Interface)>> = vec![None; links.len()];
    let mut bonds = 0;
    // NICs and bonds first: a vlan is named after its link (`eth0.100`).
    for (i, link) in links.iter().enumerate() {
        let path = join("links", i);
        let Some(l) = rd.map(link, &path) else {
            continue;
        };
        let (Some(id), Some(ty)) = (field(l, "id", &path, rd), field(l, "type", &path, rd)) else {
            continue;
        };
        if ty == "vlan" {
            continue;
        }
        let mac = l
            .get("ethernet_mac_address")
            .and_then(|m| rd.mac(m, &join(&path, "ethernet_mac_address")));
        let iface = if ty == "bond" {
            // The link's `name` (not in OpenStack's spec, but some clouds set it), else
            // `bondN` counting every bond, as cloud-init names them.
            let given = l
                .get("name")
                .and_then(|n| rd.string(n, &join(&path, "name")));
            let name = given.unwrap_or_else(|| format!("bond{bonds}"));
            let mut iface = Interface::new(name, bond(l, &path, rd));
            bonds += 1;
            iface.mac_address = mac;
            iface
        } else {
            if !PHYSICAL.contains(&ty.as_str()) {
                let msg = "unknown link type, taken as a physical NIC";
                rd.warn(UNSUPPORTED, &join(&path, "type"), msg);
            }
            physical(l, &id, mac, &path, macs, rd)
        };
        names.insert(id, iface.id.clone());
        built[i] = Some((path, iface));
    }
    for (i, link) in links.iter().enumerate() {
        let Some(l) = link.as_object() else { continue };
        if l.get("type").and_then(Value::as_str) != Some("vlan") {
            continue;
        }
        let path = join("links", i);
        let vid = match l.get("vlan_id") {
            Some(x) => rd.num(x, &join(&path, "vlan_id"), 0, 4094),
            None => {
                rd.error(&path, "a vlan link needs a `vlan_id`");
                None
            }
        };
        let lpath = join(&path, "vlan_link");
        let link = match l.get("vlan_link") {
            Some(x) => rd.string(x, &lpath).and_then(|k| {
                let name = names.get(&k).cloned();
                if name.is_none() {
                    rd.error(&lpath, "names a link that is not defined");
                }
                name
            }),
            None => {
                rd.error(&path, "a vlan link needs a `vlan_link`");
                None
            }
        };
        let (Some(vid), Some(link)) = (vid, link) else {
            continue;
        };
        let name = format!("{link}.{vid}");
        let owner = slot(&refs, &built, i);
        refs.add_at(Some(owner), lpath, &link, &name, RefKind::Other);
        let vid = u16::try_from(vid).unwrap_or_default();
        let mut iface = Interface::new(name.clone(), Kind::Vlan { id: vid, link });
        iface.mac_address = l
            .get("vlan_mac_address")
            .and_then(|m| rd.mac(m, &join(&path, "vlan_mac_address")));
        if let Some(id) = l.get("id").and_then(Value::as_str) {
            names.insert(id.to_string(), name);
        }
        built[i] = Some((path, iface));
    }
    for i in 0..built.len() {
        let owner = slot(&refs, &built, i);
        let Some((path, iface)) = built[i].as_mut() else {
            continue;
        };
        if let Some(m) = links[i].get("mtu").filter(|m| !m.is_null()) {
            iface.mtu = rd.num(m, &join(path, "mtu"), 68, 65535);
        }
        let Kind::Bond { members, .. } = &mut iface.kind else {
            continue;
        };
        let mpath = join(path, "bond_links");
        let Some(list) = links[i].get("bond_links") else {
            rd.error(path, "a bond link needs `bond_links`");
            continue;
        };
        for (j, m) in rd.list(list, &mpath).iter().enumerate() {
            let p = join(&mpath, j);
            let Some(m) = rd.string(m, &p) else { continue };
            match names.get(&m) {
                Some(name) => {
                    refs.add_at(Some(owner), p, name, &iface.id, RefKind::Member);
                    members.push(name.clone());
                }
                None => rd.error(&p, "names a link that is not defined"),
            }
        }
    }
    for (path, iface) in built.into_iter().flatten() {
        refs.paths.push(path);
        net.interfaces.push(iface);
    }
    let networks = top
        .get("networks")
        .map_or(&[][..], |n| rd.list(n, "networks"));
    for (i, network) in networks.iter().enumerate() {
        let path = join("networks", i);
        let Some(n) = rd.map(network, &path) else {
            continue;
        };
        let (Some(link), Some(ty)) = (field(n, "link", &path, rd), field(n, "type", &path, rd))
        else {
            continue;
        };
        let iface = names
            .get(&link)
            .and_then(|name| net.interfaces.iter_mut().find(|f| f.id == *name));
        let Some(iface) = iface else {
            // cloud-init walks networks by their links, so such a network is never read; it
            // is skipped here too, but said (ids are names, not secrets: they are quoted).
            let id = n.get("id").and_then(Value::as_str);
            let which = id.map_or("this network".to_string(), |id| format!("network `{id}`"));
            let msg = format!(
                "{which} names link `{link}`, which is not defined: it is skipped; the rest is used"
            );
            rd.skipped += 1;
            rd.warn(INVALID, &join(&path, "link"), msg);
            continue;
        };
        // A network with a bad value is skipped alone, as a v1 subnet is.
        let mark = rd.mark();
        let before = iface.clone();
        addressing(iface, n, &ty, &path, rd);
        if rd.skip(mark, &path, "this network") {
            *iface = before;
        }
    }
    if let Some(services) = top.get("services") {
        net.dns.nameservers = dns(services, "services", rd);
    }
    refs.check(&mut net, rd);
    net
}

/// A required string field.
/// The index link `i` will have among the model's interfaces: interfaces are pushed in link
/// order once all are built, so references added while building must name it ahead.
fn slot(refs: &Refs, built: &[Option<(String, Interface)>], i: usize) -> usize {
    refs.paths.len() + built[..i].iter().flatten().count()
}

fn field(m: &Map<String, Value>, key: &str, path: &str, rd: &mut Reader) -> Option<String> {
    match m.get(key) {
        Some(v) => rd.string(v, &join(path, key)),
        None => {
            rd.error(path, format!("missing `{key}`"));
            None
        }
    }
}

/// A NIC: named by the link's `name`, else by the host's interface with its MAC, else after
/// the link id (and then matched by MAC only).
fn physical(
    l: &Map<String, Value>,
    id: &str,
    mac: Option<String>,
    path: &str,
    macs: &BTreeMap<String, String>,
    rd: &mut Reader,
) -> Interface {
    let given = l
        .get("name")
        .and_then(|n| rd.string(n, &join(path, "name")));
    let known = mac.as_ref().and_then(|m| macs.get(m)).cloned();
    let mut matching = Match {
        macaddress: mac.clone(),
        ..Match::default()
    };
    let (name, set_name) = match (given, known) {
        (Some(n), _) => (n.clone(), mac.is_some().then_some(n)),
        (None, Some(k)) => {
            matching.name = Some(k.clone());
            (k, None)
        }
        (None, None) => {
            if mac.is_none() {
                rd.error(path, "a link needs an `ethernet_mac_address` or a `name`");
            } else if !macs.is_empty() {
                let msg = "no interface has this MAC yet: matched by MAC, named after the link id";
                rd.warn(UNSUPPORTED, &join(path, "ethernet_mac_address"), msg);
            }
            (id.to_string(), None)
        }
    };
    Interface::new(name, Kind::Physical { matching, set_name })
}

/// `bond_mode`, `bond_miimon`, `bond_xmit_hash_policy`, … (members are filled in later).
fn bond(l: &Map<String, Value>, path: &str, rd: &mut Reader) -> Kind {
    let mut bp = super::model::BondParams::default();
    let mut arp = Vec::new();
    for (k, v) in l {
        let p = join(path, k);
        if k == "bond_links" || !k.starts_with("bond_") {
            continue;
        }
        match params::v1_bond_name(k) {
            Some(name) => {
                if params::is_arp(name) {
                    arp.push(p.clone());
                }
                params::bond(&mut bp, name, v, p, "", rd, &mut Refs::default());
            }
            None => rd.warn(UNSUPPORTED, &p, "bond parameter not supported, ignored"),
        }
    }
    params::drop_unusable_arp(&mut bp, &arp, rd);
    Kind::Bond {
        members: Vec::new(),
        params: bp,
    }
}

fn addressing(
    iface: &mut Interface,
    n: &Map<String, Value>,
    ty: &str,
    path: &str,
    rd: &mut Reader,
) {
    match ty {
        "ipv4_dhcp" => iface.dhcp4 = true,
        "ipv6_dhcp" => {
            iface.ipv6 = Some(Ipv6Auto::Dhcp6);
            iface.accept_ra = Some(true);
        }
        "ipv6_slaac" => iface.ipv6 = Some(Ipv6Auto::Slaac),
        "ipv6_dhcpv6-stateless" => iface.ipv6 = Some(Ipv6Auto::Dhcp6Stateless),
        "ipv6_dhcpv6-stateful" => {
            iface.ipv6 = Some(Ipv6Auto::Dhcp6Stateful);
            iface.accept_ra = Some(true);
        }
        "ipv4" | "static" | "ipv6" | "static6" => {
            if ty == "ipv6" || ty == "static6" {
                iface.accept_ra = Some(false);
            }
            if let Some(a) = address(n, path, rd) {
                iface.addresses.push(a);
            }
            if let Some(gw) = n.get("gateway").filter(|g| !g.is_null()) {
                gateway(iface, gw, &join(path, "gateway"), rd);
            }
        }
        _ => rd.error(&join(path, "type"), "unknown network type"),
    }
    // A route's own `dns` services are the network's too (cloud-init lists them first).
    let mut servers = Vec::new();
    if let Some(routes) = n.get("routes") {
        let rpath = join(path, "routes");
        for (i, r) in rd.list(routes, &rpath).iter().enumerate() {
            let p = join(&rpath, i);
            let Some(r) = rd.map(r, &p) else { continue };
            if let Some(services) = r.get("services") {
                servers.extend(dns(services, &join(&p, "services"), rd));
            }
            if let Some(r) = route(r, &p, rd) {
                iface.routes.push(r);
            }
        }
    }
    if let Some(services) = n.get("services") {
        servers.extend(dns(services, &join(path, "services"), rd));
    }
    for ns in servers {
        if !iface.dns.nameservers.contains(&ns) {
            iface.dns.nameservers.push(ns);
        }
    }
}

/// `ip_address` with `netmask` (or a prefix on the address).
fn address(n: &Map<String, Value>, path: &str, rd: &mut Reader) -> Option<Address> {
    let ap = join(path, "ip_address");
    let Some(a) = n.get("ip_address") else {
        rd.error(path, "a static network needs an `ip_address`");
        return None;
    };
    let (ip, prefix) = net_and_mask(a, n.get("netmask"), &ap, &join(path, "netmask"), rd)?;
    Some(Address {
        ip,
        prefix,
        label: None,
        lifetime: None,
    })
}

fn net_and_mask(
    a: &Value,
    mask: Option<&Value>,
    ap: &str,
    mp: &str,
    rd: &mut Reader,
) -> Option<(IpAddr, u8)> {
    let (ip, prefix) = match addr::cidr(&rd.text(a, ap)?) {
        Ok(x) => x,
        Err(e) => {
            rd.error(ap, e);
            return None;
        }
    };
    if let Some(p) = prefix {
        return Some((ip, p));
    }
    let Some(mask) = mask else {
        rd.error(ap, "has no netmask");
        return None;
    };
    match addr::prefix_len(&rd.text(mask, mp)?, ip) {
        Ok(p) => Some((ip, p)),
        Err(e) => {
            rd.error(mp, e);
            None
        }
    }
}

/// `{network, netmask, gateway, metric}` (a route's `services` are read by its network).
fn route(r: &Map<String, Value>, path: &str, rd: &mut Reader) -> Option<Route> {
    let np = join(path, "network");
    let Some(net) = r.get("network") else {
        rd.error(path, "a route needs a `network`");
        return None;
    };
    let (ip, prefix) = net_and_mask(net, r.get("netmask"), &np, &join(path, "netmask"), rd)?;
    let mut route = Route::to(super::model::Cidr { ip, prefix });
    if let Some(gw) = r.get("gateway") {
        route.via = rd.ip(gw, &join(path, "gateway"));
    }
    if let Some(m) = r.get("metric").filter(|m| !m.is_null()) {
        route.metric = rd.num(m, &join(path, "metric"), 0, u32::MAX);
    }
    Some(route)
}

/// The addresses of the `dns` services; other services are warnings.
fn dns(v: &Value, path: &str, rd: &mut Reader) -> Vec<IpAddr> {
    let mut out = Vec::new();
    for (i, s) in rd.list(v, path).iter().enumerate() {
        let p = join(path, i);
        let Some(s) = rd.map(s, &p) else {
            continue;
        };
        if s.get("type").and_then(Value::as_str) != Some("dns") {
            rd.warn(UNSUPPORTED, &join(&p, "type"), "only dns services are used");
            continue;
        }
        if let Some(ip) = s
            .get("address")
            .and_then(|a| rd.ip(a, &join(&p, "address")))
        {
            out.push(ip);
        }
    }
    out
}

/// A static network's `gateway`: the interface's default gateway of its family (a second,
/// different one is ignored with a warning, as for v1 subnets).
fn gateway(iface: &mut Interface, v: &Value, path: &str, rd: &mut Reader) {
    let taken = match rd.ip(v, path) {
        Some(IpAddr::V4(gw)) => *iface.gateway4.get_or_insert(gw) != gw,
        Some(IpAddr::V6(gw)) => *iface.gateway6.get_or_insert(gw) != gw,
        None => false,
    };
    if taken {
        let msg = "a second default gateway on one interface, ignored";
        rd.warn(UNSUPPORTED, path, msg);
    }
}

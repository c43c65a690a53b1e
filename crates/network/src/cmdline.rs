//! Network config from the kernel command line, in dracut's forms (dracut.cmdline(7)):
//! `ip=`, `nameserver=`, `ifname=`, `rd.route=`, `rd.peerdns=0`. Key paths in diagnostics
//! are the parameter and its index among those of its name (`ip.1`: the second `ip=`).
//! Not read: `vlan=`, `bond=`, `bridge=`, `team=`, `bootdev=`, `BOOTIF=`, and the client
//! hostname field of `ip=` (the hostname modules own the hostname).

use super::addr;
use super::model::{Cidr, Format, Interface, Ipv6Auto, Kind, LinkLocal, Match, Network, Route};
use super::read::{Reader, UNSUPPORTED};
use ember_core::cmdline::value;
use std::net::IpAddr;

/// The id of the interface `ip=dhcp` (no interface named) configures: every NIC.
pub const ALL: &str = "default";

/// The parameters this parser reads, as given (`ip=dhcp`, `nameserver=10.0.0.2`).
pub fn params(params: &[String]) -> Vec<&str> {
    let keys = ["ip=", "nameserver=", "ifname=", "rd.route=", "rd.peerdns="];
    params
        .iter()
        .filter(|p| keys.iter().any(|k| p.starts_with(k)))
        .map(String::as_str)
        .collect()
}

/// Whether the command line configures a network: an `ip=`. The others only add to what an
/// `ip=` configures; alone (`nameserver=` for the initramfs's own lookups, as a QEMU boot
/// found) they configure no interface, and the fallback network is rendered, as cloud-init
/// and dracut do. Before, a lone `nameserver=` left the booted system with no network.
pub fn present(params: &[String]) -> bool {
    params.iter().any(|p| p.starts_with("ip="))
}

/// The values of every `key=` parameter, in order.
fn all<'a>(params: &'a [String], key: &'a str) -> impl Iterator<Item = (String, &'a str)> {
    params
        .iter()
        .filter_map(move |p| p.strip_prefix(key)?.strip_prefix('='))
        .enumerate()
        .map(move |(i, v)| (format!("{key}.{i}"), v))
}

/// The DNS servers the command line names: `nameserver=`, then the DNS fields of each `ip=`,
/// once each (the name resolver's last resort in the initramfs).
pub fn nameservers(params: &[String]) -> Vec<IpAddr> {
    let net = parse(params, &mut Reader::new("cmdline", None));
    let mut out = net.dns.nameservers;
    for ns in net.interfaces.iter().flat_map(|i| &i.dns.nameservers) {
        if !out.contains(ns) {
            out.push(*ns);
        }
    }
    out
}

pub(super) fn parse(params: &[String], rd: &mut Reader) -> Network {
    let mut net = Network {
        format: Format::Cmdline,
        ..Network::default()
    };
    for (path, v) in all(params, "ip") {
        ip(&mut net, v, &path, rd);
    }
    for (path, v) in all(params, "ifname") {
        match v.split_once(':').map(|(n, m)| (n, addr::mac(m))) {
            Some((name, Some(mac))) if !name.is_empty() => {
                let iface = entry(&mut net, name);
                iface.kind = Kind::Physical {
                    matching: Match {
                        macaddress: Some(mac),
                        ..Match::default()
                    },
                    set_name: Some(name.to_string()),
                };
            }
            _ => rd.error(&path, "expected ifname=<interface>:<MAC>"),
        }
    }
    for (path, v) in all(params, "rd.route") {
        route(&mut net, v, &path, rd);
    }
    for (path, v) in all(params, "nameserver") {
        match v.trim_matches(['[', ']']).parse() {
            Ok(ns) => net.dns.nameservers.push(ns),
            Err(_) => rd.error(&path, "not an IP address"),
        }
    }
    for (_, path, msg) in super::devices::problems(&net, &[]) {
        rd.error(&path, msg);
    }
    if value(params, "rd.peerdns") == Some("0") {
        for iface in &mut net.interfaces {
            iface.dhcp4_overrides.use_dns = Some(false);
            iface.dhcp6_overrides.use_dns = Some(false);
        }
    }
    net
}

/// The interface with this id, added (a physical NIC of that name) if not there yet.
fn entry<'a>(net: &'a mut Network, id: &str) -> &'a mut Interface {
    match net.interfaces.iter().position(|i| i.id == id) {
        Some(i) => &mut net.interfaces[i],
        None => {
            let matching = Match {
                name: (id == ALL).then(|| "*".to_string()),
                ..Match::default()
            };
            let kind = Kind::Physical {
                matching,
                set_name: None,
            };
            net.interfaces.push(Interface::new(id, kind));
            net.interfaces.last_mut().expect("just pushed")
        }
    }
}

/// Fields split at `:`, except inside `[…]` (IPv6 addresses), brackets removed.
fn fields(v: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = v;
    loop {
        if let Some(inner) = rest.strip_prefix('[') {
            if let Some(end) = inner.find(']') {
                out.push(&inner[..end]);
                rest = &inner[end + 1..];
                match rest.strip_prefix(':') {
                    Some(r) => rest = r,
                    None => return out,
                }
                continue;
            }
        }
        match rest.split_once(':') {
            Some((f, r)) => {
                out.push(f);
                rest = r;
            }
            None => {
                out.push(rest);
                return out;
            }
        }
    }
}

/// Applies an autoconfiguration method; false when it is not one.
fn method(iface: &mut Interface, m: &str, path: &str, rd: &mut Reader) -> bool {
    match m {
        "dhcp" | "on" | "any" | "single-dhcp" | "dhcp4" => iface.dhcp4 = true,
        "dhcp6" | "either6" => iface.ipv6 = Some(Ipv6Auto::Dhcp6),
        "auto6" => iface.ipv6 = Some(Ipv6Auto::Slaac),
        "link6" => {
            iface.link_local = Some(LinkLocal {
                ipv4: false,
                ipv6: true,
            })
        }
        "link-local" => {
            iface.link_local = Some(LinkLocal {
                ipv4: true,
                ipv6: true,
            })
        }
        "none" | "off" | "" => {}
        "ibft" => rd.warn(UNSUPPORTED, path, "ibft is not supported, ignored"),
        _ => return false,
    }
    true
}

fn ip(net: &mut Network, v: &str, path: &str, rd: &mut Reader) {
    let f = fields(v);
    // ip=<method>
    if f.len() == 1 {
        let iface = entry(net, ALL);
        if !method(iface, f[0], path, rd) {
            rd.error(path, "unknown autoconfiguration method");
        }
        return;
    }
    let first_is_ip = f[0].is_empty() || addr::cidr(f[0]).is_ok();
    // ip=<interface>:<method>[:<mtu>[:<mac>]]
    if !first_is_ip {
        let iface = entry(net, f[0]);
        if !method(iface, f[1], path, rd) {
            rd.error(path, "unknown autoconfiguration method");
        }
        mtu_mac(iface, &f[2..], path, rd);
        return;
    }
    // ip=<client-IP>:[<peer>]:<gateway-IP>:<netmask>:<hostname>:<interface>:<method>[:…]
    if f.len() < 7 {
        rd.error(path, "expected at least 7 colon-separated fields");
        return;
    }
    let name = if f[5].is_empty() { ALL } else { f[5] };
    let iface = entry(net, name);
    if !method(iface, f[6], path, rd) {
        rd.error(path, "unknown autoconfiguration method");
    }
    if !f[0].is_empty() {
        match static_address(f[0], f[3]) {
            Ok(a) => iface.addresses.push(super::model::Address {
                ip: a.ip,
                prefix: a.prefix,
                label: None,
                lifetime: None,
            }),
            Err(e) => rd.error(path, e),
        }
    }
    match f[2].parse::<IpAddr>() {
        _ if f[2].is_empty() => {}
        Ok(IpAddr::V4(gw)) => iface.gateway4 = Some(gw),
        Ok(IpAddr::V6(gw)) => iface.gateway6 = Some(gw),
        Err(_) => rd.error(path, "the gateway is not an IP address"),
    }
    // Then either <dns1>[:<dns2>] or <mtu>[:<mac>].
    let rest = &f[7..];
    if rest.first().is_some_and(|d| d.parse::<IpAddr>().is_ok()) {
        if rest.len() > 2 {
            rd.error(path, "more than two nameserver fields");
        }
        for d in rest.iter().filter(|d| !d.is_empty()) {
            match d.parse() {
                Ok(ns) => iface.dns.nameservers.push(ns),
                Err(_) => rd.error(path, "a nameserver field is not an IP address"),
            }
        }
    } else {
        mtu_mac(iface, rest, path, rd);
    }
}

/// The client address with its prefix from `addr/prefix` or the netmask field.
fn static_address(client: &str, mask: &str) -> Result<Cidr, String> {
    let (ip, prefix) = addr::cidr(client)?;
    let prefix = match (prefix, mask) {
        (Some(p), _) => p,
        (None, "") => return Err("a static address needs a netmask".into()),
        (None, m) => addr::prefix_len(m, ip)?,
    };
    Ok(Cidr { ip, prefix })
}

fn mtu_mac(iface: &mut Interface, rest: &[&str], path: &str, rd: &mut Reader) {
    if let Some(m) = rest.first().filter(|m| !m.is_empty()) {
        match m.parse::<u32>().ok().filter(|m| (68..=65535).contains(m)) {
            Some(m) => iface.mtu = Some(m),
            None => rd.error(path, "the MTU is not a number from 68 to 65535"),
        }
    }
    // The MAC is the rest, colons and all.
    let mac = rest.get(1..).unwrap_or_default().join(":");
    if !mac.is_empty() {
        match addr::mac(&mac) {
            Some(mac) => iface.mac_address = Some(mac),
            None => rd.error(path, "not a MAC address"),
        }
    }
}

/// `rd.route=<net>/<prefix>:<gateway>[:<interface>]`
fn route(net: &mut Network, v: &str, path: &str, rd: &mut Reader) {
    let f = fields(v);
    if f.len() < 2 || f.len() > 3 {
        rd.error(
            path,
            "expected rd.route=<net>/<prefix>:<gateway>[:<interface>]",
        );
        return;
    }
    let to = match addr::cidr(f[0]) {
        Ok((ip, prefix)) => Cidr {
            ip,
            prefix: prefix.unwrap_or(addr::max_prefix(ip)),
        },
        Err(e) => return rd.error(path, e),
    };
    let mut r = Route::to(to);
    if !f[1].is_empty() {
        match f[1].parse::<IpAddr>() {
            Ok(gw) if gw.is_ipv4() == to.ip.is_ipv4() => r.via = Some(gw),
            _ => {
                return rd.error(
                    path,
                    "the gateway is not an IP address of the route's family",
                )
            }
        }
    }
    match f.get(2).filter(|i| !i.is_empty()) {
        Some(name) => match net.interfaces.iter_mut().find(|i| i.id == *name) {
            Some(iface) => iface.routes.push(r),
            None => rd.error(path, "names an interface no ip= or ifname= configures"),
        },
        None => net.routes.push(r),
    }
}

//! network-config version 2, netplan's format: `ethernets`, `bonds`, `bridges`, `vlans` into
//! the model, checked as netplan checks them. Other device types (wifis, tunnels, …) and keys
//! the model does not hold are warnings; they survive in `Network::netplan`, which the netplan
//! renderer writes through unchanged.
//! <https://docs.cloud-init.io/en/latest/reference/network-config-format-v2.html>

use super::devices;
use super::model::{
    BondParams, BridgeParams, Control, Format, Interface, Ipv6Auto, Kind, LinkLocal, Match, Network,
};
use super::params;
use super::read::{join, Reader, Refs, UNSUPPORTED};
use super::v2_ip::{addresses, nameservers, overrides, routes, rules};
use serde_json::{Map, Value};
use std::net::IpAddr;

type Obj = Map<String, Value>;

pub(super) const SECTIONS: [&str; 4] = ["ethernets", "bonds", "bridges", "vlans"];

/// Device types netplan knows and ember's renderers do not.
const PASSED_THROUGH: [&str; 8] = [
    "wifis",
    "tunnels",
    "modems",
    "vrfs",
    "dummy-devices",
    "virtual-ethernets",
    "nm-devices",
    "openvswitch",
];

pub(super) fn parse(map: &Obj, base: &str, rd: &mut Reader) -> Network {
    let mut net = Network {
        format: Format::V2,
        netplan: Some(Value::Object(map.clone())),
        ..Network::default()
    };
    let mut refs = Refs::default();
    for (key, v) in map {
        let path = join(base, key);
        match key.as_str() {
            "version" => {}
            "renderer" => net.renderer = rd.string(v, &path),
            k if SECTIONS.contains(&k) => {}
            k if PASSED_THROUGH.contains(&k) => rd.warn(
                UNSUPPORTED,
                &path,
                "not supported by ember's renderers; kept for netplan only",
            ),
            _ => rd.unknown(&path),
        }
    }
    // In a fixed order, so members and links are read before the devices that use them.
    for section in SECTIONS {
        let path = join(base, section);
        let Some(devices) = map.get(section).and_then(|v| rd.map(v, &path)) else {
            continue;
        };
        for (id, dev) in devices {
            let path = join(&path, id);
            // A device with a problem is skipped, as cloud-init skips an invalid entry.
            let (mark, refs_mark) = (rd.mark(), refs.mark());
            devices::refuse_key_controls(id, dev, &path, rd);
            let iface = rd
                .map(dev, &path)
                .and_then(|dev| device(section, id, dev, &path, rd, &mut refs));
            let skipped = rd.skip(mark, &path, "this device");
            match iface {
                Some(iface) if !skipped => {
                    refs.paths.push(path);
                    net.interfaces.push(iface);
                }
                _ => refs.forget(refs_mark),
            }
        }
    }
    refs.check(&mut net, rd);
    trim_passthrough(&mut net);
    net
}

/// What the model left out, the v2 netplan gets without too (netplan would refuse the whole
/// file for one bad device): the devices skipped, an `mtu: 0`, and ARP parameters of bonds
/// whose mode cannot use them.
fn trim_passthrough(net: &mut Network) {
    let Some(Value::Object(v2)) = net.netplan.as_mut() else {
        return;
    };
    for (n, section) in SECTIONS.iter().enumerate() {
        let Some(Value::Object(devices)) = v2.get_mut(*section) else {
            continue;
        };
        devices.retain(|id, _| {
            net.interfaces
                .iter()
                .any(|i| i.id == *id && section_of(&i.kind) == n)
        });
        for dev in devices.values_mut().filter_map(Value::as_object_mut) {
            if dev.get("mtu").and_then(Value::as_u64) == Some(0) {
                dev.remove("mtu");
            }
        }
    }
    let Some(Value::Object(bonds)) = v2.get_mut("bonds") else {
        return;
    };
    for iface in &net.interfaces {
        let Kind::Bond { params: b, .. } = &iface.kind else {
            continue;
        };
        if params::arp_usable(b) {
            continue;
        }
        let given = bonds
            .get_mut(&iface.id)
            .and_then(|d| d.get_mut("parameters"))
            .and_then(Value::as_object_mut);
        if let Some(p) = given {
            p.retain(|k, _| !params::is_arp(k));
        }
    }
}

/// The index in [`SECTIONS`] of a device of this kind.
fn section_of(kind: &Kind) -> usize {
    match kind {
        Kind::Physical { .. } => 0,
        Kind::Bond { .. } => 1,
        Kind::Bridge { .. } => 2,
        Kind::Vlan { .. } => 3,
    }
}

fn device(
    section: &str,
    id: &str,
    dev: &Obj,
    path: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> Option<Interface> {
    let kind = match section {
        "ethernets" => physical(dev, path, rd),
        "bonds" => Kind::Bond {
            members: members(id, dev, path, rd, refs),
            params: dev
                .get("parameters")
                .map(|p| bond_params(id, p, &join(path, "parameters"), rd, refs))
                .unwrap_or_default(),
        },
        "bridges" => Kind::Bridge {
            members: members(id, dev, path, rd, refs),
            params: dev
                .get("parameters")
                .map(|p| bridge_params(id, p, &join(path, "parameters"), rd, refs))
                .unwrap_or_default(),
        },
        _ => vlan(id, dev, path, rd, refs)?,
    };
    let mut iface = Interface::new(id, kind);
    for (key, v) in dev {
        let p = join(path, key);
        let specific = matches!(
            (section, key.as_str()),
            ("ethernets", "match" | "set-name")
                | ("bonds" | "bridges", "interfaces" | "parameters")
                | ("vlans", "id" | "link")
        );
        if !specific && !common(&mut iface, key, v, &p, rd) {
            rd.unknown(&p);
        }
    }
    Some(iface)
}

fn physical(dev: &Obj, path: &str, rd: &mut Reader) -> Kind {
    let mut matching = Match::default();
    if let Some(m) = dev.get("match") {
        let mpath = join(path, "match");
        for (key, v) in rd.map(m, &mpath).into_iter().flatten() {
            let p = join(&mpath, key);
            match key.as_str() {
                "name" => matching.name = rd.string(v, &p),
                "macaddress" => matching.macaddress = rd.mac(v, &p),
                "driver" => matching.driver = rd.strings(v, &p),
                _ => rd.unknown(&p),
            }
        }
    }
    let set_name = dev.get("set-name").and_then(|v| {
        let p = join(path, "set-name");
        if matching.is_empty() {
            rd.error(&p, "set-name needs a match");
        }
        rd.string(v, &p)
    });
    Kind::Physical { matching, set_name }
}

fn members(id: &str, dev: &Obj, path: &str, rd: &mut Reader, refs: &mut Refs) -> Vec<String> {
    let Some(v) = dev.get("interfaces") else {
        return Vec::new();
    };
    params::members(id, v, &join(path, "interfaces"), rd, refs)
}

fn vlan(id: &str, dev: &Obj, path: &str, rd: &mut Reader, refs: &mut Refs) -> Option<Kind> {
    params::vlan(id, dev, path, ("id", "link"), rd, refs)
}

/// The keys every device type has; false when `key` is not one of them.
fn common(iface: &mut Interface, key: &str, v: &Value, p: &str, rd: &mut Reader) -> bool {
    match key {
        "dhcp4" => iface.dhcp4 = rd.bool(v, p).unwrap_or(false),
        "dhcp6" => {
            if rd.bool(v, p) == Some(true) {
                iface.ipv6 = Some(Ipv6Auto::Dhcp6);
            }
        }
        "dhcp4-overrides" => iface.dhcp4_overrides = overrides(v, p, rd),
        "dhcp6-overrides" => iface.dhcp6_overrides = overrides(v, p, rd),
        "addresses" => iface.addresses = addresses(v, p, rd),
        "gateway4" => match rd.ip(v, p) {
            Some(IpAddr::V4(gw)) => iface.gateway4 = Some(gw),
            Some(_) => rd.error(p, "not an IPv4 address"),
            None => {}
        },
        "gateway6" => match rd.ip(v, p) {
            Some(IpAddr::V6(gw)) => iface.gateway6 = Some(gw),
            Some(_) => rd.error(p, "not an IPv6 address"),
            None => {}
        },
        "nameservers" => iface.dns = nameservers(v, p, rd),
        "macaddress" => iface.mac_address = rd.mac(v, p),
        // cloud-init before 24.2 took `mtu: 0` and netplan refuses it: left out, the device
        // kept (cloud-init's STRIP_INVALID_MTU).
        "mtu" if v.as_u64() == Some(0) => rd.warn(
            UNSUPPORTED,
            p,
            "0 is no MTU: left out, the device's own MTU is kept",
        ),
        "mtu" => iface.mtu = rd.num(v, p, 68, 65535),
        "ipv6-mtu" => iface.ipv6_mtu = rd.num(v, p, 1280, 65535),
        "optional" => iface.optional = rd.bool(v, p).unwrap_or(false),
        "wakeonlan" => iface.wakeonlan = rd.bool(v, p).unwrap_or(false),
        "critical" => iface.keep_configuration = rd.bool(v, p).unwrap_or(false),
        "accept-ra" => iface.accept_ra = rd.bool(v, p),
        // What the renderers write for v1's `control: manual`; `off` has no match in the model.
        "activation-mode" => match params::one_of(v, p, rd, &["manual", "off"]).as_deref() {
            Some("manual") => iface.control = Some(Control::Manual),
            Some(_) => rd.warn(
                UNSUPPORTED,
                p,
                "`off` is not rendered: the device is brought up",
            ),
            None => {}
        },
        "link-local" => {
            let mut ll = LinkLocal::default();
            for (i, s) in rd.strings(v, p).iter().enumerate() {
                match s.as_str() {
                    "ipv4" => ll.ipv4 = true,
                    "ipv6" => ll.ipv6 = true,
                    _ => rd.error(&join(p, i), "expected ipv4 or ipv6"),
                }
            }
            iface.link_local = Some(ll);
        }
        "routes" => iface.routes = routes(v, p, rd),
        "routing-policy" => iface.rules = rules(v, p, rd),
        // Chooses netplan's backend per device: nothing for the model to hold.
        "renderer" => {}
        _ => return false,
    }
    true
}

fn bond_params(id: &str, v: &Value, path: &str, rd: &mut Reader, refs: &mut Refs) -> BondParams {
    let mut b = BondParams::default();
    let mut arp = Vec::new();
    for (k, x) in rd.map(v, path).into_iter().flatten() {
        let p = join(path, k);
        if params::is_arp(k) {
            arp.push(p.clone());
        }
        if !params::bond(&mut b, k, x, p.clone(), id, rd, refs) {
            rd.unknown(&p);
        }
    }
    params::drop_unusable_arp(&mut b, &arp, rd);
    b
}

fn bridge_params(
    id: &str,
    v: &Value,
    path: &str,
    rd: &mut Reader,
    refs: &mut Refs,
) -> BridgeParams {
    let mut b = BridgeParams::default();
    for (k, x) in rd.map(v, path).into_iter().flatten() {
        let p = join(path, k);
        match k.as_str() {
            "path-cost" | "port-priority" => {
                for (port, n) in rd.map(x, &p).into_iter().flatten() {
                    params::port_value(
                        &mut b,
                        k == "path-cost",
                        port,
                        n,
                        join(&p, port),
                        id,
                        rd,
                        refs,
                    );
                }
            }
            _ if params::bridge(&mut b, k, x, &p, rd) => {}
            _ => rd.unknown(&p),
        }
    }
    b
}

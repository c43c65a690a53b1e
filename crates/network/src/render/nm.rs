//! The NetworkManager renderer: one keyfile per interface,
//! `/etc/NetworkManager/system-connections/cloud-init-<name>.nmconnection` (0600), as
//! cloud-init's `network-manager` renderer writes them (its UUIDs, `id=cloud-init <name>`,
//! members with `master=`/`slave-type=`), and the `conf.d` file that makes EUI-64 the default
//! IPv6 address mode, which cloud-init writes from 23.1 on.
//!
//! A NIC matched by MAC is matched by `mac-address` and gets no `interface-name` (a keyfile
//! cannot rename a device); one matched by driver or name pattern gets a `[match]` section.
//! An interface with no addressing at all is not left to NetworkManager's default (DHCP):
//! IPv4 is disabled and IPv6 left to the kernel. What a keyfile cannot express is a warning
//! naming the interface and the key.
//! <https://docs.cloud-init.io/en/latest/reference/network-config.html#network-output-policy>

#[path = "nm_ip.rs"]
mod ip;
#[path = "nm_keyfile.rs"]
mod keyfile;
#[path = "nm_values.rs"]
mod values;

use super::eni::util::{bond_options, ifname, kernel_name, owner, warn, word};
use super::Rendered;
use crate::model::{Control, Interface, Kind, Network, Route};
use ip::ip;
use keyfile::{uuid, Keyfile};

/// The folder of the connection profiles.
pub const DIR: &str = "/etc/NetworkManager/system-connections";
/// A profile's file name: these around the connection's name.
pub(crate) const PREFIX: &str = "cloud-init-";
pub(crate) const SUFFIX: &str = ".nmconnection";
/// NetworkManager's configuration snippet cloud-init writes beside them.
pub const CONF: &str = "/etc/NetworkManager/conf.d/30-cloud-init-ip6-addr-gen-mode.conf";

use super::eni::util::HEADER;

/// The snippet's header. For NetworkManager 1.40 and later: addresses from router
/// advertisements use EUI-64 unless a profile says otherwise, as cloud-init sets it.
pub(crate) const CONF_HEADER: &str = "\
# Written by ember: IPv6 addresses from router advertisements are EUI-64 (mode 0) unless a
# connection profile says otherwise.
";
const CONF_BODY: &str = "\
[.config]
enable=nm-version-min:1.40

[connection.30-cloud-init-ip6-addr-gen-mode]
ipv6.addr-gen-mode=0
";

/// Renders every interface as a keyfile, and the `conf.d` snippet; all 0600.
pub fn render(net: &Network) -> Rendered {
    let mut out = Rendered::default();
    let names: Vec<Option<String>> = net.interfaces.iter().map(|i| name(i, &mut out)).collect();
    // Members point at their bond or bridge, vlans at their link, by connection UUID.
    let uuid_of = |id: &str| -> String {
        let k = net.interfaces.iter().position(|i| i.id == id);
        uuid(k.and_then(|k| names[k].as_deref()).unwrap_or(id))
    };
    let mut master = vec![None; net.interfaces.len()];
    for (k, i) in net.interfaces.iter().enumerate() {
        let (members, port_type) = match &i.kind {
            Kind::Bond { members, .. } => (members, "bond"),
            Kind::Bridge { members, .. } => (members, "bridge"),
            _ => continue,
        };
        for m in members {
            if let Some(j) = net.interfaces.iter().position(|x| &x.id == m) {
                master[j] = Some((k, port_type));
            }
        }
    }
    let mut global: Vec<Vec<&Route>> = vec![Vec::new(); net.interfaces.len()];
    for (n, r) in net.routes.iter().enumerate() {
        match owner(net, r.via) {
            Some(k) => global[k].push(r),
            None => {
                let msg = "no interface has an address whose subnet holds its gateway; left out";
                warn(&mut out, "routes", &n.to_string(), msg);
            }
        }
    }
    for (k, i) in net.interfaces.iter().enumerate() {
        let Some(name) = &names[k] else { continue };
        let mut kf = Keyfile::default();
        kf.set("connection", "id", format!("cloud-init {name}"));
        kf.set("connection", "uuid", uuid(name));
        kf.set("connection", "autoconnect-priority", 120);
        // v1's `control: manual`: up only when asked for, as ifupdown's `ifup`.
        if i.control == Some(Control::Manual) {
            kf.set("connection", "autoconnect", "false");
        }
        let ty = match i.kind {
            Kind::Physical { .. } if infiniband(i) => "infiniband",
            Kind::Physical { .. } => "ethernet",
            Kind::Bond { .. } => "bond",
            Kind::Bridge { .. } => "bridge",
            Kind::Vlan { .. } => "vlan",
        };
        kf.set("connection", "type", ty);
        if let Some((m, port_type)) = master[k] {
            kf.set("connection", "slave-type", port_type);
            kf.set("connection", "master", uuid_of(&net.interfaces[m].id));
        }
        kf.set(
            "user",
            "org.freedesktop.NetworkManager.origin",
            "cloud-init",
        );
        device(&mut kf, net, i, &uuid_of, &mut out);
        if let Some((m, "bridge")) = master[k] {
            // libnm wants the section on every port, its values or not.
            kf.section("bridge-port");
            let b = &net.interfaces[m];
            if let Kind::Bridge { params, .. } = &b.kind {
                // libnm's ranges: priority 0 to 63, path cost 1 to 65535.
                let port = [
                    (
                        "priority",
                        "port-priority",
                        params.port_priority.get(&i.id),
                        (0, 63),
                    ),
                    (
                        "path-cost",
                        "path-cost",
                        params.path_cost.get(&i.id),
                        (1, 65535),
                    ),
                ];
                for (key, name, v, range) in port {
                    let name = format!("{name}.{}", i.id);
                    if let Some(v) =
                        v.and_then(|v| values::ranged(&name, *v, range, &b.id, &mut out))
                    {
                        kf.set("bridge-port", key, v);
                    }
                }
            }
        }
        if master[k].is_none() {
            ip(&mut kf, net, i, &global[k], &mut out);
        } else if i.has_addressing() {
            warn(
                &mut out,
                &i.id,
                "addresses",
                "a bond or bridge member takes no addresses",
            );
        }
        let path = format!("{DIR}/{PREFIX}{name}{SUFFIX}");
        out.file(path, kf.text(&format!("{HEADER}\n")), 0o600);
    }
    out.file(CONF, format!("{CONF_HEADER}{CONF_BODY}"), 0o600);
    out
}

/// The connection's name (its file name, its `id`): `set-name`, else the interface's id.
fn name(i: &Interface, out: &mut Rendered) -> Option<String> {
    let n = match &i.kind {
        Kind::Physical {
            set_name: Some(s), ..
        } => s,
        _ => &i.id,
    };
    if word(n).is_none() || n.contains('/') || n.starts_with('.') {
        warn(
            out,
            &i.id,
            "name",
            "not usable as a connection's file name; left out",
        );
        return None;
    }
    Some(n.clone())
}

/// `interface-name` or the match, and the device's own settings section.
fn device(
    kf: &mut Keyfile,
    net: &Network,
    i: &Interface,
    uuid_of: &dyn Fn(&str) -> String,
    out: &mut Rendered,
) {
    let by_mac = match &i.kind {
        Kind::Physical { matching, .. } => matching.macaddress.as_deref(),
        _ => None,
    };
    let ifn = if by_mac.is_none() {
        kernel_name(net, i)
    } else {
        None
    };
    match ifn {
        Some(n) if ifname(n) => kf.set("connection", "interface-name", n),
        Some(_) => warn(out, &i.id, "name", "not a valid interface name; left out"),
        None => {}
    }
    let upper = |m: &str| m.to_ascii_uppercase();
    match &i.kind {
        Kind::Physical { matching, .. } => {
            let sec = if infiniband(i) {
                "infiniband"
            } else {
                "ethernet"
            };
            kf.section(sec);
            if sec == "infiniband" {
                // IP over InfiniBand as cloud-init configures it (and the kernel's default).
                kf.set(sec, "transport-mode", "datagram");
            } else if i.wakeonlan {
                // NetworkManager's "magic packet" flag.
                kf.set(sec, "wake-on-lan", 64);
            }
            if let Some(mtu) = i.mtu {
                kf.set(sec, "mtu", mtu);
            }
            if let Some(mac) = by_mac {
                kf.set(sec, "mac-address", upper(mac));
            }
            match &i.mac_address {
                Some(_) if sec == "infiniband" => {
                    let msg = "an InfiniBand address cannot be set in a keyfile; left out";
                    warn(out, &i.id, "macaddress", msg);
                }
                Some(mac) => kf.set(sec, "cloned-mac-address", upper(mac)),
                None => {}
            }
            let mut drivers = String::new();
            for d in &matching.driver {
                match word(d) {
                    Some(d) => drivers.push_str(&format!("{d};")),
                    None => warn(out, &i.id, "match.driver", "not a single word; left out"),
                }
            }
            if !drivers.is_empty() {
                kf.set("match", "driver", drivers);
            }
            match matching.name.as_deref() {
                Some(n) if ifn.is_none() && by_mac.is_none() && word(n).is_some() => {
                    kf.set("match", "interface-name", format!("{n};"))
                }
                _ => {}
            }
        }
        Kind::Bond { params, .. } => {
            kf.section("bond");
            let name_of = |id: &str| {
                let x = net.interface(id).and_then(|x| kernel_name(net, x));
                Some(x.unwrap_or(id).to_string())
            };
            let opts = bond_options(params, &i.id, &name_of, out);
            for (key, value) in values::bond(opts, &i.id, out) {
                kf.set("bond", key, value);
            }
        }
        Kind::Bridge { params: p, .. } => {
            kf.section("bridge");
            for key in p.ifupdown_only() {
                warn(out, &i.id, key, super::IFUPDOWN_ONLY);
            }
            if let Some(stp) = p.stp {
                kf.set("bridge", "stp", stp);
            }
            if let Some(prio) = p
                .priority
                .and_then(|v| values::ranged("priority", v, (0, 65535), &i.id, out))
            {
                kf.set("bridge", "priority", prio);
            }
            let times = [
                ("forward-delay", p.forward_delay_ms),
                ("hello-time", p.hello_time_ms),
                ("max-age", p.max_age_ms),
                ("ageing-time", p.ageing_time_ms),
            ];
            for (key, ms) in times {
                if let Some(s) = ms.and_then(|ms| values::bridge_time(p, key, ms, &i.id, out)) {
                    kf.set("bridge", key, s);
                }
            }
            if let Some(mac) = &i.mac_address {
                kf.set("bridge", "mac-address", upper(mac));
            }
        }
        Kind::Vlan { id, link } => {
            kf.set("vlan", "id", id);
            kf.set("vlan", "parent", uuid_of(link));
        }
    }
    // Bonds, bridges and vlans take their MTU (and a bond or vlan its MAC) from the wired
    // setting.
    if !matches!(i.kind, Kind::Physical { .. }) {
        if let Some(mtu) = i.mtu {
            kf.set("ethernet", "mtu", mtu);
        }
        if let (Some(mac), false) = (&i.mac_address, matches!(i.kind, Kind::Bridge { .. })) {
            kf.set("ethernet", "cloned-mac-address", upper(mac));
        }
    }
}

/// A NIC matched by a 20-byte hardware address is an InfiniBand port (v1's `infiniband`):
/// NetworkManager refuses such an address on an Ethernet connection.
fn infiniband(i: &Interface) -> bool {
    match &i.kind {
        Kind::Physical { matching, .. } => matching
            .macaddress
            .as_deref()
            .is_some_and(|m| m.split(':').count() == 20),
        _ => false,
    }
}

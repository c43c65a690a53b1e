//! The ENI renderer: the model as ifupdown's `/etc/network/interfaces.d/50-cloud-init`, laid
//! out as cloud-init's `eni` renderer lays it out, and the udev rules that give NICs matched
//! by MAC their names (`/etc/udev/rules.d/70-persistent-net.rules`, written even when empty,
//! as cloud-init does, so a previous instance's rules do not survive).
//!
//! ifupdown knows devices by kernel name only. A NIC matched by MAC without a name is named
//! after its id and renamed to it by the udev rule, which is what cloud-init does when the MAC
//! is not among the host's devices; ember never uses the name the initramfs gave a device.
//! A NIC matched only by driver or by a name glob cannot be named: it is left out with a
//! warning (cloud-init writes a stanza for a device named like the id, which never comes up).
//! What ifupdown cannot express (routing policy, address labels, most DHCP
//! overrides) is a warning naming the interface and the key.
//! <https://docs.cloud-init.io/en/latest/reference/network-config.html#network-output-policy>

#[path = "eni_lines.rs"]
mod lines;
#[path = "eni_util.rs"]
pub(crate) mod util;

use super::Rendered;
use crate::model::{Address, Control, DhcpOverrides, Interface, Ipv6Auto, Kind, Network, Route};
use lines::{route, udev_rules};
use std::net::IpAddr;
use util::{bond_options, holds, ifname, kernel_name, owner, secs, warn, word, HEADER};

/// Where the interfaces file goes, as Debian's cloud-init puts it.
pub const PATH: &str = "/etc/network/interfaces.d/50-cloud-init";
/// The udev rules that rename NICs matched by MAC.
pub const RULES: &str = "/etc/udev/rules.d/70-persistent-net.rules";

/// One `iface` stanza of an interface.
struct Stanza<'a> {
    inet6: bool,
    method: &'static str,
    /// The static address it sets.
    address: Option<&'a Address>,
    /// Its own options, sorted on output.
    lines: Vec<String>,
    /// `accept_ra`, `dhcp`: sorted with the interface's options in the first stanza.
    opts: Vec<String>,
    /// `post-up`/`pre-down` lines, in order.
    routes: Vec<String>,
}

impl<'a> Stanza<'a> {
    fn new(inet6: bool, method: &'static str, address: Option<&'a Address>) -> Stanza<'a> {
        Stanza {
            inet6,
            method,
            address,
            lines: Vec::new(),
            opts: Vec::new(),
            routes: Vec::new(),
        }
    }
}

/// Renders `net` as the interfaces file and the udev rules, both 0644.
pub fn render(net: &Network) -> Rendered {
    let mut out = Rendered::default();
    let names: Vec<Option<String>> = net
        .interfaces
        .iter()
        .map(|i| name(net, i, &mut out))
        .collect();
    // What members and links are called: their name, else an id that can be one (a device
    // left out still has its warning).
    let name_of = |id: &str| -> Option<String> {
        let k = net.interfaces.iter().position(|i| i.id == id)?;
        names[k]
            .clone()
            .or_else(|| ifname(id).then(|| id.to_string()))
    };
    // Each bond's option lines, once (its members repeat them, as cloud-init writes them).
    let mut master = vec![None; net.interfaces.len()];
    let mut bond_lines = vec![Vec::new(); net.interfaces.len()];
    for (k, i) in net.interfaces.iter().enumerate() {
        if let Kind::Bond { members, params } = &i.kind {
            for m in members {
                if let Some(j) = net.interfaces.iter().position(|x| &x.id == m) {
                    master[j] = Some(k);
                }
            }
            bond_lines[k] = bond_options(params, &i.id, &name_of, &mut out)
                .into_iter()
                .map(|(key, v)| format!("bond-{} {}", key.replace('_', "-"), v.replace(',', " ")))
                .collect();
        }
    }
    // Routes tied to no interface go with the interface whose subnet holds their gateway.
    let mut global: Vec<Vec<&Route>> = vec![Vec::new(); net.interfaces.len()];
    let mut loose = Vec::new();
    for r in &net.routes {
        match owner(net, r.via) {
            Some(k) => global[k].push(r),
            None => loose.push(r),
        }
    }

    let mut lo = vec!["auto lo".to_string(), "iface lo inet loopback".to_string()];
    lo.extend(
        dns_lines(&net.dns, "dns", &mut out)
            .iter()
            .map(|l| indent(l)),
    );
    let mut sections = vec![lo];
    // Physical devices first, then bonds, bridges and vlans (bonding needs that order).
    let rank = |i: &Interface| match i.kind {
        Kind::Physical { .. } => 1,
        Kind::Bond { .. } => 3,
        Kind::Bridge { .. } => 4,
        Kind::Vlan { .. } => 5,
    };
    let mut order: Vec<usize> = (0..net.interfaces.len())
        .filter(|&k| names[k].is_some())
        .collect();
    ember_core::sort::sort_by_key(&mut order, |&k| {
        (rank(&net.interfaces[k]), names[k].as_deref())
    });
    for k in order {
        let iface = &net.interfaces[k];
        let name = names[k].as_deref().unwrap_or_default();
        let mut attrs = attrs(iface, &name_of);
        if let Some(b) = master[k] {
            if let Some(m) = name_of(&net.interfaces[b].id) {
                attrs.push(format!("bond-master {m}"));
            }
            attrs.extend(bond_lines[b].iter().cloned());
        }
        if matches!(iface.kind, Kind::Bond { .. }) {
            attrs.extend(bond_lines[k].iter().cloned());
            attrs.push("bond-slaves none".into());
        }
        let mut st = stanzas(iface, &mut out);
        let manual = st.is_empty();
        if manual {
            st.push(Stanza::new(false, "manual", None));
        }
        let dns_at = st.iter().position(|s| s.address.is_some()).unwrap_or(0);
        st[dns_at]
            .lines
            .extend(dns_lines(&iface.dns, &iface.id, &mut out));
        for r in iface.routes.iter().chain(global[k].iter().copied()) {
            if let Some(lines) = route(r, Some(name), &iface.id, &mut out) {
                // In the stanza that brings up the gateway's subnet, else its family's first.
                let at = st
                    .iter()
                    .position(|s| matches!((s.address, r.via), (Some(a), Some(v)) if holds(a, v)))
                    .or_else(|| st.iter().position(|s| s.inet6 == r.to.ip.is_ipv6()))
                    .unwrap_or(0);
                st[at].routes.extend(lines);
            }
        }
        // ifenslave wants members and bonds brought up by `auto`; other devices without
        // subnets are brought up by what uses them, as in cloud-init (a v1 `manual` subnet
        // is `control: auto`). v1's `control` says otherwise, as cloud-init writes it:
        // `allow-hotplug`, or only a comment for `manual`.
        let auto = !manual || master[k].is_some() || matches!(iface.kind, Kind::Bond { .. });
        let verb = match &iface.control {
            Some(Control::Hotplug) => Some(format!("allow-hotplug {name}")),
            Some(Control::Manual) => Some(format!("# control-manual {name}")),
            Some(Control::Other(word)) => Some(format!("# control-{word} {name}")),
            Some(Control::Auto) => Some(format!("auto {name}")),
            None => auto.then(|| format!("auto {name}")),
        };
        if let Some(mtu) = iface.ipv6_mtu {
            // ifupdown's inet6 `mtu` is the IPv6 MTU (it raises the device's only when that
            // is smaller), and it takes one: when the first stanza, which has the device's
            // options, is inet6, the device's `mtu` cannot stand beside it.
            match st.iter_mut().position(|s| s.inet6) {
                Some(n) => {
                    if n == 0 {
                        if let Some(dev) = iface.mtu {
                            attrs.retain(|a| *a != format!("mtu {dev}"));
                            let msg = "with no IPv4 stanza, ENI's one `mtu` is the IPv6 MTU: \
                                       the device's MTU is left out";
                            warn(&mut out, &iface.id, "mtu", msg);
                        }
                    }
                    st[n].lines.push(format!("mtu {mtu}"));
                }
                None => warn(
                    &mut out,
                    &iface.id,
                    "ipv6-mtu",
                    "needs IPv6 addressing in ENI",
                ),
            }
        }
        for (n, s) in st.into_iter().enumerate() {
            let mut lines = Vec::new();
            let (mut own, mut extra) = (s.lines, Vec::new());
            if n == 0 {
                lines.extend(verb.clone());
                extra = std::mem::take(&mut attrs);
                extra.extend(s.opts);
            } else {
                lines.push(format!("# control-alias {name}"));
                own.extend(s.opts);
            }
            let family = if s.inet6 { "inet6" } else { "inet" };
            lines.push(format!("iface {name} {family} {}", s.method));
            ember_core::sort::sort(&mut own);
            ember_core::sort::sort(&mut extra);
            lines.extend(own.iter().chain(&extra).map(|l| indent(l)));
            lines.extend(s.routes);
            sections.push(lines);
        }
    }
    // Like cloud-init, which writes them after the last stanza, where ifupdown takes them
    // as that stanza's.
    let last = sections.len() - 1;
    for r in loose {
        if let Some(lines) = route(r, None, "routes", &mut out) {
            sections[last].extend(lines);
        }
    }
    let body: Vec<String> = sections.iter().map(|s| s.join("\n")).collect();
    out.file(PATH, format!("{HEADER}{}\n", body.join("\n\n")), 0o644);
    out.file(RULES, format!("{HEADER}{}", udev_rules(net, &names)), 0o644);
    out
}

fn indent(line: &str) -> String {
    format!("    {line}")
}

/// The kernel name ENI knows the interface by, or `None` (with a warning) when it has none.
fn name(net: &Network, i: &Interface, out: &mut Rendered) -> Option<String> {
    let n = match (&i.kind, kernel_name(net, i)) {
        (_, Some(n)) => n,
        (Kind::Physical { matching, .. }, None) if matching.macaddress.is_some() => &i.id,
        _ => {
            let msg = "matched by driver or name pattern only: ENI needs the device's name; \
                       left out";
            warn(out, &i.id, "match", msg);
            return None;
        }
    };
    if !ifname(n) {
        warn(out, &i.id, "name", "not a valid interface name; left out");
        return None;
    }
    Some(n.to_string())
}

/// The interface's own options, for its first stanza.
fn attrs(i: &Interface, name_of: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut a = Vec::new();
    match &i.kind {
        Kind::Bridge { members, params: p } => {
            let ports: Vec<String> = members.iter().filter_map(|m| name_of(m)).collect();
            // bridge-utils sets a bridge up only when it has `bridge_ports`.
            let ports = if ports.is_empty() {
                "none".into()
            } else {
                ports.join(" ")
            };
            a.push(format!("bridge_ports {ports}"));
            let times = [
                ("ageing", p.ageing_time_ms),
                ("fd", p.forward_delay_ms),
                ("hello", p.hello_time_ms),
                ("maxage", p.max_age_ms),
            ];
            for (key, ms) in times {
                if let Some(ms) = ms {
                    a.push(format!("bridge_{key} {}", secs(ms)));
                }
            }
            if let Some(prio) = p.priority {
                a.push(format!("bridge_bridgeprio {prio}"));
            }
            if let Some(s) = p.gc_interval_s {
                a.push(format!("bridge_gcint {s}"));
            }
            if let Some(s) = p.max_wait_s {
                a.push(format!("bridge_maxwait {s}"));
            }
            for line in &p.wait_port {
                a.push(format!("bridge_waitport {line}"));
            }
            if let Some(stp) = p.stp {
                a.push(format!("bridge_stp {}", if stp { "on" } else { "off" }));
            }
            for (port, cost) in &p.path_cost {
                if let Some(port) = name_of(port) {
                    a.push(format!("bridge_pathcost {port} {cost}"));
                }
            }
            for (port, prio) in &p.port_priority {
                if let Some(port) = name_of(port) {
                    a.push(format!("bridge_portprio {port} {prio}"));
                }
            }
        }
        Kind::Vlan { id, link } => {
            if let Some(link) = name_of(link) {
                a.push(format!("vlan-raw-device {link}"));
            }
            a.push(format!("vlan_id {id}"));
        }
        Kind::Physical { .. } | Kind::Bond { .. } => {}
    }
    if i.wakeonlan {
        a.push("ethernet-wol g".into());
    }
    if let Some(mac) = &i.mac_address {
        a.push(format!("hwaddress {mac}"));
    }
    if let Some(mtu) = i.mtu {
        a.push(format!("mtu {mtu}"));
    }
    a
}

/// The stanzas the interface's addressing needs, in cloud-init's order: DHCPv4, IPv6
/// autoconfiguration, then one per static address.
fn stanzas<'a>(i: &'a Interface, out: &mut Rendered) -> Vec<Stanza<'a>> {
    let mut st = Vec::new();
    if i.dhcp4 {
        let mut s = Stanza::new(false, "dhcp", None);
        overrides(&mut s, &i.dhcp4_overrides, &i.id, "dhcp4-overrides", out);
        st.push(s);
    }
    if let Some(mode) = i.ipv6 {
        let mut s = match mode {
            Ipv6Auto::Dhcp6 | Ipv6Auto::Dhcp6Stateful => Stanza::new(true, "dhcp", None),
            Ipv6Auto::Slaac | Ipv6Auto::Dhcp6Stateless => Stanza::new(true, "auto", None),
        };
        match mode {
            Ipv6Auto::Slaac => s.opts.push("dhcp 0".into()),
            Ipv6Auto::Dhcp6Stateless => s.opts.push("dhcp 1".into()),
            _ => overrides(&mut s, &i.dhcp6_overrides, &i.id, "dhcp6-overrides", out),
        }
        st.push(s);
    }
    let (mut gw4, mut gw6) = (i.gateway4.map(IpAddr::V4), i.gateway6.map(IpAddr::V6));
    // A gateway goes with the address whose subnet holds it (ifupdown adds the route right
    // after that address: on another stanza the gateway would not be reachable yet), else
    // with its family's first address.
    let gateway_at = |gw: Option<IpAddr>| {
        let gw = gw?;
        let family = i
            .addresses
            .iter()
            .enumerate()
            .filter(|(_, a)| a.ip.is_ipv6() == gw.is_ipv6());
        let mut family = family.peekable();
        let first = family.peek().map(|(n, _)| *n);
        family.find(|(_, a)| holds(a, gw)).map(|(n, _)| n).or(first)
    };
    let at = [gateway_at(gw4), gateway_at(gw6)];
    let first_of = |six: bool| i.addresses.iter().position(|a| a.ip.is_ipv6() == six);
    let metric_at = [at[0].or(first_of(false)), at[1].or(first_of(true))];
    let (mut metric4, mut metric6) = (i.metric4, i.metric6);
    for (n, a) in i.addresses.iter().enumerate() {
        let mut s = Stanza::new(a.ip.is_ipv6(), "static", Some(a));
        s.lines.push(format!("address {}/{}", a.ip, a.prefix));
        let gw = if a.ip.is_ipv6() { &mut gw6 } else { &mut gw4 };
        if let Some(gw) = gw.take_if(|_| at.contains(&Some(n))) {
            s.lines.push(format!("gateway {gw}"));
        }
        // ifupdown's `metric` is the gateway's: with it, else on the family's first stanza.
        let metric = if a.ip.is_ipv6() {
            &mut metric6
        } else {
            &mut metric4
        };
        if let Some(m) = metric.take_if(|_| metric_at.contains(&Some(n))) {
            s.lines.push(format!("metric {m}"));
        }
        if a.label.is_some() || a.lifetime.is_some() {
            warn(
                out,
                &i.id,
                "addresses",
                "label and lifetime are not expressed in ENI",
            );
        }
        st.push(s);
    }
    if gw4.is_some() || gw6.is_some() {
        let msg = "a gateway without a static address of its family is not expressed in ENI";
        warn(out, &i.id, "gateway", msg);
    }
    if let Some(ra) = i.accept_ra {
        if let Some(s) = st.iter_mut().find(|s| s.inet6) {
            s.opts.push(format!("accept_ra {}", u8::from(ra)));
        }
    }
    if !i.rules.is_empty() {
        warn(out, &i.id, "routing-policy", "not expressed in ENI");
    }
    if i.link_local.is_some_and(|l| l.ipv4 || !l.ipv6) {
        warn(out, &i.id, "link-local", "not expressed in ENI");
    }
    st
}

/// The DHCP route metric (ifupdown's `metric`); other overrides are warnings.
fn overrides(s: &mut Stanza, o: &DhcpOverrides, id: &str, key: &str, out: &mut Rendered) {
    if let Some(m) = o.route_metric {
        s.lines.push(format!("metric {m}"));
    }
    let rest = DhcpOverrides {
        route_metric: None,
        ..o.clone()
    };
    if !rest.is_empty() {
        warn(out, id, key, "only route-metric is expressed in ENI");
    }
}

/// `dns-nameservers` and `dns-search` lines (resolvconf's options).
fn dns_lines(dns: &crate::model::Dns, id: &str, out: &mut Rendered) -> Vec<String> {
    let mut lines = Vec::new();
    if !dns.nameservers.is_empty() {
        let ns: Vec<String> = dns.nameservers.iter().map(|n| n.to_string()).collect();
        lines.push(format!("dns-nameservers {}", ns.join(" ")));
    }
    let search: Vec<&str> = dns.search.iter().filter_map(|s| word(s)).collect();
    if search.len() < dns.search.len() {
        warn(
            out,
            id,
            "search",
            "a search domain that is not a single word is left out",
        );
    }
    if !search.is_empty() {
        lines.push(format!("dns-search {}", search.join(" ")));
    }
    lines
}

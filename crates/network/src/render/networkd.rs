//! The systemd-networkd renderer: the model as files under /etc/systemd/network, named as
//! cloud-init names them (`10-cloud-init-<name>.network`), plus what cloud-init's renderer
//! leaves out: a `.netdev` per bond, bridge and vlan, and a `.link` where a device is renamed
//! (`set-name`) or woken on LAN. A physical device is matched by MAC where the config gives one,
//! by the name it is given or matched by, and by driver (and, beside bonds, bridges and vlans,
//! which take a member's MAC, by not being one); a name the config does not give is
//! never written. What networkd cannot express is a warning naming the interface and the key.
//! <https://docs.cloud-init.io/en/latest/reference/network-config.html>,
//! systemd.network(5), systemd.netdev(5), systemd.link(5).

#[path = "networkd_ini.rs"]
mod ini;
#[path = "networkd_netdev.rs"]
mod netdev;
#[path = "networkd_plan.rs"]
pub(super) mod plan;

use super::{Rendered, RenderedFile};
use crate::error::Diag;
use crate::model::{
    is_glob, Control, DhcpOverrides, Interface, Ipv6Auto, Kind, Network, Route, Rule,
};
use ini::Ini;
use netdev::{link_file, netdev_file};
use plan::{match_name, warn, Index, Master, Plan};
use std::net::IpAddr;

pub(crate) const DIR: &str = "/etc/systemd/network";
/// Every file's name starts so; then the interface's stem, then `.network`, `.netdev` or
/// `.link`.
pub(crate) const PREFIX: &str = "10-cloud-init-";
pub(crate) use ini::HEADER;

/// The files, sorted by path, and what could not be expressed.
pub fn render(net: &Network) -> Rendered {
    let mut plan = Plan::new(net);
    let mut out = Rendered::default();
    out.warnings.append(&mut plan.warnings);
    let mut dns_placed = false;
    let stems: Vec<String> = net.interfaces.iter().map(|i| stem(net, i)).collect();
    // Skipped interfaces claim no file name.
    let claims = stems
        .iter()
        .enumerate()
        .map(|(i, s)| if plan.ok[i] { s.clone() } else { String::new() });
    let claimed = Index::new(claims.collect());
    for (i, iface) in net.interfaces.iter().enumerate() {
        if !plan.ok[i] {
            continue;
        }
        let stem = &stems[i];
        if claimed.get(stem) != Some(i) {
            let msg = "another interface renders to the same files: this one is not rendered";
            out.warn(warn(&iface.id, "name", msg));
            continue;
        }
        // Global resolvers go where they can be reached: interfaces with addresses of their
        // own, not the members of a bond or bridge.
        let global_dns = iface.has_addressing() && plan.master[i].is_none();
        dns_placed |= global_dns;
        let mut ini = Ini::default();
        network(net, iface, &plan, i, global_dns, &mut ini, &mut out);
        add(&mut out, iface, stem, "network", &ini);
        if let Some(ini) = netdev_file(iface, &mut out.warnings) {
            add(&mut out, iface, stem, "netdev", &ini);
        }
        if let Some(ini) = link_file(net, iface) {
            add(&mut out, iface, stem, "link", &ini);
        }
    }
    if !net.dns.is_empty() && !dns_placed {
        let msg = "no interface has addresses to give the global nameservers to: not rendered";
        out.warn(Diag::warning(plan::UNSUPPORTED, msg).key("nameservers"));
    }
    // Sorted by path through an Index: its String sort is one the binary has already.
    let paths = Index::new(out.files.iter().map(|f| f.path.clone()).collect());
    let mut slots: Vec<Option<RenderedFile>> = out.files.iter().map(|_| None).collect();
    for f in out.files.drain(..) {
        let pos = paths.pos(&f.path);
        slots[pos] = Some(f);
    }
    out.files = slots.into_iter().flatten().collect();
    out
}

/// The name in the interface's file names: its device name when the config gives one, else
/// its id, kept a file name.
fn stem(net: &Network, iface: &Interface) -> String {
    let name = match_name(net, iface).filter(|n| !is_glob(n));
    name.unwrap_or(&iface.id)
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' | '@' | '+' | ':' => c,
            _ => '_',
        })
        .collect()
}

fn add(out: &mut Rendered, iface: &Interface, stem: &str, ext: &str, ini: &Ini) {
    for key in &ini.rejected {
        out.warn(warn(
            &iface.id,
            key,
            "the value holds a line break or a control character: left out",
        ));
    }
    out.file(format!("{DIR}/{PREFIX}{stem}.{ext}"), ini.finish(), 0o644);
}

/// A bond, a vlan and often a bridge take the MAC of a member: a MAC match alone would give
/// them the member's `.network` (or rename them by its `.link`).
pub(super) const VIRTUAL_TYPES_EXCLUDED: &str = "!bond bridge vlan";

pub(super) fn makes_virtual_devices(net: &Network) -> bool {
    net.interfaces
        .iter()
        .any(|i| !matches!(i.kind, Kind::Physical { .. }))
}

/// The `.network` file: how the device is matched and configured.
#[allow(clippy::too_many_arguments)]
fn network(
    net: &Network,
    iface: &Interface,
    plan: &Plan,
    i: usize,
    global_dns: bool,
    ini: &mut Ini,
    out: &mut Rendered,
) {
    ini.section("Match");
    match &iface.kind {
        Kind::Physical { matching, .. } => {
            ini.opt("MACAddress", matching.macaddress.as_ref())
                .opt("Name", match_name(net, iface));
            if !matching.driver.is_empty() {
                ini.key("Driver", matching.driver.join(" "));
            }
            if matching.macaddress.is_some() && makes_virtual_devices(net) {
                ini.key("Type", VIRTUAL_TYPES_EXCLUDED);
            }
            ini.section("Link")
                .opt("MACAddress", iface.mac_address.as_ref());
        }
        _ => {
            // A virtual device's MAC is set where it is made, in its .netdev.
            ini.key("Name", &iface.id).section("Link");
        }
    }
    ini.opt("MTUBytes", iface.mtu);
    // v1's `control: manual`: up only when asked for, as ifupdown's `ifup`.
    if iface.control == Some(Control::Manual) {
        ini.key("ActivationPolicy", "manual");
    }
    if iface.optional {
        ini.key("RequiredForOnline", "no");
    }

    ini.section("Network");
    let v6_dhcp = matches!(iface.ipv6, Some(Ipv6Auto::Dhcp6 | Ipv6Auto::Dhcp6Stateful));
    let dhcp = match (iface.dhcp4, v6_dhcp) {
        (true, true) => "yes",
        (true, false) => "ipv4",
        (false, true) => "ipv6",
        (false, false) => "no",
    };
    // Written when off too, as cloud-init writes it.
    ini.key("DHCP", dhcp);
    let link_local = match iface.link_local {
        Some(ll) => Some(match (ll.ipv4, ll.ipv6) {
            (true, true) => "yes",
            (true, false) => "ipv4",
            (false, true) => "ipv6",
            (false, false) => "no",
        }),
        // A member of a bond or bridge with no addressing of its own: no link-local address
        // either (networkd's default for bridge ports, netplan's for both).
        None if plan.master[i].is_some() && !iface.has_addressing() => Some("no"),
        None => None,
    };
    ini.opt("LinkLocalAddressing", link_local);
    // SLAAC and stateless DHCPv6 need router advertisements; an explicit accept-ra wins.
    let ra = matches!(iface.ipv6, Some(Ipv6Auto::Slaac | Ipv6Auto::Dhcp6Stateless));
    ini.flag("IPv6AcceptRA", iface.accept_ra.or(ra.then_some(true)));
    ini.opt("IPv6MTUBytes", iface.ipv6_mtu);
    let mut servers: Vec<IpAddr> = iface.dns.nameservers.clone();
    let mut search: Vec<&str> = Vec::new();
    let global = global_dns.then_some(&net.dns);
    for ns in global.into_iter().flat_map(|d| &d.nameservers) {
        if !servers.contains(ns) {
            servers.push(*ns);
        }
    }
    let own = iface.dns.search.iter();
    for s in own.chain(global.into_iter().flat_map(|d| &d.search)) {
        // One line holds them all, space-separated.
        if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            let msg = "a search domain with a space or a control character: left out";
            out.warn(warn(&iface.id, "nameservers.search", msg));
        } else if !search.contains(&s.as_str()) {
            search.push(s);
        }
    }
    for ns in servers {
        ini.key("DNS", ns);
    }
    if !search.is_empty() {
        ini.key("Domains", search.join(" "));
    }
    if iface.keep_configuration {
        ini.key("KeepConfiguration", "yes");
    }
    // A bond, bridge or vlan has no carrier until its members or link do (a bridge with no
    // ports never does): its addresses must not wait for one.
    if !matches!(iface.kind, Kind::Physical { .. }) {
        ini.key("ConfigureWithoutCarrier", "yes");
    }
    if let Some(m) = plan.master[i] {
        ini.key(if m.bridge { "Bridge" } else { "Bond" }, m.id);
        if m.primary {
            ini.key("PrimarySlave", "yes");
        }
    }
    for vlan in &plan.vlans[i] {
        ini.key("VLAN", vlan);
    }

    for a in &iface.addresses {
        ini.section("Address")
            .key("Address", format_args!("{}/{}", a.ip, a.prefix))
            .opt("Label", a.label.as_ref())
            .opt("PreferredLifetime", a.lifetime.as_ref());
    }
    let gateways = [
        iface.gateway4.map(|gw| (IpAddr::V4(gw), iface.metric4)),
        iface.gateway6.map(|gw| (IpAddr::V6(gw), iface.metric6)),
    ];
    for (gw, metric) in gateways.into_iter().flatten() {
        let on_link = super::gateway_on_link(iface, gw);
        ini.section("Route")
            .key("Gateway", gw)
            .opt("Metric", metric)
            .opt("GatewayOnLink", on_link.then_some("yes"));
    }
    for r in iface.routes.iter().chain(plan.routes[i].iter().copied()) {
        route(ini, r);
    }
    for r in &iface.rules {
        rule(ini, r);
    }
    dhcp_overrides(iface, ini, out);
    if let Some(m) = plan.master[i].filter(|m| m.bridge) {
        port(iface, m, ini, out);
    }
}

fn route(ini: &mut Ini, r: &Route) {
    ini.section("Route")
        .key("Destination", r.to)
        .opt("Gateway", r.via)
        .opt("PreferredSource", r.from)
        .opt("Metric", r.metric)
        .opt("Table", r.table)
        .opt("GatewayOnLink", r.on_link.then_some("yes"))
        .opt("Scope", r.scope.as_ref())
        .opt("Type", r.kind.as_ref())
        .opt("MTUBytes", r.mtu);
}

fn rule(ini: &mut Ini, r: &Rule) {
    ini.section("RoutingPolicyRule")
        .opt("From", r.from)
        .opt("To", r.to)
        .opt("Table", r.table)
        .opt("Priority", r.priority)
        .opt("FirewallMark", r.mark)
        .opt("TypeOfService", r.type_of_service);
}

/// netplan's `dhcp4-overrides` and `dhcp6-overrides`, where the DHCP client they tune runs.
/// IPv6 routes and MTU come from router advertisements, so their overrides go there.
fn dhcp_overrides(iface: &Interface, ini: &mut Ini, out: &mut Rendered) {
    if iface.dhcp4 {
        let o = &iface.dhcp4_overrides;
        ini.section("DHCPv4");
        common_overrides(ini, o);
        ini.flag("UseMTU", o.use_mtu)
            .flag("UseRoutes", o.use_routes)
            .flag("SendHostname", o.send_hostname)
            .opt("Hostname", o.hostname.as_ref())
            .opt("RouteMetric", o.route_metric);
    }
    let Some(mode) = iface.ipv6 else {
        return;
    };
    let o = &iface.dhcp6_overrides;
    if mode != Ipv6Auto::Slaac {
        ini.section("DHCPv6");
        common_overrides(ini, o);
    }
    let slaac = mode == Ipv6Auto::Slaac;
    ini.section("IPv6AcceptRA");
    if slaac {
        // Addresses from advertisements only: no DHCPv6, whatever their flags say.
        ini.key("DHCPv6Client", "no")
            .flag("UseDNS", o.use_dns)
            .opt("UseDomains", o.use_domains.as_deref().map(domains));
    }
    ini.opt("RouteMetric", o.route_metric)
        .flag("UseMTU", o.use_mtu);
    // netplan wants the same overrides for both families when both are on: one that DHCPv4
    // applies already is no loss.
    let o4 = iface.dhcp4.then_some(&iface.dhcp4_overrides);
    let unsupported = [
        (
            "use-routes",
            o.use_routes.is_some() && o.use_routes != o4.and_then(|o| o.use_routes),
        ),
        (
            "send-hostname",
            o.send_hostname.is_some() && o.send_hostname != o4.and_then(|o| o.send_hostname),
        ),
        (
            "hostname",
            o.hostname.is_some() && o.hostname != o4.and_then(|o| o.hostname.clone()),
        ),
        ("use-ntp", slaac && o.use_ntp.is_some()),
        ("use-hostname", slaac && o.use_hostname.is_some()),
    ];
    for (key, lost) in unsupported {
        if lost {
            let msg = "networkd has no such setting for IPv6: not rendered";
            out.warn(warn(&iface.id, &format!("dhcp6-overrides.{key}"), msg));
        }
    }
}

fn common_overrides(ini: &mut Ini, o: &DhcpOverrides) {
    ini.flag("UseDNS", o.use_dns)
        .flag("UseNTP", o.use_ntp)
        .flag("UseHostname", o.use_hostname)
        .opt("UseDomains", o.use_domains.as_deref().map(domains));
}

/// netplan's `use-domains` (`true`, `false`, `route`) as networkd spells it.
fn domains(v: &str) -> &str {
    match v {
        "true" => "yes",
        "false" => "no",
        other => other,
    }
}

/// A bridge port's cost and priority (`[Bridge]` of its .network).
fn port(iface: &Interface, m: Master, ini: &mut Ini, out: &mut Rendered) {
    ini.section("Bridge");
    match m.path_cost {
        Some(c @ 1..=65535) => {
            ini.key("Cost", c);
        }
        Some(_) => out.warn(warn(
            m.id,
            &format!("parameters.path-cost.{}", iface.id),
            "networkd takes a path cost of 1 to 65535: not rendered",
        )),
        None => {}
    }
    ini.opt("Priority", m.port_priority);
}

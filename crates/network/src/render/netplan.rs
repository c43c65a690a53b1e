//! The netplan renderer: /etc/netplan/50-cloud-init.yaml, mode 0600. A config that came as v2
//! is written through as given under `network:`, as cloud-init does, so keys the model does not
//! hold (wifis, tunnels, unknown keys) reach netplan. Any other model (v1, OpenStack, the
//! kernel command line) is converted to v2 as cloud-init's netplan renderer converts v1:
//! `ethernets` matched by MAC with `set-name`, then `bonds`, `bridges`, `vlans`, each device's
//! keys sorted. Unlike cloud-init, the conversion keeps what the model holds beyond addresses,
//! routes and DNS (DHCP overrides, link-local, Wake-on-LAN, routing policy, global routes), and
//! gives the global resolvers to every device with addresses, as the networkd renderer does.
//! <https://docs.cloud-init.io/en/latest/reference/network-config-format-v2.html>,
//! <https://netplan.readthedocs.io/en/stable/netplan-yaml/>

#[path = "netplan_values.rs"]
mod values;

use super::networkd::plan::{warn, Plan};
use super::Rendered;
use crate::error::Diag;
use crate::model::{
    Control, DhcpOverrides, Dns, Format, Interface, Ipv6Auto, Kind, Network, Route,
};
use crate::yaml_emit::block;
use serde_json::{Map, Value};
use std::net::IpAddr;
use values::{bond_params, boolean, bridge_params, flag, num, object, set, text, texts};

type Obj = Map<String, Value>;

pub(crate) const PATH: &str = "/etc/netplan/50-cloud-init.yaml";

pub(crate) const HEADER: &str = "\
# Written by ember from the instance's network configuration; ember may write it
# again. To keep local changes, disable its network configuration with
# `network: {config: disabled}` in /etc/cloud/cloud.cfg.d/.
";

/// The one file, and what the conversion could not carry.
pub fn render(net: &Network) -> Rendered {
    let mut out = Rendered::default();
    let body = match &net.netplan {
        Some(v2) => passthrough(v2),
        None => convert(net, &mut out.warnings),
    };
    out.file(PATH, format!("{HEADER}{body}"), 0o600);
    out
}

/// Whether vlans must come before bridges for no device to refer to one further down: a
/// bridge has a vlan port and no vlan sits on a bridge (then either order has one).
fn vlans_first(vlans: &[String], bridges: &[String], ports: &[String], links: &[String]) -> bool {
    ports.iter().any(|p| vlans.contains(p)) && !links.iter().any(|l| bridges.contains(l))
}

const FIRST_VLANS_BEFORE_BRIDGES: [&str; 8] = [
    "version",
    "renderer",
    "ethernets",
    "modems",
    "wifis",
    "bonds",
    "vlans",
    "bridges",
];

/// The v2 input under `network:`, values as given. The top-level keys go in the order the
/// devices refer to one another (members before bonds and bridges), the rest sorted: netplan
/// (0.106) reads a file again when a device refers to one defined further down, and then
/// refuses a bridge's `path-cost` as given twice.
fn passthrough(v2: &Value) -> String {
    const FIRST: [&str; 8] = [
        "version",
        "renderer",
        "ethernets",
        "modems",
        "wifis",
        "bonds",
        "bridges",
        "vlans",
    ];
    let mut top = Obj::new();
    let Value::Object(map) = v2 else {
        top.insert("network".into(), v2.clone());
        return block(&Value::Object(top), 0);
    };
    let mut out = String::from("network:\n");
    let keys = |section: &str| -> Vec<String> {
        let devices = map.get(section).and_then(Value::as_object);
        devices.map_or(Vec::new(), |d| d.keys().cloned().collect())
    };
    let ports = |section: &str, key: &str| -> Vec<String> {
        let devices = map
            .get(section)
            .and_then(Value::as_object)
            .into_iter()
            .flatten();
        let refs = devices.filter_map(move |(_, d)| d.get(key));
        refs.flat_map(|r| match r {
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            Value::String(s) => vec![s.clone()],
            _ => Vec::new(),
        })
        .collect()
    };
    let order = if vlans_first(
        &keys("vlans"),
        &keys("bridges"),
        &ports("bridges", "interfaces"),
        &ports("vlans", "link"),
    ) {
        FIRST_VLANS_BEFORE_BRIDGES
    } else {
        FIRST
    };
    let first = order.iter().filter_map(|k| map.get_key_value(*k));
    let rest = map.iter().filter(|(k, _)| !FIRST.contains(&k.as_str()));
    for (k, v) in first.chain(rest) {
        out.push_str(&one(k, v.clone()));
    }
    out
}

fn convert(net: &Network, warnings: &mut Vec<Diag>) -> String {
    let mut plan = Plan::new(net);
    warnings.append(&mut plan.warnings);
    let mut sections: [(&str, Obj); 4] = [
        ("ethernets", Obj::new()),
        ("bonds", Obj::new()),
        ("bridges", Obj::new()),
        ("vlans", Obj::new()),
    ];
    let mut dns_placed = false;
    for (i, iface) in net.interfaces.iter().enumerate() {
        if !plan.ok[i] {
            continue;
        }
        let mut dev = Obj::new();
        let d = &mut dev;
        let section = match &iface.kind {
            Kind::Physical { matching, set_name } => {
                let mut m = Obj::new();
                text(&mut m, "macaddress", matching.macaddress.as_deref());
                // OpenStack's names are the initramfs's: with a MAC, they are left out.
                let openstack = net.format == Format::OpenStack && matching.macaddress.is_some();
                text(
                    &mut m,
                    "name",
                    matching.name.as_deref().filter(|_| !openstack),
                );
                match matching.driver.as_slice() {
                    [] => {}
                    [one] => text(&mut m, "driver", Some(one)),
                    many => set(&mut m, "driver", texts(many.iter())),
                }
                if !m.is_empty() {
                    set(d, "match", Value::Object(m));
                }
                text(d, "set-name", set_name.as_deref());
                flag(d, "wakeonlan", iface.wakeonlan);
                0
            }
            Kind::Bond { members, params } => {
                set(d, "interfaces", sorted(members));
                object(d, "parameters", bond_params(params));
                1
            }
            Kind::Bridge { members, params } => {
                for key in params.ifupdown_only() {
                    warnings.push(warn(&iface.id, key, super::IFUPDOWN_ONLY));
                }
                set(d, "interfaces", sorted(members));
                object(d, "parameters", bridge_params(params));
                2
            }
            Kind::Vlan { id, link } => {
                num(d, "id", Some(u32::from(*id)));
                text(d, "link", Some(link));
                3
            }
        };
        if iface.wakeonlan && section != 0 {
            let msg = "Wake-on-LAN is for physical devices: not rendered";
            warnings.push(warn(&iface.id, "wakeonlan", msg));
        }
        // As in networkd's files: the global resolvers go to every device with addresses of
        // its own that is not a member of a bond or bridge, after its own resolvers.
        let global = iface.has_addressing() && plan.master[i].is_none();
        dns_placed |= global;
        let mut dns = iface.dns.clone();
        if global {
            extend(&mut dns, &net.dns);
        }
        common(iface, &dns, &plan.routes[i], d);
        set(&mut sections[section].1, &iface.id, Value::Object(dev));
    }
    if !net.dns.is_empty() && !dns_placed {
        let msg = "no interface has addresses to give the global nameservers to: not rendered";
        warnings.push(Diag::warning(super::networkd::plan::UNSUPPORTED, msg).key("nameservers"));
    }
    // `version` first, then the sections in cloud-init's order.
    let mut out = String::from("network:\n    version: 2\n");
    let ids = |n: usize| -> Vec<String> { sections[n].1.keys().cloned().collect() };
    let mut ports = Vec::new();
    let mut links = Vec::new();
    for iface in &net.interfaces {
        match &iface.kind {
            Kind::Bridge { members, .. } => ports.extend(members.iter().cloned()),
            Kind::Vlan { link, .. } => links.push(link.clone()),
            _ => {}
        }
    }
    if vlans_first(&ids(3), &ids(2), &ports, &links) {
        sections.swap(2, 3);
    }
    for (name, devices) in sections {
        if !devices.is_empty() {
            out.push_str(&one(name, Value::Object(devices)));
        }
    }
    out
}

/// `key: value` one level under `network:`.
fn one(key: &str, v: Value) -> String {
    let mut m = Obj::new();
    set(&mut m, key, v);
    block(&Value::Object(m), 4)
}

fn sorted(ids: &[String]) -> Value {
    let mut ids = ids.to_vec();
    ember_core::sort::sort(&mut ids);
    texts(ids.iter())
}

/// The keys every device type has.
fn common(iface: &Interface, dns: &Dns, global_routes: &[&Route], d: &mut Obj) {
    if iface.dhcp4 {
        flag(d, "dhcp4", true);
        object(d, "dhcp4-overrides", overrides(&iface.dhcp4_overrides));
    }
    match iface.ipv6 {
        // Addresses from router advertisements only: RAs without DHCPv6.
        Some(Ipv6Auto::Slaac) => flag(d, "accept-ra", true),
        Some(_) => {
            flag(d, "dhcp6", true);
            object(d, "dhcp6-overrides", overrides(&iface.dhcp6_overrides));
        }
        None => {}
    }
    boolean(d, "accept-ra", iface.accept_ra);
    if let Some(ll) = iface.link_local {
        let on = [("ipv4", ll.ipv4), ("ipv6", ll.ipv6)];
        set(
            d,
            "link-local",
            texts(on.iter().filter(|x| x.1).map(|x| x.0)),
        );
    }
    if !iface.addresses.is_empty() {
        let addrs = iface.addresses.iter().map(|a| {
            let cidr = format!("{}/{}", a.ip, a.prefix);
            let mut opts = Obj::new();
            text(&mut opts, "label", a.label.as_deref());
            text(&mut opts, "lifetime", a.lifetime.as_deref());
            if opts.is_empty() {
                return Value::String(cidr);
            }
            let mut one = Obj::new();
            set(&mut one, &cidr, Value::Object(opts));
            Value::Object(one)
        });
        set(d, "addresses", Value::Array(addrs.collect()));
    }
    // Default gateways as default routes: netplan deprecates gateway4 and gateway6.
    let gateways = [
        iface.gateway4.map(|gw| (IpAddr::V4(gw), iface.metric4)),
        iface.gateway6.map(|gw| (IpAddr::V6(gw), iface.metric6)),
    ];
    let mut routes: Vec<Value> = gateways
        .into_iter()
        .flatten()
        .map(|(via, metric)| {
            let mut m = Obj::new();
            text(&mut m, "to", Some("default"));
            text(&mut m, "via", Some(&via.to_string()));
            flag(&mut m, "on-link", super::gateway_on_link(iface, via));
            num(&mut m, "metric", metric);
            Value::Object(m)
        })
        .collect();
    routes.extend(
        iface
            .routes
            .iter()
            .chain(global_routes.iter().copied())
            .map(route),
    );
    if !routes.is_empty() {
        set(d, "routes", Value::Array(routes));
    }
    if !iface.rules.is_empty() {
        let rules = iface.rules.iter().map(|r| {
            let mut m = Obj::new();
            text(&mut m, "from", r.from.map(|c| c.to_string()).as_deref());
            text(&mut m, "to", r.to.map(|c| c.to_string()).as_deref());
            num(&mut m, "table", r.table);
            num(&mut m, "priority", r.priority);
            num(&mut m, "mark", r.mark);
            num(&mut m, "type-of-service", r.type_of_service.map(u32::from));
            Value::Object(m)
        });
        set(d, "routing-policy", Value::Array(rules.collect()));
    }
    if !dns.is_empty() {
        let mut m = Obj::new();
        if !dns.nameservers.is_empty() {
            set(&mut m, "addresses", texts(dns.nameservers.iter()));
        }
        if !dns.search.is_empty() {
            set(&mut m, "search", texts(dns.search.iter()));
        }
        set(d, "nameservers", Value::Object(m));
    }
    text(d, "macaddress", iface.mac_address.as_deref());
    num(d, "mtu", iface.mtu);
    num(d, "ipv6-mtu", iface.ipv6_mtu);
    flag(d, "optional", iface.optional);
    flag(d, "critical", iface.keep_configuration);
    // v1's `control: manual`: up only when asked for, as ifupdown's `ifup`.
    if iface.control == Some(Control::Manual) {
        text(d, "activation-mode", Some("manual"));
    }
}

fn route(r: &Route) -> Value {
    let mut m = Obj::new();
    let to = if r.to.is_default() && r.via.is_some() {
        "default".to_string()
    } else {
        r.to.to_string()
    };
    text(&mut m, "to", Some(&to));
    text(&mut m, "via", r.via.map(|v| v.to_string()).as_deref());
    text(&mut m, "from", r.from.map(|v| v.to_string()).as_deref());
    num(&mut m, "metric", r.metric);
    num(&mut m, "table", r.table);
    flag(&mut m, "on-link", r.on_link);
    text(&mut m, "scope", r.scope.as_deref());
    text(&mut m, "type", r.kind.as_deref());
    num(&mut m, "mtu", r.mtu);
    Value::Object(m)
}

/// `into`, then what `more` adds.
fn extend(into: &mut Dns, more: &Dns) {
    for ns in &more.nameservers {
        if !into.nameservers.contains(ns) {
            into.nameservers.push(*ns);
        }
    }
    for s in &more.search {
        if !into.search.contains(s) {
            into.search.push(s.clone());
        }
    }
}

fn overrides(o: &DhcpOverrides) -> Obj {
    let mut m = Obj::new();
    boolean(&mut m, "use-dns", o.use_dns);
    boolean(&mut m, "use-ntp", o.use_ntp);
    boolean(&mut m, "use-hostname", o.use_hostname);
    boolean(&mut m, "use-mtu", o.use_mtu);
    boolean(&mut m, "use-routes", o.use_routes);
    boolean(&mut m, "send-hostname", o.send_hostname);
    text(&mut m, "hostname", o.hostname.as_deref());
    num(&mut m, "route-metric", o.route_metric);
    match o.use_domains.as_deref() {
        Some("true") => boolean(&mut m, "use-domains", Some(true)),
        Some("false") => boolean(&mut m, "use-domains", Some(false)),
        other => text(&mut m, "use-domains", other),
    }
    m
}

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

use super::networkd::plan::{warn, Plan};
use super::Rendered;
use crate::error::Diag;
use crate::network::model::{
    BondParams, BridgeParams, DhcpOverrides, Dns, Format, Interface, Ipv6Auto, Kind, Network, Route,
};
use crate::yaml::emit::block;
use serde_json::{json, Map, Value};

const PATH: &str = "/etc/netplan/50-cloud-init.yaml";

const HEADER: &str = "\
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
    let Value::Object(map) = v2 else {
        return block(&json!({ "network": v2 }), 0);
    };
    let mut out = String::from("network:\n");
    let first = FIRST.iter().filter_map(|k| map.get_key_value(*k));
    let rest = map.iter().filter(|(k, _)| !FIRST.contains(&k.as_str()));
    for (k, v) in first.chain(rest) {
        out.push_str(&block(&json!({ k: v }), 4));
    }
    out
}

fn convert(net: &Network, warnings: &mut Vec<Diag>) -> String {
    let mut plan = Plan::new(net);
    warnings.append(&mut plan.warnings);
    let mut sections: [(&str, Map<String, Value>); 4] = [
        ("ethernets", Map::new()),
        ("bonds", Map::new()),
        ("bridges", Map::new()),
        ("vlans", Map::new()),
    ];
    let mut dns_placed = false;
    for (i, iface) in net.interfaces.iter().enumerate() {
        if !plan.ok[i] {
            continue;
        }
        let mut dev = Map::new();
        let section = match &iface.kind {
            Kind::Physical { matching, set_name } => {
                let mut m = Map::new();
                if let Some(mac) = &matching.macaddress {
                    m.insert("macaddress".into(), json!(mac));
                }
                // OpenStack's names are the initramfs's: with a MAC, they are left out.
                let openstack_name =
                    net.format == Format::OpenStack && matching.macaddress.is_some();
                if let Some(name) = matching.name.as_ref().filter(|_| !openstack_name) {
                    m.insert("name".into(), json!(name));
                }
                match matching.driver.as_slice() {
                    [] => {}
                    [one] => {
                        m.insert("driver".into(), json!(one));
                    }
                    many => {
                        m.insert("driver".into(), json!(many));
                    }
                }
                if !m.is_empty() {
                    dev.insert("match".into(), Value::Object(m));
                }
                if let Some(name) = set_name {
                    dev.insert("set-name".into(), json!(name));
                }
                if iface.wakeonlan {
                    dev.insert("wakeonlan".into(), json!(true));
                }
                0
            }
            Kind::Bond { members, params } => {
                dev.insert("interfaces".into(), sorted(members));
                let p = bond_params(params);
                if !p.is_empty() {
                    dev.insert("parameters".into(), Value::Object(p));
                }
                1
            }
            Kind::Bridge { members, params } => {
                dev.insert("interfaces".into(), sorted(members));
                let p = bridge_params(params);
                if !p.is_empty() {
                    dev.insert("parameters".into(), Value::Object(p));
                }
                2
            }
            Kind::Vlan { id, link } => {
                dev.insert("id".into(), json!(id));
                dev.insert("link".into(), json!(link));
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
        common(iface, &dns, &plan.routes[i], &mut dev);
        sections[section]
            .1
            .insert(iface.id.clone(), Value::Object(dev));
    }
    if !net.dns.is_empty() && !dns_placed {
        let msg = "no interface has addresses to give the global nameservers to: not rendered";
        warnings.push(Diag::warning(super::networkd::plan::UNSUPPORTED, msg).key("nameservers"));
    }
    // `version` first, then the sections in cloud-init's order.
    let mut out = String::from("network:\n    version: 2\n");
    for (name, devices) in sections {
        if !devices.is_empty() {
            out.push_str(&block(&json!({ name: devices }), 4));
        }
    }
    out
}

fn sorted(ids: &[String]) -> Value {
    let mut ids = ids.to_vec();
    ids.sort();
    json!(ids)
}

/// The keys every device type has.
fn common(iface: &Interface, dns: &Dns, global_routes: &[&Route], dev: &mut Map<String, Value>) {
    let mut set = |k: &str, v: Value| {
        dev.insert(k.to_string(), v);
    };
    if iface.dhcp4 {
        set("dhcp4", json!(true));
        if !iface.dhcp4_overrides.is_empty() {
            set("dhcp4-overrides", overrides(&iface.dhcp4_overrides));
        }
    }
    match iface.ipv6 {
        // Addresses from router advertisements only: RAs without DHCPv6.
        Some(Ipv6Auto::Slaac) => set("accept-ra", json!(true)),
        Some(_) => {
            set("dhcp6", json!(true));
            if !iface.dhcp6_overrides.is_empty() {
                set("dhcp6-overrides", overrides(&iface.dhcp6_overrides));
            }
        }
        None => {}
    }
    if let Some(ra) = iface.accept_ra {
        set("accept-ra", json!(ra));
    }
    if let Some(ll) = iface.link_local {
        let mut v = Vec::new();
        if ll.ipv4 {
            v.push("ipv4");
        }
        if ll.ipv6 {
            v.push("ipv6");
        }
        set("link-local", json!(v));
    }
    if !iface.addresses.is_empty() {
        let addrs = iface.addresses.iter().map(|a| {
            let cidr = format!("{}/{}", a.ip, a.prefix);
            let mut opts = Map::new();
            if let Some(l) = &a.label {
                opts.insert("label".into(), json!(l));
            }
            if let Some(l) = &a.lifetime {
                opts.insert("lifetime".into(), json!(l));
            }
            if opts.is_empty() {
                json!(cidr)
            } else {
                json!({ cidr: opts })
            }
        });
        set("addresses", Value::Array(addrs.collect()));
    }
    // Default gateways as default routes: netplan deprecates gateway4 and gateway6.
    let mut routes: Vec<Value> = [
        iface.gateway4.map(|g| g.to_string()),
        iface.gateway6.map(|g| g.to_string()),
    ]
    .into_iter()
    .flatten()
    .map(|via| json!({"to": "default", "via": via}))
    .collect();
    routes.extend(
        iface
            .routes
            .iter()
            .chain(global_routes.iter().copied())
            .map(route),
    );
    if !routes.is_empty() {
        set("routes", Value::Array(routes));
    }
    if !iface.rules.is_empty() {
        let rules = iface.rules.iter().map(|r| {
            let mut m = Map::new();
            put(&mut m, "from", r.from.map(|c| c.to_string()));
            put(&mut m, "to", r.to.map(|c| c.to_string()));
            put(&mut m, "table", r.table);
            put(&mut m, "priority", r.priority);
            put(&mut m, "mark", r.mark);
            put(&mut m, "type-of-service", r.type_of_service);
            Value::Object(m)
        });
        set("routing-policy", Value::Array(rules.collect()));
    }
    if !dns.is_empty() {
        set("nameservers", nameservers(dns));
    }
    if let Some(mac) = &iface.mac_address {
        set("macaddress", json!(mac));
    }
    if let Some(mtu) = iface.mtu {
        set("mtu", json!(mtu));
    }
    if iface.optional {
        set("optional", json!(true));
    }
    if iface.keep_configuration {
        set("critical", json!(true));
    }
}

fn put(m: &mut Map<String, Value>, key: &str, v: Option<impl Into<Value>>) {
    if let Some(v) = v {
        m.insert(key.to_string(), v.into());
    }
}

fn route(r: &Route) -> Value {
    let mut m = Map::new();
    let to = if r.to.is_default() && r.via.is_some() {
        "default".to_string()
    } else {
        r.to.to_string()
    };
    m.insert("to".into(), json!(to));
    put(&mut m, "via", r.via.map(|v| v.to_string()));
    put(&mut m, "from", r.from.map(|v| v.to_string()));
    put(&mut m, "metric", r.metric);
    put(&mut m, "table", r.table);
    if r.on_link {
        m.insert("on-link".into(), json!(true));
    }
    put(&mut m, "scope", r.scope.clone());
    put(&mut m, "type", r.kind.clone());
    put(&mut m, "mtu", r.mtu);
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

fn nameservers(dns: &Dns) -> Value {
    let mut m = Map::new();
    if !dns.nameservers.is_empty() {
        let a: Vec<String> = dns.nameservers.iter().map(|n| n.to_string()).collect();
        m.insert("addresses".into(), json!(a));
    }
    if !dns.search.is_empty() {
        m.insert("search".into(), json!(dns.search));
    }
    Value::Object(m)
}

fn overrides(o: &DhcpOverrides) -> Value {
    let mut m = Map::new();
    put(&mut m, "use-dns", o.use_dns);
    put(&mut m, "use-ntp", o.use_ntp);
    put(&mut m, "use-hostname", o.use_hostname);
    put(&mut m, "use-mtu", o.use_mtu);
    put(&mut m, "use-routes", o.use_routes);
    put(&mut m, "send-hostname", o.send_hostname);
    put(&mut m, "hostname", o.hostname.clone());
    put(&mut m, "route-metric", o.route_metric);
    if let Some(d) = o.use_domains.as_deref() {
        let v = match d {
            "true" => json!(true),
            "false" => json!(false),
            other => json!(other),
        };
        m.insert("use-domains".into(), v);
    }
    Value::Object(m)
}

/// A duration netplan reads as seconds when bare: whole seconds bare, else with `ms`.
fn seconds(ms: u32) -> Value {
    if ms % 1000 == 0 {
        json!(ms / 1000)
    } else {
        json!(format!("{ms}ms"))
    }
}

/// Bond parameters by netplan's names; the intervals netplan reads as milliseconds when bare
/// are bare. The older spellings (`all-slaves-active`, `packets-per-slave`) are the ones every
/// netplan release reads.
fn bond_params(b: &BondParams) -> Map<String, Value> {
    let mut m = Map::new();
    put(&mut m, "mode", b.mode.clone());
    put(&mut m, "lacp-rate", b.lacp_rate.clone());
    put(&mut m, "mii-monitor-interval", b.mii_monitor_interval_ms);
    put(&mut m, "min-links", b.min_links);
    put(
        &mut m,
        "transmit-hash-policy",
        b.transmit_hash_policy.clone(),
    );
    put(&mut m, "ad-select", b.ad_select.clone());
    put(&mut m, "all-slaves-active", b.all_members_active);
    put(&mut m, "arp-interval", b.arp_interval_ms);
    if !b.arp_ip_targets.is_empty() {
        let t: Vec<String> = b.arp_ip_targets.iter().map(|t| t.to_string()).collect();
        m.insert("arp-ip-targets".into(), json!(t));
    }
    put(&mut m, "arp-validate", b.arp_validate.clone());
    put(&mut m, "arp-all-targets", b.arp_all_targets.clone());
    put(&mut m, "up-delay", b.up_delay_ms);
    put(&mut m, "down-delay", b.down_delay_ms);
    put(
        &mut m,
        "fail-over-mac-policy",
        b.fail_over_mac_policy.clone(),
    );
    put(&mut m, "gratuitous-arp", b.gratuitous_arp);
    put(&mut m, "packets-per-slave", b.packets_per_member);
    put(
        &mut m,
        "primary-reselect-policy",
        b.primary_reselect_policy.clone(),
    );
    put(&mut m, "resend-igmp", b.resend_igmp);
    put(
        &mut m,
        "learn-packet-interval",
        b.learn_packet_interval_ms.map(seconds),
    );
    put(&mut m, "primary", b.primary.clone());
    m
}

fn bridge_params(b: &BridgeParams) -> Map<String, Value> {
    let mut m = Map::new();
    put(&mut m, "ageing-time", b.ageing_time_ms.map(seconds));
    put(&mut m, "priority", b.priority);
    put(&mut m, "forward-delay", b.forward_delay_ms.map(seconds));
    put(&mut m, "hello-time", b.hello_time_ms.map(seconds));
    put(&mut m, "max-age", b.max_age_ms.map(seconds));
    put(&mut m, "stp", b.stp);
    if !b.path_cost.is_empty() {
        m.insert("path-cost".into(), json!(b.path_cost));
    }
    if !b.port_priority.is_empty() {
        m.insert("port-priority".into(), json!(b.port_priority));
    }
    m
}

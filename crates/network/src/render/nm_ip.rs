//! The `[ipv4]` and `[ipv6]` sections of a keyfile: methods, addresses, gateways, routes
//! and their options, routing rules, resolvers and DHCP overrides.

use super::keyfile::Keyfile;
use crate::model::{Address, DhcpOverrides, Interface, Ipv6Auto, Kind, Network, Route, Rule};
use crate::render::eni::util::{warn, word};
use crate::render::Rendered;

/// The `[ipv4]` and `[ipv6]` sections.
pub(super) fn ip(
    kf: &mut Keyfile,
    net: &Network,
    i: &Interface,
    global: &[&Route],
    out: &mut Rendered,
) {
    let v4: Vec<&Address> = i.addresses.iter().filter(|a| a.ip.is_ipv4()).collect();
    let v6: Vec<&Address> = i.addresses.iter().filter(|a| a.ip.is_ipv6()).collect();
    let ll = i.link_local;
    let m4 = if i.dhcp4 {
        "auto"
    } else if !v4.is_empty() {
        "manual"
    } else if ll.is_some_and(|l| l.ipv4) {
        "link-local"
    } else {
        "disabled"
    };
    // `None`: no method, NetworkManager's default (auto), as cloud-init leaves it; written
    // only when the section has other keys (below).
    let m6 = match i.ipv6 {
        Some(Ipv6Auto::Dhcp6Stateful) => Some("dhcp"),
        Some(Ipv6Auto::Dhcp6) if i.accept_ra == Some(false) => Some("dhcp"),
        Some(_) => Some("auto"),
        None if !v6.is_empty() => Some(if i.accept_ra == Some(true) {
            "auto"
        } else {
            "manual"
        }),
        None => match ll {
            Some(l) if !l.ipv6 => Some("disabled"),
            _ if i.has_addressing() => None,
            Some(_) => Some("link-local"),
            // cloud-init disables both families on a bond without subnets: it is usually
            // the link of vlans that hold the addresses, and wants none of its own.
            None if matches!(i.kind, Kind::Bond { .. }) => Some("disabled"),
            None => Some("ignore"),
        },
    };
    // One family failing does not fail the connection when both are automatic (as cloud-init
    // 23.x has it) or the interface is optional.
    let both_auto = m4 == "auto" && matches!(m6, Some("auto" | "dhcp"));
    let may_fail = i.optional || both_auto;
    let dns = if i.dns.is_empty() && i.has_addressing() {
        &net.dns
    } else {
        &i.dns
    };
    let routes: Vec<&Route> = i.routes.iter().chain(global.iter().copied()).collect();
    let families = [
        (
            "ipv4",
            Some(m4),
            v4,
            i.gateway4.map(Into::into),
            i.metric4,
            &i.dhcp4_overrides,
            i.dhcp4,
        ),
        (
            "ipv6",
            m6,
            v6,
            i.gateway6.map(Into::into),
            i.metric6,
            &i.dhcp6_overrides,
            i.ipv6.is_some(),
        ),
    ];
    for (sec, method, addrs, gw, metric, overrides, dhcp) in families {
        let six = sec == "ipv6";
        let usable = !matches!(method, Some("disabled" | "ignore"));
        if let Some(m) = method {
            kf.set(sec, "method", m);
            if matches!(m, "auto" | "dhcp" | "manual") {
                kf.set(sec, "may-fail", may_fail);
            }
        }
        if let Some(mtu) = i.ipv6_mtu.filter(|_| six) {
            // libnm's ipv6.mtu (NetworkManager 1.40 and later).
            if usable && method.is_some() {
                kf.set(sec, "mtu", mtu);
            } else {
                warn(out, &i.id, "ipv6-mtu", "needs IPv6 addressing in a keyfile");
            }
        }
        for (n, a) in addrs.iter().enumerate() {
            kf.set(
                sec,
                format!("address{}", n + 1),
                format!("{}/{}", a.ip, a.prefix),
            );
            if a.label.is_some() || a.lifetime.is_some() {
                warn(
                    out,
                    &i.id,
                    "addresses",
                    "label and lifetime are not expressed in a keyfile",
                );
            }
        }
        if let Some(gw) = gw {
            if addrs.is_empty() {
                let msg = "a gateway needs a static address of its family in a keyfile";
                warn(out, &i.id, "gateway", msg);
            } else {
                kf.set(sec, "gateway", std::net::IpAddr::to_string(&gw));
            }
        }
        let mine = routes.iter().filter(|r| r.to.ip.is_ipv6() == six);
        let mut n = 0;
        for r in mine {
            if !usable {
                warn(
                    out,
                    &i.id,
                    "routes",
                    "a route of a disabled family; left out",
                );
            } else if let Some((value, opts)) = route(r, &i.id, out) {
                n += 1;
                kf.set(sec, format!("route{n}"), value);
                if !opts.is_empty() {
                    kf.set(sec, format!("route{n}_options"), opts);
                }
            }
        }
        let rules = i.rules.iter().filter(|r| rule_is_v6(r) == six);
        let mut n = 0;
        for r in rules {
            if let Some(text) = rule(r, &i.id, out) {
                n += 1;
                kf.set(sec, format!("routing-rule{n}"), text);
            }
        }
        let ns: Vec<String> = dns
            .nameservers
            .iter()
            .filter(|a| a.is_ipv6() == six)
            .map(|a| format!("{a};"))
            .collect();
        if !ns.is_empty() && usable {
            kf.set(sec, "dns", ns.concat());
        } else if !ns.is_empty() {
            warn(
                out,
                &i.id,
                "nameservers",
                "a resolver of a disabled family; left out",
            );
        }
        // Search domains with IPv4, or with IPv6 when IPv4 is off.
        if !dns.search.is_empty()
            && (if six {
                m4 == "disabled" && usable
            } else {
                usable
            })
        {
            let search: Vec<String> = dns
                .search
                .iter()
                .filter_map(|s| word(s))
                .map(|s| format!("{s};"))
                .collect();
            if search.len() < dns.search.len() {
                warn(
                    out,
                    &i.id,
                    "search",
                    "a search domain that is not one word is left out",
                );
            }
            if !search.is_empty() {
                kf.set(sec, "dns-search", search.concat());
            }
        }
        // A static subnet's metric is the family's (a DHCP override's, set below, wins).
        let dhcp_metric = dhcp && overrides.route_metric.is_some();
        if let Some(m) = metric.filter(|_| usable && !dhcp_metric) {
            kf.set(sec, "route-metric", m);
        }
        if dhcp {
            let key = if six {
                "dhcp6-overrides"
            } else {
                "dhcp4-overrides"
            };
            dhcp_overrides(kf, sec, overrides, &i.id, key, out);
        }
    }
    // Resolvers, routes or rules of IPv6 on an interface that sets no IPv6 addressing: libnm
    // refuses a section without a method, so it gets the one NetworkManager gives a profile
    // without the section (automatic, and may fail).
    if m6.is_none() && kf.has("ipv6") {
        kf.set_first("ipv6", &[("method", "auto"), ("may-fail", "true")]);
    }
}

fn dhcp_overrides(
    kf: &mut Keyfile,
    sec: &'static str,
    o: &DhcpOverrides,
    id: &str,
    key: &str,
    out: &mut Rendered,
) {
    if o.use_dns == Some(false) {
        kf.set(sec, "ignore-auto-dns", true);
    }
    if o.use_routes == Some(false) {
        kf.set(sec, "ignore-auto-routes", true);
    }
    if let Some(m) = o.route_metric {
        kf.set(sec, "route-metric", m);
    }
    if o.send_hostname == Some(false) {
        kf.set(sec, "dhcp-send-hostname", false);
    }
    match o.hostname.as_deref().map(|h| (h, word(h))) {
        Some((_, Some(h))) => kf.set(sec, "dhcp-hostname", h),
        Some((_, None)) => warn(out, id, key, "a hostname that is not one word is left out"),
        None => {}
    }
    if o.use_ntp.is_some()
        || o.use_hostname.is_some()
        || o.use_mtu.is_some()
        || o.use_domains.is_some()
    {
        let msg = "use-ntp, use-hostname, use-mtu and use-domains are not expressed in a keyfile";
        warn(out, id, key, msg);
    }
}

/// `route<n>=` and its `route<n>_options=`; `None` (with a warning) for a type NetworkManager
/// has not.
fn route(r: &Route, id: &str, out: &mut Rendered) -> Option<(String, String)> {
    let mut value = r.to.to_string();
    match (r.via, r.metric) {
        (Some(gw), Some(m)) => value.push_str(&format!(",{gw},{m}")),
        (Some(gw), None) => value.push_str(&format!(",{gw}")),
        (None, Some(m)) => value.push_str(&format!(",,{m}")),
        (None, None) => {}
    }
    let mut opts = Vec::new();
    match r.kind.as_deref() {
        None | Some("unicast") => {}
        Some(t @ ("local" | "blackhole" | "unreachable" | "prohibit" | "throw")) => {
            opts.push(format!("type={t}"))
        }
        Some(_) => {
            warn(
                out,
                id,
                "routes",
                "a route of this type is not expressed in a keyfile",
            );
            return None;
        }
    }
    if let Some(t) = r.table {
        opts.push(format!("table={t}"));
    }
    if r.on_link {
        opts.push("onlink=true".into());
    }
    if let Some(src) = r.from {
        opts.push(format!("src={src}"));
    }
    if let Some(mtu) = r.mtu {
        opts.push(format!("mtu={mtu}"));
    }
    if r.scope.is_some() {
        warn(
            out,
            id,
            "routes",
            "a route's scope is not expressed in a keyfile",
        );
    }
    Some((value, opts.join(",")))
}

fn rule_is_v6(r: &Rule) -> bool {
    r.from.or(r.to).is_some_and(|c| c.ip.is_ipv6())
}

/// `routing-rule<n>=`: NetworkManager needs a priority and a table.
fn rule(r: &Rule, id: &str, out: &mut Rendered) -> Option<String> {
    let (Some(prio), Some(table)) = (r.priority, r.table) else {
        let msg = "a rule without priority or table is not expressed in a keyfile";
        warn(out, id, "routing-policy", msg);
        return None;
    };
    let mut s = format!("priority {prio}");
    if let Some(from) = r.from {
        s.push_str(&format!(" from {from}"));
    }
    if let Some(to) = r.to {
        s.push_str(&format!(" to {to}"));
    }
    if let Some(mark) = r.mark {
        s.push_str(&format!(" fwmark {mark}"));
    }
    if let Some(tos) = r.type_of_service {
        s.push_str(&format!(" tos {tos}"));
    }
    s.push_str(&format!(" table {table}"));
    Some(s)
}

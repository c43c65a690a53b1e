//! v2's addressing keys, shared by every device type: `addresses` (with options),
//! `nameservers`, `dhcp4-overrides`/`dhcp6-overrides`, `routes` and `routing-policy`.

use super::model::{Address, Cidr, DhcpOverrides, Dns, Route, Rule, ROUTE_TYPES};
use super::params::one_of;
use super::read::{join, Reader};
use serde_json::Value;
use std::net::IpAddr;

pub(super) fn addresses(v: &Value, path: &str, rd: &mut Reader) -> Vec<Address> {
    let mut out = Vec::new();
    for (i, item) in rd.list(v, path).iter().enumerate() {
        let p = join(path, i);
        // `- 10.0.0.5/24` or `- 10.0.0.5/24: {label: …, lifetime: …}`
        let (addr, opts) = match item.as_object() {
            Some(m) if m.len() == 1 => {
                let (k, o) = m.iter().next().expect("one entry");
                (Value::String(k.clone()), Some((k, o)))
            }
            Some(_) => {
                rd.error(&p, "expected an address, or one address with its options");
                continue;
            }
            None => (item.clone(), None),
        };
        let Some(cidr) = rd.cidr(&addr, &p) else {
            continue;
        };
        let mut a = Address {
            ip: cidr.ip,
            prefix: cidr.prefix,
            label: None,
            lifetime: None,
        };
        if let Some((key, opts)) = opts {
            let op = join(&p, key);
            for (k, o) in rd.map(opts, &op).into_iter().flatten() {
                let kp = join(&op, k);
                match k.as_str() {
                    "label" => a.label = rd.string(o, &kp),
                    "lifetime" => match rd.string(o, &kp).as_deref() {
                        Some(l @ ("forever" | "0")) => a.lifetime = Some(l.into()),
                        Some(_) => rd.error(&kp, "expected forever or 0"),
                        None => {}
                    },
                    _ => rd.unknown(&kp),
                }
            }
        }
        out.push(a);
    }
    out
}

pub(super) fn nameservers(v: &Value, path: &str, rd: &mut Reader) -> Dns {
    let mut dns = Dns::default();
    for (k, x) in rd.map(v, path).into_iter().flatten() {
        let p = join(path, k);
        match k.as_str() {
            "addresses" => dns.nameservers = rd.ips(x, &p),
            "search" => dns.search = rd.strings(x, &p),
            _ => rd.unknown(&p),
        }
    }
    dns
}

pub(super) fn overrides(v: &Value, path: &str, rd: &mut Reader) -> DhcpOverrides {
    let mut o = DhcpOverrides::default();
    for (k, x) in rd.map(v, path).into_iter().flatten() {
        let p = join(path, k);
        match k.as_str() {
            "use-dns" => o.use_dns = rd.bool(x, &p),
            "use-ntp" => o.use_ntp = rd.bool(x, &p),
            "use-hostname" => o.use_hostname = rd.bool(x, &p),
            "use-mtu" => o.use_mtu = rd.bool(x, &p),
            "use-routes" => o.use_routes = rd.bool(x, &p),
            "send-hostname" => o.send_hostname = rd.bool(x, &p),
            "hostname" => o.hostname = rd.string(x, &p),
            "route-metric" => o.route_metric = rd.num(x, &p, 0, u32::MAX),
            "use-domains" => match x {
                Value::String(s) if s == "route" => o.use_domains = Some("route".into()),
                _ => o.use_domains = rd.bool(x, &p).map(|b| b.to_string()),
            },
            _ => rd.unknown(&p),
        }
    }
    o
}

pub(super) fn routes(v: &Value, path: &str, rd: &mut Reader) -> Vec<Route> {
    let mut out = Vec::new();
    for (i, item) in rd.list(v, path).iter().enumerate() {
        let p = join(path, i);
        let Some(m) = rd.map(item, &p) else {
            continue;
        };
        let via = m.get("via").and_then(|v| rd.ip(v, &join(&p, "via")));
        let to = match m.get("to") {
            Some(Value::String(s)) if s == "default" || s == "0/0" => Some(Cidr {
                ip: match via {
                    Some(IpAddr::V6(_)) => IpAddr::V6(0u128.into()),
                    _ => IpAddr::V4(0u32.into()),
                },
                prefix: 0,
            }),
            Some(t) => rd.cidr_or_host(t, &join(&p, "to")),
            None => {
                rd.error(&join(&p, "to"), "missing: a route needs `to`");
                None
            }
        };
        let Some(to) = to else { continue };
        if via.is_some_and(|v| v.is_ipv4() != to.ip.is_ipv4()) {
            rd.error(&join(&p, "via"), "not of the same address family as `to`");
        }
        let mut r = Route::to(to);
        r.via = via;
        for (k, x) in m {
            let kp = join(&p, k);
            match k.as_str() {
                "to" | "via" => {}
                "from" => r.from = rd.ip(x, &kp),
                "metric" => r.metric = rd.num(x, &kp, 0, u32::MAX),
                "table" => r.table = rd.num(x, &kp, 1, u32::MAX),
                "on-link" => r.on_link = rd.bool(x, &kp).unwrap_or(false),
                "scope" => r.scope = one_of(x, &kp, rd, &["global", "link", "host"]),
                "type" => r.kind = one_of(x, &kp, rd, &ROUTE_TYPES),
                "mtu" => r.mtu = rd.num(x, &kp, 1, u32::MAX),
                _ => rd.unknown(&kp),
            }
        }
        out.push(r);
    }
    out
}

pub(super) fn rules(v: &Value, path: &str, rd: &mut Reader) -> Vec<Rule> {
    let mut out = Vec::new();
    for (i, item) in rd.list(v, path).iter().enumerate() {
        let p = join(path, i);
        let Some(m) = rd.map(item, &p) else {
            continue;
        };
        let mut r = Rule::default();
        for (k, x) in m {
            let kp = join(&p, k);
            match k.as_str() {
                "from" => r.from = rd.cidr_or_host(x, &kp),
                "to" => r.to = rd.cidr_or_host(x, &kp),
                "table" => r.table = rd.num(x, &kp, 1, u32::MAX),
                "priority" => r.priority = rd.num(x, &kp, 0, u32::MAX),
                "mark" => r.mark = rd.num(x, &kp, 1, u32::MAX),
                "type-of-service" => {
                    r.type_of_service = rd.num(x, &kp, 0, 255).and_then(|n| u8::try_from(n).ok())
                }
                _ => rd.unknown(&kp),
            }
        }
        if r.from.is_none() && r.to.is_none() {
            rd.error(&p, "a routing-policy rule needs `from` or `to`");
        }
        out.push(r);
    }
    out
}

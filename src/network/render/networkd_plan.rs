//! What the networkd and netplan renderers work out before writing: each interface's bond or
//! bridge, the vlans on it, and where the model's global routes go. Pure, linear in the number
//! of interfaces and routes.

use crate::error::Diag;
use crate::network::model::{Address, Format, Interface, Kind, Network, Route};
use std::collections::BTreeMap;
use std::net::IpAddr;

/// The code of every renderer warning: the model holds something the stack cannot express.
pub(in crate::network::render) const UNSUPPORTED: &str = "network-render-unsupported";

/// A warning about interface `id`'s `key` (netplan's name for it).
pub(in crate::network::render) fn warn(id: &str, key: &str, msg: impl Into<String>) -> Diag {
    Diag::warning(UNSUPPORTED, msg).key(format!("{id}.{key}"))
}

/// The bond or bridge an interface is a member of.
#[derive(Clone, Copy)]
pub(in crate::network::render) struct Master<'a> {
    pub id: &'a str,
    pub bridge: bool,
    pub primary: bool,
    /// Bridge port settings.
    pub path_cost: Option<u32>,
    pub port_priority: Option<u32>,
}

/// Per interface, by its index in `Network::interfaces`.
pub(in crate::network::render) struct Plan<'a> {
    /// False for an interface that cannot be rendered: a device name the kernel would refuse
    /// (warned about here). Nothing refers to it.
    pub ok: Vec<bool>,
    pub master: Vec<Option<Master<'a>>>,
    /// The vlan ids whose link is this interface, in model order.
    pub vlans: Vec<Vec<&'a str>>,
    /// Global routes attached here (the gateway is on one of its subnets).
    pub routes: Vec<Vec<&'a Route>>,
    pub warnings: Vec<Diag>,
}

impl<'a> Plan<'a> {
    pub fn new(net: &'a Network) -> Plan<'a> {
        let n = net.interfaces.len();
        let mut plan = Plan {
            ok: net.interfaces.iter().map(|i| valid(net, i)).collect(),
            master: vec![None; n],
            vlans: vec![Vec::new(); n],
            routes: vec![Vec::new(); n],
            warnings: Vec::new(),
        };
        // The first interface of an id wins, as the parsers' references do.
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, iface) in net.interfaces.iter().enumerate() {
            if plan.ok[i] {
                index.entry(iface.id.as_str()).or_insert(i);
            } else {
                plan.warnings.push(warn(
                    &iface.id,
                    "name",
                    "not a valid interface name (1 to 15 characters, no /, : or spaces): not rendered",
                ));
            }
        }
        for (i, iface) in net.interfaces.iter().enumerate() {
            if !plan.ok[i] {
                continue;
            }
            match &iface.kind {
                Kind::Bond { members, params } => {
                    for m in members {
                        let primary = params.primary.as_deref() == Some(m.as_str());
                        plan.set_master(&index, m, Master::new(&iface.id, false, primary));
                    }
                }
                Kind::Bridge { members, params } => {
                    for m in members {
                        let mut master = Master::new(&iface.id, true, false);
                        master.path_cost = params.path_cost.get(m).copied();
                        master.port_priority = params.port_priority.get(m).copied();
                        plan.set_master(&index, m, master);
                    }
                }
                Kind::Vlan { link, .. } => {
                    if let Some(&i) = index.get(link.as_str()) {
                        plan.vlans[i].push(&iface.id);
                    }
                }
                Kind::Physical { .. } => {}
            }
        }
        for (r, route) in net.routes.iter().enumerate() {
            let found = route.via.and_then(|via| {
                (0..n).find(|&i| {
                    plan.ok[i]
                        && net.interfaces[i]
                            .addresses
                            .iter()
                            .any(|a| on_subnet(a, via))
                })
            });
            match found {
                Some(i) => plan.routes[i].push(route),
                None => plan.warnings.push(
                    Diag::warning(
                        UNSUPPORTED,
                        "no interface has a static address on the subnet of this route's gateway: \
                         not rendered",
                    )
                    .key(format!("routes.{r}")),
                ),
            }
        }
        plan
    }

    fn set_master(&mut self, index: &BTreeMap<&str, usize>, member: &str, master: Master<'a>) {
        if let Some(&i) = index.get(member) {
            match self.master[i] {
                Some(other) if other.id != master.id => self.warnings.push(warn(
                    member,
                    "interfaces",
                    "a member of two bonds or bridges: only the first is rendered",
                )),
                _ => self.master[i] = Some(master),
            }
        }
    }
}

impl<'a> Master<'a> {
    fn new(id: &'a str, bridge: bool, primary: bool) -> Master<'a> {
        Master {
            id,
            bridge,
            primary,
            path_cost: None,
            port_priority: None,
        }
    }
}

/// Whether `ip` is on the subnet of `addr`.
pub(in crate::network::render) fn on_subnet(addr: &Address, ip: IpAddr) -> bool {
    match (addr.ip, ip) {
        (IpAddr::V4(a), IpAddr::V4(b)) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(addr.prefix))
                .unwrap_or(0);
            u32::from(a) & mask == u32::from(b) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(b)) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(addr.prefix))
                .unwrap_or(0);
            u128::from(a) & mask == u128::from(b) & mask
        }
        _ => false,
    }
}

/// The interface name to match a physical device by, besides its MAC and driver: the name it
/// is given (`set-name`), else the one the config matches it by. OpenStack's match names are
/// the names the initramfs saw, which the booted system may not keep: with a MAC to match by,
/// they are left out.
pub(in crate::network::render) fn match_name<'n>(
    net: &Network,
    iface: &'n Interface,
) -> Option<&'n str> {
    let Kind::Physical { matching, set_name } = &iface.kind else {
        return Some(&iface.id);
    };
    if let Some(name) = set_name {
        return Some(name);
    }
    if matching.is_empty() {
        return Some(&iface.id);
    }
    if net.format == Format::OpenStack && matching.macaddress.is_some() {
        return None;
    }
    matching.name.as_deref()
}

/// Whether the names the interface is made or matched by can be kernel interface names.
fn valid(net: &Network, iface: &Interface) -> bool {
    match &iface.kind {
        Kind::Physical { set_name, .. } => {
            set_name.as_deref().is_none_or(|n| valid_name(n, false))
                && match_name(net, iface).is_none_or(|n| valid_name(n, true))
        }
        _ => valid_name(&iface.id, false),
    }
}

/// Whether `name` can be a kernel interface name (or, with `glob`, a pattern of them): 1 to 15
/// bytes, no `/`, `:`, whitespace or control character, not `.` or `..`.
pub(in crate::network::render) fn valid_name(name: &str, glob: bool) -> bool {
    let max = if glob { 64 } else { 15 };
    !name.is_empty()
        && name.len() <= max
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| c == '/' || (c == ':' && !glob) || c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str, prefix: u8) -> Address {
        Address {
            ip: s.parse().unwrap(),
            prefix,
            label: None,
            lifetime: None,
        }
    }

    #[test]
    fn subnets_hold_their_addresses() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert!(on_subnet(&addr("10.0.1.5", 24), ip("10.0.1.1")));
        assert!(!on_subnet(&addr("10.0.1.5", 24), ip("10.0.2.1")));
        assert!(on_subnet(&addr("10.0.1.5", 0), ip("192.0.2.1")));
        assert!(on_subnet(&addr("10.0.1.5", 32), ip("10.0.1.5")));
        assert!(on_subnet(&addr("2001:db8::5", 64), ip("2001:db8::1")));
        assert!(!on_subnet(&addr("2001:db8::5", 64), ip("2001:db9::1")));
        assert!(!on_subnet(&addr("10.0.1.5", 0), ip("::1")));
    }

    #[test]
    fn interface_names() {
        for ok in ["eth0", "bond0.110", "br-data", "a23456789012345"] {
            assert!(valid_name(ok, false), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a/b",
            "a b",
            "a:1",
            "a\n",
            "a234567890123456",
        ] {
            assert!(!valid_name(bad, false), "{bad:?}");
        }
        assert!(valid_name("enp*", true));
    }
}

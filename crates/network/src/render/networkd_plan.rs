//! What the networkd and netplan renderers work out before writing: each interface's bond or
//! bridge, the vlans on it, and where the model's global routes go. Pure, linear in the number
//! of interfaces and routes.

use crate::error::Diag;
use crate::model::{Format, Interface, Kind, Network, Route};
use crate::reason::Reason;
use std::net::IpAddr;

/// The code of every renderer warning: the model holds something the stack cannot express.
pub(in crate::render) const UNSUPPORTED: Reason = Reason::NetworkRenderUnsupported;

/// A warning about interface `id`'s `key` (netplan's name for it).
pub(in crate::render) fn warn(id: &str, key: &str, msg: impl Into<String>) -> Diag {
    Diag::warning(UNSUPPORTED, msg).key(format!("{id}.{key}"))
}

/// The bond or bridge an interface is a member of.
#[derive(Clone, Copy)]
pub(in crate::render) struct Master<'a> {
    pub id: &'a str,
    pub bridge: bool,
    pub primary: bool,
    /// Bridge port settings.
    pub path_cost: Option<u32>,
    pub port_priority: Option<u32>,
}

/// Per interface, by its index in `Network::interfaces`.
pub(in crate::render) struct Plan<'a> {
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
        let ids = net.interfaces.iter().enumerate().map(|(i, iface)| {
            let id = if plan.ok[i] { iface.id.as_str() } else { "" };
            id.to_string()
        });
        let index = Index::new(ids.collect());
        for (i, iface) in net.interfaces.iter().enumerate() {
            if !plan.ok[i] {
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
                    if let Some(i) = index.get(link) {
                        plan.vlans[i].push(&iface.id);
                    }
                }
                Kind::Physical { .. } => {}
            }
        }
        let subnets = Subnets::new(net, &plan.ok);
        for (r, route) in net.routes.iter().enumerate() {
            match route.via.and_then(|via| subnets.find(via)) {
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

    fn set_master(&mut self, index: &Index, member: &str, master: Master<'a>) {
        if let Some(i) = index.get(member) {
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

/// Keys looked up by binary search in their sorted list, each with the first position it had
/// in the list given. The String sort is in the binary already; a map type would add its own.
pub(in crate::render) struct Index {
    sorted: Vec<String>,
    first: Vec<usize>,
}

impl Index {
    pub fn new(keys: Vec<String>) -> Index {
        let mut sorted = keys.clone();
        ember_core::sort::sort(&mut sorted);
        let mut index = Index {
            first: vec![usize::MAX; sorted.len()],
            sorted,
        };
        for (i, k) in keys.iter().enumerate().rev() {
            let pos = index.pos(k);
            index.first[pos] = i;
        }
        index
    }

    /// Where `key` is, or would be, in the sorted list (the first of equal keys).
    pub fn pos(&self, key: &str) -> usize {
        self.sorted.partition_point(|k| k.as_str() < key)
    }

    /// The first position `key` had, if it is there.
    pub fn get(&self, key: &str) -> Option<usize> {
        let pos = self.pos(key);
        (self.sorted.get(pos).map(String::as_str) == Some(key)).then(|| self.first[pos])
    }
}

/// The subnets of the static addresses, for finding the interface a gateway is on in a time
/// that does not grow with the number of interfaces: one lookup per prefix length in use.
struct Subnets {
    /// `network(address, prefix)` of every address, by interface.
    index: Index,
    owner: Vec<usize>,
    /// Prefix lengths in use: IPv4 at 0 to 32, IPv6 at 33 to 161.
    prefixes: Vec<bool>,
}

impl Subnets {
    fn new(net: &Network, ok: &[bool]) -> Subnets {
        let mut keys = Vec::new();
        let mut owner = Vec::new();
        let mut prefixes = vec![false; 162];
        for (i, iface) in net.interfaces.iter().enumerate().filter(|(i, _)| ok[*i]) {
            for a in &iface.addresses {
                prefixes[slot(a.ip, a.prefix)] = true;
                keys.push(network(a.ip, a.prefix));
                owner.push(i);
            }
        }
        Subnets {
            index: Index::new(keys),
            owner,
            prefixes,
        }
    }

    /// The first interface (in model order) with an address on a subnet holding `ip`.
    fn find(&self, ip: IpAddr) -> Option<usize> {
        let max = if ip.is_ipv4() { 32 } else { 128 };
        (0..=max)
            .filter(|&p| self.prefixes[slot(ip, p)])
            .filter_map(|p| self.index.get(&network(ip, p)))
            .map(|k| self.owner[k])
            .min()
    }
}

fn slot(ip: IpAddr, prefix: u8) -> usize {
    usize::from(prefix) + if ip.is_ipv4() { 0 } else { 33 }
}

/// The network of `ip` with `prefix` bits, as a key: family, prefix, masked address.
fn network(ip: IpAddr, prefix: u8) -> String {
    let (bits, v) = match ip {
        IpAddr::V4(a) => (32, u128::from(u32::from(a))),
        IpAddr::V6(a) => (128, u128::from(a)),
    };
    let host = bits - u32::from(prefix);
    let masked = v.checked_shr(host).unwrap_or(0);
    format!("{bits}/{prefix}/{masked:x}")
}

/// The interface name to match a physical device by, besides its MAC and driver: the name it
/// is given (`set-name`), else the one the config matches it by. OpenStack's match names are
/// the names the initramfs saw, which the booted system may not keep: with a MAC to match by,
/// they are left out.
pub(in crate::render) fn match_name<'n>(net: &Network, iface: &'n Interface) -> Option<&'n str> {
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
pub(in crate::render) fn valid_name(name: &str, glob: bool) -> bool {
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
    use crate::model::Address;

    fn iface(id: &str, addrs: &[(&str, u8)]) -> Interface {
        let mut i = Interface::new(
            id,
            Kind::Physical {
                matching: Default::default(),
                set_name: None,
            },
        );
        for (ip, prefix) in addrs {
            i.addresses.push(Address {
                ip: ip.parse().unwrap(),
                prefix: *prefix,
                label: None,
                lifetime: None,
            });
        }
        i
    }

    #[test]
    fn a_gateway_finds_the_first_interface_on_its_subnet() {
        let net = Network {
            interfaces: vec![
                iface("a", &[("10.0.1.5", 24), ("2001:db8::5", 64)]),
                iface("b", &[("10.0.0.5", 16), ("10.0.1.6", 24)]),
                iface("c", &[("192.0.2.5", 32), ("172.16.0.1", 0)]),
            ],
            ..Network::default()
        };
        let s = Subnets::new(&net, &[true, true, true]);
        let find = |ip: &str| s.find(ip.parse().unwrap());
        assert_eq!(find("10.0.1.1"), Some(0));
        assert_eq!(find("10.0.2.1"), Some(1));
        assert_eq!(find("192.0.2.5"), Some(2));
        assert_eq!(
            find("203.0.113.1"),
            Some(2),
            "a /0 holds every IPv4 address"
        );
        assert_eq!(find("2001:db8::1"), Some(0));
        assert_eq!(find("2001:db9::1"), None);
        let s = Subnets::new(&net, &[false, true, true]);
        let index = Index::new(vec!["b".into(), "a".into(), "b".into(), "c".into()]);
        assert_eq!(
            (
                index.get("a"),
                index.get("b"),
                index.get("c"),
                index.get("d")
            ),
            (Some(1), Some(0), Some(3), None)
        );
        assert_eq!(
            s.find("10.0.1.1".parse().unwrap()),
            Some(1),
            "a skipped interface holds none"
        );
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

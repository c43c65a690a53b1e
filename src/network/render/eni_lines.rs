//! Lines of the interfaces file that stand alone: `route add` commands for routes, and the
//! udev rules that name NICs matched by MAC.

use super::util::{warn, word};
use crate::network::model::{Kind, Network, Route};
use crate::network::render::Rendered;

/// The arguments of `route add` for `r` on device `dev`, as cloud-init writes them; `None`
/// (with a warning) for a route type `route` cannot add.
pub(super) fn route(r: &Route, dev: &str, id: &str, out: &mut Rendered) -> Option<String> {
    if r.kind.as_deref().is_some_and(|k| k != "unicast") {
        warn(
            out,
            id,
            "routes",
            "a route of this type is not expressed in ENI; left out",
        );
        return None;
    }
    if r.from.is_some() || r.table.is_some() || r.on_link || r.scope.is_some() || r.mtu.is_some() {
        let msg = "only to, via and metric of a route are expressed in ENI";
        warn(out, id, "routes", msg);
    }
    let v6 = r.to.ip.is_ipv6();
    let mut cmd = match (r.to.is_default(), v6) {
        (true, false) => " default".to_string(),
        (true, true) => " -A inet6 default".to_string(),
        (false, true) => format!(" -A inet6 {}", r.to),
        (false, false) if r.to.prefix == 32 => format!(" -host {}", r.to),
        (false, false) => format!(" -net {}", r.to),
    };
    match r.via {
        Some(via) => cmd.push_str(&format!(" gw {via}")),
        None => cmd.push_str(&format!(" dev {dev}")),
    }
    if let Some(m) = r.metric {
        cmd.push_str(&format!(" metric {m}"));
    }
    Some(cmd)
}

/// One rule per NIC matched by MAC, naming it as the interfaces file does.
pub(super) fn udev_rules(net: &Network, names: &[Option<String>]) -> String {
    let mut rules = String::new();
    for (i, name) in net.interfaces.iter().zip(names) {
        let (Kind::Physical { matching, .. }, Some(name)) = (&i.kind, name) else {
            continue;
        };
        let Some(mac) = &matching.macaddress else {
            continue;
        };
        let driver = match matching.driver.as_slice() {
            [d] if word(d).is_some() && !d.contains('"') => d.as_str(),
            _ => "?*",
        };
        rules.push_str(&format!(
            "SUBSYSTEM==\"net\", ACTION==\"add\", DRIVERS==\"{driver}\", \
             ATTR{{address}}==\"{mac}\", NAME=\"{name}\"\n"
        ));
    }
    rules
}

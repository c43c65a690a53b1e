//! The initramfs's IPv4 routes, from the kernel's `/proc/net/route`: the one reader, for the
//! datasources that must tell whether an address can be reached yet or an ephemeral lease is
//! needed. Not here: changing routes (the ephemeral client's netlink).

use crate::host::Host;
use std::net::Ipv4Addr;

/// One route: destination and mask, as addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub destination: Ipv4Addr,
    pub mask: Ipv4Addr,
}

impl Route {
    pub fn is_default(&self) -> bool {
        self.destination.is_unspecified() && self.mask.is_unspecified()
    }
    pub fn covers(&self, ip: Ipv4Addr) -> bool {
        let (ip, dest, mask) = (
            u32::from(ip),
            u32::from(self.destination),
            u32::from(self.mask),
        );
        ip & mask == dest & mask
    }
}

/// The routes, or `None` without a readable route table (a test's host tree, a container:
/// there the network is someone else's).
pub fn read(host: &Host) -> Option<Vec<Route>> {
    std::fs::read_to_string(host.path("/proc/net/route"))
        .ok()
        .map(|text| parse(&text))
}

/// Columns: Iface Destination Gateway Flags RefCnt Use Metric Mask …, after a header line;
/// addresses in hex, in the kernel's (little-endian) byte order. Lines that do not parse are
/// left out.
pub fn parse(text: &str) -> Vec<Route> {
    let addr = |col: Option<&str>| {
        let n = u32::from_str_radix(col?, 16).ok()?;
        Some(Ipv4Addr::from(n.to_le_bytes()))
    };
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            Some(Route {
                destination: addr(cols.get(1).copied())?,
                mask: addr(cols.get(7).copied())?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_and_link_local_routes() {
        let head =
            "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n";
        // 169.254.0.0/16 on eth0, then a default route via 10.0.2.2; one garbled line.
        let table = format!(
            "{head}eth0\t0000FEA9\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n\
             eth0\t00000000\t0202000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\nbad line\n"
        );
        let routes = parse(&table);
        assert_eq!(routes.len(), 2);
        let imds = Ipv4Addr::new(169, 254, 169, 254);
        assert!(routes[0].covers(imds) && !routes[0].is_default());
        assert!(!routes[0].covers(Ipv4Addr::new(10, 0, 0, 1)));
        assert!(routes[1].is_default() && routes[1].covers(Ipv4Addr::new(8, 8, 8, 8)));
    }
}

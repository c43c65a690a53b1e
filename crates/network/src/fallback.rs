//! cloud-init's fallback network config: DHCPv4 on the first NIC (eth0 if present, else the
//! first physical one with carrier), matched by its MAC address and never named: the name a
//! NIC has in a udev-less initramfs (`eth0`) is not the one the booted system gives it.
//! IPv6 comes from router advertisements rather than a DHCPv6 client, which fails on the many
//! networks that have none (a deliberate difference from cloud-init, see the manual's differences).

use super::ephemeral::fallback_candidates;
use super::model::{Interface, Kind, Match, Network};
use crate::host::Host;
use ember_core::sort::IntoMap;

/// The fallback for the host's NICs, or `None` when there is no candidate NIC.
pub fn config(host: &Host) -> Option<Network> {
    let nic = fallback_candidates(host).into_iter().next()?;
    let mac = mac_of(host, &nic)?;
    let mut iface = Interface::new(
        nic,
        Kind::Physical {
            matching: Match {
                macaddress: Some(mac),
                ..Match::default()
            },
            set_name: None,
        },
    );
    iface.dhcp4 = true;
    iface.accept_ra = Some(true);
    Some(Network {
        interfaces: vec![iface],
        ..Network::default()
    })
}

pub fn mac_of(host: &Host, nic: &str) -> Option<String> {
    let path = host.path(&format!("/sys/class/net/{nic}/address"));
    let mac = std::fs::read_to_string(path)
        .ok()?
        .trim()
        .to_ascii_lowercase();
    (mac.len() == 17).then_some(mac)
}

/// The host's interfaces by MAC (lowercase), to name a config's entries after them.
pub fn names_by_mac(host: &Host) -> std::collections::BTreeMap<String, String> {
    let Ok(dir) = std::fs::read_dir(host.path("/sys/class/net")) else {
        return Default::default();
    };
    dir.flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let mac = mac_of(host, &name)?;
            (mac != "00:00:00:00:00:00").then_some((mac, name))
        })
        .into_map()
}

/// The MAC addresses of the physical NICs, sorted: the set a rendered config is tied to.
pub fn physical_macs(host: &Host) -> Vec<String> {
    let mut macs: Vec<String> = fallback_candidates(host)
        .iter()
        .filter_map(|nic| mac_of(host, nic))
        .collect();
    ember_core::sort::sort(&mut macs);
    macs.dedup();
    macs
}

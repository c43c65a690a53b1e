//! The NICs worth a DHCP attempt, ordered as cloud-init orders its fallback candidates
//! (`find_candidate_nics_on_linux`): links with carrier first, then links that may still get
//! one (dormant, down, unknown), each group in natural order with `eth0` first. Skipped: `lo`,
//! `veth*`, bridges, bonds, VLANs, tun/tap, wireless, links without an Ethernet address.
//! Reads `/sys/class/net` under the host prefix, so tests use a fake tree.

use crate::host::Host;
use std::path::Path;

const PRIMARY: &str = "eth0";

/// What the ordering needs from one entry of /sys/class/net.
#[derive(Clone, Debug, PartialEq)]
pub struct SysNic {
    pub name: String,
    pub eligible: bool,
    pub carrier: bool,
    pub possibly_connected: bool,
}

fn read(dir: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(file))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Reads one link's directory.
fn inspect(dir: &Path, name: &str) -> SysNic {
    let has = |f: &str| dir.join(f).exists();
    let uevent = read(dir, "uevent").unwrap_or_default();
    let virtual_kind = has("bridge")
        || has("bonding")
        || has("tun_flags")
        || has("wireless")
        || has("phy80211")
        || uevent
            .lines()
            .any(|l| l == "DEVTYPE=vlan" || l == "DEVTYPE=wlan");
    let ethernet = read(dir, "type").as_deref() == Some("1");
    let mac = read(dir, "address").unwrap_or_default();
    let has_mac = mac.len() == 17 && mac != "00:00:00:00:00:00";
    let eligible =
        name != "lo" && !name.starts_with("veth") && !virtual_kind && ethernet && has_mac;
    let carrier = read(dir, "carrier").as_deref() == Some("1");
    let dormant = read(dir, "dormant").as_deref() == Some("1");
    let operstate = read(dir, "operstate").unwrap_or_default();
    SysNic {
        name: name.into(),
        eligible,
        carrier,
        possibly_connected: dormant
            || matches!(
                operstate.as_str(),
                "dormant" | "down" | "lowerlayerdown" | "unknown"
            ),
    }
}

/// A key that sorts `eth2` before `eth10`.
pub fn natural_key(name: &str) -> Vec<(u64, String)> {
    let mut key = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = if digits > 0 {
            rest.split_at(digits)
        } else {
            rest.split_at(
                rest.find(|c: char| c.is_ascii_digit())
                    .unwrap_or(rest.len()),
            )
        };
        key.push(match head.parse::<u64>() {
            Ok(n) if digits > 0 => (n, String::new()),
            _ => (u64::MAX, head.to_string()),
        });
        rest = tail;
    }
    key
}

/// The candidates, in the order to try them.
pub fn order(nics: &[SysNic]) -> Vec<String> {
    let group = |pick: &dyn Fn(&SysNic) -> bool| {
        let mut names: Vec<&str> = nics
            .iter()
            .filter(|n| n.eligible && pick(n))
            .map(|n| n.name.as_str())
            .collect();
        ember_core::sort::sort_by_key(&mut names, |n| natural_key(n));
        if let Some(i) = names.iter().position(|n| *n == PRIMARY) {
            let primary = names.remove(i);
            names.insert(0, primary);
        }
        names
    };
    let connected = group(&|n| n.carrier);
    let possibly = group(&|n| !n.carrier && n.possibly_connected);
    connected
        .into_iter()
        .chain(possibly)
        .map(str::to_string)
        .collect()
}

/// The host's candidate NICs, from `/sys/class/net`.
pub fn fallback_candidates(host: &Host) -> Vec<String> {
    let base = host.path("/sys/class/net");
    let Ok(entries) = std::fs::read_dir(&base) else {
        return Vec::new();
    };
    let nics: Vec<SysNic> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            Some(inspect(&base.join(&name), &name))
        })
        .collect();
    order(&nics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nic(name: &str, carrier: bool, possibly: bool) -> SysNic {
        SysNic {
            name: name.into(),
            eligible: true,
            carrier,
            possibly_connected: possibly,
        }
    }

    #[test]
    fn carrier_first_then_possible_eth0_first_natural_order() {
        let nics = [
            nic("eth10", true, false),
            nic("eth2", true, false),
            nic("eth0", false, true),
            nic("ens3", false, true),
            nic("ens4", false, false),
            SysNic {
                eligible: false,
                ..nic("br0", true, false)
            },
        ];
        assert_eq!(order(&nics), ["eth2", "eth10", "eth0", "ens3"]);
        let nics = [nic("ens3", true, false), nic("eth0", true, false)];
        assert_eq!(order(&nics), ["eth0", "ens3"]);
    }

    #[test]
    fn reads_sysfs_and_skips_virtual_links() {
        let dir = std::env::temp_dir().join(format!("ember-nics-{}", std::process::id()));
        let net = dir.join("sys/class/net");
        let link = |name: &str, files: &[(&str, &str)]| {
            let d = net.join(name);
            std::fs::create_dir_all(&d).unwrap();
            for (f, v) in [
                ("type", "1"),
                ("address", "52:54:00:12:34:56"),
                ("operstate", "down"),
            ] {
                std::fs::write(d.join(f), format!("{v}\n")).unwrap();
            }
            for (f, v) in files {
                if v.is_empty() {
                    std::fs::create_dir_all(d.join(f)).unwrap();
                } else {
                    std::fs::write(d.join(f), v).unwrap();
                }
            }
        };
        link("lo", &[("type", "772")]);
        link("ens3", &[("carrier", "1\n"), ("operstate", "up\n")]);
        link("eth0", &[]);
        link("br0", &[("bridge", "")]);
        link("bond0", &[("bonding", "")]);
        link("tap0", &[("tun_flags", "0x1002\n")]);
        link("wlan0", &[("wireless", "")]);
        link(
            "ens3.10",
            &[("uevent", "DEVTYPE=vlan\nINTERFACE=ens3.10\n")],
        );
        link("veth1", &[]);
        link("ib0", &[("type", "32")]);
        link("zero", &[("address", "00:00:00:00:00:00")]);
        link("gone", &[("operstate", "notpresent")]);
        let found = fallback_candidates(&Host::new(&dir));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(found, ["ens3", "eth0"]);
    }

    #[test]
    fn natural_keys() {
        let mut v = ["eth10", "eth9", "enp0s10", "enp0s3", "a"];
        ember_core::sort::sort_by_key(&mut v, |n| natural_key(n));
        assert_eq!(v, ["a", "enp0s3", "enp0s10", "eth9", "eth10"]);
    }
}

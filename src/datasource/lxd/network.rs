//! LXD's network config when the instance gives none, as cloud-init's DataSourceLXD makes
//! it: a network-config v1 with DHCP on one NIC named, the first candidate of the fallback
//! order (cloud-init's `find_fallback_nic`), else the name LXD gives the first NIC: `eth0` in
//! a container, on a VM `enp5s0` (`enp0s5` on ppc64le, `enc9` on s390x). The devices LXD
//! lists do not choose the NIC: their names are LXD's, not the guest's (cloud-init reads them
//! only for instance data). Not here: rendering (the stage's renderers take v1).

use crate::host::Host;
use serde_json::{json, Value};

/// The NIC the fallback config names.
pub fn fallback_nic(host: &Host, vm: bool) -> String {
    if let Some(nic) = crate::network::ephemeral::fallback_candidates(host)
        .into_iter()
        .next()
    {
        return nic;
    }
    default_name(vm, std::env::consts::ARCH).to_string()
}

/// LXD's name for the first NIC when none is seen.
fn default_name(vm: bool, arch: &str) -> &'static str {
    match (vm, arch) {
        (false, _) => "eth0",
        (true, "powerpc64") => "enp0s5",
        (true, "s390x") => "enc9",
        (true, _) => "enp5s0",
    }
}

/// The v1 config: DHCP on `nic`.
pub fn fallback(nic: &str) -> Value {
    json!({
        "version": 1,
        "config": [{
            "type": "physical",
            "name": nic,
            "subnets": [{"type": "dhcp", "control": "auto"}],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_as_lxd_gives_them() {
        let cases = [
            (false, "x86_64", "eth0"),
            (false, "s390x", "eth0"),
            (true, "x86_64", "enp5s0"),
            (true, "aarch64", "enp5s0"),
            (true, "powerpc64", "enp0s5"),
            (true, "s390x", "enc9"),
        ];
        for (vm, arch, want) in cases {
            assert_eq!(default_name(vm, arch), want, "{vm} {arch}");
        }
    }

    #[test]
    fn a_seen_nic_is_named_else_the_default() {
        let dir = std::env::temp_dir().join(format!("ember-lxd-net-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let host = Host::new(&dir);
        assert_eq!(fallback_nic(&host, false), "eth0");
        let nic = dir.join("sys/class/net/eth1");
        std::fs::create_dir_all(&nic).unwrap();
        for (file, value) in [
            ("address", "00:16:3e:00:00:01"),
            ("type", "1"),
            ("carrier", "1"),
        ] {
            std::fs::write(nic.join(file), format!("{value}\n")).unwrap();
        }
        assert_eq!(fallback_nic(&host, false), "eth1");
        assert_eq!(
            fallback("eth1")["config"][0],
            json!({"type": "physical", "name": "eth1",
                   "subnets": [{"type": "dhcp", "control": "auto"}]})
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

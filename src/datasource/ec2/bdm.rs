//! EC2's block-device-mapping as cloud-init's `device_name_to_device`: the mapping's names
//! `mounts` and `disk_setup` may use (`ephemeral0`, `swap`, `ebsN`; Eucalyptus's bare
//! `ephemeral` standing for `ephemeral0`) turned into this machine's devices, handed to those
//! modules as platform `device_aliases` (the seam Azure's resource disk uses too). A name
//! IMDS gives as `sdb` is `/dev/sdb` where that exists, else the `/dev/vdb`, `/dev/xvdb` or
//! `/dev/vtbb` the hypervisor made of it; an `ephemeral0` with no device at all gets no
//! alias (a t1.micro lists one it never has), others keep the name IMDS gave.
//! Not here: `ami` and `root` (no module resolves them; not read, one request each), the
//! NVMe names of Nitro instances (EBS names sit in the controller's vendor data, which needs
//! an NVMe admin command; instance-store disks have none): there `/dev/sdb` exists only when
//! the image's udev rules (amazon-ec2-utils) make it.

use super::imds::{self, Imds};
use super::{entries, text, MD};
use crate::datasource::InstanceData;
use crate::host::Host;
use serde_json::{json, Map, Value};

/// The names modules resolve through the datasource (cloud-init's meta device names, less
/// `ami` and `root`).
fn wanted(name: &str) -> bool {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    };
    name == "swap" || numbered("ephemeral") || (numbered("ebs") && name != "ebs")
}

/// The listing and the entries modules can use, as cloud-init's crawl has them
/// (`{"ephemeral0": "sdb"}`). A listing or entry that fails is a warning: mounts then do
/// without it, the instance does not.
pub fn read(imds: &mut Imds, data: &mut InstanceData) -> Map<String, Value> {
    let mut out = Map::new();
    let warn = |e: imds::Error, data: &mut InstanceData| {
        let mut diag = e.diag();
        diag.severity = crate::error::Severity::Warning;
        diag.message = format!("block-device-mapping left out: {}", diag.message);
        data.diags.push(diag);
    };
    let list = match imds.get(&format!("{MD}/block-device-mapping/")) {
        Ok(Some(list)) => entries(list),
        Ok(None) => return out,
        Err(e) => {
            warn(e, data);
            return out;
        }
    };
    for name in list.iter().filter(|n| wanted(n)) {
        match imds.get(&format!("{MD}/block-device-mapping/{name}")) {
            Ok(Some(dev)) => {
                let dev = text(dev);
                if !dev.is_empty() {
                    out.insert(name.clone(), json!(dev));
                }
            }
            Ok(None) => {}
            Err(e) => warn(e, data),
        }
    }
    out
}

/// cloud-init's device for one mapped name (`sdb`, `/dev/sdb`), or `None` for an absent
/// ephemeral disk.
fn device(host: &Host, name: &str, mapped: &str) -> Option<String> {
    let path = if mapped.starts_with('/') {
        mapped.to_string()
    } else {
        format!("/dev/{mapped}")
    };
    if host.path(&path).exists() {
        return Some(path);
    }
    // The service says `sd*` where Xen or KVM named the disk otherwise (LP: #611137).
    let base = path.rsplit('/').next().unwrap_or_default();
    if let Some(rest) = base.strip_prefix("sd") {
        let renamed = ["vd", "xvd", "vtb"]
            .iter()
            .map(|p| format!("/dev/{p}{rest}"));
        if let Some(found) = renamed.into_iter().find(|p| host.path(p).exists()) {
            return Some(found);
        }
    }
    (name != "ephemeral0").then_some(path)
}

/// The `device_aliases` the mapping gives on this machine.
pub fn aliases(host: &Host, mapping: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, mapped) in mapping {
        let Some(mapped) = mapped.as_str() else {
            continue;
        };
        // Eucalyptus lists `ephemeral`; an `ephemeral0` of its own comes first.
        let name = if name == "ephemeral" && !mapping.contains_key("ephemeral0") {
            "ephemeral0"
        } else {
            name.as_str()
        };
        if let Some(dev) = device(host, name, mapped) {
            out.insert(name.to_string(), json!(dev));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_modules_resolve_are_read() {
        for yes in ["ephemeral0", "ephemeral12", "ephemeral", "swap", "ebs1"] {
            assert!(wanted(yes), "{yes}");
        }
        for no in ["ami", "root", "ebs", "ephemeral0x", "swap1", "../x"] {
            assert!(!wanted(no), "{no}");
        }
    }

    #[test]
    fn names_resolve_as_cloud_init_resolves_them() {
        let dir = std::env::temp_dir().join(format!("ember-bdm-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("dev")).unwrap();
        for dev in ["xvdb", "sdf", "vdc"] {
            std::fs::write(dir.join("dev").join(dev), "").unwrap();
        }
        let host = Host::new(&dir);
        let mapping = json!({
            "ephemeral0": "sdb", "swap": "sdc", "ebs1": "/dev/sdf", "ebs2": "sdh",
            "ephemeral1": "sdz", "ephemeral": "sde", "odd": 5
        });
        let got = aliases(&host, mapping.as_object().unwrap());
        assert_eq!(
            Value::Object(got),
            json!({
                // Renamed by the hypervisor; as given where it exists.
                "ephemeral0": "/dev/xvdb", "swap": "/dev/vdc", "ebs1": "/dev/sdf",
                // Missing: kept as IMDS says it (mounts then finds no device), except an
                // ephemeral0, which gets no alias; Eucalyptus's `ephemeral` yields to it.
                "ebs2": "/dev/sdh", "ephemeral1": "/dev/sdz", "ephemeral": "/dev/sde"
            })
        );
        let euca = json!({"ephemeral": "sdb"});
        let got = aliases(&host, euca.as_object().unwrap());
        assert_eq!(Value::Object(got), json!({"ephemeral0": "/dev/xvdb"}));
        let missing = json!({"ephemeral0": "sdq"});
        assert!(aliases(&host, missing.as_object().unwrap()).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

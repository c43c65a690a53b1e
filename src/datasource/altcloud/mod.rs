//! AltCloud (still in cloud-init 26): user-data for RHEV-M and vSphere guests built by Image
//! Factory or Deltacloud. The cloud type comes from the target's `/etc/sysconfig/cloud-info`,
//! else DMI `product_name` (`RHEV…`, `VMware…`); RHEV hands the data over on the floppy
//! (`/dev/fd0`), vSphere on a CD labelled `CDROM`, as `deltacloud-user-data.txt` or
//! `user-data.txt`. There is no meta-data: cloud-init's fixed stand-in (instance id 455,
//! hostname `localhost`) is used, as upstream does. Not done: `modprobe floppy` (the
//! initramfs must carry and load the floppy driver for `/dev/fd0` to appear).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/altcloud.html>

use crate::context::Env;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::Facts;
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::json;

pub struct AltCloud;

const CLOUD_INFO: &str = "/etc/sysconfig/cloud-info";
/// Deltacloud's name first, then the plain one.
const FILES: [&str; 2] = ["deltacloud-user-data.txt", "user-data.txt"];
const INSTANCE_ID: &str = "455";

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Rhev,
    Vsphere,
}

/// The cloud type and what said so: cloud-info's word (any text naming it), else DMI.
fn kind(env: &Env, facts: &Facts) -> Option<(Kind, String)> {
    let info = env
        .target
        .as_ref()
        .and_then(|t| t.read_file(CLOUD_INFO, 4096).ok().flatten());
    let (text, why) = match info {
        Some(b) => (
            String::from_utf8_lossy(&b).trim().to_ascii_uppercase(),
            CLOUD_INFO.to_string(),
        ),
        None => {
            let p = facts.dmi.get("product_name")?;
            let text = p.to_ascii_uppercase();
            let kind = match () {
                _ if text.starts_with("RHEV") => Kind::Rhev,
                _ if text.starts_with("VMWARE") => Kind::Vsphere,
                _ => return None,
            };
            return Some((kind, format!("product_name={p}")));
        }
    };
    if text.contains("RHEV") {
        Some((Kind::Rhev, why))
    } else if text.contains("VSPHERE") {
        Some((Kind::Vsphere, why))
    } else {
        None
    }
}

/// The volumes the data may be on: the floppy for RHEV, CDs labelled CDROM for vSphere.
fn volumes(kind: Kind, facts: &Facts) -> Vec<&LabelledDevice> {
    match kind {
        Kind::Rhev => facts.devices.iter().filter(|d| d.name == "fd0").collect(),
        Kind::Vsphere => seed_devices(&facts.devices, Some("CDROM"), Media::DiscOrFat),
    }
}

impl Datasource for AltCloud {
    fn name(&self) -> &'static str {
        "altcloud"
    }
    fn cloud_init_name(&self) -> &'static str {
        "AltCloud"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let Some((kind, why)) = kind(env, facts) else {
            return Vec::new();
        };
        let vols = volumes(kind, facts);
        if vols.is_empty() {
            return Vec::new();
        }
        let mut ev = vec![Evidence {
            source: if why.starts_with('/') {
                "config"
            } else {
                "dmi"
            }
            .into(),
            detail: format!("{kind:?} ({why})"),
        }];
        ev.extend(vols.iter().map(|d| Evidence {
            source: "label".into(),
            detail: format!("{} {} label {}", d.dev_name(), d.fs, d.labels.join(",")),
        }));
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let Some((kind, _)) = kind(env, facts) else {
            return Err(Diag::error(Reason::NoSeed, "neither RHEV nor vSphere"));
        };
        let mut tried = Vec::new();
        let mut reads = 0;
        for dev in volumes(kind, facts) {
            match read_volume(env, dev, &mut reads) {
                Ok(Some(ud)) => {
                    let name = dev.dev_name();
                    let sub = if kind == Kind::Rhev {
                        "rhev"
                    } else {
                        "vsphere"
                    };
                    let mut data = InstanceData {
                        datasource: "altcloud".into(),
                        instance_id: INSTANCE_ID.into(),
                        meta_data: json!({
                            "block-device-mapping": {}, "instance-id": 455,
                            "local-hostname": "localhost", "placement": {}
                        }),
                        user_data: Some(Secret::new(ud)),
                        from_removable_media: dev.removable,
                        detail: format!("DataSourceAltCloud [seed={name}]"),
                        subplatform: format!("{sub} ({name})"),
                        reads,
                        ..InstanceData::default()
                    };
                    data.diags.extend(tried.into_iter().map(|mut d: Diag| {
                        d.severity = Severity::Warning;
                        d
                    }));
                    return Ok(data);
                }
                Ok(None) => tried.push(
                    Diag::error(
                        Reason::NoSeed,
                        "no deltacloud-user-data.txt or user-data.txt",
                    )
                    .file(dev.dev_name()),
                ),
                Err(d) => tried.push(d),
            }
        }
        Err(tried.pop().unwrap_or_else(|| {
            Diag::error(Reason::NoSeed, "no floppy (RHEV) or CDROM volume (vSphere)")
        }))
    }
}

/// The user-data, trimmed as cloud-init trims it; `None` when neither file is there.
fn read_volume(env: &Env, dev: &LabelledDevice, reads: &mut u32) -> Result<Option<Vec<u8>>, Diag> {
    let mut vol = SeedVolume::open(env, dev)?;
    for f in FILES {
        *reads += 1;
        if let Some(b) = vol.read_file(f)? {
            // An empty file ends the search with nothing, as in cloud-init.
            let text = String::from_utf8_lossy(&b);
            let text = text.trim();
            return Ok((!text.is_empty()).then(|| text.as_bytes().to_vec()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::dmi::Dmi;

    #[test]
    fn kind_from_dmi() {
        let facts = |p: &str| Facts {
            dmi: Dmi::from_pairs(&[("product_name", p)]),
            ..Facts::default()
        };
        let host = crate::host::Host::new("/nonexistent");
        let image = crate::config::image::ImageConfig::default();
        let fetched = std::sync::Arc::new(crate::limits::Tally::new(0));
        let env = Env {
            host: &host,
            target_path: std::path::Path::new("/nonexistent"),
            target: None,
            cmdline: &[],
            image: &image,
            fetched: &fetched,
        };
        let k = |p: &str| kind(&env, &facts(p)).map(|(k, _)| k);
        assert_eq!(k("RHEV Hypervisor"), Some(Kind::Rhev));
        assert_eq!(k("VMware Virtual Platform"), Some(Kind::Vsphere));
        assert_eq!(k("rhev-h"), Some(Kind::Rhev));
        assert_eq!(k("Standard PC (Q35 + ICH9, 2009)"), None);
    }
}

//! Microsoft Azure: detected from the chassis asset tag Azure gives every VM (ds-identify's
//! test) or a seed directory; read from the provisioning media (ovf-env.xml on the attached
//! UDF or ISO9660 DVD, read in-process; on later boots the sanitized copy the first boot left
//! in /var/lib/waagent) and from IMDS through the fetch stage's link (ember's own DHCP lease
//! when no route goes there); then, in `report`, over the same link, the VM is reported ready
//! to the wireserver (its address from DHCP option 245), or NotReady with the reason.
//! Into `InstanceData` as cloud-init's DataSourceAzure has it: the DMI system UUID as instance
//! id, host name, keys, user-data (custom data, else IMDS userData), the default user with the
//! password only as a hash, the IMDS network config, and the resource disk as `ephemeral0`.
//! Not here: pre-provisioned pools (reprovisioning), keys by certificate fingerprint alone
//! (which need the wireserver's certificate exchange), KVP telemetry.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/azure.html>

mod config;
mod disk;
mod imds;
pub mod ovf;
mod ready;
pub mod wireserver;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData, Reported};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::Evidence;
use config::{apply_network_config, nic_driver, ovf_keys, platform_config};
use ovf::Ovf;
use serde_json::{json, Value};

pub struct Azure;

pub use crate::datasource::common::AZURE_CHASSIS_ASSET_TAG as CHASSIS_ASSET_TAG;

const DEFAULT_BASE: &str = "http://169.254.169.254";
const OVF_NAME: &str = "ovf-env.xml";
/// cloud-init's Azure seed: `seed/azure` of the cloud dir.
fn seed_dir() -> String {
    crate::paths::system().seed("azure")
}
/// The agent's directory: the sanitized copy lives here, and is read when the DVD is gone.
const AGENT_DIR: &str = "/var/lib/waagent";
const DEFAULT_RETRIES: u32 = 10;

/// Where ovf-env.xml was found, and whether this is the provisioning media itself.
struct OvfSource {
    shown: String,
    raw: Vec<u8>,
    media: bool,
    removable: bool,
    subplatform: String,
}

impl Datasource for Azure {
    fn name(&self) -> &'static str {
        "azure"
    }
    fn cloud_init_name(&self) -> &'static str {
        "Azure"
    }
    /// cloud-init's Azure: NICs can be added to a stopped VM, so every boot renders.
    fn default_update_events(&self) -> &'static [crate::datasource::events::Event] {
        crate::datasource::events::EVERY_BOOT
    }

    /// The chassis asset tag Azure gives every VM (ds-identify's test): a fixed 30-character
    /// value no other platform uses, so it is enough alone; the vendor is shown when it agrees.
    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        let field = |f: &str| dmi.fields.get(f).map(String::as_str).unwrap_or("");
        if field("chassis_asset_tag") != CHASSIS_ASSET_TAG {
            return None;
        }
        let mut why = format!("chassis_asset_tag={CHASSIS_ASSET_TAG}");
        if field("sys_vendor") == "Microsoft Corporation" {
            why.push_str(" and sys_vendor=Microsoft Corporation");
        }
        Some(why)
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let why = self.dmi(&facts.dmi).map(|w| format!("Azure ({w})"));
        let mut ev = crate::datasource::selection_evidence(env, facts, self, why);
        let seed = format!("{}/{OVF_NAME}", seed_dir());
        if env.target.as_ref().is_some_and(|t| t.exists(&seed)) {
            ev.push(Evidence {
                source: "seed".into(),
                detail: seed,
            });
        }
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "azure".into(),
            platform: Some("azure".into()),
            cloud_name: Some("azure".into()),
            ..InstanceData::default()
        };
        // Kept apart from `data`, which the lease loop replaces with the answering attempt.
        let (mut early_diags, mut early_reads) = (Vec::new(), 0);
        early_diags.extend(wireserver::check_override(env.cmdline));
        let source = find_ovf(env, facts, &mut early_diags, &mut early_reads);
        let ovf = source
            .as_ref()
            .map(|s| ovf::parse(&s.raw).map_err(|d| d.file(s.shown.clone())));
        if let Some(Ok(o)) = &ovf {
            if o.preprovisioned_vm {
                let msg = "a pre-provisioned (pooled) VM: reprovisioning is not supported by ember";
                return Err(Diag::error(Reason::AzurePreprovisioned, msg).file(OVF_NAME));
            }
        }
        let client = Client::new(env, "Azure", DEFAULT_BASE, DEFAULT_RETRIES)
            .header(imds::HEADER.0, imds::HEADER.1);
        let mut imds_service = client.service(env);
        imds_service.lease.site_options = vec![wireserver::DHCP_OPTION];
        imds_service.awaits_report = ready::due(env, facts, source.as_ref());
        let result = client.reach(env, link, &imds_service, &mut data, |client, d, _| {
            let imds = match imds::fetch(client, &mut d.reads) {
                Err(e) if e.code == imds::UNREACHABLE => return Err(e),
                Err(e) if source.is_some() => {
                    // ovf-env.xml alone provisions, as in cloud-init; the reason stays visible.
                    d.diags.push(e);
                    None
                }
                Err(e) => return Err(e),
                Ok(doc) => Some(doc),
            };
            build(env, facts, source.as_ref(), ovf.as_ref(), imds.as_ref(), d)
        });
        // No IMDS on any NIC: ovf-env.xml alone provisions, as in cloud-init (nothing is
        // reported: no link answered).
        let result = match result {
            Err(e) if e.code == imds::UNREACHABLE && matches!(ovf, Some(Ok(_))) => {
                data.diags.push(e);
                build(env, facts, source.as_ref(), ovf.as_ref(), None, &mut data)
            }
            other => other,
        };
        early_diags.append(&mut data.diags);
        data.diags = early_diags;
        data.reads += early_reads;
        result.map(|()| data)
    }

    fn report(&self, env: &Env, link: &Link, outcome: Result<&InstanceData, &Diag>) -> Reported {
        ready::report(env, link, outcome)
    }
}

/// The provisioning media first (any ISO9660 or UDF volume holding ovf-env.xml), then the
/// seed directory, then the agent's copy from an earlier boot.
fn find_ovf(env: &Env, facts: &Facts, diags: &mut Vec<Diag>, reads: &mut u32) -> Option<OvfSource> {
    for dev in seed_devices(&facts.devices, None, Media::Disc) {
        let name = dev.dev_name();
        *reads += 1;
        let read = SeedVolume::open(env, dev).and_then(|mut vol| vol.read_file(OVF_NAME));
        match read {
            Ok(Some(raw)) => {
                return Some(OvfSource {
                    shown: format!("{name}: {OVF_NAME}"),
                    raw,
                    media: true,
                    removable: dev.removable,
                    subplatform: format!("config-disk ({name})"),
                });
            }
            Ok(None) => {}
            // Any volume of the right kind is tried; one that is not the media only warns.
            Err(mut d) => {
                d.severity = crate::error::Severity::Warning;
                diags.push(d);
            }
        }
    }
    let target = env.target.as_ref()?;
    let max = env.limits().file_bytes;
    for dir in [&seed_dir(), AGENT_DIR] {
        let path = format!("{dir}/{OVF_NAME}");
        if let Ok(Some(raw)) = target.read_file(&path, max) {
            *reads += 1;
            return Some(OvfSource {
                shown: path,
                raw,
                media: false,
                removable: false,
                subplatform: format!("seed-dir ({dir})"),
            });
        }
    }
    None
}

/// cloud-init's instance id: the DMI system UUID in lower case, keeping the previous boot's
/// spelling when it is the same UUID in upper case or with the first fields byte-swapped
/// (older kernels and Hyper-V generations report it so), so no new instance is made.
fn instance_id(env: &Env, facts: &Facts, imds: Option<&Value>) -> Option<String> {
    let uuid = facts
        .dmi
        .get("product_uuid")
        .map(str::to_ascii_lowercase)
        .filter(|u| !u.is_empty())
        .or_else(|| {
            let vm = imds?.pointer("/compute/vmId")?.as_str()?;
            Some(vm.to_ascii_lowercase())
        })?;
    let previous = env
        .target
        .as_ref()
        .copied()
        .and_then(crate::state::previous_instance_id);
    match previous {
        Some(p)
            if p.to_ascii_lowercase() == uuid || byte_swapped(&p.to_ascii_lowercase(), &uuid) =>
        {
            Some(p)
        }
        _ => Some(uuid),
    }
}

/// The first three UUID fields in the other byte order.
fn byte_swapped(a: &str, b: &str) -> bool {
    let swap = |field: &str| -> String {
        let bytes: Vec<&str> = (0..field.len() / 2)
            .map(|i| &field[i * 2..i * 2 + 2])
            .collect();
        bytes.into_iter().rev().collect()
    };
    let fields: Vec<&str> = a.split('-').collect();
    if fields.len() != 5 || !a.is_ascii() {
        return false;
    }
    let swapped = format!(
        "{}-{}-{}-{}-{}",
        swap(fields[0]),
        swap(fields[1]),
        swap(fields[2]),
        fields[3],
        fields[4]
    );
    swapped == b
}

fn build(
    env: &Env,
    facts: &Facts,
    source: Option<&OvfSource>,
    ovf: Option<&Result<Ovf, Diag>>,
    imds: Option<&Value>,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let ovf = match ovf {
        Some(Err(e)) => return Err(e.clone()),
        Some(Ok(o)) => Some(o),
        None => None,
    };
    if ovf.is_none() && imds.is_none() {
        return Err(Diag::error(
            Reason::AzureNoData,
            "neither ovf-env.xml nor IMDS answered",
        ));
    }
    data.instance_id = instance_id(env, facts, imds).ok_or_else(|| {
        Diag::error(
            Reason::AzureNoInstanceId,
            "no DMI system UUID and no IMDS vmId",
        )
    })?;
    let hostname = imds
        .and_then(imds::hostname)
        .or(ovf.and_then(|o| o.hostname.as_deref()));
    let keys = imds
        .and_then(imds::public_keys)
        .unwrap_or_else(|| ovf_keys(ovf));
    let mut md = json!({"instance-id": data.instance_id, "public-keys": keys});
    if let Some(h) = hostname {
        md["local-hostname"] = json!(h);
    }
    if let Some(doc) = imds {
        md["imds"] = imds::without_user_data(doc);
        // cloud-init's region and zone on Azure: the location and the fault domain.
        let compute = |key: &str| doc.get("compute")?.get(key)?.as_str().map(str::to_string);
        data.region = compute("location");
        data.availability_zone = compute("platformFaultDomain");
    }
    data.meta_data = md;
    data.user_data = match ovf.and_then(|o| o.custom_data.clone()) {
        Some(ud) => Some(ud),
        None => match imds.map(imds::user_data).transpose() {
            Ok(ud) => ud.flatten(),
            Err(d) => {
                data.diags.push(d);
                None
            }
        },
    };
    data.config = Some(platform_config(env, ovf, imds, data));
    if let (Some(doc), true) = (imds, apply_network_config(env)) {
        let driver_of = |mac: &str| nic_driver(env.host, mac);
        match imds::network_config(doc, &driver_of) {
            Ok(net) => data.network_config = Some(("azure-imds".into(), net)),
            Err(key) => data.diags.push(
                Diag::warning(
                    Reason::NetworkConfigInvalid,
                    "unusable: the fallback network is used",
                )
                .file("IMDS /metadata/instance")
                .key(key),
            ),
        }
    }
    if let Some(src) = source {
        match ovf::sanitize(&src.raw) {
            Ok(clean) => data.files.push(crate::datasource::instance::PlatformFile {
                path: format!("{AGENT_DIR}/{OVF_NAME}"),
                mode: 0o600,
                content: crate::secret::Secret::new(clean),
                new_instance_only: false,
            }),
            Err(e) => data.diags.push(e.file(src.shown.clone())),
        }
    }
    let seed = source.map_or("IMDS".to_string(), |s| s.shown.clone());
    data.detail = format!("DataSourceAzure [seed={seed}]");
    data.subplatform = source.map_or("metadata (IMDS)".into(), |s| s.subplatform.clone());
    data.from_removable_media = source.is_some_and(|s| s.removable);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_swapped_uuids_match() {
        let a = "78563412-3412-7856-9abc-def012345678";
        let b = "12345678-1234-5678-9abc-def012345678";
        assert!(byte_swapped(a, b));
        assert!(!byte_swapped(a, a));
        assert!(!byte_swapped("x", b));
    }
}

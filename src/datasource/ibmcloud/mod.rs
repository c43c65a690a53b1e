//! IBM Cloud (classic, on Xen), as cloud-init's IBMCloud datasource: an instance launched by
//! OS code has a VFAT config drive labelled `config-2` whose UUID is IBM's `9796-932E` (the
//! mark that tells it from an OpenStack drive, which it claims from ConfigDrive); one from an
//! image template, after its provisioning boot, has a volume labelled `METADATA`. Both hold
//! `openstack/latest/` only, read with the OpenStack drive's code. During the provisioning
//! boot (`/root/provisioningConfiguration.cfg` with a `swinstall.log` of this boot, or none)
//! IBM's own agent owns the machine and nothing is done, as ds-identify does. Not done: the
//! `/sys/hypervisor/uuid` instance check (ember's own instance id rule decides first boots).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/ibm.html>

use crate::context::Env;
use crate::datasource::common::openstack_files as files;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::Facts;
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::{json, Map, Value};

pub struct IbmCloud;

/// The UUID of IBM's OS-code config drive.
const IBM_UUID: &str = "9796-932E";
const CONFIG_2: &str = "CONFIG-2";
const METADATA: &str = "METADATA";
const DIR: &str = "openstack/latest";
const PROVISIONING_CFG: &str = "/root/provisioningConfiguration.cfg";
const INSTALL_LOG: &str = "/root/swinstall.log";

/// cloud-init's names for the launch methods, shown as the subplatform.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Platform {
    OsCode,
    TemplateLive,
}

impl Platform {
    fn as_str(self) -> &'static str {
        match self {
            Platform::OsCode => "OS-Code/Live",
            Platform::TemplateLive => "Template/Live/Metadata",
        }
    }
}

/// Xen, as ds-identify's virt check and cloud-init's `/proc/xen` test see it.
fn is_xen(env: &Env) -> bool {
    env.host.path("/proc/xen").exists()
        || std::fs::read_to_string(env.host.path("/sys/hypervisor/type"))
            .is_ok_and(|t| t.trim() == "xen")
}

/// The provisioning boot: IBM's config is there and its install log is not from an earlier
/// boot (newer than PID 1's environment, or absent).
fn is_provisioning(env: &Env) -> bool {
    let Some(root) = env.target.as_ref() else {
        return false;
    };
    if !root.exists(PROVISIONING_CFG) {
        return false;
    }
    if !root.exists(INSTALL_LOG) {
        return true;
    }
    let mtime = |p: std::path::PathBuf| std::fs::symlink_metadata(p).and_then(|m| m.modified());
    let log = env.target_path.join(INSTALL_LOG.trim_start_matches('/'));
    match (mtime(log), mtime(env.host.proc1_environ())) {
        (Ok(log), Ok(boot)) => log > boot,
        _ => false,
    }
}

fn is_ibm_drive(d: &LabelledDevice) -> bool {
    d.has_label(CONFIG_2)
        && d.uuid
            .as_deref()
            .is_some_and(|u| u.eq_ignore_ascii_case(IBM_UUID))
}

/// The drive to read and how the instance was launched, as cloud-init's `get_ibm_platform`
/// chooses: the marked config-2 first, else the first METADATA volume.
fn platform<'f>(env: &Env, facts: &'f Facts) -> Option<(Platform, &'f LabelledDevice)> {
    if !is_xen(env) {
        return None;
    }
    let all = seed_devices(&facts.devices, None, Media::DiscOrFat);
    if let Some(d) = all.iter().find(|d| is_ibm_drive(d)) {
        return Some((Platform::OsCode, d));
    }
    let meta = all.into_iter().find(|d| d.has_label(METADATA))?;
    (!is_provisioning(env)).then_some((Platform::TemplateLive, meta))
}

/// Whether the image's `datasource_list`, if it has one, lets IBM Cloud run.
fn enabled(env: &Env) -> bool {
    env.image
        .datasource_list()
        .is_none_or(|l| l.iter().any(|n| n.eq_ignore_ascii_case("IBMCloud")))
}

impl Datasource for IbmCloud {
    fn name(&self) -> &'static str {
        "ibmcloud"
    }
    fn cloud_init_name(&self) -> &'static str {
        "IBMCloud"
    }
    fn evidence_wanted(&self) -> &'static str {
        "on Xen, a config-2 volume with UUID 9796-932E or a METADATA volume, outside IBM's provisioning boot"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let Some((p, d)) = platform(env, facts) else {
            return Vec::new();
        };
        let uuid = d
            .uuid
            .as_deref()
            .map(|u| format!(" uuid {u}"))
            .unwrap_or_default();
        let detail = format!(
            "{} {} label {}{uuid} on Xen: {}",
            d.dev_name(),
            d.fs,
            d.labels.join(","),
            p.as_str()
        );
        vec![Evidence {
            source: "label".into(),
            detail,
        }]
    }

    /// The marked drive belongs here, not to ConfigDrive, as in cloud-init (which checks for
    /// IBM only where its datasource list names IBMCloud).
    fn claims(&self, env: &Env, _facts: &Facts, dev: &LabelledDevice) -> bool {
        is_ibm_drive(dev) && enabled(env) && is_xen(env)
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let Some((p, dev)) = platform(env, facts) else {
            let msg = "no IBM Cloud drive (config-2 with UUID 9796-932E, or METADATA) on Xen";
            return Err(Diag::error(Reason::NoSeed, msg));
        };
        let name = dev.dev_name();
        let mut vol = SeedVolume::open(env, dev)?;
        let mut data = InstanceData {
            datasource: "ibmcloud".into(),
            from_removable_media: dev.removable,
            ..InstanceData::default()
        };
        let shown = |path: &str| format!("{name}: {path}");
        let mut reads = 0;
        let read = files::read(
            |path| {
                reads += 1;
                vol.read(path)
            },
            DIR,
            shown,
            &mut data,
        )?;
        data.reads = reads;
        apply(read, p, shown, &mut data)?;
        data.detail = format!("DataSourceIBMCloud [{} {name}]", p.as_str());
        data.subplatform = format!("{} ({name})", p.as_str());
        Ok(data)
    }
}

/// The files into `data` as cloud-init's `metadata_from_dir` keeps them: of meta_data.json
/// only `public-keys`, `local-hostname` and `instance-id` (renamed); `random_seed` is not
/// kept (entropy for this instance alone, and ember seeds no RNG from it). The network config
/// is network_data.json for OS code; after a template's provisioning IBM's agent has set the
/// network up, so cloud-init's is disabled.
fn apply(
    f: files::Files,
    p: Platform,
    shown: impl Fn(&str) -> String,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let file = |name: &str| shown(&format!("{DIR}/{name}"));
    let md_file = file("meta_data.json");
    let Value::Object(raw) = files::parse_json(&f.meta_data, &md_file)? else {
        return Err(Diag::error(Reason::WrongType, "must be a JSON object").file(md_file));
    };
    let mut md = Map::new();
    for (from, to) in [
        ("public_keys", "public-keys"),
        ("hostname", "local-hostname"),
        ("uuid", "instance-id"),
    ] {
        if let Some(v) = raw.get(from) {
            md.insert(to.into(), v.clone());
        }
    }
    let Some(id) = md
        .get("instance-id")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
    else {
        let d = Diag::error(Reason::OpenstackNoUuid, "missing or not a string");
        return Err(d.key("uuid").file(md_file));
    };
    data.instance_id = id.to_string();
    data.meta_data = Value::Object(md);
    data.user_data = f.user_data.map(Secret::new);
    let warn = |mut d: Diag, data: &mut InstanceData| {
        d.severity = Severity::Warning;
        data.diags.push(d);
    };
    if let Some(bytes) = f.vendor_data {
        let name = file("vendor_data.json");
        match files::parse_json(&bytes, &name).and_then(|v| files::vendor_data(v, &name)) {
            Ok(vd) => data.vendor_data = vd.map(|s| Secret::new(s.into_bytes())),
            Err(d) => warn(d, data),
        }
    }
    if p != Platform::OsCode {
        let why = format!("{}: networking is set up by IBM's provisioning", p.as_str());
        data.network_config = Some((why, json!({"version": 1, "config": "disabled"})));
        return Ok(());
    }
    if let Some(bytes) = f.network_data {
        let name = file("network_data.json");
        match files::parse_json(&bytes, &name) {
            Ok(v @ Value::Object(_)) => data.network_config = Some((name, v)),
            Ok(_) => warn(
                Diag::error(Reason::WrongType, "must be a JSON object").file(name),
                data,
            ),
            Err(d) => warn(d, data),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(md: Value) -> files::Files {
        files::Files {
            meta_data: md.to_string().into_bytes(),
            network_data: Some(br#"{"links": [], "networks": []}"#.to_vec()),
            vendor_data: Some(br##"{"cloud-init": "#!/bin/sh\necho vd"}"##.to_vec()),
            ..files::Files::default()
        }
    }

    #[test]
    fn only_the_renamed_keys_are_meta_data() {
        let md = json!({"uuid": "ibm-1", "hostname": "vsi", "public_keys": {"1": "ssh-rsa A"},
                        "random_seed": "c2VlZA==", "name": "vsi", "domain": "example.com"});
        let mut data = InstanceData::default();
        apply(files(md), Platform::OsCode, |p| p.into(), &mut data).unwrap();
        assert_eq!(
            data.meta_data,
            json!({"instance-id": "ibm-1", "local-hostname": "vsi",
                   "public-keys": {"1": "ssh-rsa A"}})
        );
        assert_eq!(data.instance_id, "ibm-1");
        let vd = data.vendor_data.as_ref().unwrap().expose().clone();
        assert_eq!(vd, b"#!/bin/sh\necho vd");
        assert_eq!(data.network_config.as_ref().unwrap().1["links"], json!([]));
    }

    #[test]
    fn template_disables_network_and_no_uuid_fails() {
        let mut data = InstanceData::default();
        let md = json!({"uuid": "ibm-2"});
        apply(files(md), Platform::TemplateLive, |p| p.into(), &mut data).unwrap();
        assert_eq!(data.network_config.unwrap().1["config"], "disabled");
        let mut data = InstanceData::default();
        let err = apply(
            files(json!({"hostname": "h"})),
            Platform::OsCode,
            |p| p.into(),
            &mut data,
        )
        .unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.key.as_deref()),
            ("openstack-no-uuid", Some("uuid"))
        );
    }
}

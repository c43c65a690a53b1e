//! OVF: cloud-init's DataSourceOVF as upstream has it since VMware's guest customization
//! moved to DataSourceVMware: the OVF environment from the seed directory
//! (`/var/lib/cloud/seed/ovf/`, then its parent), else `guestinfo.ovfEnv` (read with
//! `vmware-rpctool` on VMware), else a CD (an ISO9660 volume on `sr*`, `hd*` or `xvd*` holding
//! `ovf-env.xml`), read in-process with no mount; then a `seedfrom` path (`/…` or `file://…`)
//! in the target. Detection is ds-identify's. Not here: `seedfrom` URLs (cloud-init's OVFNet,
//! which needs the network; an error names them), the properties' meaning (`ovf_env.rs`).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/ovf.html>

use super::guestinfo::Transport;
use super::ovf_env::{self, OvfEnv};
use super::rpctool::Rpctool;
use crate::context::Env;
use crate::datasource::common::seed::{self, FileRead};
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::Facts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::{json, Value};

pub struct Ovf;

/// Where ds-identify looks for the environment (and so where ember detects it): `seed/ovf`
/// of the cloud dir. DataSourceOVF itself reads the seed directory's parent
/// (`paths.seed_dir`), where ds-identify does not look: both are read, ds-identify's first.
fn seed_dirs() -> [String; 2] {
    let paths = crate::paths::system();
    [paths.seed("ovf"), paths.cloud("seed")]
}
/// The names cloud-init looks for, in its order.
const NAMES: [&str; 4] = ["ovf-env.xml", "ovf_env.xml", "OVF_ENV.XML", "OVF-ENV.XML"];
/// Labels ds-identify takes as an OVF transport at once.
const LABELS: [&str; 6] = [
    "OVF-TRANSPORT",
    "ovf-transport",
    "OVFENV",
    "ovfenv",
    "OVF ENV",
    "ovf env",
];
/// ds-identify looks no further on a disc of this size or more.
const MAX_DISC_BYTES: u64 = 10 << 20;

/// Where the environment came from: cloud-init's seed names, and the document.
struct Found {
    seed: String,
    shown: String,
    xml: Vec<u8>,
    /// Only the transports carry a network config, as in cloud-init.
    read_network: bool,
    removable: bool,
}

/// cloud-init's `maybe_cdrom_device`: `sr0`, `hda`, `xvdb` (the udev cdrom rule's names).
fn cdrom_name(name: &str) -> bool {
    let tail_digits = |p: &str| {
        name.strip_prefix(p)
            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
    };
    let hd = name.len() == 3 && name.starts_with("hd") && name.as_bytes()[2].is_ascii_lowercase();
    tail_digits("sr") || hd || name.starts_with("xvd")
}

/// The ISO9660 discs cloud-init's iso transport tries.
fn discs(facts: &Facts) -> Vec<&LabelledDevice> {
    seed_devices(&facts.devices, None, Media::Disc)
        .into_iter()
        .filter(|d| d.fs == "iso9660" && cdrom_name(&d.name))
        .collect()
}

/// One of the names on the disc, with the name it was found under.
fn read_disc(env: &Env, dev: &LabelledDevice) -> Result<Option<(&'static str, Vec<u8>)>, Diag> {
    let mut vol = SeedVolume::open(env, dev)?;
    for name in NAMES {
        if let Some(xml) = vol.read_file(name)? {
            return Ok(Some((name, xml)));
        }
    }
    Ok(None)
}

/// ds-identify's `is_cdrom_ovf`: a known OVF label; else, when the label is not another
/// datasource's and the disc is under 10 MB, the environment's namespace in it (ds-identify
/// greps the device; ember reads the file by name, which is where the namespace would be).
fn disc_evidence(env: &Env, dev: &LabelledDevice) -> Option<String> {
    if !dev.name.starts_with("sr") && !dev.name.starts_with("hd") {
        return None;
    }
    if let Some(l) = dev.labels.iter().find(|l| LABELS.contains(&l.as_str())) {
        return Some(format!("{} label {l}", dev.dev_name()));
    }
    let other = ["config-2", "cidata"].iter().any(|l| dev.has_label(l))
        || dev.labels.iter().any(|l| l.starts_with("rd_rdfe_stable"));
    let size = std::fs::read_to_string(env.host.sys_block().join(&dev.name).join("size")).ok()?;
    let bytes = size.trim().parse::<u64>().ok()?.saturating_mul(512);
    if other || bytes >= MAX_DISC_BYTES {
        return None;
    }
    let (name, xml) = read_disc(env, dev).ok()??;
    ovf_env::looks_like(&xml).then(|| format!("{}: {name} (an OVF environment)", dev.dev_name()))
}

/// `guestinfo.ovfEnv` on VMware, when it holds XML (ds-identify's test).
fn guestinfo_env(env: &Env, facts: &Facts) -> Option<(String, Vec<u8>)> {
    super::vmware_dmi(&facts.dmi)?;
    let mut rpc = Rpctool::find(env)?;
    let value = rpc.get("ovfEnv").ok()??.into_inner();
    let xml = value.starts_with("<?xml") || value.starts_with("<?XML");
    xml.then(|| (rpc.program().to_string(), value.into_bytes()))
}

fn is_azure(facts: &Facts) -> bool {
    facts.dmi.get("chassis_asset_tag") == Some(crate::datasource::common::AZURE_CHASSIS_ASSET_TAG)
}

impl Datasource for Ovf {
    fn name(&self) -> &'static str {
        "ovf"
    }
    fn cloud_init_name(&self) -> &'static str {
        "OVF"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, None);
        let seed = format!("{}/{}", seed_dirs()[0], NAMES[0]);
        if env.target.as_ref().is_some_and(|t| t.exists(&seed)) {
            ev.push(super::evidence("seed", seed));
        }
        // Azure's media carry an ovf-env.xml too: not an OVF transport there.
        if !ev.is_empty() || is_azure(facts) {
            return ev;
        }
        if let Some((tool, _)) = guestinfo_env(env, facts) {
            ev.push(super::evidence(
                "guestinfo",
                format!("guestinfo.ovfEnv via {tool}"),
            ));
            return ev;
        }
        let disc = facts
            .devices
            .iter()
            .filter(|d| d.fs == "iso9660")
            .find_map(|d| disc_evidence(env, d));
        ev.extend(disc.map(|why| super::evidence("label", why)));
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "ovf".into(),
            platform: Some("ovf".into()),
            ..InstanceData::default()
        };
        let found = find(env, facts, &mut data)?;
        let limits = env.limits();
        let parsed = ovf_env::parse(
            &found.xml,
            &found.shown,
            found.read_network,
            limits,
            &mut data.diags,
        )?;
        let OvfEnv {
            mut meta_data,
            mut user_data,
            password,
            network_config,
        } = parsed;
        let mut seeds = vec![found.seed];
        let mut vendor_data = None;
        if let Some(from) = meta_data.get("seedfrom").and_then(Value::as_str) {
            let from = from.to_string();
            let (md, ud, vd) = read_seedfrom(env, &from, &mut data)?;
            // The environment's keys win over the seed's; the seed's user-data replaces it.
            for (k, v) in md {
                meta_data.entry(k).or_insert(v);
            }
            (user_data, vendor_data) = (ud, vd);
            seeds.push(from);
        }
        meta_data
            .entry("instance-id")
            .or_insert_with(|| json!("iid-dsovf"));
        data.instance_id = meta_data["instance-id"]
            .as_str()
            .map_or_else(|| meta_data["instance-id"].to_string(), str::to_string);
        data.meta_data = Value::Object(meta_data);
        data.user_data = user_data;
        data.vendor_data = vendor_data;
        data.config = password.and_then(|p| platform_password(p, &found.shown, &mut data.diags));
        data.network_config =
            network_config.map(|n| (format!("{}: network-config", found.shown), n));
        data.from_removable_media = found.removable;
        let seed = seeds.join(",");
        data.detail = format!("DataSourceOVF [seed={seed}]");
        data.subplatform = format!("ovf ({seed})");
        Ok(data)
    }
}

/// The `password` property as cloud-config's `password` (cloud-init's `get_config_obj`), set by
/// set_passwords for the default user: hashed here at once, as Azure's, so only the hash is
/// kept; `RANDOM` and a value that is a hash already go on as they are, to mean what they mean
/// there.
fn platform_password(plain: Secret<String>, shown: &str, diags: &mut Vec<Diag>) -> Option<Value> {
    let given = plain.expose().as_str();
    if matches!(given, "R" | "RANDOM") || crate::password::looks_hashed(given) {
        return Some(json!({ "password": given }));
    }
    match crate::password::hash(&plain) {
        Some(hash) => Some(json!({ "password": hash.expose() })),
        None => {
            let msg = "no randomness to salt the hash: password not set";
            diags.push(
                Diag::error(Reason::PasswordFailed, msg)
                    .file(shown)
                    .key("password"),
            );
            None
        }
    }
}

/// The seed directory, then `guestinfo.ovfEnv`, then the discs, as cloud-init's order.
fn find(env: &Env, facts: &Facts, data: &mut InstanceData) -> Result<Found, Diag> {
    let seeds = seed_dirs()
        .into_iter()
        .flat_map(|d| NAMES.map(|n| format!("{d}/{n}")));
    if let Some(target) = env.target.as_ref() {
        for path in seeds {
            match target.read_file(&path, env.limits().file_bytes) {
                Ok(Some(xml)) => {
                    data.reads += 1;
                    let (seed, shown) = (path.clone(), path);
                    let (read_network, removable) = (false, false);
                    return Ok(Found {
                        seed,
                        shown,
                        xml,
                        read_network,
                        removable,
                    });
                }
                Ok(None) => {}
                Err(e) => data.diags.push(Diag::from(e).file(path)),
            }
        }
    }
    if !is_azure(facts) {
        if let Some((_, xml)) = guestinfo_env(env, facts) {
            data.reads += 1;
            let seed = "com.vmware.guestInfo".to_string();
            let shown = "guestinfo.ovfEnv".to_string();
            return Ok(Found {
                seed,
                shown,
                xml,
                read_network: true,
                removable: false,
            });
        }
    }
    for dev in discs(facts) {
        data.reads += 1;
        match read_disc(env, dev) {
            Ok(Some((name, xml))) => {
                let shown = format!("{}: {name}", dev.dev_name());
                let seed = "iso".to_string();
                return Ok(Found {
                    seed,
                    shown,
                    xml,
                    read_network: true,
                    removable: dev.removable,
                });
            }
            Ok(None) => {}
            Err(mut d) => {
                d.severity = crate::error::Severity::Warning;
                data.diags.push(d);
            }
        }
    }
    Err(Diag::error(
        Reason::NoSeed,
        "no OVF environment (ovf-env.xml) found",
    ))
}

type Seeded = (
    serde_json::Map<String, Value>,
    Option<Secret<Vec<u8>>>,
    Option<Secret<Vec<u8>>>,
);

/// A `seedfrom` path: a NoCloud seed (`meta-data`, `user-data`, `vendor-data`) in the target.
fn read_seedfrom(env: &Env, from: &str, data: &mut InstanceData) -> Result<Seeded, Diag> {
    let Some(dir) = from
        .strip_prefix("file://")
        .or(Some(from).filter(|f| f.starts_with('/')))
    else {
        let msg = "seedfrom is not a path (/… or file://…): a URL needs cloud-init's OVFNet, which ember does not have";
        return Err(Diag::error(Reason::SeedUnreachable, msg).key("seedfrom"));
    };
    let dir = dir.trim_end_matches('/').to_string();
    let Some(target) = env.target.as_ref() else {
        let msg = "seedfrom names a path, and the target root is not there to read it";
        return Err(Diag::error(Reason::SeedUnreachable, msg).file(dir));
    };
    let max = env.limits().file_bytes;
    let reads = &mut data.reads;
    let read = |name: &str| {
        *reads += 1;
        let path = format!("{dir}/{name}");
        match target.read_file(&path, max) {
            Ok(Some(d)) => FileRead::Found(d),
            Ok(None) => FileRead::Absent,
            Err(e) => FileRead::Failed(Diag::from(e).file(path)),
        }
    };
    let Some(raw) = seed::read(read, &dir, &mut data.diags) else {
        return Err(Diag::error(Reason::SeedIncomplete, "seedfrom holds no usable seed").file(dir));
    };
    let md = match raw.meta_data.as_deref() {
        Some(md) => seed::parse_mapping(md, &format!("{dir}/meta-data"), env.limits())?,
        None => Value::Null,
    };
    // parse_mapping returns a mapping or an error.
    let md = match md {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    Ok((
        md,
        raw.user_data.map(Secret::new),
        raw.vendor_data.map(Secret::new),
    ))
}

#[cfg(test)]
mod tests {
    use super::cdrom_name;

    #[test]
    fn cdrom_names_as_cloud_init() {
        for n in ["sr0", "sr12", "hda", "xvdb", "xvda1"] {
            assert!(cdrom_name(n), "{n}");
        }
        for n in ["sr", "vda", "hda1", "sda", "nvme0n1", "srx"] {
            assert!(!cdrom_name(n), "{n}");
        }
    }
}

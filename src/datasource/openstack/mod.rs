//! OpenStack: the config drive (a volume labelled `config-2`, read in-process, no mount;
//! cloud-init's ConfigDrive) and the metadata service at 169.254.169.254 (cloud-init's
//! OpenStack, allowed only on DMI evidence, the command line or the image's sole
//! datasource), reached through ember's own DHCP lease when no route does. Both read
//! `openstack/<version>/` with the newest version ember knows; the older `ec2/` tree is not
//! read. <https://docs.cloud-init.io/en/latest/reference/datasources/openstack.html>
//! <https://docs.cloud-init.io/en/latest/reference/datasources/configdrive.html>

mod http;
mod injected;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::openstack_files::{self as files, choose_version};
use crate::datasource::common::seed::FileRead;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::dmi::Dmi;
use crate::detect::Facts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::Evidence;
use serde_json::Value;

pub struct ConfigDrive;
pub struct OpenStack;

const LABEL: &str = "config-2";
/// Config drives copied into the image (the target root), read before any volume, as
/// cloud-init's ConfigDrive does: IBM's older images mount theirs on the second.
fn seed_dir_candidates() -> [String; 2] {
    [
        crate::paths::system().seed("config_drive"),
        "/config-drive".to_string(),
    ]
}
const DEFAULT_BASE: &str = "http://169.254.169.254";
/// cloud-init's OpenStack default.
const DEFAULT_RETRIES: u32 = 5;

fn evidence(source: &str, detail: String) -> Evidence {
    Evidence {
        source: source.into(),
        detail,
    }
}

fn named_on_cmdline(facts: &Facts, name: &str) -> Option<String> {
    let (param, hint) = facts.cmdline_ds.as_ref()?;
    (hint.name == name).then(|| param.clone())
}

/// The config-2 volumes, less those another cloud claims (IBM Cloud's marked drive, which
/// cloud-init's ConfigDrive leaves alone too).
fn drives<'f>(env: &Env, facts: &'f Facts) -> Vec<&'f LabelledDevice> {
    let mut found = seed_devices(&facts.devices, Some(LABEL), Media::DiscOrFat);
    found.retain(|d| !crate::datasource::claimed_elsewhere(env, facts, "configdrive", d));
    found
}

/// The seed directories holding a config drive, each with the version it would be read at
/// (one whose `openstack/<version>/meta_data.json` exists).
fn seed_dirs(env: &Env) -> Vec<(String, &'static str)> {
    let Some(root) = env.target.as_ref() else {
        return Vec::new();
    };
    seed_dir_candidates()
        .into_iter()
        .filter_map(|dir| {
            let listing = root.list_dir(&format!("{dir}/openstack")).ok()?;
            let version = choose_version(listing.iter().map(String::as_str));
            root.exists(&format!("{dir}/openstack/{version}/meta_data.json"))
                .then_some((dir, version))
        })
        .collect()
}

impl Datasource for ConfigDrive {
    fn name(&self) -> &'static str {
        "configdrive"
    }
    fn cloud_init_name(&self) -> &'static str {
        "ConfigDrive"
    }
    fn evidence_wanted(&self) -> &'static str {
        "a volume labelled config-2 (not IBM Cloud's), or openstack/<version>/meta_data.json under /var/lib/cloud/seed/config_drive or /config-drive"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let dirs = seed_dirs(env).into_iter().map(|(dir, version)| {
            evidence(
                "seed-dir",
                format!("{dir}/openstack/{version}/meta_data.json"),
            )
        });
        let mut ev: Vec<Evidence> = dirs
            .chain(drives(env, facts).into_iter().map(|d| {
                let detail = format!("{} {} label {}", d.dev_name(), d.fs, d.labels.join(","));
                evidence("label", detail)
            }))
            .collect();
        // Named on the command line without a drive, it still has nothing to read.
        if !ev.is_empty() {
            if let Some(param) = named_on_cmdline(facts, "configdrive") {
                ev.push(evidence("cmdline", param));
            }
        }
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let mut last = Diag::error(Reason::NoSeed, format!("no volume labelled {LABEL}"));
        for (dir, version) in seed_dirs(env) {
            match read_seed_dir(env, &dir, version) {
                Ok(data) => return Ok(data),
                Err(e) => last = e,
            }
        }
        for dev in drives(env, facts) {
            match read_drive(env, dev) {
                Ok(data) => return Ok(data),
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}

/// A drive copied into the image's `dir`, at `version`: read as a volume is.
fn read_seed_dir(env: &Env, dir: &str, version: &str) -> Result<InstanceData, Diag> {
    let Some(root) = env.target.as_ref() else {
        return Err(Diag::error(
            Reason::NoSeed,
            format!("{dir}: no target root"),
        ));
    };
    let max = env.limits().file_bytes;
    let mut reads = 0;
    let mut get = |path: &str| {
        reads += 1;
        let full = format!("{dir}/{path}");
        match root.read_file(&full, max) {
            Ok(Some(d)) => FileRead::Found(d),
            Ok(None) => FileRead::Absent,
            Err(e) => FileRead::Failed(Diag::from(e).file(full)),
        }
    };
    let mut data = InstanceData {
        datasource: "configdrive".into(),
        platform: Some("openstack".into()),
        ..InstanceData::default()
    };
    let shown = |path: &str| format!("{dir}/{path}");
    let tree = format!("openstack/{version}");
    let read = files::read(&mut get, &tree, shown, &mut data);
    files::apply(read?, &tree, shown, &mut data)?;
    let md = data.meta_data.clone();
    let md_file = shown(&format!("{tree}/meta_data.json"));
    injected::read(&md, &mut get, &md_file, &mut data);
    data.reads = reads;
    data.detail = format!("DataSourceConfigDrive [local,ver=2][source={dir}]");
    data.subplatform = format!("seed-dir ({dir})");
    Ok(data)
}

/// One drive: the newest version listed under `openstack/`, its files.
fn read_drive(env: &Env, dev: &LabelledDevice) -> Result<InstanceData, Diag> {
    let name = dev.dev_name();
    let mut vol = SeedVolume::open(env, dev)?;
    let listing = vol.list_dir("openstack")?;
    let version = choose_version(listing.iter().map(String::as_str));
    let mut data = InstanceData {
        datasource: "configdrive".into(),
        platform: Some("openstack".into()),
        from_removable_media: dev.removable,
        ..InstanceData::default()
    };
    let shown = |path: &str| format!("{name}: {path}");
    let mut reads = 1;
    let get = |path: &str| {
        reads += 1;
        vol.read(path)
    };
    let dir = format!("openstack/{version}");
    let read = files::read(get, &dir, shown, &mut data);
    files::apply(read?, &dir, shown, &mut data)?;
    let md = data.meta_data.clone();
    let md_file = shown(&format!("{dir}/meta_data.json"));
    injected::read(
        &md,
        |p| {
            reads += 1;
            vol.read(p)
        },
        &md_file,
        &mut data,
    );
    data.reads = reads;
    data.detail = format!("DataSourceConfigDrive [local,ver=2][source={name}]");
    data.subplatform = format!("config-disk ({name})");
    Ok(data)
}

impl Datasource for OpenStack {
    fn name(&self) -> &'static str {
        "openstack"
    }
    fn cloud_init_name(&self) -> &'static str {
        "OpenStack"
    }

    /// Nova's product name, as the product or the asset tag (ds-identify takes both), or an
    /// OpenStack cloud's own asset tag. `sys_vendor` "OpenStack Foundation" alone is not a sign
    /// cloud-init reads, so neither does ember.
    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        const NOVA: [&str; 2] = ["OpenStack Nova", "OpenStack Compute"];
        const TAGS: [&str; 4] = [
            "OpenTelekomCloud",
            "HUAWEICLOUD",
            "SAP CCloud VM",
            "Samsung Cloud Platform",
        ];
        let signs = [
            ("product_name", &NOVA[..]),
            ("chassis_asset_tag", &TAGS[..]),
            ("chassis_asset_tag", &NOVA[..]),
        ];
        signs.iter().find_map(|(field, values)| {
            let value = dmi.fields.get(*field)?;
            values
                .contains(&value.as_str())
                .then(|| format!("{field}={value}"))
        })
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let nova = self.dmi(&facts.dmi).map(|why| format!("OpenStack ({why})"));
        crate::datasource::selection_evidence(env, facts, self, nova)
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "openstack".into(),
            ..InstanceData::default()
        };
        let bases = service_bases(env);
        let client = Client::at(
            env,
            "OpenStack",
            bases[0].trim_end_matches('/'),
            DEFAULT_RETRIES,
        )
        .every_attempt();
        let service = client.service_to(env, bases.clone());
        let result = client.reach(env, link, &service, &mut data, |client, attempt, _| {
            read_service(client, &bases, attempt)
        });
        // cloud-init's OpenStack (not its ConfigDrive): `apply_network_config: false` leaves
        // network_data.json unused, the network to the fallback.
        let apply = env.image.datasource_settings("OpenStack");
        let apply = apply.and_then(|c| c.get("apply_network_config"));
        if apply.and_then(Value::as_bool) == Some(false) {
            data.network_config = None;
        }
        result.map(|()| data)
    }
}

/// `ember.metadata-url=` or the image's `metadata_urls`, else Nova's address (`max_wait`,
/// `timeout` and `retries` are the client's, from the image, bounded by ember's limits).
fn service_bases(env: &Env) -> Vec<String> {
    let cfg = env.image.datasource_settings("OpenStack");
    match crate::cmdline::metadata_url(env.cmdline) {
        Some(url) => vec![url.to_string()],
        None => cfg
            .and_then(|c| c.get("metadata_urls"))
            .and_then(Value::as_array)
            .map(|u| {
                u.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| vec![DEFAULT_BASE.to_string()]),
    }
}

/// Everything ember uses from the service, into `data`.
fn read_service(client: &Client, bases: &[String], data: &mut InstanceData) -> Result<(), Diag> {
    let (base, listing) = http::connect(
        client.fetcher(),
        bases,
        client.wait_until(),
        &mut data.reads,
    )?;
    client.set_base(&base);
    // Once Nova answered, a file's attempts are counted and may take the whole deadline.
    client.set_wait_until(client.deadline());
    let version = choose_version(listing.lines());
    let base = client.shown("");
    let shown = |path: &str| format!("{base}/{path}");
    let dir = format!("openstack/{version}");
    let mut reads = 0;
    let read = files::read(|p| http::get(client, p, &mut reads), &dir, shown, data);
    data.reads += reads;
    files::apply(read?, &dir, shown, data)?;
    data.detail = format!("DataSourceOpenStack [net,ver=2][source={base}]");
    data.subplatform = format!("metadata ({base})");
    Ok(())
}

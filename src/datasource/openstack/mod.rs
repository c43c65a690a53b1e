//! OpenStack: the config drive (a volume labelled `config-2`, read in-process, no mount;
//! cloud-init's ConfigDrive) and the metadata service at 169.254.169.254 (cloud-init's
//! OpenStack, allowed only on DMI evidence, the command line or the image's sole
//! datasource), reached through ember's own DHCP lease when no route does. Both read
//! `openstack/<version>/` with the newest version ember knows; the older `ec2/` tree is not
//! read. <https://docs.cloud-init.io/en/latest/reference/datasources/openstack.html>
//! <https://docs.cloud-init.io/en/latest/reference/datasources/configdrive.html>

pub(crate) mod files;
mod http;
mod injected;

use crate::context::Env;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::link::{Link, Service as LinkService};
use crate::datasource::{Datasource, InstanceData};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::dmi::Dmi;
use crate::detect::Facts;
use crate::error::Diag;
use crate::fetch::Fetcher;
use crate::reason::Reason;
use crate::status::Evidence;
use files::choose_version;
use http::{Service, Settings};
use serde_json::Value;

pub struct ConfigDrive;
pub struct OpenStack;

const LABEL: &str = "config-2";
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

impl Datasource for ConfigDrive {
    fn name(&self) -> &'static str {
        "configdrive"
    }
    fn cloud_init_name(&self) -> &'static str {
        "ConfigDrive"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev: Vec<Evidence> = drives(env, facts)
            .into_iter()
            .map(|d| {
                let detail = format!("{} {} label {}", d.dev_name(), d.fs, d.labels.join(","));
                evidence("label", detail)
            })
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
        for dev in drives(env, facts) {
            match read_drive(env, dev) {
                Ok(data) => return Ok(data),
                Err(e) => last = e,
            }
        }
        Err(last)
    }
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
        const TAGS: [&str; 3] = ["OpenTelekomCloud", "HUAWEICLOUD", "SAP CCloud VM"];
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
        let s = service_settings(env);
        let service = LinkService::metadata(env, s.bases.clone(), s.request_timeout, s.deadline);
        let result = link.reach(env, &service, &mut data, |attempt, via| {
            let s = Settings {
                bases: s.bases.clone(),
                wait_until: via.wait_until,
                ..s
            };
            read_service(env, &s, attempt)
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

/// `ember.metadata-url=` or the image's `metadata_urls`, else Nova's address; `max_wait`,
/// `timeout` and `retries` from the image, bounded by ember's limits.
fn service_settings(env: &Env) -> Settings {
    let limits = env.limits();
    let cfg = env.image.datasource_settings("OpenStack");
    let bases = match crate::cmdline::metadata_url(env.cmdline) {
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
    };
    let (request_timeout, deadline, retries) =
        crate::datasource::common::metadata_get::timing(env, "OpenStack", DEFAULT_RETRIES);
    Settings {
        bases,
        wait_until: deadline,
        deadline,
        request_timeout,
        retries,
        max_bytes: limits.file_bytes,
    }
}

/// Everything ember uses from the service, into `data`.
fn read_service(env: &Env, s: &Settings, data: &mut InstanceData) -> Result<(), Diag> {
    let fetcher = Fetcher::with_deadline(env, s.request_timeout, s.deadline);
    let (mut service, listing) = Service::connect(fetcher, s, &mut data.reads)?;
    let version = choose_version(listing.lines());
    let base = crate::fetch::redact_url(service.base()).to_string();
    let shown = |path: &str| format!("{base}/{path}");
    let dir = format!("openstack/{version}");
    let read = files::read(|p| service.get(p), &dir, shown, data);
    data.reads += service.reads;
    files::apply(read?, &dir, shown, data)?;
    data.detail = format!("DataSourceOpenStack [net,ver=2][source={base}]");
    data.subplatform = format!("metadata ({base})");
    Ok(())
}

//! NoCloud: a seed of meta-data, user-data, vendor-data and network-config, from the SMBIOS
//! serial, the command line, a seed directory, the image config, a `cidata` volume, or a
//! `seedfrom` URL, with cloud-init's precedence.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/nocloud.html>

use crate::cmdline::DsHint;
use crate::config::merge::merge_replace;
use crate::context::Env;
use crate::datasource::common::seed::{self, FileRead, RawSeed};
use crate::datasource::common::seed_volume::{self, Media, SeedVolume};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::Facts;
use crate::error::Diag;
use crate::fetch::{FetchError, Fetcher, UrlReader};
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::{json, Map, Value};

pub struct NoCloud;

/// cloud-init's NoCloud seed directories in the image's cloud dir, in ds-identify's order.
/// Ubuntu Core keeps /var/lib/cloud on its writable partition and bind-mounts it later in the
/// boot: its seed is still where the image put it.
fn seed_dirs() -> [String; 4] {
    let paths = crate::paths::system();
    let (nocloud, net) = (paths.seed("nocloud"), paths.seed("nocloud-net"));
    let core = |dir: &str| format!("/writable/system-data{dir}");
    let (core_nocloud, core_net) = (core(&nocloud), core(&net));
    [nocloud, core_nocloud, net, core_net]
}

fn is_nocloud(hint: &DsHint) -> bool {
    hint.name == "nocloud" || hint.name == "nocloud-net"
}

fn settings<'a>(env: &Env<'a>) -> Option<&'a Value> {
    env.image.datasource_settings("NoCloud")
}

/// The volume label to look for: `fs_label` from the image config, else `cidata`; null disables.
fn fs_label(env: &Env) -> Option<String> {
    match settings(env).and_then(|s| s.get("fs_label")) {
        Some(Value::String(label)) => Some(label.clone()),
        Some(Value::Null) => None,
        _ => Some("cidata".to_string()),
    }
}

fn seed_devices<'a>(env: &Env, facts: &'a Facts) -> Vec<&'a LabelledDevice> {
    let Some(label) = fs_label(env) else {
        return Vec::new();
    };
    seed_volume::seed_devices(&facts.devices, Some(&label), Media::DiscOrFat)
}

impl Datasource for NoCloud {
    fn name(&self) -> &'static str {
        "nocloud"
    }
    fn cloud_init_name(&self) -> &'static str {
        "NoCloud"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = Vec::new();
        let mut add = |source: &str, detail: String| {
            ev.push(Evidence {
                source: source.into(),
                detail,
            })
        };
        if let Some(hint) = facts.serial_ds.as_ref().filter(|h| is_nocloud(h)) {
            add("smbios-serial", format!("product_serial ds={}", hint.name));
        }
        if let Some((param, _)) = facts.cmdline_ds.as_ref().filter(|(_, h)| is_nocloud(h)) {
            add("cmdline", param.clone());
        }
        for dir in seed_dirs() {
            if env
                .target
                .as_ref()
                .is_some_and(|t| t.exists(&format!("{dir}/meta-data")))
            {
                add("seed-dir", dir.clone());
            }
        }
        if let Some(s) = settings(env) {
            if s.get("seedfrom").is_some()
                || (s.get("user-data").is_some() && s.get("meta-data").is_some())
            {
                add(
                    "config",
                    "datasource.NoCloud in the image config".to_string(),
                );
            }
        }
        for dev in seed_devices(env, facts) {
            add(
                "label",
                format!(
                    "{} {} label {}",
                    dev.dev_name(),
                    dev.fs,
                    dev.labels.join(",")
                ),
            );
        }
        ev
    }

    /// A seedfrom URL without a default route is read over a lease of its own (not `_link`,
    /// which reaches link-local metadata services).
    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        Collector::new(env, facts).run()
    }
}

/// The instance a seed directory alone gives, as the boot reads it from a seed directory or
/// volume with no hints besides: what `pcr-predict` measures.
pub fn from_dir(env: &Env, dir: &std::path::Path) -> Result<InstanceData, Diag> {
    let facts = Facts::default();
    let mut collector = Collector::new(env, &facts);
    let where_ = dir.display().to_string();
    let max = env.limits().file_bytes;
    let mut diags = Vec::new();
    let raw = seed::read(
        |name| {
            let path = dir.join(name);
            match std::fs::metadata(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileRead::Absent,
                Ok(m) if m.len() > max => FileRead::Failed(
                    Diag::error(Reason::BudgetExceeded, format!("larger than {max} bytes"))
                        .file(path.display().to_string()),
                ),
                _ => match std::fs::read(&path) {
                    Ok(d) => FileRead::Found(d),
                    Err(e) => FileRead::Failed(
                        Diag::error(Reason::SeedUnreadable, e.to_string())
                            .file(path.display().to_string()),
                    ),
                },
            }
        },
        &where_,
        &mut diags,
    );
    if let Some(d) = diags.into_iter().find(|d| d.is_error()) {
        return Err(d);
    }
    let raw = raw.ok_or_else(|| {
        Diag::error(Reason::NoSeed, "not a seed: no meta-data or user-data").file(where_.clone())
    })?;
    collector.add_seed(raw, &where_);
    collector.finish()
}

/// Gathers the seed in cloud-init's order, merging as `_merge_new_seed` does: meta-data found
/// earlier wins key by key; user-data, vendor-data and network-config are replaced.
struct Collector<'a> {
    env: &'a Env<'a>,
    facts: &'a Facts,
    meta: Value,
    found: Vec<String>,
    data: InstanceData,
}

impl<'a> Collector<'a> {
    fn new(env: &'a Env<'a>, facts: &'a Facts) -> Collector<'a> {
        Collector {
            env,
            facts,
            meta: Value::Object(Map::new()),
            found: Vec::new(),
            data: InstanceData {
                datasource: "nocloud".into(),
                ..InstanceData::default()
            },
        }
    }

    fn file_name(&self, where_: &str, name: &str) -> String {
        format!("{where_}: {name}")
    }

    /// Earlier meta-data wins: the new seed's values only fill what is not set yet.
    fn add_meta(&mut self, new: Value) {
        let mut merged = new;
        merge_replace(&mut merged, std::mem::take(&mut self.meta));
        self.meta = merged;
    }

    fn add_hint(&mut self, hint: &DsHint, found: &str) {
        let mut md = Map::new();
        for (k, v) in &hint.settings {
            md.insert(k.clone(), Value::String(v.clone()));
        }
        self.add_meta(Value::Object(md));
        self.found.push(found.into());
    }

    fn add_seed(&mut self, raw: RawSeed, where_: &str) {
        let limits = self.env.limits();
        if let Some(md) = &raw.meta_data {
            match seed::parse_mapping(md, &self.file_name(where_, "meta-data"), limits) {
                Ok(v) => self.add_meta(v),
                Err(d) => self.data.diags.push(d),
            }
        }
        if let Some(nc) = raw.network_config.filter(|n| !n.is_empty()) {
            let file = self.file_name(where_, "network-config");
            match seed::parse_mapping_doc(&nc, &file, limits) {
                Ok(doc) => {
                    self.data.network_config = Some((file, doc.value));
                    self.data.network_config_lines = doc.lines;
                }
                Err(d) => self.data.diags.push(d),
            }
        }
        if let Some(ud) = raw.user_data {
            self.data.user_data = Some(Secret::new(ud));
        }
        if let Some(vd) = raw.vendor_data {
            self.data.vendor_data = Some(Secret::new(vd));
        }
        self.found.push(where_.to_string());
    }

    fn run(mut self) -> Result<InstanceData, Diag> {
        let facts = self.facts;
        if let Some(hint) = facts.serial_ds.as_ref().filter(|h| is_nocloud(h)) {
            self.add_hint(hint, "dmi");
        }
        if let Some((_, hint)) = facts.cmdline_ds.as_ref().filter(|(_, h)| is_nocloud(h)) {
            self.add_hint(hint, "cmdline");
        }
        self.read_seed_dirs();
        self.read_image_config();
        self.read_volume();
        // A bare `ds=nocloud` names the datasource but carries no data: without a seed, a
        // seedfrom or an instance id there is nothing to provision from.
        let hints_only = self.found.iter().all(|f| f == "cmdline" || f == "dmi");
        let has_data =
            self.meta.get("seedfrom").is_some() || self.meta.get("instance-id").is_some();
        if self.found.is_empty() || (hints_only && !has_data) {
            // A seed that is there but cannot be used (a corrupt volume, a linked meta-data)
            // is the reason, named by its device and file; "no seed" would hide it.
            if let Some(d) = self.data.diags.iter().find(|d| d.is_error()) {
                return Err(d.clone());
            }
            return Err(Diag::error(
                Reason::NoSeed,
                "no NoCloud seed found (no meta-data in a seed directory, a labelled volume, the image config or a seedfrom URL)",
            ));
        }
        self.read_seedfrom()?;
        self.finish()
    }

    fn read_seed_dirs(&mut self) {
        let Some(root) = self.env.target.as_ref() else {
            return;
        };
        let max = self.env.limits().file_bytes;
        for dir in seed_dirs() {
            let mut diags = Vec::new();
            let raw = seed::read(
                |name| {
                    let path = format!("{dir}/{name}");
                    match root.read_file(&path, max) {
                        Ok(Some(d)) => FileRead::Found(d),
                        Ok(None) => FileRead::Absent,
                        Err(e) => FileRead::Failed(Diag::from(e).file(path)),
                    }
                },
                &dir,
                &mut diags,
            );
            // An absent directory is simply not a seed; a half-filled one is worth a word.
            let exists = ["meta-data", "user-data"]
                .iter()
                .any(|f| root.exists(&format!("{dir}/{f}")));
            if exists {
                self.data.diags.extend(diags);
            }
            if let Some(raw) = raw {
                self.data.reads += 4;
                self.add_seed(raw, &dir);
                return;
            }
        }
    }

    fn read_image_config(&mut self) {
        let Some(s) = settings(self.env).cloned() else {
            return;
        };
        if let Some(Value::String(url)) = s.get("seedfrom") {
            // The image's seedfrom takes precedence over one found so far, as in cloud-init.
            self.meta["seedfrom"] = Value::String(url.clone());
            self.found.push("ds_config_seedfrom".into());
        }
        if let (Some(md), Some(ud)) = (s.get("meta-data"), s.get("user-data")) {
            let md = match md {
                Value::String(text) => seed::parse_mapping(
                    text.as_bytes(),
                    "datasource.NoCloud.meta-data",
                    self.env.limits(),
                )
                .unwrap_or_else(|d| {
                    self.data.diags.push(d);
                    Value::Object(Map::new())
                }),
                other => other.clone(),
            };
            self.add_meta(md);
            let ud = match ud {
                Value::String(text) => text.clone().into_bytes(),
                other => format!("#cloud-config\n{other}").into_bytes(),
            };
            self.data.user_data = Some(Secret::new(ud));
            if let Some(Value::String(vd)) = s.get("vendor-data") {
                self.data.vendor_data = Some(Secret::new(vd.clone().into_bytes()));
            }
            self.found.push("ds_config".into());
        }
    }

    fn read_volume(&mut self) {
        for dev in seed_devices(self.env, self.facts) {
            let name = dev.dev_name();
            let mut vol = match SeedVolume::open(self.env, dev) {
                Ok(vol) => vol,
                Err(d) => {
                    self.data.diags.push(d);
                    continue;
                }
            };
            let mut diags = Vec::new();
            let raw = seed::read(|file| vol.read(file), &name, &mut diags);
            self.data.diags.extend(diags);
            if let Some(raw) = raw {
                self.data.reads += 4;
                self.data.from_removable_media = dev.removable;
                self.add_seed(raw, &name);
                return;
            }
        }
    }

    /// `seedfrom` (from any source so far): the URL's meta-data fills what is not set yet,
    /// its user-data, vendor-data and network-config replace what was found.
    /// A seedfrom that gives no seed fails the datasource, as in cloud-init: the user asked
    /// for that seed, and provisioning from half the data would be worse.
    fn read_seedfrom(&mut self) -> Result<(), Diag> {
        let Some(url) = self.meta.get("seedfrom").and_then(Value::as_str) else {
            return Ok(());
        };
        let base = self.facts.dmi.substitute(url);
        if needs_ephemeral_network(self.env.host, &base) {
            return self.read_seedfrom_over_ephemeral(&base);
        }
        self.read_seedfrom_at(&base, Fetcher::new(self.env))
    }

    /// The seedfrom URL through ember's own DHCP lease, NIC by NIC, until one gives the seed;
    /// the lease is gone again afterwards, so the booted system starts from clean links.
    fn read_seedfrom_over_ephemeral(&mut self, base: &str) -> Result<(), Diag> {
        use crate::network::ephemeral::{fallback_candidates, Attempt, Options, Session};
        let deadline = std::time::Instant::now()
            + std::time::Duration::from_millis(self.env.limits().datasource_timeout_ms);
        let shown = crate::fetch::redact_url(base);
        let candidates = fallback_candidates(self.env.host);
        let no_network = |e: &dyn std::fmt::Display, code: Reason| {
            let msg = format!("no network to reach the seedfrom URL: {e}");
            Diag::error(code, msg).file(shown.clone())
        };
        let mut session = Session::new(&candidates, Options::new(deadline))
            .map_err(|e| no_network(&e, e.code()))?;
        let mut result = None;
        let outcome = session.try_each(|_lease| {
            // The session's deadline bounds the reads too: a fresh one per NIC would let a
            // silent seed server hold the boot for another whole deadline on each NIC.
            let request = std::time::Duration::from_millis(self.env.limits().request_timeout_ms);
            let fetcher = Fetcher::with_deadline(self.env, request, deadline);
            let read = self.read_seedfrom_at(base, fetcher);
            let ok = read.is_ok();
            result = Some(read);
            ok
        });
        let outcome = outcome.map(|_| ()).map_err(|e| no_network(&e, e.code()));
        self.data
            .steps
            .extend(session.record().iter().map(Attempt::step));
        for failed in session.down() {
            self.data
                .diags
                .push(Diag::warning(Reason::EphemeralNetwork, failed));
        }
        match (outcome, result) {
            (Ok(()), Some(read)) => read,
            // Every NIC was tried: the last read's reasons say more than "exhausted".
            (Err(_), Some(Err(read))) => Err(read),
            (Err(e), _) => Err(e),
            (Ok(()), None) => Ok(()),
        }
    }

    fn read_seedfrom_at(&mut self, base: &str, fetcher: Fetcher) -> Result<(), Diag> {
        let base = base.to_string();
        let max = self.env.limits().file_bytes;
        let shown = crate::fetch::redact_url(&base);
        let mut diags = Vec::new();
        let mut reads = 0;
        let raw = seed::read(
            |name| {
                reads += 1;
                let url = seed_file_url(&base, name);
                match fetcher.read(&url, max) {
                    Ok(d) => FileRead::Found(d),
                    Err(FetchError::NotFound { .. }) => self
                        .env
                        .target
                        .as_ref()
                        .map_or(FileRead::Absent, |root| in_target(root, &url, max)),
                    Err(e) => FileRead::Failed(e.to_diag(&crate::fetch::redact_url(&url))),
                }
            },
            &shown,
            &mut diags,
        );
        self.data.reads += reads;
        match raw {
            Some(raw) => {
                self.data.diags.extend(diags);
                self.add_seed(raw, &shown);
                Ok(())
            }
            None => {
                // The Err carries this read's reasons: the datasource's other notes are kept
                // apart, so nothing is said twice.
                let why: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
                let msg = format!("no usable seed at the seedfrom URL ({})", why.join("; "));
                let budget = diags.iter().find_map(|d| d.budget.clone());
                let mut err = Diag::error(Reason::SeedUnreachable, msg).file(shown);
                err.budget = budget;
                Err(err)
            }
        }
    }

    fn finish(mut self) -> Result<InstanceData, Diag> {
        // cloud-init's NoCloud default when meta-data names no instance.
        if self.meta.get("instance-id").is_none() {
            self.meta["instance-id"] = Value::String("nocloud".into());
        }
        let id = match &self.meta["instance-id"] {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => {
                return Err(Diag::error(Reason::WrongType, "must be a string")
                    .key("instance-id")
                    .file("meta-data"))
            }
        };
        let seed = self.found.join(",");
        let kind = if seed.starts_with("/dev") {
            "config-disk"
        } else {
            "seed-dir"
        };
        let dsmode = if self
            .facts
            .cmdline_ds
            .as_ref()
            .is_some_and(|(_, h)| h.name == "nocloud-net")
        {
            "net"
        } else {
            "local"
        };
        self.data.detail = format!("DataSourceNoCloud [seed={seed}][dsmode={dsmode}]");
        self.data.subplatform = format!("{kind} ({seed})");
        self.data.instance_id = id;
        if let Some(Value::String(eni)) = self.meta.get("network-interfaces") {
            if self.data.network_config.is_none() {
                let v = json!({ "network-interfaces": eni });
                self.data.network_config = Some(("meta-data: network-interfaces".into(), v));
            }
        }
        // meta-data is published (instance-data.json): a seed URL there loses its secrets.
        if let Some(Value::String(url)) = self.meta.get_mut("seedfrom") {
            *url = crate::fetch::redact_url(url);
        }
        self.data.meta_data = self.meta;
        Ok(self.data)
    }
}

/// cloud-init's `read_seeded`: `%s` in the URL stands for the file name; otherwise the name
/// is appended, after a `/` when the URL ends in none and has no query string.
/// An http(s) seed needs ember's own lease when the initramfs has no default route yet. Without
/// a readable route table (a test's host tree, a container) the network is someone else's.
/// A local seed file the initramfs lacks, read in the target root: cloud-init reads a
/// `file://` or plain-path seed on the booted system, where the root's files are.
fn in_target(root: &crate::root::ReadOnly, url: &str, max: u64) -> FileRead {
    let Some(path) = url
        .strip_prefix("file://")
        .or(url.starts_with('/').then_some(url))
    else {
        return FileRead::Absent;
    };
    match root.read_file(path, max) {
        Ok(Some(d)) => FileRead::Found(d),
        Ok(None) => FileRead::Absent,
        Err(e) => FileRead::Failed(Diag::from(e).file(path.to_string())),
    }
}

fn needs_ephemeral_network(host: &crate::host::Host, url: &str) -> bool {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return false;
    }
    crate::network::routes::read(host).is_some_and(|routes| !routes.iter().any(|r| r.is_default()))
}

fn seed_file_url(base: &str, name: &str) -> String {
    if base.contains("%s") {
        return base.replace("%s", name);
    }
    let has_query = base
        .split_once("://")
        .map_or(base, |(_, rest)| rest)
        .contains('?');
    if base.ends_with('/') || has_query {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::seed_file_url;

    #[test]
    fn seed_urls_as_cloud_init_builds_them() {
        let cases = [
            ("http://h/seed/", "http://h/seed/meta-data"),
            ("http://h/seed", "http://h/seed/meta-data"),
            (
                "http://h/seed?token=x&f=",
                "http://h/seed?token=x&f=meta-data",
            ),
            ("https://h/%s?token=x", "https://h/meta-data?token=x"),
            ("/srv/seed", "/srv/seed/meta-data"),
            ("file:///srv/seed/", "file:///srv/seed/meta-data"),
        ];
        for (base, want) in cases {
            assert_eq!(seed_file_url(base, "meta-data"), want, "{base}");
        }
    }
}

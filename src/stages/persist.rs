//! Recording an instance for the booted system: state in the target (ember's and cloud-init's
//! layouts), instance data and the handoff in the run directory. Then the stage's one durable
//! point (RELIABILITY rule 11): everything the stage wrote into the target is synced once, and
//! only then are the markers written that say it is done, the modules' semaphores and the
//! instance id file that decides "first boot" next time.

use super::instance::Chosen;
use super::modules::Finished;
use super::network_sources;
use super::persist_write::{RunWriter, TargetWriter};
use crate::cmdline::{self, NetworkConfigArg};
use crate::context::Ctx;
use crate::error::Diag;
use crate::handoff::{Handoff, ScriptRef};
use crate::instance_data;
use crate::network;
use crate::paths::RunPaths;
use crate::plan;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::Root;
use crate::state::{encode_instance_id, Frequency, EMBER_LIB};
use crate::userdata::parts::safe_filename;
use crate::userdata::{self, Part, Processed};
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn frequency(f: userdata::Frequency) -> Frequency {
    match f {
        userdata::Frequency::PerInstance => Frequency::PerInstance,
        userdata::Frequency::PerBoot => Frequency::PerBoot,
        userdata::Frequency::PerOnce => Frequency::PerOnce,
    }
}

/// The processed user-data parts and the merged config, for the record step. The parts'
/// `cloud_config` trees have been moved into `config`.
pub struct Merged {
    pub config: Value,
    /// Instance data (sensitive, its `merged_cfg` the image's), built once before the modules
    /// run, as cloud-init writes it when the datasource is read: templates and the written
    /// copies see the same target names.
    pub instance_data: Value,
    /// The system config alone (image, command line `cc:`, the platform's config): the one
    /// config whose `network` key counts.
    pub system_cfg: Value,
    pub user: Option<Processed>,
    pub vendor: Vec<(&'static str, Processed)>,
}

/// A part's file name made safe as one path component (`part-NNN` when nothing is left of it),
/// unique within `taken`.
fn safe_name(name: &str, index: usize, taken: &mut BTreeSet<String>) -> String {
    let base = safe_filename(name).unwrap_or_else(|| format!("part-{:03}", index + 1));
    let mut name = base.clone();
    let mut n = 1;
    while !taken.insert(name.clone()) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

fn write_parts<'p>(
    w: &TargetWriter,
    rec: &mut Recorder,
    dir: &str,
    parts: impl Iterator<Item = &'p Part>,
) -> Vec<ScriptRef> {
    let mut taken = BTreeSet::new();
    parts
        .enumerate()
        .map(|(i, part)| {
            let path = format!("{dir}/{}", safe_name(&part.filename, i, &mut taken));
            w.write(rec, &path, part.payload.expose(), 0o700);
            ScriptRef {
                path,
                frequency: frequency(part.frequency).cloud_init_name().into(),
            }
        })
        .collect()
}

/// The folder under /var/lib/cloud/scripts of a script part typed with its frequency
/// (`text/x-shellscript-per-boot`); `None` for a plain `text/x-shellscript`.
fn frequency_folder(content_type: &str) -> Option<&'static str> {
    match content_type.strip_prefix("text/x-shellscript-")? {
        "per-boot" => Some("per-boot"),
        "per-instance" => Some("per-instance"),
        "per-once" => Some("per-once"),
        _ => None,
    }
}

/// The network config this boot uses, where it came from, and its parsed `model`, from the
/// sources cloud-init reads, in its order: the command line's `network-config=`, the system
/// config's `network` (image, command line `cc:`, the platform's config), the datasource's
/// (those two swapped for the platforms that prefer their own), dracut's `ip=` where
/// cloud-init would fall back, then the fallback. Never user-data's or vendor-data's `network`
/// key: cloud-init does not read network config from either. The first source that disables
/// networking or gives a config decides. Rendering it is the network stage's job; a config
/// that does not parse has no model, and its errors go to the status.
fn network_config(
    ctx: &Ctx,
    rec: &mut Recorder,
    chosen: &Chosen,
    system_cfg: &Value,
    stack: Option<network::stack::Stack>,
) -> Value {
    match cmdline::network_config(&ctx.cmdline) {
        Some(NetworkConfigArg::Disabled) => {
            return json!({"disabled": "kernel command line: network-config=disabled"})
        }
        Some(NetworkConfigArg::Data(data)) => {
            let text = String::from_utf8_lossy(&data);
            let source = "kernel command line: network-config=";
            match crate::yaml::parse(&text, ctx.limits()) {
                Ok(doc) if network::is_disabled(&doc.value) => {
                    return json!({"disabled": "kernel command line: network-config: config: disabled"})
                }
                Ok(doc) => {
                    let out = json!({"source": source, "config": doc.value});
                    return with_model(rec, out, network::Input::Doc(&doc));
                }
                Err(e) => rec.record(e.to_diag(source)),
            }
        }
        Some(NetworkConfigArg::Invalid(why)) => {
            rec.record(Diag::error(Reason::NetworkConfigInvalid, why).file("kernel command line"))
        }
        None => {}
    }
    let system = network_sources::system(system_cfg);
    let ds_first = network_sources::datasource_first(&chosen.data.datasource);
    if !ds_first {
        if let Some(out) = system.map(|net| from_system(rec, net)) {
            return out;
        }
    }
    if let Some((source, config)) = &chosen.data.network_config {
        let config = &*match crate::datasource::by_name(&chosen.data.datasource) {
            Some(ds) => ds.network_for_stack(config, stack),
            None => std::borrow::Cow::Borrowed(config),
        };
        if network::is_disabled(config) {
            return json!({"disabled": format!("{source}: config: disabled")});
        }
        let lines = Some(&chosen.data.network_config_lines);
        let out = json!({"source": source, "config": config});
        if network::is_network_data(config) {
            let macs = network::fallback::names_by_mac(&ctx.host);
            return with_model(rec, out, network::Input::NetworkData(config, &macs));
        }
        return with_model(rec, out, network::Input::Value(config, lines));
    }
    if let Some(out) = system.filter(|_| ds_first).map(|net| from_system(rec, net)) {
        return out;
    }
    if network::cmdline::present(&ctx.cmdline) {
        let params = network::cmdline::params(&ctx.cmdline);
        let out = json!({"source": "kernel command line", "config": params});
        return with_model(rec, out, network::Input::Cmdline(&ctx.cmdline));
    }
    if network_sources::empty_in_system(system_cfg) {
        let why = "empty network config in the system config: the fallback is used";
        rec.record(Diag::warning(Reason::ConfigInvalid, why).key("network"));
    }
    json!({"source": "fallback", "config": null})
}

/// The system config's `network` (already known to be one that counts).
fn from_system(rec: &mut Recorder, net: &Value) -> Value {
    if network::is_disabled(net) {
        return json!({"disabled": "config: network: {config: disabled}"});
    }
    let out = json!({"source": "config: network", "config": net});
    with_model(rec, out, network::Input::Value(net, None))
}

/// `out` with the `model` its input parses to; the diagnostics go to the status either way.
fn with_model(rec: &mut Recorder, mut out: Value, input: network::Input) -> Value {
    let source = out["source"].as_str().unwrap_or_default().to_string();
    match network::parse(&source, input) {
        Ok(parsed) => {
            rec.record_all(parsed.warnings);
            // Through bytes: the compact writer is already in the binary, the Value serializer
            // for every model type would not be.
            let bytes = serde_json::to_vec(&parsed.model).unwrap_or_default();
            out["model"] = serde_json::from_slice(&bytes).unwrap_or_default();
        }
        Err(diags) => rec.record_all(diags),
    }
    out
}

/// cloud-init's `cloud-config.txt`: the cloud-config of the user-data alone, before the
/// image's and vendor-data's are merged under it.
pub fn user_cloud_config(
    rec: &mut Recorder,
    root: &Root,
    chosen: &Chosen,
    user: Option<&Processed>,
) {
    if let Some(u) = user {
        let enc = encode_instance_id(&chosen.data.instance_id);
        let path = format!(
            "{}/instances/{enc}/cloud-config.txt",
            crate::paths::system().cloud_dir
        );
        TargetWriter { root }.json(rec, &path, "#cloud-config\n", &u.cloud_config, 0o600);
    }
}

pub fn record(
    ctx: &Ctx,
    rec: &mut Recorder,
    root: &Root,
    chosen: &Chosen,
    merged: &Merged,
    finished: &Finished,
) {
    let w = TargetWriter { root };
    let data = &chosen.data;
    let enc = encode_instance_id(&data.instance_id);
    let ember_inst = format!("{EMBER_LIB}/instances/{enc}");
    let ci_inst = format!("{}/instances/{enc}", crate::paths::system().cloud_dir);

    // ember's state: what a later boot needs when the datasource has no news.
    let instance_json = crate::state::instance_cache::path(&data.instance_id);
    w.json(rec, &instance_json, "", data, 0o600);
    let cc_json = format!("{ember_inst}/cloud-config.json");
    w.json(rec, &cc_json, "", &merged.config, 0o600);

    for file in data
        .files
        .iter()
        .filter(|f| chosen.first_boot || !f.new_instance_only)
    {
        w.write(rec, &file.path, file.content.expose(), file.mode);
    }

    // cloud-init's layout, which tools and scripts read.
    let payloads = [
        ("user-data.txt", &data.user_data),
        ("vendor-data.txt", &data.vendor_data),
        ("vendor-data2.txt", &data.vendor_data2),
    ];
    for (name, payload) in payloads {
        if let Some(p) = payload {
            w.write(rec, &format!("{ci_inst}/{name}"), p.expose(), 0o600);
        }
    }
    let ds_line = format!(
        "DataSource{}: {}\n",
        cloud_init_class(&data.datasource),
        data.detail
    );
    w.write(
        rec,
        &format!("{ci_inst}/datasource"),
        ds_line.as_bytes(),
        0o644,
    );
    // Vendor scripts apart from the user's, as cloud-init keeps them (scripts_vendor runs
    // them, and user-data can switch them off).
    let vendor: Vec<&Processed> = merged.vendor.iter().map(|(_, v)| v).collect();
    let user: Vec<&Processed> = merged.user.iter().collect();
    // Scripts typed with a frequency go to the image's folders, as cloud-init's handler puts
    // them: the scripts_per_boot/_instance/_once modules run them from there (every boot for
    // per-boot). The others are the instance's, run by scripts_user.
    let (by_frequency, scripts): (Vec<&Part>, Vec<&Part>) = user
        .iter()
        .flat_map(|p| &p.scripts)
        .partition(|p| frequency_folder(&p.content_type).is_some());
    for folder in ["per-boot", "per-instance", "per-once"] {
        let dir = crate::paths::system().cloud(&format!("scripts/{folder}"));
        let parts = by_frequency.iter().copied();
        write_parts(
            &w,
            rec,
            &dir,
            parts.filter(|p| frequency_folder(&p.content_type) == Some(folder)),
        );
    }
    let scripts = write_parts(&w, rec, &format!("{ci_inst}/scripts"), scripts.into_iter());
    let vendor_dir = format!("{ci_inst}/scripts/vendor");
    let vendor_scripts = write_parts(&w, rec, &vendor_dir, vendor.iter().flat_map(|p| &p.scripts));
    let hooks = user.iter().chain(&vendor).flat_map(|p| &p.boothooks);
    let boothooks = write_parts(&w, rec, &format!("{ci_inst}/boothooks"), hooks);
    let sources: Vec<(&str, &Processed)> = merged
        .user
        .iter()
        .map(|u| ("user-data", u))
        .chain(merged.vendor.iter().map(|(name, v)| (*name, v)))
        .collect();
    let part_handlers = super::part_handlers::write(&w, rec, &ci_inst, &sources, &merged.config);
    w.link(rec, &ci_inst, &crate::paths::system().cloud("instance"));

    // The handoff first: of the run files it is the one the runner needs, and the run budget
    // is spent in this order.
    let handoff = Handoff {
        version: 1,
        instance_id: data.instance_id.clone(),
        instance_dir: enc.clone(),
        datasource: data.datasource.clone(),
        first_boot: chosen.first_boot,
        modules: plan::runner_modules(&merged.config),
        scripts,
        vendor_scripts,
        output: merged.config.get("output").cloned().unwrap_or(Value::Null),
        boothooks,
        part_handlers,
    };
    let mut run = RunWriter::new(ctx.limits().run_bytes);
    run.json(rec, RunPaths::HANDOFF, &handoff, 0o600);
    drop(handoff);
    // Where the image keeps cloud-init's state and templates, for every runner command.
    run.json(rec, RunPaths::SYSTEM_PATHS, crate::paths::system(), 0o644);
    // cloud-init's cloud-id, as instance data's `v1.cloud_id` has it (`aws-china`).
    // The id comes from metadata (`cloud-name`): the file is written only under one name.
    let id = instance_data::cloud_id(data);
    let cloud_id = format!("cloud-id-{id}");
    match crate::root::one_name(&cloud_id, "") {
        Err(e) => rec.record(Diag::from(e).key("cloud-name")),
        Ok(()) => {
            rec.write_run(
                &format!("{}/{cloud_id}", RunPaths::CLOUD_INIT_DIR),
                format!("{id}\n").as_bytes(),
                0o644,
            );
            // The file an earlier run linked, under another cloud's name, goes (as cloud-init
            // removes it when the cloud id changes).
            let before = rec.run.read_link_beneath("/", RunPaths::CI_CLOUD_ID);
            let before = before.ok().flatten();
            let old = before
                .as_deref()
                .and_then(|t| ctx.run.cloud_id_link_name(t));
            if let Some(old) = old.filter(|o| o.starts_with("cloud-id-") && *o != cloud_id) {
                let stale = format!("{}/{old}", RunPaths::CLOUD_INIT_DIR);
                if let Err(e) = rec.run.remove_file(&stale) {
                    rec.record(Diag::warning(e.code(), e.to_string()));
                }
            }
            // Absolute, as cloud-init links it: a reader resolving it from elsewhere finds it.
            let link = ctx.run.cloud_id_link_target(&cloud_id);
            if let Err(e) = rec.run.symlink(&link, RunPaths::CI_CLOUD_ID) {
                rec.record(Diag::error(e.code(), e.to_string()));
            }
        }
    }
    // The stack the network stage renders for (its problems are reported there).
    let stack = network::stack::Choice::of(root, &merged.config);
    let network = network_config(ctx, rec, chosen, &merged.system_cfg, stack.stack);
    run.json(rec, RunPaths::NETWORK_CONFIG, &network, 0o600);
    let id = &data.instance_id;
    super::network::apply(ctx, rec, root, id, &network, &merged.config, stack);
    // Then instance data (public and sensitive) and the merged config, each made when written.
    let full = &merged.instance_data;
    let public = instance_data::redact(full);
    for rel in [RunPaths::INSTANCE_DATA, RunPaths::CI_INSTANCE_DATA] {
        run.json(rec, rel, &public, 0o644);
    }
    drop(public);
    // The sensitive copies also say the features and the system config's `system_info`, as
    // cloud-init adds them once the config is merged.
    let features = instance_data::features();
    let doc = Value::String(instance_data::COMBINED_DOC.into());
    let no_system_info = json!({});
    let system_info = merged.config.get("system_info").unwrap_or(&no_system_info);
    for rel in [
        RunPaths::INSTANCE_DATA_SENSITIVE,
        RunPaths::CI_INSTANCE_DATA_SENSITIVE,
    ] {
        let over = vec![
            ("merged_cfg", &merged.config),
            ("system_info", system_info),
            ("features", &features),
        ];
        let sensitive = instance_data::Patched { base: full, over };
        run.json(rec, rel, &sensitive, 0o600);
    }
    let combined = instance_data::Patched {
        base: &merged.config,
        over: vec![("_doc", &doc), ("features", &features)],
    };
    run.json(rec, RunPaths::CI_COMBINED_CLOUD_CONFIG, &combined, 0o600);
    rec.status.instance_id = Some(data.instance_id.clone());
    rec.status.first_boot = chosen.first_boot;
    rec.status.datasource = Some(data.datasource.clone());
    rec.status.datasource_detail = Some(data.detail.clone());

    // The durable point: everything the modules and this step wrote, on disk at once. Then
    // the markers, each replaced atomically: the modules' semaphores and last the ids that make
    // the next boot a repeat boot rather than a first one. A power cut before the sync leaves no
    // marker; one after it may lose markers, never outputs, so the next boot replays the
    // (idempotent) stage and does not skip it. The runner's next flush, or the kernel's own
    // writeback, makes them durable.
    if let Err(e) = root.sync() {
        rec.record(Diag::error(e.code(), e.to_string()));
        return;
    }
    finished.mark(rec);
    let id_line = format!("{}\n", data.instance_id);
    if let Some(prev) = chosen.previous.as_ref().filter(|_| chosen.first_boot) {
        let prev_line = format!("{prev}\n");
        w.write(
            rec,
            &format!("{EMBER_LIB}/data/previous-instance-id"),
            prev_line.as_bytes(),
            0o644,
        );
        w.write(
            rec,
            &crate::paths::system().cloud("data/previous-instance-id"),
            prev_line.as_bytes(),
            0o644,
        );
    }
    w.write(
        rec,
        &crate::paths::system().cloud("data/instance-id"),
        id_line.as_bytes(),
        0o644,
    );
    w.write(
        rec,
        &format!("{EMBER_LIB}/data/instance-id"),
        id_line.as_bytes(),
        0o644,
    );
}

/// cloud-init's class name part for a datasource: `nocloud` → `NoCloud`.
fn cloud_init_class(name: &str) -> &str {
    crate::datasource::by_name(name).map_or(name, |ds| ds.cloud_init_name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_are_one_safe_component() {
        let mut taken = BTreeSet::new();
        assert_eq!(safe_name("run.sh", 0, &mut taken), "run.sh");
        assert_eq!(safe_name("run.sh", 1, &mut taken), "run.sh-1");
        assert_eq!(
            safe_name("../../etc/passwd", 2, &mut taken),
            ".._.._etc_passwd"
        );
        assert_eq!(safe_name("..", 3, &mut taken), "part-004");
        assert_eq!(safe_name("a b$c", 4, &mut taken), "a_b_c");
        assert_eq!(safe_name("", 5, &mut taken), "part-006");
    }
}

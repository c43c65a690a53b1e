//! The local stage: user-data and vendor-data processed and merged over the image config,
//! then everything recorded for the booted system (state, instance data, handoff).
//! Modules that write into the target plug in here.

use super::instance::{self, Chosen};
use super::persist::{self, Merged};
use crate::cmdline;
use crate::config::merge::merge_replace;
use crate::config::{self, known_keys};
use crate::context::Ctx;
use crate::error::Diag;
use crate::fetch::Fetcher;
use crate::instance_data;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::{ReadOnly, Root};
use crate::state::urlcache;
use crate::status::{StageState, Status};
use crate::userdata::{self, NamedDoc, Processed};
use crate::yaml;
use serde_json::Value;

pub fn run(ctx: &mut Ctx) -> Status {
    ctx.reopen_target();
    let ctx: &Ctx = ctx;
    let mut rec = match Recorder::begin(&ctx.run, "local") {
        Ok(rec) => rec,
        Err(diag) => {
            eprintln!("ember: {diag}");
            return Status::new();
        }
    };
    let Some(target) = ctx.target.as_ref() else {
        let path = ctx.target_path.display().to_string();
        rec.record(Diag::error(Reason::TargetMissing, "target root not found").file(path));
        return rec.finish(StageState::Done);
    };
    let Some(chosen) = rec.step("instance", |rec| instance::choose(ctx, rec, target)) else {
        return rec.finish(StageState::Done);
    };
    // Measured before anything of it is used; an image that requires it stops here without,
    // and says so where cloud-init's stages (installed beside ember) look: they stand down too.
    if !crate::measure::run(ctx, &mut rec, &chosen.data) {
        let why = b"ember.measure is required and the inputs were not measured\n";
        rec.write_run(crate::paths::RunPaths::REFUSED, why, 0o644);
        // A handoff from an earlier run of this stage this boot must not be acted on.
        if let Err(e) = rec.run.remove_file(crate::paths::RunPaths::HANDOFF) {
            rec.record(Diag::error(e.code(), e.to_string()));
        }
        return rec.finish(StageState::Done);
    }
    let system_cfg = rec.step("system config", |rec| {
        let image = rendered_image(ctx, rec, &chosen);
        let mut cfg = system_config(ctx, rec, image.as_ref().unwrap_or(&ctx.image.value));
        // The platform's own config sits over the image's, under vendor- and user-data.
        if let Some(ds_cfg) = chosen.data.config.clone().filter(Value::is_object) {
            merge_replace(&mut cfg, ds_cfg);
        }
        cfg
    });
    let mut merged = rec.step("user-data", |rec| {
        process_all(ctx, rec, &chosen, &system_cfg, target)
    });
    // The update events in force, the datasource's default unless the config says them.
    let ds = crate::datasource::by_name(&chosen.data.datasource);
    crate::datasource::events::fill(
        &mut merged.config,
        ds.unwrap_or(&crate::datasource::none::NoneDs),
    );
    let finished = super::modules::run(ctx, &mut rec, target, &chosen, &merged.config);
    rec.step("record", |rec| {
        persist::record(ctx, rec, target, &chosen, &merged, &finished)
    });
    rec.finish(StageState::Done)
}

/// The image config again, its templated files rendered over this instance's data (as
/// cloud-init reads them once instance data exists); `None` when no file is a template.
fn rendered_image(ctx: &Ctx, rec: &mut Recorder, chosen: &Chosen) -> Option<Value> {
    if !ctx.image.templated {
        return None;
    }
    let image = &ctx.image.value;
    let data = instance_data::build(&chosen.data, image, image, ctx.target.as_ref());
    let render = |text: &str, path: &str, diags: &mut Vec<Diag>| {
        super::system_template::render(text, path, &data, ctx.limits(), diags)
    };
    let rendered = config::image::load_rendered(ctx.target.as_ref(), &ctx.host, &render);
    // The other diagnostics of the files were recorded by detect, from the same files.
    let template = [Reason::TemplateError, Reason::TemplateUndefined].map(Reason::as_str);
    let diags = rendered.diags.into_iter();
    rec.record_all(diags.filter(|d| template.contains(&d.code.as_str())));
    Some(rendered.value)
}

/// The image config with the command line's `cc: … end_cc` merged over it.
fn system_config(ctx: &Ctx, rec: &mut Recorder, image: &Value) -> Value {
    let mut cfg = image.clone();
    if let Some(text) = cmdline::inline_cloud_config(&ctx.cmdline) {
        let file = "kernel command line cc:";
        let mut parsed = yaml::parse(&text, ctx.limits());
        if let Ok(doc) = &mut parsed {
            doc.drop_failed_keys(file)
                .into_iter()
                .for_each(|d| rec.record(d));
        }
        match parsed {
            Ok(doc) if doc.value.is_object() => merge_replace(&mut cfg, doc.value),
            Ok(_) => rec.record(Diag::error(Reason::WrongType, "must be a mapping").file(file)),
            Err(e) => rec.record(e.to_diag(file)),
        }
    }
    cfg
}

fn process_all(
    ctx: &Ctx,
    rec: &mut Recorder,
    chosen: &Chosen,
    system_cfg: &Value,
    target: &Root,
) -> Merged {
    let limits = ctx.limits();
    let fetcher = Fetcher::new(&ctx.env()).unmetered();
    let parse = |text: &str| yaml::parse(text, limits);
    let instance_data =
        instance_data::build(&chosen.data, system_cfg, system_cfg, ctx.target.as_ref());
    let once_cache = OnceCache {
        root: target,
        instance_id: &chosen.data.instance_id,
    };
    let ud_ctx = userdata::Context {
        limits,
        urls: &fetcher,
        parse_yaml: &parse,
        instance_data: &instance_data,
        once_cache: &once_cache,
    };
    let data = &chosen.data;
    let allow_userdata = system_cfg.get("allow_userdata") != Some(&Value::Bool(false));
    if !allow_userdata && data.user_data.is_some() {
        rec.record(Diag::warning(
            Reason::UserdataDisallowed,
            "user-data ignored: allow_userdata is false",
        ));
    }
    let mut user = data
        .user_data
        .as_ref()
        .filter(|_| allow_userdata)
        .map(|ud| userdata::process(ud.expose(), "user-data", &ud_ctx));

    let mut vendor = Vec::new();
    for (name, payload, key) in [
        ("vendor-data", &data.vendor_data, "vendor_data"),
        ("vendor-data2", &data.vendor_data2, "vendor_data2"),
    ] {
        let Some(payload) = payload else { continue };
        let enabled = vendor_data_enabled(system_cfg, user.as_ref(), key);
        if enabled == Some(&Value::Bool(false)) || enabled == Some(&Value::String("false".into())) {
            continue;
        }
        vendor.push((name, userdata::process(payload.expose(), name, &ud_ctx)));
    }

    // The user's own cloud-config is written now, so that each part's tree can be moved into
    // the merged config rather than copied (a large user-data would be held twice).
    persist::user_cloud_config(rec, target, chosen, user.as_ref());
    // Precedence, lowest first: image config, vendor-data, vendor-data2, user-data.
    let mut config = system_cfg.clone();
    for (_, v) in vendor.iter_mut() {
        merge_part(&mut config, Some(v));
    }
    merge_part(&mut config, user.as_mut());
    let mut ignored = Vec::new();
    crate::config::ember::ignored_from_instance(system_cfg, &config, &mut ignored);
    rec.record_all(ignored);
    for processed in user.iter_mut().chain(vendor.iter_mut().map(|(_, v)| v)) {
        rec.record_all(processed.diags.iter().cloned());
        for named in std::mem::take(&mut processed.docs) {
            warn_unknown_keys(rec, &named);
        }
    }
    Merged {
        config,
        instance_data,
        system_cfg: system_cfg.clone(),
        user,
        vendor,
    }
}

/// The instance's `#include-once` cache in the target, written as soon as a URL is fetched
/// (as cloud-init does), so even a boot that stops later does not fetch it again.
struct OnceCache<'a> {
    root: &'a Root,
    instance_id: &'a str,
}

impl userdata::OnceCache for OnceCache<'_> {
    fn get(&self, url: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, String> {
        urlcache::read(ReadOnly::new(self.root), self.instance_id, url, max_bytes)
            .map_err(|e| e.to_string())
    }
    fn put(&self, url: &str, content: &[u8]) -> Result<(), String> {
        urlcache::write(self.root, self.instance_id, url, content).map_err(|e| e.to_string())
    }
}

/// Moves a processed part's cloud-config into the config (the part keeps `Null`); one with
/// none (`Null`) leaves the config as it is.
fn merge_part(config: &mut Value, part: Option<&mut Processed>) {
    if let Some(p) = part.filter(|p| p.cloud_config.is_object()) {
        merge_replace(config, std::mem::take(&mut p.cloud_config));
    }
}

/// `vendor_data: {enabled: ...}` as the config merged with user-data would have it (the
/// user's mapping over the image's), without making that merged copy of a large config.
fn vendor_data_enabled<'v>(
    system_cfg: &'v Value,
    user: Option<&'v Processed>,
    key: &str,
) -> Option<&'v Value> {
    let image = || system_cfg.get(key)?.get("enabled");
    match user.and_then(|u| u.cloud_config.get(key)) {
        Some(v) if !v.is_object() => None,
        Some(v) => v.get("enabled").or_else(image),
        None => image(),
    }
}

fn warn_unknown_keys(rec: &mut Recorder, named: &NamedDoc) {
    for (key, line) in &named.keys {
        let (code, msg) = if key == "network" {
            // cloud-init reads network config from the command line, the image's config and
            // the datasource only; its schema rejects the key in user-data.
            let why = "network config is not read from user-data or vendor-data (only from the \
                       kernel command line, the image's config and the datasource), ignored";
            (Reason::UnsupportedKey, why)
        } else if !known_keys::is_known(key) {
            (Reason::UnknownKey, "unknown cloud-config key, ignored")
        } else if known_keys::is_unsupported(key) {
            (
                Reason::ModuleUnsupported,
                "no ember module handles this key yet, ignored",
            )
        } else if let Some(why) = known_keys::not_acted_on(key) {
            (Reason::UnsupportedKey, why)
        } else {
            continue;
        };
        rec.record(
            Diag::warning(code, msg)
                .file(named.name.as_str())
                .key(key.as_str())
                .line(*line),
        );
    }
}

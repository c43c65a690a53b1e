//! Runs the local stage's modules that the module lists ask for (`plan`), in the lists' order
//! and with their frequencies, each as a timed step, each under its semaphore:
//! a module is marked done only when it finished without error, and only after the stage's one
//! durable point (`Finished::mark`, called by the record step once everything the stage wrote is
//! synced), so an interrupted or failed one runs again next boot.

use super::instance::Chosen;
use crate::context::Ctx;
use crate::error::Diag;
use crate::instance_data;
use crate::module_specs::Stage;
use crate::modules::{Module, ModuleCtx, LOCAL};
use crate::plan;
use crate::record::Recorder;
use crate::root::Root;
use crate::state::{encode_instance_id, ExtraMarks, Frequency, Semaphores};
use serde_json::Value;

/// This boot's id, for per-boot semaphores.
fn boot_id(ctx: &Ctx) -> String {
    std::fs::read_to_string(ctx.host.boot_id())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| format!("unknown-{}", crate::clock::wall_seconds() as u64))
}

/// The modules that finished (and the semaphores they asked for), not yet marked done.
pub struct Finished<'r> {
    sems: Semaphores<'r>,
    modules: Vec<(&'static str, Frequency)>,
}

impl Finished<'_> {
    /// Writes their semaphores. Only after `Root::sync` of everything the stage wrote.
    pub fn mark(&self, rec: &mut Recorder) {
        if let Err(e) = self.sems.mark_synced(&self.modules) {
            rec.record(Diag::error(e.code(), e.to_string()).file("module semaphores"));
        }
    }
}

pub fn run<'r>(
    ctx: &Ctx,
    rec: &mut Recorder,
    root: &'r Root,
    chosen: &Chosen,
    cfg: &Value,
) -> Finished<'r> {
    let sems = Semaphores::new(
        root,
        &encode_instance_id(&chosen.data.instance_id),
        &boot_id(ctx),
    );
    let (distro, _, _) = instance_data::distro(Some(root));
    // ember-initrd's standard output is the console in the initramfs.
    let console = |line: &str| println!("{line}");
    let urls = crate::fetch::Fetcher::new(&ctx.env()).unmetered();
    let marks = ExtraMarks::default();
    let mctx = ModuleCtx {
        root,
        cfg,
        instance: &chosen.data,
        limits: ctx.limits(),
        distro: &distro,
        console: &console,
        urls: &urls,
        jinja: &ember_jinja::MiniJinja,
        host: &ctx.host,
        target_path: &ctx.target_path,
        cmdline: &ctx.cmdline,
        marks: &marks,
    };
    let mut list_diags = Vec::new();
    let planned = plan::modules(cfg, &mut list_diags);
    rec.record_all(list_diags.into_iter().map(|d| {
        let file = list_file(ctx, cfg, &d);
        d.file(file)
    }));
    for module in LOCAL {
        if !planned.iter().any(|p| p.spec.name == module.name()) {
            let step = format!("module {}", module.name());
            rec.skipped(&step, "skipped (not in the module lists)".into());
        }
    }
    let mut succeeded = Vec::new();
    let local = planned.iter().filter(|p| p.stage == Stage::Local);
    // A module ember lacks has no row in LOCAL: its keys are warned about with their lines.
    for (module, p) in local.filter_map(|p| Some((find(p.spec.name)?, p))) {
        let (name, freq) = (module.name(), p.frequency);
        let step = format!("module {name}");
        // As cloud-init: a module that acts only on its keys does not run without them, and
        // leaves no semaphore.
        let keyed = p.spec.keys.iter().any(|k| cfg.get(*k).is_some());
        if !p.spec.without_keys && !keyed {
            rec.skipped(&step, "skipped (no config)".into());
            continue;
        }
        if let Some(result) = sems.skip(name, freq, |d| rec.record(d)) {
            rec.skipped(&step, result);
            continue;
        }
        rec.step(&step, |rec| {
            let mut diags = Vec::new();
            module.run(&mctx, &mut diags);
            let failed = diags.iter().any(Diag::is_error);
            rec.record_all(diags.into_iter().map(|d| match d.file {
                Some(_) => d,
                None => d.file(format!("module {name}")),
            }));
            if !failed {
                succeeded.push((name, freq));
            }
        });
    }
    succeeded.extend(marks.take());
    Finished {
        sems,
        modules: succeeded,
    }
}

fn find(name: &str) -> Option<&'static dyn Module> {
    LOCAL.iter().copied().find(|m| m.name() == name)
}

/// Where a module list came from: the image's file that set it, when the merged config holds
/// the image's list, else the instance's cloud-config.
fn list_file(ctx: &Ctx, cfg: &Value, d: &Diag) -> String {
    let path = d.key.as_deref().unwrap_or_default();
    let key = path.split('.').next().unwrap_or(path);
    match ctx.image.origin(key) {
        Some(file) if ctx.image.value.get(key) == cfg.get(key) => file.to_string(),
        _ => "user-data or vendor-data".to_string(),
    }
}

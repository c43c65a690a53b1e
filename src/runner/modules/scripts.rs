//! The script modules: `scripts_user` (user-data scripts, then the runcmd script),
//! `scripts_vendor` (vendor-data scripts, unless user-data says `vendor_data: {enabled:
//! false}`), and `scripts_per_boot`/`_per_instance`/`_per_once` (the image's folders under
//! /var/lib/cloud/scripts, executable files in name order). A failing script is an error and
//! the next one still runs. <https://docs.cloud-init.io/en/latest/reference/modules.html>

use super::{once, runcmd, Guard, ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::handoff::ScriptRef;
use crate::reason::Reason;
use crate::state::Frequency;
use serde_json::Value;

/// Runs one script in the target; a failure is an error naming the script's path.
pub fn run_script(ctx: &ModCtx, path: &str, env: &[(&str, &str)], diags: &mut Vec<Diag>) {
    let outcome = ctx.exec.run(&[path], env);
    if !outcome.ok() {
        let msg = format!("script {path} {}", outcome.describe());
        diags.push(Diag::error(Reason::ScriptFailed, msg));
    }
}

/// A script's frequency: its own, but every boot when the module lists say
/// `[scripts_user, always]` (cloud-init's module then runs its whole folder each boot).
fn item_frequency(own: Frequency, module: Frequency) -> Frequency {
    match module {
        Frequency::PerBoot => Frequency::PerBoot,
        _ => own,
    }
}

/// Each script at most once per its frequency, under `<module>.<file name>` (the names are
/// unique in their directory: ember-initrd makes them so).
fn run_refs(
    ctx: &ModCtx,
    module: &str,
    module_freq: Frequency,
    refs: &[ScriptRef],
    diags: &mut Vec<Diag>,
) {
    for s in refs {
        let base = s.path.rsplit('/').next().unwrap_or(&s.path);
        let own = Frequency::parse(&s.frequency).unwrap_or(Frequency::PerInstance);
        let freq = item_frequency(own, module_freq);
        once(ctx, &format!("{module}.{base}"), freq, diags, |d| {
            run_script(ctx, &s.path, &[], d)
        });
    }
}

pub struct User;

impl RunnerModule for User {
    fn name(&self) -> &'static str {
        "scripts_user"
    }
    fn guard(&self) -> Guard {
        Guard::PerItem
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        self.run_at(ctx, cfg, Frequency::PerInstance, diags)
    }
    /// The handoff's order, then runcmd: cloud-init runs its scripts folder in name order,
    /// where `runcmd` sorts after ember-initrd's `part-NNN` names.
    fn run_at(&self, ctx: &ModCtx, _cfg: &Value, module_freq: Frequency, diags: &mut Vec<Diag>) {
        run_refs(
            ctx,
            "scripts_user",
            module_freq,
            &ctx.handoff.scripts,
            diags,
        );
        let rc = runcmd::script_path(ctx);
        if ctx.root.exists(&rc) {
            let freq = item_frequency(Frequency::PerInstance, module_freq);
            once(ctx, "scripts_user.runcmd", freq, diags, |d| {
                run_script(ctx, &rc, &[], d)
            });
        }
    }
}

pub struct Vendor;

impl RunnerModule for Vendor {
    fn name(&self) -> &'static str {
        "scripts_vendor"
    }
    fn guard(&self) -> Guard {
        Guard::PerItem
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        self.run_at(ctx, cfg, Frequency::PerInstance, diags)
    }
    fn run_at(&self, ctx: &ModCtx, cfg: &Value, module_freq: Frequency, diags: &mut Vec<Diag>) {
        if vendor_enabled(cfg, diags) {
            let refs = &ctx.handoff.vendor_scripts;
            run_refs(ctx, "scripts_vendor", module_freq, refs, diags);
        }
    }
}

/// `vendor_data` as scripts_vendor reads it: whether vendor scripts run (`enabled: false`, or
/// the deprecated string `"false"`, turns them off). `prefix` is not supported yet: a warning.
pub fn vendor_enabled(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    let enabled = cfg.pointer("/vendor_data/enabled");
    let off = matches!(enabled, Some(Value::Bool(false)))
        || enabled
            .and_then(Value::as_str)
            .is_some_and(|s| s.eq_ignore_ascii_case("false"));
    if !off && cfg.pointer("/vendor_data/prefix").is_some() {
        let msg = "vendor_data.prefix not supported yet: scripts run without it";
        diags.push(Diag::warning(Reason::UnsupportedKey, msg).key("vendor_data.prefix"));
    }
    !off
}

/// `vendor_data`'s shape and reader, for `ember schema`.
pub static VENDOR_READER: Reader = Reader {
    shapes: &[("vendor_data", VENDOR_DATA)],
    read: |cfg, d| {
        vendor_enabled(cfg, d);
    },
};

/// After cloud-init's schema: `enabled` a boolean (a string is deprecated), `prefix` a command.
const VENDOR_DATA: Shape = Shape::Map(&Fields {
    fields: &[
        (
            "enabled",
            Shape::OneOf(&[
                Shape::Bool,
                Shape::Deprecated(&Shape::Str, "use true or false"),
            ]),
        ),
        (
            "prefix",
            Shape::OneOf(&[
                list(&Shape::OneOf(&[Shape::Str, Shape::Int]), 0),
                Shape::Str,
            ]),
        ),
    ],
    required: &[],
    open: false,
});

/// Folders of the image's scripts, `scripts/<sub>` of cloud-init's cloud dir and then of
/// ember's own; the module's own semaphore gives the frequency.
pub struct Folder {
    name: &'static str,
    sub: &'static str,
}

pub const PER_BOOT: Folder = Folder {
    name: "scripts_per_boot",
    sub: "per-boot",
};
pub const PER_INSTANCE: Folder = Folder {
    name: "scripts_per_instance",
    sub: "per-instance",
};
pub const PER_ONCE: Folder = Folder {
    name: "scripts_per_once",
    sub: "per-once",
};

impl RunnerModule for Folder {
    fn name(&self) -> &'static str {
        self.name
    }
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, _cfg: &Value, diags: &mut Vec<Diag>) {
        let dirs = [
            crate::paths::system().cloud(&format!("scripts/{}", self.sub)),
            format!("{}/scripts/{}", crate::state::EMBER_LIB, self.sub),
        ];
        for dir in &dirs {
            let names = match ctx.root.list_dir(dir) {
                Ok(n) => n,
                Err(e) => {
                    diags.push(Diag::error(e.code(), e.to_string()));
                    continue;
                }
            };
            for name in names {
                let path = format!("{dir}/{name}");
                // As cloud-init's run-parts: what is not an executable file is passed over.
                if ctx.exec.executable(&path) {
                    run_script(ctx, &path, &[], diags);
                }
            }
        }
    }
}

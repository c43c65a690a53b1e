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
    run_prefixed(ctx, &[], path, env, diags)
}

/// Runs one script under a command (`vendor_data.prefix`: `strace -f SCRIPT`).
fn run_prefixed(
    ctx: &ModCtx,
    prefix: &[String],
    path: &str,
    env: &[(&str, &str)],
    diags: &mut Vec<Diag>,
) {
    let mut argv: Vec<&str> = prefix.iter().map(String::as_str).collect();
    argv.push(path);
    let outcome = ctx.exec.run(&argv, env);
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
    (prefix, refs): (&[String], &[ScriptRef]),
    diags: &mut Vec<Diag>,
) {
    for s in refs {
        let base = s.path.rsplit('/').next().unwrap_or(&s.path);
        let own = Frequency::parse(&s.frequency).unwrap_or(Frequency::PerInstance);
        let freq = item_frequency(own, module_freq);
        once(ctx, &format!("{module}.{base}"), freq, diags, |d| {
            run_prefixed(ctx, prefix, &s.path, &[], d)
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
        let refs = (&[][..], &ctx.handoff.scripts[..]);
        run_refs(ctx, "scripts_user", module_freq, refs, diags);
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
        if !vendor_enabled(cfg, diags) {
            return;
        }
        // cloud-init's module fails on a prefix it cannot use: no vendor script runs.
        if let Some(prefix) = vendor_prefix(cfg, diags) {
            let refs = (&prefix[..], &ctx.handoff.vendor_scripts[..]);
            run_refs(ctx, "scripts_vendor", module_freq, refs, diags);
        }
    }
}

/// `vendor_data` as scripts_vendor reads it: whether vendor scripts run (`enabled: false`, or
/// the deprecated string `"false"`, turns them off).
pub fn vendor_enabled(cfg: &Value, _diags: &mut Vec<Diag>) -> bool {
    let enabled = cfg.pointer("/vendor_data/enabled");
    let off = matches!(enabled, Some(Value::Bool(false)))
        || enabled
            .and_then(Value::as_str)
            .is_some_and(|s| s.eq_ignore_ascii_case("false"));
    !off
}

/// `vendor_data.prefix`, the command each vendor script runs under, as cloud-init's run-parts
/// takes it: one word (not split), or a list of words (numbers as written). None, with an
/// error, when it is neither.
pub fn vendor_prefix(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let key = "vendor_data.prefix";
    let bad = |diags: &mut Vec<Diag>, what: &str| {
        let msg = format!("expected {what}: no vendor script runs");
        diags.push(Diag::error(Reason::WrongType, msg).key(key));
        None
    };
    match cfg.pointer("/vendor_data/prefix") {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::String(word)) => Some(vec![word.clone()]),
        Some(Value::Array(items)) => {
            let mut words = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => words.push(s.clone()),
                    Value::Number(n) => words.push(n.to_string()),
                    _ => return bad(diags, "a list of words (strings or numbers)"),
                }
            }
            if words.iter().any(|w| w.contains('\0')) {
                return bad(diags, "words without NUL characters");
            }
            Some(words)
        }
        Some(_) => bad(diags, "a command: a string or a list of words"),
    }
}

/// `vendor_data`'s shape and reader, for `ember schema`.
pub static VENDOR_READER: Reader = Reader {
    shapes: &[("vendor_data", VENDOR_DATA)],
    read: |cfg, d| {
        if vendor_enabled(cfg, d) {
            vendor_prefix(cfg, d);
        }
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

#[cfg(test)]
mod tests {
    use super::vendor_prefix;
    use serde_json::json;

    /// cloud-init's run-parts: a string is one word, a list its words (numbers as written),
    /// anything else fails the module.
    #[test]
    fn vendor_prefix_is_read_as_run_parts_takes_it() {
        let read = |v: serde_json::Value| {
            let mut d = Vec::new();
            (
                vendor_prefix(&json!({"vendor_data": {"prefix": v}}), &mut d),
                d.len(),
            )
        };
        let words = |w: &[&str]| Some(w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            read(json!("/usr/bin/ltrace -c")),
            (words(&["/usr/bin/ltrace -c"]), 0)
        );
        assert_eq!(
            read(json!(["strace", "-e", 5])),
            (words(&["strace", "-e", "5"]), 0)
        );
        assert_eq!(read(json!(null)), (words(&[]), 0));
        assert_eq!(read(json!({"a": 1})), (None, 1));
        assert_eq!(read(json!([["x"]])), (None, 1));
    }
}

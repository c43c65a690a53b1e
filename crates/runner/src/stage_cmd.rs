//! `ember init` and `ember modules --mode init|config|final`: the runner's stages, executing the
//! handoff ember-initrd left in `<run>/ember/handoff.json`. Without a handoff there is nothing
//! to do and they say so. `init` is cloud-init's early unit (boothooks, part-handlers, bootcmd,
//! host keys, SELinux labels); its steps are kept, prefixed `init/`, in the `config` stage's
//! record, since ember's stage list is detect, fetch, local, config, final. `init
//! --deferred-hostkeys` is ember-hostkeys.service, in the background after sshd started: its
//! own `hostkeys` record, outside that list, so nothing waits for it.

use super::early;
use super::exec::Exec;
use super::finish;
use super::modules::{run_stage, ModCtx};
use super::{global_flag, CliError, Ctx};
use crate::clock::{boot_seconds, wall_seconds};
use crate::error::Diag;
use crate::handoff::Handoff;
use crate::paths::RunPaths;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::Root;
use crate::state::{check_instance_id, encode_instance_id, Semaphores};
use crate::status::{StageState, Status, Step};
use lexopt::prelude::*;
use std::cell::RefCell;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Init,
    /// `modules --mode init`: the same work as `init`, named as cloud-init names that mode.
    ModulesInit,
    /// `init --deferred-hostkeys`.
    Hostkeys,
    Config,
    Final,
}

impl Kind {
    fn stage(self) -> &'static str {
        match self {
            Kind::Init | Kind::ModulesInit | Kind::Config => "config",
            Kind::Hostkeys => "hostkeys",
            Kind::Final => "final",
        }
    }
    /// The `output:` key for this stage.
    fn output_stage(self) -> &'static str {
        match self {
            Kind::Init | Kind::ModulesInit | Kind::Hostkeys => "init",
            Kind::Config => "config",
            Kind::Final => "final",
        }
    }
    /// cloud-init's words in its "running 'modules:config'" line.
    fn words(self) -> &'static str {
        match self {
            Kind::Init => "init",
            Kind::ModulesInit => "modules:init",
            Kind::Hostkeys => "init --deferred-hostkeys",
            Kind::Config => "modules:config",
            Kind::Final => "modules:final",
        }
    }
}

const INIT_PREFIX: &str = "init/";

/// `ember init [--local | --deferred-hostkeys]`.
pub fn init(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut local, mut deferred) = (false, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('l') | Long("local") => local = true,
            Long("deferred-hostkeys") => deferred = true,
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    if local {
        println!(
            "{}: init --local: ember-initrd ran the local stage in the initramfs",
            ctx.prog
        );
        return Ok(0);
    }
    if deferred {
        // Every boot starts the unit: no record unless there are keys to make.
        let listed = Root::open_deferred(&ctx.target)
            .is_ok_and(|r| r.exists(super::early::DEFERRED_HOSTKEYS));
        if !listed {
            println!(
                "{}: init --deferred-hostkeys: no host keys deferred",
                ctx.prog
            );
            return Ok(0);
        }
        return run(ctx, Kind::Hostkeys);
    }
    run(ctx, Kind::Init)
}

/// `ember modules --mode init|config|final`. cloud-init's `--mode init` runs the
/// `cloud_init_modules` list, which ember runs in its early unit: it is `ember init`.
pub fn modules(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let mut kind = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('m') | Long("mode") => {
                kind = match parser.value()?.string()?.as_str() {
                    "init" => Some(Kind::ModulesInit),
                    "config" => Some(Kind::Config),
                    "final" => Some(Kind::Final),
                    other => {
                        let msg = format!("--mode: invalid choice '{other}' (init, config, final)");
                        return Err(CliError::Usage(msg));
                    }
                }
            }
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    let kind =
        kind.ok_or_else(|| CliError::Usage("--mode init|config|final is required".into()))?;
    run(ctx, kind)
}

/// `ember config` and `ember final`: short for `modules --mode config|final`.
pub fn config(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    no_more_args(ctx, parser)?;
    run(ctx, Kind::Config)
}

pub fn final_stage(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    no_more_args(ctx, parser)?;
    run(ctx, Kind::Final)
}

/// Only the global flags may follow.
fn no_more_args(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<(), CliError> {
    while let Some(arg) = parser.next()? {
        match global_flag(&arg) {
            Some(flag) => ctx.set_global(flag, parser)?,
            None => return Err(arg.unexpected().into()),
        }
    }
    Ok(())
}

/// This boot's id, from the running system's /proc (under `--host`), never the target's: it
/// names this boot. Tests simulate boots of one machine by changing it.
pub(super) fn boot_id(ctx: &Ctx) -> String {
    std::fs::read_to_string(crate::host::Host::new(&ctx.host).boot_id())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| format!("unknown-{}", wall_seconds() as u64))
}

fn read_status(paths: &RunPaths) -> Option<Status> {
    let data = crate::regular::read(&paths.status(), crate::regular::STATE_MAX).ok()?;
    serde_json::from_slice(&data).ok()
}

/// The config stage keeps what `ember init` recorded earlier in this boot (/run is a tmpfs,
/// so any record there is this boot's): its start, its `init/` steps and their diagnostics,
/// and its duration, so the stage's time counts the host keys and bootcmd done before sshd.
fn carry_init(rec: &mut Recorder, prior: Option<Status>) {
    let Some(old) = prior.and_then(|mut s| s.stages.remove("config")) else {
        return;
    };
    let steps: Vec<Step> = old
        .steps
        .into_iter()
        .filter(|s| s.name.starts_with(INIT_PREFIX))
        .collect();
    if steps.is_empty() {
        return;
    }
    let from_init = |d: &Diag| {
        d.file
            .as_deref()
            .is_some_and(|f| f.starts_with(INIT_PREFIX))
    };
    rec.add_earlier(old.duration_us.unwrap_or(0));
    let stage = rec.stage();
    stage.start = old.start;
    stage.start_wall = old.start_wall;
    stage.steps = steps;
    stage.errors = old.errors.into_iter().filter(from_init).collect();
    stage.recoverable_errors = old
        .recoverable_errors
        .into_iter()
        .filter(from_init)
        .collect();
    rec.save();
}

fn run(ctx: &Ctx, kind: Kind) -> Result<i32, CliError> {
    let paths = ctx.run_paths();
    let data = match crate::regular::read(&paths.handoff(), crate::regular::STATE_MAX) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let shown = paths.handoff();
            println!(
                "{}: no handoff at {}: nothing to do",
                ctx.prog,
                shown.display()
            );
            return Ok(0);
        }
        Err(e) => return Err(CliError::file(&paths.handoff(), e)),
    };
    let prior = read_status(&paths);
    let mut rec =
        Recorder::begin(&paths, kind.stage()).map_err(|d| CliError::Failed(d.to_string()))?;
    if kind == Kind::Config {
        carry_init(&mut rec, prior);
    }
    let before = rec.stage().errors.len();
    let label = |d: Diag| d.file(paths.handoff().display().to_string());
    // serde's messages quote the offending value, which may be user-data: position only.
    let handoff: Option<Handoff> = match serde_json::from_slice(&data) {
        Ok(h) => Some(h),
        Err(e) => {
            let msg = format!(
                "not a valid handoff ({:?} at line {})",
                e.classify(),
                e.line()
            );
            rec.record(label(Diag::error(Reason::HandoffInvalid, msg)));
            None
        }
    };
    let handoff = handoff.filter(|h| match check_instance_id(&h.instance_id) {
        Ok(()) => true,
        Err(why) => {
            rec.record(label(Diag::error(Reason::InstanceId, why.to_string())));
            false
        }
    });
    let root = Root::open_deferred(&ctx.target);
    match (handoff, root) {
        (Some(h), Ok(root)) => stage(&mut rec, ctx, kind, &h, &root),
        (_, Err(e)) => rec.record(Diag::error(e.code(), e.to_string())),
        (None, Ok(_)) => {}
    }
    let failed = rec.stage().errors.len() > before;
    rec.finish(StageState::Done);
    Ok(i32::from(failed))
}

fn stage(rec: &mut Recorder, ctx: &Ctx, kind: Kind, h: &Handoff, root: &Root) {
    let enc = encode_instance_id(&h.instance_id);
    let boot = boot_id(ctx);
    let sems = Semaphores::new(root, &enc, &boot);
    let mut output_diags = Vec::new();
    let log = super::output::log_for(&h.output, kind.output_stage(), &mut output_diags);
    rec.record_all(output_diags);
    let exec = Exec::new(root, &ctx.target).with_log(log);
    let datasource = rec.status.datasource_detail.clone();
    let mctx = ModCtx {
        root,
        exec: &exec,
        handoff: h,
        sems: &sems,
        ci_instance: format!("{}/instances/{enc}", crate::paths::system().cloud_dir),
        datasource: datasource.unwrap_or_else(|| h.datasource.clone()),
        power: RefCell::new(None),
    };
    exec.say(&format!(
        "ember v. {} running '{}' at {}. Up {:.2} seconds.",
        env!("CARGO_PKG_VERSION"),
        kind.words(),
        crate::date::format_utc(wall_seconds()),
        boot_seconds()
    ));
    match kind {
        Kind::Init | Kind::ModulesInit => {
            type Early = fn(&ModCtx, &mut Vec<Diag>) -> Option<String>;
            // cloud-init's order: user-data's boothooks and part-handlers as it is read, then
            // the init modules (bootcmd), then what ember's host keys need.
            let early: [(&str, Early); 5] = [
                ("restorecon", early::restorecon),
                ("resizefs", early::resizefs),
                ("boothooks", early::boothooks),
                ("part-handlers", super::part_handlers::run),
                ("hostkeys", early::host_keys),
            ];
            for (name, f) in early {
                if name == "hostkeys" {
                    run_stage(rec, &mctx, "init", INIT_PREFIX);
                }
                early_step(rec, &format!("{INIT_PREFIX}{name}"), |d| f(&mctx, d));
            }
        }
        Kind::Hostkeys => early_step(rec, "hostkeys", |d| super::deferred::host_keys(&mctx, d)),
        Kind::Config => {
            // What ember-initrd left for the booted system's network, before the modules, as
            // cloud-init does both in its init stage.
            early_step(rec, "seed_random command", |d| {
                early::seed_random_command(&mctx, d)
            });
            early_step(rec, "ssh_publish_hostkeys", |d| {
                super::modules::ssh_publish_hostkeys::publish(&mctx, d)
            });
            run_stage(rec, &mctx, "config", "")
        }
        Kind::Final => {
            run_stage(rec, &mctx, "final", "");
            finish::write_results(rec, &exec, &mctx.ci_instance);
        }
    }
    let power = mctx.power.take();
    if let Some(argv) = power {
        // The stage's end is recorded by the caller after this; record it now, since a
        // shutdown may not leave the time to.
        let stage = rec.stage();
        stage.state = StageState::Done;
        stage.finished = Some(boot_seconds());
        rec.save();
        finish::power_change(&exec, &argv);
    }
}

/// A step whose function says whether there was anything to do (`None`: no step recorded).
fn early_step(rec: &mut Recorder, name: &str, f: impl FnOnce(&mut Vec<Diag>) -> Option<String>) {
    let started = Some(boot_seconds());
    let t0 = std::time::Instant::now();
    let mut diags = Vec::new();
    let Some(result) = f(&mut diags) else {
        rec.record_all(diags.into_iter().map(|d| d.file(name.to_string())));
        return;
    };
    let failed = diags.iter().any(Diag::is_error);
    rec.record_all(diags.into_iter().map(|d| match &d.file {
        Some(f) if f.starts_with(INIT_PREFIX) => d,
        // Keep where it happened in the message, and the step in `file` for the carry-over.
        Some(f) => {
            let f = f.clone();
            Diag {
                message: format!("{f}: {}", d.message),
                ..d
            }
            .file(name.to_string())
        }
        None => d.file(name.to_string()),
    }));
    let result = if failed && result == "ok" {
        "error".into()
    } else {
        result
    };
    rec.stage().steps.push(Step {
        start: started,
        name: name.to_string(),
        duration_us: t0.elapsed().as_micros() as u64,
        result,
    });
}

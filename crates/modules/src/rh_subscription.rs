//! `rh_subscription`: registers a Red Hat system with the target's `subscription-manager`, as
//! cloud-init does: nothing when `subscription-manager identity` says it is registered;
//! otherwise register with an activation key and org (or a user name and password), then
//! auto-attach (with a service level), attach the available pools asked for, enable and
//! disable repositories, and set the release (clearing dnf's and yum's caches). Its failures
//! are warnings, as cloud-init's are. Unlike cloud-init, the password and activation key are
//! never on a command line: `subscription-manager` is a Python script, and its interpreter is
//! handed the `register` arguments in-process from a 0600 file (see `private_io`); a
//! `subscription-manager` that is not such a script is not run (`secret-refused`).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#red-hat-subscription>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::private_io::{capture, run_in_process};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

mod settings;
pub use settings::{read, Settings, SHAPES};

pub struct RhSubscription;

const TOOL: &str = "subscription-manager";
const KEY: &str = "rh_subscription";
/// What cloud-init deletes after setting the release.
const CACHES: &[&str] = &["/var/cache/dnf", "/var/cache/yum"];

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for RhSubscription {
    fn name(&self) -> &'static str {
        "rh_subscription"
    }
    /// It registers the machine: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        // cloud-init checks the settings inside the `try` that warns "did not complete
        // successfully" and returns, so a bad value is a warning at boot (ember schema keeps
        // the error). Only a `rh_subscription` that is not a mapping makes its module raise.
        let mut own = Vec::new();
        let read = read(cfg, &mut own);
        diags.extend(own.into_iter().map(|d| match d.key.as_deref() {
            Some("rh_subscription") => d,
            _ => d.recoverable(),
        }));
        let Some(s) = read else {
            return;
        };
        if !s.configured() {
            ctx.exec
                .say("rh_subscription: no user and password or activation key: nothing to do");
            return;
        }
        if ctx.exec.run(&[TOOL, "identity"], &[]).ok() {
            ctx.exec
                .say("rh_subscription: system is already registered");
            return;
        }
        match subscribe(ctx, &s) {
            Ok(()) => ctx.exec.say("rh_subscription: completed successfully"),
            Err(d) => diags.push(d),
        }
    }
}

/// A failure: a warning naming the step, as cloud-init logs it and goes on.
fn fail(msg: impl Into<String>, key: &str) -> Diag {
    let msg = format!("{}; rh_subscription did not complete", msg.into());
    Diag::warning(Reason::CommandFailed, msg).key(key)
}

/// `subscription-manager ARGS`, its output kept in the log.
fn sm(ctx: &ModCtx, args: &[&str]) -> bool {
    let mut argv = vec![TOOL];
    argv.extend_from_slice(args);
    ctx.exec
        .say(&format!("rh_subscription: {}", argv.join(" ")));
    ctx.exec.run(&argv, &[]).ok()
}

/// cloud-init's steps after the machine was found unregistered; the first failure ends them.
fn subscribe(ctx: &ModCtx, s: &Settings) -> Result<(), Diag> {
    if let Some((msg, key)) = s.problem() {
        return Err(fail(msg, &key));
    }
    register(ctx, s)?;
    if s.auto_attach == Some(Ok(true)) {
        let level = s
            .service_level
            .as_ref()
            .map(|l| format!("--servicelevel={l}"));
        let mut args = vec!["attach", "--auto"];
        args.extend(level.as_deref());
        if !sm(ctx, &args) {
            let what = if level.is_some() {
                "setting the service level failed"
            } else {
                "auto-attach failed"
            };
            return Err(fail(what, &format!("{KEY}.auto_attach")));
        }
    }
    match &s.add_pool {
        None => {}
        Some(Err(())) => return Err(fail("add_pool must be a list", &format!("{KEY}.add_pool"))),
        Some(Ok(pools)) => add_pools(ctx, pools)?,
    }
    update_repos(ctx, s)?;
    if let Some(release) = &s.release_version {
        set_release(ctx, release)?;
    }
    Ok(())
}

/// `register` with the activation key and org, else the user name and password, and the
/// base and server URLs when given: the arguments handed over in-process.
fn register(ctx: &ModCtx, s: &Settings) -> Result<(), Diag> {
    let mut args = vec!["register".to_string()];
    let key = match (&s.activation_key, &s.org, &s.username, &s.password) {
        (Some(k), Some(org), _, _) => {
            args.push(format!("--activationkey={}", k.expose()));
            args.push(format!("--org={org}"));
            format!("{KEY}.activation_key")
        }
        (_, _, Some(user), Some(pw)) => {
            args.push(format!("--username={user}"));
            args.push(format!("--password={}", pw.expose()));
            format!("{KEY}.username")
        }
        _ => {
            let msg =
                "unable to register: give either activation_key and org, or username and password";
            return Err(fail(msg, KEY));
        }
    };
    if let Some(b) = &s.rhsm_baseurl {
        args.push(format!("--baseurl={b}"));
    }
    if let Some(h) = &s.server_hostname {
        args.push(format!("--serverurl={h}"));
    }
    ctx.exec.say(&format!(
        "rh_subscription: {TOOL} register (arguments handed over in-process, not shown)"
    ));
    match run_in_process(ctx, TOOL, &args) {
        Ok(o) if o.ok() => Ok(()),
        Ok(o) => Err(fail(
            format!("registration failed: {TOOL} {}", o.describe()),
            &key,
        )),
        // Its own reason (secret-refused, tool-missing), a warning as cloud-init's failures.
        Err(e) => {
            let mut d = e.diag(TOOL, &key);
            d.severity = crate::error::Severity::Warning;
            d.message = format!(
                "registration failed: {}; rh_subscription did not complete",
                d.message
            );
            Err(d)
        }
    }
}

/// Lines of `subscription-manager ARGS` output, trimmed and non-empty.
fn listed(ctx: &ModCtx, args: &[&str]) -> Result<Vec<String>, Diag> {
    let mut argv = vec![TOOL];
    argv.extend_from_slice(args);
    let (outcome, out) = capture(ctx, "rhsm", &argv);
    if !outcome.ok() {
        let msg = format!("{TOOL} {} {}", args.join(" "), outcome.describe());
        return Err(fail(msg, KEY));
    }
    Ok(out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

/// Attaches each pool that is available and not yet consumed; with none to attach cloud-init
/// reports a failure too.
fn add_pools(ctx: &ModCtx, pools: &[String]) -> Result<(), Diag> {
    if pools.is_empty() {
        return Ok(());
    }
    let available = listed(ctx, &["list", "--available", "--pool-only"])?;
    let consumed = listed(ctx, &["list", "--consumed", "--pool-only"])?;
    let mut args = vec!["attach".to_string()];
    for pool in pools {
        if available.contains(pool) && !consumed.contains(pool) {
            args.push(format!("--pool={pool}"));
        } else {
            ctx.exec
                .say(&format!("rh_subscription: pool {pool} is not available"));
        }
    }
    let key = format!("{KEY}.add_pool");
    if args.len() == 1 {
        return Err(fail("unable to attach pools: none is available", &key));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if !sm(ctx, &args) {
        return Err(fail("unable to attach pools", &key));
    }
    Ok(())
}

/// The ids of `repos --list-enabled` (or `--list-disabled`): its `Repo ID:` lines.
fn repo_ids(ctx: &ModCtx, which: &str) -> Result<Vec<String>, Diag> {
    let lines = listed(ctx, &["repos", which])?;
    Ok(lines
        .iter()
        .filter(|l| l.contains("Repo ID:"))
        .filter_map(|l| l.split(':').nth(1))
        .map(|id| id.trim().to_string())
        .collect())
}

/// Enables the disabled repositories of `enable_repo` and disables the enabled ones of
/// `disable_repo`, in one `repos` command, as cloud-init does.
fn update_repos(ctx: &ModCtx, s: &Settings) -> Result<(), Diag> {
    let mut lists = Vec::new();
    for (name, list) in [
        ("enable_repo", &s.enable_repo),
        ("disable_repo", &s.disable_repo),
    ] {
        match list {
            None => lists.push(Vec::new()),
            Some(Ok(l)) => lists.push(l.clone()),
            Some(Err(())) => {
                let msg = "repo ids must be a list: unable to add or remove repos";
                return Err(fail(msg, &format!("{KEY}.{name}")));
            }
        }
    }
    let (enable, disable) = (&lists[0], &lists[1]);
    if enable.is_empty() && disable.is_empty() {
        return Ok(());
    }
    let active = repo_ids(ctx, "--list-enabled")?;
    let inactive = repo_ids(ctx, "--list-disabled")?;
    let mut args = vec!["repos".to_string()];
    for id in disable {
        if active.contains(id) {
            args.push(format!("--disable={id}"));
        } else {
            ctx.exec
                .say(&format!("rh_subscription: repo {id} is not enabled"));
        }
    }
    for id in enable {
        if inactive.contains(id) {
            args.push(format!("--enable={id}"));
        } else if active.contains(id) {
            ctx.exec
                .say(&format!("rh_subscription: repo {id} is already enabled"));
        } else {
            ctx.exec.say(&format!(
                "rh_subscription: repo {id} does not appear to exist"
            ));
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if !sm(ctx, &args) {
        return Err(fail("unable to alter repos", &format!("{KEY}.enable_repo")));
    }
    Ok(())
}

/// `release --set=RELEASE`, then the package manager's caches removed.
fn set_release(ctx: &ModCtx, release: &str) -> Result<(), Diag> {
    let key = format!("{KEY}.release_version");
    if !sm(ctx, &["release", &format!("--set={release}")]) {
        return Err(fail("unable to set release_version", &key));
    }
    for dir in CACHES {
        if let Err(e) = ctx.root.remove_tree(dir) {
            let msg = format!("unable to delete the package manager cache: {e}");
            return Err(fail(msg, &key));
        }
    }
    Ok(())
}

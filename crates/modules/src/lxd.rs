//! `lxd`: once snapd has seeded, installs the lxd snap when `snap list lxd` finds none, the
//! storage tools the chosen backend needs (zfsutils-linux, lvm2, btrfs-progs) through the
//! package manager, waits for LXD, then applies `preseed` (`lxd init --preseed`) or `init`
//! (`lxd init --auto` with cloud-init's flags; for LVM, a pool without a thin pool when that
//! fails) and `bridge` (`lxc network create/attach-profile`, or debconf and dpkg-reconfigure
//! for a packaged LXD's lxd-bridge). Secrets never reach a command line: the preseed and the
//! trust password go to `lxd init --preseed` on standard input from a 0600 file that is
//! removed afterwards (cloud-init passes the password as `--trust-password=`).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#lxd>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::exec::Outcome;
use crate::conf_lang::debconf;
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod settings;
mod shape;
pub use settings::{read, Bridge, Init, Settings, DEFAULT_BRIDGE};

pub struct Lxd;

/// Where standard input for `lxd init --preseed` and debconf-communicate waits: 0600, removed
/// once the command ran.
const STDIN_FILE: &str = "/var/lib/ember/lxd.stdin";
/// A packaged (deb) LXD's bridge configuration.
const LXD_BRIDGE: &str = "/etc/default/lxd-bridge";
/// cloud-init's `_lxc` environment (HOME and USER as a root service has them).
const LXC_ENV: &[(&str, &str)] = &[("LC_ALL", "C"), ("HOME", "/root"), ("USER", "root")];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Lxd {
    fn name(&self) -> &'static str {
        "lxd"
    }
    /// It changes the machine: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if !super::snap::wait_for_seed(ctx, "lxd", diags) {
            return;
        }
        if !ctx.exec.run(&["snap", "list", "lxd"], &[]).ok() {
            ctx.exec.say("lxd: installing the lxd snap");
            let outcome = ctx.exec.run(&["snap", "install", "lxd"], &[]);
            if !outcome.ok() {
                let msg = format!(
                    "lxd could not be installed: snap install {}",
                    outcome.describe()
                );
                diags.push(Diag::error(Reason::CommandFailed, msg).key("lxd"));
                return;
            }
        }
        let packages = required_packages(ctx, &s.drivers);
        if !packages.is_empty() {
            if let Err(why) = super::packages::install(ctx, &packages) {
                // As cloud-init: a warning, and nothing more is done.
                let msg = format!("storage packages not installed ({why}); LXD not set up");
                diags.push(Diag::warning(Reason::PackageCommandFailed, msg).key("lxd"));
                return;
            }
        }
        let timeout = format!("--timeout={}", ember_core::bounds::LXD_WAITREADY.as_secs());
        if !step(ctx, &["lxd", "waitready", &timeout], "lxd", diags) {
            return;
        }
        if let Some(preseed) = &s.preseed {
            ctx.exec.say("lxd: running lxd init --preseed");
            let outcome = with_stdin(ctx, &["lxd", "init", "--preseed"], preseed.expose());
            check(outcome, "lxd init --preseed", "lxd.preseed", diags);
            return;
        }
        if let Some(init) = &s.init {
            if !apply_init(ctx, init, diags) {
                return;
            }
        }
        // A bridge the reader refused is already its error: cloud-init fails here, after
        // `init`.
        if let Some(Ok(bridge)) = &s.bridge {
            apply_bridge(ctx, bridge, s.init.is_some(), diags);
        }
    }
}

/// `zfsutils-linux`, `lvm2`, `btrfs-progs` for the drivers asked for whose tool the target
/// lacks.
fn required_packages(ctx: &ModCtx, drivers: &[String]) -> Vec<String> {
    let table = [
        ("zfs", "zfs", "zfsutils-linux"),
        ("lvm", "lvcreate", "lvm2"),
        ("btrfs", "mkfs.btrfs", "btrfs-progs"),
    ];
    table
        .iter()
        .filter(|(d, tool, _)| drivers.iter().any(|x| x == d) && which(ctx.root, tool).is_none())
        .map(|(_, _, pkg)| pkg.to_string())
        .collect()
}

/// `lxd init --auto` with the flags; the LVM fallback; the trust password on stdin.
fn apply_init(ctx: &ModCtx, init: &Init, diags: &mut Vec<Diag>) -> bool {
    let mut argv = vec!["lxd", "init", "--auto"];
    argv.extend(init.flags.iter().map(String::as_str));
    ctx.exec.say(&format!("lxd: running {}", argv.join(" ")));
    let outcome = ctx.exec.run(&argv, &[]);
    if !outcome.ok() {
        if init.backend.as_deref() != Some("lvm") {
            return check(outcome, "lxd init --auto", "lxd.init", diags);
        }
        // cloud-init's answer to LP #1982780: a pool that does not use a thin pool.
        let msg = "LXD's LVM pool made without a thin pool (cloud-init's default on Ubuntu)";
        let key = "lxd.init.storage_backend";
        diags.push(Diag::warning(Reason::BadValue, msg).key(key));
        let create = [
            "lxc",
            "storage",
            "create",
            "default",
            "lvm",
            "lvm.use_thinpool=false",
        ];
        if !step(ctx, &create, "lxd.init", diags) {
            return false;
        }
        argv.retain(|a| !a.starts_with("--storage-backend"));
        if !step(ctx, &argv, "lxd.init", diags) {
            return false;
        }
    }
    if let Some(password) = &init.trust_password {
        // JSON's quoting is YAML's double-quoted scalar: the password is taken as written.
        let text = format!(
            "config:\n  core.trust_password: {}\n",
            serde_json::Value::from(password.expose().as_str())
        );
        ctx.exec
            .say("lxd: setting the trust password (lxd init --preseed)");
        let outcome = with_stdin(ctx, &["lxd", "init", "--preseed"], &text);
        return check(
            outcome,
            "lxd init --preseed",
            "lxd.init.trust_password",
            diags,
        );
    }
    true
}

/// The bridge: through debconf for a packaged LXD, else with `lxc`.
fn apply_bridge(ctx: &ModCtx, b: &Bridge, did_init: bool, diags: &mut Vec<Diag>) {
    let key = "lxd.bridge";
    if ctx.root.exists(LXD_BRIDGE) && which(ctx.root, "debconf-communicate").is_some() {
        // One command a line: a value with a line break would be a command of its own.
        if let Some(why) = b.debconf.iter().find_map(|(_, v)| debconf::value(v).err()) {
            let msg = format!("a bridge setting {why}; the bridge is not configured");
            diags.push(Diag::error(Reason::BadValue, msg).key(key));
            return;
        }
        let data: String = b
            .debconf
            .iter()
            .map(|(k, v)| format!("set {k} {v}\n"))
            .collect();
        let outcome = with_stdin(ctx, &["debconf-communicate"], &data);
        if !outcome.ok() {
            let msg = format!("debconf-communicate {}", outcome.describe());
            diags.push(Diag::warning(Reason::CommandFailed, msg).key(key));
        }
        if let Err(e) = ctx.root.remove_file(LXD_BRIDGE) {
            diags.push(Diag::error(e.code(), e.to_string()).key(key));
            return;
        }
        step(
            ctx,
            &["dpkg-reconfigure", "lxd", "--frontend=noninteractive"],
            key,
            diags,
        );
        return;
    }
    if !cleanup_default(ctx, b, did_init, diags) {
        return;
    }
    for cmd in [&b.create, &b.attach].into_iter().flatten() {
        let outcome = lxc(ctx, cmd);
        if !check(outcome, &format!("lxc network {}", cmd[1]), key, diags) {
            return;
        }
    }
}

/// cloud-init's `maybe_cleanup_default`: `lxd init --auto` makes lxdbr0 and attaches it to
/// the default profile; before making its own, the old one is detached and deleted (exit
/// status 1 means it was not there).
fn cleanup_default(ctx: &ModCtx, b: &Bridge, did_init: bool, diags: &mut Vec<Diag>) -> bool {
    if b.name != DEFAULT_BRIDGE || !did_init {
        return true;
    }
    let key = "lxd.bridge";
    let name = b.name.as_str();
    if b.create.is_some() {
        let outcome = lxc(ctx, &["network", "detach-profile", name, "default"]);
        if outcome.ok() {
            let outcome = lxc(ctx, &["network", "delete", name]);
            if !check(outcome, "lxc network delete", key, diags) {
                return false;
            }
        } else if outcome != Outcome::Exited(1) {
            return check(outcome, "lxc network detach-profile", key, diags);
        }
    }
    if b.attach.is_some() {
        let outcome = lxc(ctx, &["profile", "device", "remove", "default", "eth0"]);
        if !outcome.ok() && outcome != Outcome::Exited(1) {
            return check(outcome, "lxc profile device remove", key, diags);
        }
    }
    true
}

/// `lxc ARGS --force-local` in cloud-init's environment.
fn lxc<S: AsRef<str>>(ctx: &ModCtx, args: &[S]) -> Outcome {
    let mut argv = vec!["lxc"];
    argv.extend(args.iter().map(AsRef::as_ref));
    argv.push("--force-local");
    ctx.exec.say(&format!("lxd: running {}", argv.join(" ")));
    ctx.exec.run(&argv, LXC_ENV)
}

/// Runs `argv` (no secret in it); false, with an error keyed `key`, when it failed.
fn step(ctx: &ModCtx, argv: &[&str], key: &str, diags: &mut Vec<Diag>) -> bool {
    ctx.exec.say(&format!("lxd: running {}", argv.join(" ")));
    let outcome = ctx.exec.run(argv, &[]);
    check(outcome, &argv[..argv.len().min(2)].join(" "), key, diags)
}

fn check(outcome: Outcome, what: &str, key: &str, diags: &mut Vec<Diag>) -> bool {
    if outcome.ok() {
        return true;
    }
    let msg = format!("{what} {}", outcome.describe());
    diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
    false
}

/// Runs `argv` with `data` on its standard input, through a 0600 file removed afterwards, so
/// the data (a preseed, a password) is in no command line.
fn with_stdin(ctx: &ModCtx, argv: &[&str], data: &str) -> Outcome {
    let spec = FileSpec::mode(0o600);
    if let Err(e) = ctx.root.write_file(STDIN_FILE, data.as_bytes(), &spec) {
        return Outcome::NotStarted(e.to_string());
    }
    let mut words = vec![
        "sh",
        "-c",
        "f=$1; shift; exec \"$@\" < \"$f\"",
        "sh",
        STDIN_FILE,
    ];
    words.extend_from_slice(argv);
    let outcome = ctx.exec.run(&words, &[]);
    let _ = ctx.root.remove_file(STDIN_FILE);
    outcome
}

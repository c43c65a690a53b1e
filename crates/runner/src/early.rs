//! The early unit's own work (`ember init`), besides `bootcmd`: boothooks, SELinux labels for
//! what ember-initrd wrote (`restorecon`, which needs the booted system's policy), and host
//! keys ember-initrd left for `ssh-keygen` in the target before sshd (the image's
//! `ember.rsa_host_key: before-sshd`, or published on GCE; by default they are `deferred`'s,
//! after sshd); and, first in the config stage (the network is up), the
//! `random_seed.command` ember-initrd left. Each returns `None` when there was nothing to do,
//! so no step is recorded for it.

use super::modules::common::shell;
use super::modules::{once, run_script, which, ModCtx};
use crate::error::Diag;
use crate::modules::resizefs::PENDING_RESIZE;
use crate::modules::seed_random::{PendingCommand, COMMAND_FILE};
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::state::{Frequency, EMBER_LIB};

pub const PENDING_HOSTKEYS: &str = "/var/lib/ember/pending-hostkeys";
/// The host keys ember-hostkeys.service makes after sshd started (`deferred`).
pub const DEFERRED_HOSTKEYS: &str = "/var/lib/ember/deferred-hostkeys";
pub const RESTORECON_LIST: &str = "/var/lib/ember/restorecon.list";
/// Host key types ssh-keygen knows; anything else in the list is dropped with an error.
const KEY_TYPES: &[&str] = &["rsa", "dsa", "ecdsa", "ed25519", "ecdsa-sk", "ed25519-sk"];

/// `#cloud-boothook` parts, each per its frequency, with `INSTANCE_ID` in the environment.
pub fn boothooks(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    if ctx.handoff.boothooks.is_empty() {
        return None;
    }
    let env = [("INSTANCE_ID", ctx.handoff.instance_id.as_str())];
    for hook in &ctx.handoff.boothooks {
        let base = hook.path.rsplit('/').next().unwrap_or(&hook.path);
        // cloud-init runs boothooks on every boot; ember-initrd says so in the frequency.
        let freq = Frequency::parse(&hook.frequency).unwrap_or(Frequency::PerBoot);
        once(ctx, &format!("boothook.{base}"), freq, diags, |d| {
            run_script(ctx, &hook.path, &env, d)
        });
    }
    Some("ok".into())
}

/// Lines of a small list file in ember's state directory; `None` when it does not exist.
fn read_list(ctx: &ModCtx, rel: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    debug_assert!(rel.starts_with(EMBER_LIB));
    match ctx.root.read_file(rel, 64 * 1024) {
        Ok(Some(data)) => Some(
            String::from_utf8_lossy(&data)
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        Ok(None) => None,
        Err(e) => {
            diags.push(Diag::from(e));
            None
        }
    }
}

/// Rewrites a list with what is left, or removes it when nothing is.
fn write_list(ctx: &ModCtx, rel: &str, left: &[String], diags: &mut Vec<Diag>) {
    let done = if left.is_empty() {
        ctx.root.remove_file(rel)
    } else {
        let text = left.join("\n") + "\n";
        ctx.root
            .write_file(rel, text.as_bytes(), &FileSpec::mode(0o600))
    };
    if let Err(e) = done {
        diags.push(Diag::from(e));
    }
}

/// The host keys left for before sshd starts (`make_host_keys`).
pub fn host_keys(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    make_host_keys(ctx, PENDING_HOSTKEYS, diags)?;
    Some(step_result(diags))
}

/// `ssh-keygen -q -N '' -t <type> -f /etc/ssh/ssh_host_<type>_key` in the target for each type
/// in the list `list`; an entry is removed once its key exists, kept (for the next boot) on
/// failure. Returns the types made, `None` when there is no list.
pub fn make_host_keys(ctx: &ModCtx, list: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let pending = read_list(ctx, list, diags)?;
    if let Err(e) = ctx.root.create_dir_all("/etc/ssh", &FileSpec::DIR) {
        diags.push(Diag::from(e));
        return Some(Vec::new());
    }
    let (mut left, mut made) = (Vec::new(), Vec::new());
    for (i, t) in pending.iter().enumerate() {
        let line = format!("{list}:{}", i + 1);
        if !KEY_TYPES.contains(&t.as_str()) {
            let msg = "unknown host key type; entry dropped";
            diags.push(Diag::error(Reason::HostkeyType, msg).file(line));
            continue;
        }
        let key = format!("/etc/ssh/ssh_host_{t}_key");
        if ctx.root.exists(&key) {
            continue; // Never replace a key that exists: clients already trust it.
        }
        let argv = ["ssh-keygen", "-q", "-N", "", "-t", t, "-f", &key];
        let outcome = ctx.exec.run(&argv, &[]);
        if outcome.ok() {
            made.push(t.clone());
        } else {
            // cloud-init's cc_ssh logs a failed ssh-keygen (logexc, a warning) and goes on.
            let msg = format!("ssh-keygen {}; kept for the next boot", outcome.describe());
            diags.push(Diag::warning(Reason::HostkeyFailed, msg).file(line));
            left.push(t.clone());
        }
    }
    write_list(ctx, list, &left, diags);
    Some(made)
}

/// The first of `names` present in the target.
fn tool(ctx: &ModCtx, names: &[&'static str]) -> Option<&'static str> {
    names.iter().copied().find(|p| ctx.root.exists(p))
}

/// `restorecon -F -R` on the listed paths when the target runs SELinux; the list stays for a
/// later boot when SELinux or restorecon is missing, and is removed once labels are restored.
pub fn restorecon(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let paths = read_list(ctx, RESTORECON_LIST, diags)?;
    let enabled = tool(ctx, &["/usr/sbin/selinuxenabled", "/sbin/selinuxenabled"])
        .is_some_and(|t| ctx.exec.run(&[t], &[]).ok());
    let restorecon = tool(ctx, &["/usr/sbin/restorecon", "/sbin/restorecon"]);
    let (true, Some(restorecon)) = (enabled, restorecon) else {
        return Some("skipped (SELinux not enabled or no restorecon)".into());
    };
    let (good, bad): (Vec<&String>, Vec<&String>) = paths.iter().partition(|p| p.starts_with('/'));
    if !bad.is_empty() {
        let msg = format!("{} entries are not absolute paths; dropped", bad.len());
        diags.push(Diag::error(Reason::RestoreconPath, msg).file(RESTORECON_LIST));
    }
    let mut argv = vec![restorecon, "-F", "-R"];
    argv.extend(good.iter().map(|p| p.as_str()));
    let outcome = ctx.exec.run(&argv, &[]);
    if outcome.ok() {
        write_list(ctx, RESTORECON_LIST, &[], diags);
    } else {
        let msg = format!(
            "restorecon {}; list kept for the next boot",
            outcome.describe()
        );
        diags.push(Diag::error(Reason::RestoreconFailed, msg).file(RESTORECON_LIST));
    }
    Some(step_result(diags))
}

/// Grows the filesystems ember-initrd found smaller than their device, online, with the
/// system's own tool; an entry stays for the next boot when its tool fails.
pub fn resizefs(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let pending = read_list(ctx, PENDING_RESIZE, diags)?;
    let mut left = Vec::new();
    for (i, entry) in pending.iter().enumerate() {
        let at = format!("{PENDING_RESIZE}:{}", i + 1);
        let words: Vec<&str> = entry.split_whitespace().collect();
        let (mountpoint, fstype, device, noblock) = match words[..] {
            [m, f, d] => (m, f, d, false),
            [m, f, d, "noblock"] => (m, f, d, true),
            _ => {
                diags.push(Diag::error(Reason::ResizefsEntry, "malformed entry; dropped").file(at));
                continue;
            }
        };
        let dev = format!("/dev/{device}");
        let Some(argv) = crate::disk::grow_command(fstype, mountpoint, &dev) else {
            // cloud-init warns ("Not resizing unknown filesystem type") and goes on.
            let msg = "no grow tool known for this filesystem; dropped";
            diags.push(Diag::warning(Reason::ResizefsEntry, msg).file(at));
            continue;
        };
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = if noblock {
            // cloud-init's `noblock`: the tool runs on while the boot goes on.
            let mut bg = vec!["sh", "-c", "\"$@\" >/dev/null 2>&1 &", "sh"];
            bg.extend(&argv);
            ctx.exec.run(&bg, &[])
        } else {
            ctx.exec.run(&argv, &[])
        };
        if outcome.ok() {
            ctx.exec.say(&format!(
                "ember: resizefs: {fstype} on {dev} ({mountpoint}) grown"
            ));
        } else {
            let msg = format!("{} {}; kept for the next boot", argv[0], outcome.describe());
            diags.push(Diag::error(Reason::ResizefsFailed, msg).file(at));
            left.push(entry.clone());
        }
    }
    write_list(ctx, PENDING_RESIZE, &left, diags);
    Some(step_result(diags))
}

/// The script the seed command runs from (0700: the command is user-data).
const SEED_SCRIPT: &str = "/var/lib/ember/seed-random-command";

/// cc_seed_random's `command`, left by ember-initrd: run once, with `RANDOM_SEED_FILE` set, in
/// the booted system with its network (pollinate fetches its seed). A command not found is an
/// error only with `command_required`; a command that fails is one, as in cloud-init.
pub fn seed_random_command(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let data = ctx.root.read_file(COMMAND_FILE, 64 * 1024).ok()??;
    let key = "random_seed.command";
    let ran = match serde_json::from_slice::<PendingCommand>(&data) {
        Err(_) => {
            let msg = "not what ember-initrd writes: not run";
            diags.push(Diag::error(Reason::BadValue, msg).file(COMMAND_FILE));
            "error"
        }
        Ok(p) if p.command.first().and_then(|c| which(ctx.root, c)).is_none() => {
            if p.required {
                let msg = "command not found in the target, and command_required is true";
                diags.push(Diag::error(Reason::ToolMissing, msg).key(key));
                "error"
            } else {
                "skipped (command not found)"
            }
        }
        Ok(p) => {
            let words: Vec<String> = p.command.iter().map(|w| shell::quote(w)).collect();
            let script = format!("#!/bin/sh\nexec {}\n", words.join(" "));
            let spec = FileSpec::mode(0o700);
            match ctx.root.write_file(SEED_SCRIPT, script.as_bytes(), &spec) {
                Err(e) => {
                    diags.push(Diag::from(e).key(key));
                    "error"
                }
                Ok(()) => {
                    let outcome = ctx
                        .exec
                        .run(&[SEED_SCRIPT], &[("RANDOM_SEED_FILE", &p.file)]);
                    if outcome.ok() {
                        "ok"
                    } else {
                        let msg = format!("the seed command {}", outcome.describe());
                        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
                        "error"
                    }
                }
            }
        }
    };
    // Once per instance, as cloud-init: the next boot does not run it again.
    for path in [SEED_SCRIPT, COMMAND_FILE] {
        if let Err(e) = ctx.root.remove_file(path) {
            diags.push(Diag::from(e));
        }
    }
    Some(ran.into())
}

/// A step's result word from what it recorded.
pub(super) fn step_result(diags: &[Diag]) -> String {
    let failed = diags.iter().any(Diag::is_error);
    if failed { "error" } else { "ok" }.into()
}

//! `ember init --deferred-hostkeys` (ember-hostkeys.service): the host keys ember-initrd left
//! for after sshd's start (RSA, which ssh-keygen takes seconds to make, 19 s under emulation,
//! while sshd already answers with the Ed25519 and ECDSA keys made in the initramfs); then
//! sshd is reloaded so it offers them, and their blocks go to the console as keys_to_console
//! prints the others. Recorded as the `hostkeys` stage of status.json, which no waiter waits
//! for: `status --wait`, result.json and boot-finished never wait on it.

use super::early::{make_host_keys, step_result, DEFERRED_HOSTKEYS};
use super::modules::{keys_to_console, ModCtx};
use crate::error::Diag;
use crate::reason::Reason;

/// The units sshd runs as: Debian and Ubuntu's, and everyone else's (Debian's alias).
const SSHD_UNITS: [&str; 2] = ["ssh.service", "sshd.service"];
/// Where sshd writes its pid by default (`PidFile`), for systems without systemd.
const SSHD_PID: &str = "/run/sshd.pid";

/// Makes the deferred keys, reloads sshd and prints the new keys; `None` with no list.
pub fn host_keys(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let made = make_host_keys(ctx, DEFERRED_HOSTKEYS, diags)?;
    if !made.is_empty() {
        reload_sshd(ctx, diags);
        print_keys(ctx, &made, diags);
    }
    Some(step_result(diags))
}

/// sshd reads its host keys when it starts and on SIGHUP (it re-executes itself): a reload
/// makes it offer the new ones. Under systemd `try-reload-or-restart`, which leaves a stopped
/// sshd stopped (it reads every key when it starts); elsewhere SIGHUP to the pid in its pid file.
/// An sshd not reloaded is a warning: it offers the new keys from its next start.
fn reload_sshd(ctx: &ModCtx, diags: &mut Vec<Diag>) {
    let exec = ctx.exec;
    let outcome = if ctx.root.exists("/run/systemd/system") {
        // Each name alone: systemctl fails for a unit it does not know, as on Fedora for ssh.
        let mut last = None;
        for unit in SSHD_UNITS {
            let o = exec.run(&["systemctl", "try-reload-or-restart", unit], &[]);
            let ok = o.ok();
            last = Some(o);
            if ok {
                break;
            }
        }
        last
    } else if exec.is_live() && ctx.root.exists(SSHD_PID) {
        let script = "kill -HUP \"$(cat \"$1\")\"";
        Some(exec.run(&["sh", "-c", script, "sh", SSHD_PID], &[]))
    } else {
        None
    };
    match outcome {
        Some(o) if o.ok() => exec.say("ember: sshd reloaded to offer the new host keys"),
        Some(o) => {
            let msg = format!(
                "sshd not reloaded ({}): it offers the new host keys from its next start",
                o.describe()
            );
            diags.push(Diag::warning(Reason::SshdReload, msg));
        }
        None => exec.say("ember: no running sshd found to reload"),
    }
}

/// keys_to_console's blocks for the keys just made, with its settings from the handoff; none
/// when the handoff has no keys_to_console (then the others were not printed either).
fn print_keys(ctx: &ModCtx, made: &[String], diags: &mut Vec<Diag>) {
    let Some(call) = ctx
        .handoff
        .modules
        .iter()
        .find(|c| c.name == "keys_to_console")
    else {
        return;
    };
    let names: Vec<String> = made
        .iter()
        .map(|t| format!("ssh_host_{t}_key.pub"))
        .collect();
    keys_to_console::print(ctx, &call.config, |n| names.iter().any(|m| m == n), diags);
}

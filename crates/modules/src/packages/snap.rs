//! The snap side of `package_update_upgrade_install`, as cloud-init's snap package manager
//! does it: `snap install NAME [SECOND]` one snap at a time (a failure is noted and the next
//! one tried), and on Ubuntu `snap refresh` after the upgrade unless `snap get system -d` says
//! `refresh.hold` is `forever`.

use crate::common::distro::{which, OsRelease};
use crate::error::Diag;
use crate::packages::Package;
use crate::reason::Reason;
use crate::ModCtx;

/// Where `snap get system -d` answers, read back and removed.
const SYSTEM_JSON: &str = "/var/lib/ember/snap-system.json";

/// cloud-init's Ubuntu distribution (and its derivatives) refreshes snaps on upgrade; its
/// Debian one does not.
pub fn ubuntu(ctx: &ModCtx) -> bool {
    let os = OsRelease::read(ctx.root);
    os.id == "ubuntu" || os.like.iter().any(|l| l == "ubuntu")
}

/// `snap refresh`, unless the target has no snap or holds refreshes forever.
pub fn refresh(ctx: &ModCtx, diags: &mut Vec<Diag>) {
    if which(ctx.root, "snap").is_none() {
        return;
    }
    if held_forever(ctx) {
        ctx.exec
            .say("packages: snap refresh.hold is forever; snaps not refreshed");
        return;
    }
    ctx.exec.say("packages: running snap refresh");
    let outcome = ctx.exec.run(&["snap", "refresh"], &[]);
    if !outcome.ok() {
        let msg = format!("snap refresh {}", outcome.describe());
        diags.push(Diag::error(Reason::PackageCommandFailed, msg).key("package_upgrade"));
    }
}

/// Whether `snap get system -d` says `refresh.hold: forever`. An answer that cannot be read
/// is no hold (cloud-init goes on to refresh when the command fails).
fn held_forever(ctx: &ModCtx) -> bool {
    let argv = ["sh", "-c", "snap get system -d > \"$1\"", "sh", SYSTEM_JSON];
    let ran = ctx.exec.run(&argv, &[]).ok();
    let data = ctx.root.read_file(SYSTEM_JSON, 1 << 20).ok().flatten();
    let _ = ctx.root.remove_file(SYSTEM_JSON);
    let json: Option<serde_json::Value> = data.and_then(|d| serde_json::from_slice(&d).ok());
    ran && json.is_some_and(|j| j["refresh"]["hold"] == "forever")
}

/// `snap install` for each snap; the failed ones named in one error at the end.
pub fn install(ctx: &ModCtx, snaps: &[(&str, &Package)], diags: &mut Vec<Diag>) {
    let mut failed: Vec<&str> = Vec::new();
    let have = which(ctx.root, "snap").is_some();
    for (_, p) in snaps {
        if !have {
            failed.push(&p.name);
            continue;
        }
        let mut argv = vec!["snap", "install", p.name.as_str()];
        argv.extend(p.version.as_deref());
        ctx.exec
            .say(&format!("packages: running {}", argv.join(" ")));
        if !ctx.exec.run(&argv, &[]).ok() {
            failed.push(&p.name);
        }
    }
    if failed.is_empty() {
        return;
    }
    let key = snaps.first().map_or("packages", |(k, _)| k);
    let msg = if have {
        format!("snap install failed for: {}", failed.join(", "))
    } else {
        format!("no snap in the target to install: {}", failed.join(", "))
    };
    let reason = if have {
        Reason::PackageCommandFailed
    } else {
        Reason::ToolMissing
    };
    diags.push(Diag::error(reason, msg).key(key));
}

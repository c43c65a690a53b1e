//! `package_update_upgrade_install`: refreshes the package sources, upgrades, installs
//! `packages` (names or `[name, version]`) with the target's own package manager (apt-get,
//! dnf, yum, apk, zypper), and with `package_reboot_if_required` asks for a reboot when the
//! distribution's marker says one is needed. As in cloud-init, installing or upgrading
//! refreshes the sources first. On Debian-family targets, as cloud-init's Debian and Ubuntu
//! distributions: `{apt: [...]}` entries go to apt-get, `{snap: [...]}` entries to `snap
//! install` one at a time (after apt-get), and on Ubuntu an upgrade also runs `snap refresh`
//! unless snapd's `refresh.hold` is `forever`. Elsewhere those entries are a warning.
//! Not done: cloud-init's retry with snap of a plain name apt does not know.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#package-update-upgrade-install>

use super::{Guard, ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

mod settings;
mod shape;
mod snap;
pub use settings::{read, Entry, Package, Settings};

pub use crate::common::package_manager::{install, Manager, Op};

pub struct Packages;

/// The package as `m`'s install command names it: pinned when a version is given.
fn spell(m: Manager, p: &Package) -> String {
    match &p.version {
        Some(v) => m.pin(&p.name, v),
        None => p.name.clone(),
    }
}

/// Where distributions leave word that an upgrade wants a reboot: Debian's, then SUSE's.
const REBOOT_MARKERS: &[&str] = &["/var/run/reboot-required", "/run/reboot-needed"];
/// cloud-init's reboot command.
const REBOOT: &str = "/sbin/reboot";

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Packages {
    fn name(&self) -> &'static str {
        "package_update_upgrade_install"
    }
    /// It changes the machine: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let settings = read(cfg, diags);
        if !(settings.update || settings.upgrade || settings.packages.is_some()) {
            return;
        }
        let manager = Manager::detect(ctx);
        let entries = settings.packages.as_deref().unwrap_or_default();
        let (pkgs, snaps) = for_manager(entries, manager, diags);
        let Some(m) = manager else {
            let key = if settings.packages.is_some() {
                "packages"
            } else if settings.upgrade {
                "package_upgrade"
            } else {
                "package_update"
            };
            let msg = "no package manager (apt-get, dnf, yum, apk, zypper) in the target";
            diags.push(Diag::error(Reason::PackageManagerMissing, msg).key(key));
            return;
        };
        let names: Vec<String> = pkgs.into_iter().map(|p| spell(m, p)).collect();
        apply(ctx, m, &settings, &names, &snaps, diags);
    }
}

/// The snaps of `{snap: [...]}` entries, each with its entry's key.
type Snaps<'a> = Vec<(&'a str, &'a Package)>;

/// The packages `manager` installs: every plain entry, and on an apt-get target the
/// `{apt: [...]}` ones; and the `{snap: [...]}` ones on an apt-get target. Elsewhere those
/// entries are a warning naming them (cloud-init's other distributions refuse them).
fn for_manager<'a>(
    entries: &'a [Entry],
    manager: Option<Manager>,
    diags: &mut Vec<Diag>,
) -> (Vec<&'a Package>, Snaps<'a>) {
    let mut out = Vec::new();
    let mut snaps = Vec::new();
    let apt = manager == Some(Manager::Apt);
    for entry in entries {
        match entry {
            Entry::Any(p) => out.push(p),
            Entry::Apt { packages, .. } if apt => out.extend(packages),
            Entry::Snap { key, packages } if apt => {
                snaps.extend(packages.iter().map(|p| (key.as_str(), p)));
            }
            Entry::Apt { key, .. } | Entry::Snap { key, .. } => {
                diags.push(settings::unsupported(key))
            }
        }
    }
    (out, snaps)
}

/// Refreshes, upgrades, installs `names` then `snaps`, and asks for a reboot when one is
/// wanted.
fn apply(
    ctx: &ModCtx,
    m: Manager,
    settings: &Settings,
    names: &[String],
    snaps: &Snaps,
    diags: &mut Vec<Diag>,
) {
    let run = |op: Op, names: &[String], key: &str, diags: &mut Vec<Diag>| {
        let argv = m.argv(op, names);
        ctx.exec
            .say(&format!("packages: running {}", argv.join(" ")));
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = ctx.exec.run(&args, m.env());
        if !outcome.ok() {
            let msg = format!("{} {}", m.tool(), outcome.describe());
            diags.push(Diag::error(Reason::PackageCommandFailed, msg).key(key));
        }
    };
    // cloud-init refreshes the sources whenever it upgrades or installs, and goes on
    // when that fails (a stale cache may still serve the install).
    run(Op::Update, &[], "package_update", diags);
    if settings.upgrade {
        run(Op::Upgrade, &[], "package_upgrade", diags);
        if m == Manager::Apt && snap::ubuntu(ctx) {
            snap::refresh(ctx, diags);
        }
    }
    if !names.is_empty() {
        run(Op::Install, names, "packages", diags);
    }
    if !snaps.is_empty() {
        snap::install(ctx, snaps, diags);
    }
    let changed = settings.upgrade || !names.is_empty() || !snaps.is_empty();
    if changed && settings.reboot_if_required && REBOOT_MARKERS.iter().any(|p| ctx.root.exists(p)) {
        // Recorded like power_state's request: run once the final stage has recorded its
        // end (cloud-init reboots at once; ember lets the later final modules finish first).
        ctx.exec
            .say("packages: a reboot is required; rebooting when the final stage ends");
        let mut power = ctx.power.borrow_mut();
        if power.is_none() {
            *power = Some(vec![REBOOT.to_string()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        let p = vec!["vim".to_string(), "curl=7.1".to_string()];
        let s = |m: Manager, op| m.argv(op, &p).join(" ");
        assert_eq!(
            s(Manager::Apt, Op::Install),
            "apt-get --option=Dpkg::Options::=--force-confold \
             --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet install vim curl=7.1"
        );
        assert_eq!(s(Manager::Dnf, Op::Update), "dnf -y makecache vim curl=7.1");
        assert_eq!(
            Manager::Yum.argv(Op::Upgrade, &[]).join(" "),
            "yum -t -y upgrade"
        );
        assert_eq!(Manager::Apk.argv(Op::Install, &[]).join(" "), "apk add");
        assert_eq!(
            Manager::Zypper.argv(Op::Update, &[]).join(" "),
            "zypper --non-interactive refresh"
        );
        assert_eq!(Manager::Dnf.pin("vim", "9.0"), "vim-9.0");
        assert_eq!(Manager::Apk.pin("vim", "9.0"), "vim=9.0");
    }

    #[test]
    fn apt_and_snap_entries_only_for_apt_get() {
        let cfg = serde_json::json!({"packages": ["vim", {"apt": ["jq"], "snap": ["hello"]},
                                                  "curl"]});
        let entries = read(&cfg, &mut Vec::new()).packages.unwrap();
        let names = |m, d: &mut Vec<Diag>| -> (Vec<String>, Vec<String>) {
            let (got, snaps) = for_manager(&entries, m, d);
            (
                got.iter().map(|p| p.name.clone()).collect(),
                snaps
                    .iter()
                    .map(|(k, p)| format!("{k}:{}", p.name))
                    .collect(),
            )
        };
        let mut d = Vec::new();
        let (apt, snaps) = names(Some(Manager::Apt), &mut d);
        assert_eq!(apt, ["vim", "jq", "curl"]);
        assert_eq!(snaps, ["packages.1.snap:hello"]);
        assert!(d.is_empty());
        assert_eq!(names(Some(Manager::Dnf), &mut d).0, ["vim", "curl"]);
        assert_eq!(
            names(None, &mut d),
            (vec!["vim".into(), "curl".into()], vec![])
        );
        let keys: Vec<_> = d.iter().map(|d| d.key.as_deref().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "packages.1.apt",
                "packages.1.snap",
                "packages.1.apt",
                "packages.1.snap"
            ]
        );
        assert!(d.iter().all(|d| d.code == "package-manager-unsupported"));
    }
}

//! The target's package manager (apt-get, dnf, yum, apk, zypper): which one, and its command
//! lines for refreshing, upgrading and installing, as cloud-init's distros spell them; used
//! by `package_update_upgrade_install` and by every module that installs what it needs.

use crate::common::distro::{which, Family, OsRelease};
use crate::ModCtx;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manager {
    Apt,
    Dnf,
    Yum,
    Apk,
    Zypper,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Update,
    Upgrade,
    Install,
}

impl Manager {
    pub fn tool(self) -> &'static str {
        match self {
            Manager::Apt => "apt-get",
            Manager::Dnf => "dnf",
            Manager::Yum => "yum",
            Manager::Apk => "apk",
            Manager::Zypper => "zypper",
        }
    }

    /// The distribution's manager when the target has it, else the first one it has.
    pub fn detect(ctx: &ModCtx) -> Option<Manager> {
        use Manager::*;
        let preferred: &[Manager] = match OsRelease::read(ctx.root).family() {
            Family::Debian => &[Apt],
            Family::Alpine => &[Apk],
            Family::RedHat => &[Dnf, Yum],
            Family::Suse => &[Zypper],
            Family::Other => &[],
        };
        preferred
            .iter()
            .chain(&[Apt, Dnf, Yum, Zypper, Apk])
            .copied()
            .find(|m| which(ctx.root, m.tool()).is_some())
    }

    /// `name` pinned to `version` as the manager spells it (cloud-init's choices).
    pub fn pin(self, name: &str, version: &str) -> String {
        match self {
            Manager::Apt | Manager::Apk => format!("{name}={version}"),
            Manager::Dnf | Manager::Yum | Manager::Zypper => format!("{name}-{version}"),
        }
    }

    /// The command for `op`, non-interactive, as cloud-init's distro classes run it.
    pub fn argv(self, op: Op, pkgs: &[String]) -> Vec<String> {
        let mut argv: Vec<&str> = match self {
            // force-confold keeps config files ember or write_files already put in place.
            Manager::Apt => vec![
                "apt-get",
                "--option=Dpkg::Options::=--force-confold",
                "--option=Dpkg::options::=--force-unsafe-io",
                "--assume-yes",
                "--quiet",
            ],
            Manager::Dnf => vec!["dnf", "-y"],
            // -t: tolerant of packages already installed or unknown on the command line.
            Manager::Yum => vec!["yum", "-t", "-y"],
            Manager::Apk => vec!["apk"],
            Manager::Zypper => vec!["zypper", "--non-interactive"],
        };
        argv.extend(match (self, op) {
            (Manager::Apt, Op::Update) => &["update"][..],
            (Manager::Apt, Op::Upgrade) => &["dist-upgrade"],
            (Manager::Dnf | Manager::Yum, Op::Update) => &["makecache"],
            (Manager::Dnf | Manager::Yum, Op::Upgrade) => &["upgrade"],
            (Manager::Apk, Op::Update) => &["update"],
            (Manager::Apk, Op::Upgrade) => &["upgrade"],
            (Manager::Apk, Op::Install) => &["add"],
            (Manager::Zypper, Op::Update) => &["refresh"],
            (Manager::Zypper, Op::Upgrade) => &["update", "--auto-agree-with-licenses"],
            (Manager::Zypper, Op::Install) => &["install", "--auto-agree-with-licenses"],
            (_, Op::Install) => &["install"],
        });
        let mut out: Vec<String> = argv.into_iter().map(str::to_string).collect();
        out.extend(pkgs.iter().cloned());
        out
    }

    pub fn env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Manager::Apt => &[("DEBIAN_FRONTEND", "noninteractive")],
            _ => &[],
        }
    }
}

/// Installs `names` for another module (lxd's storage tools, ubuntu-drivers-common) as
/// cloud-init's `distro.install_packages` does: on apt-get targets after refreshing the
/// sources. Err says why not, without the command line.
pub fn install(ctx: &ModCtx, names: &[String]) -> Result<(), String> {
    let Some(m) = Manager::detect(ctx) else {
        return Err("no package manager in the target".into());
    };
    if m == Manager::Apt {
        let argv = m.argv(Op::Update, &[]);
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        ctx.exec.run(&args, m.env());
    }
    let argv = m.argv(Op::Install, names);
    ctx.exec
        .say(&format!("packages: running {}", argv.join(" ")));
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let outcome = ctx.exec.run(&args, m.env());
    if outcome.ok() {
        Ok(())
    } else {
        Err(format!("{} {}", m.tool(), outcome.describe()))
    }
}

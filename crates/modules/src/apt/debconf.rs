//! `apt.debconf_selections`: every set, in the order of their names, joined into one text
//! handed to the target's `debconf-set-selections` (through a 0600 file removed afterwards,
//! never argv: preseeds may hold passwords). Then, as cloud-init, the preseeded packages that
//! are installed are reconfigured, which cloud-init can do only for `cloud-init` itself (its
//! dpkg-written config files in /etc/cloud/cloud.cfg.d removed first, then `dpkg-reconfigure
//! --frontend=noninteractive cloud-init`); any other installed one is named in a warning.
//! Installed packages come from /var/lib/dpkg/status (cloud-init asks `dpkg-query --list`).

use super::settings::Settings;
use super::ModCtx;
use crate::common::distro::which;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use ember_core::sort::IntoSet;
use std::collections::BTreeSet;

const FILE: &str = "/var/lib/ember/apt-debconf-selections";
const DPKG_STATUS: &str = "/var/lib/dpkg/status";
const CLOUD_CFG_D: &str = "/etc/cloud/cloud.cfg.d";

/// The selections as debconf-set-selections reads them: the sets joined, a newline at the end.
pub fn selections(sets: &[(String, String)]) -> String {
    let mut text = sets
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The package of each selection line (up to the first `:` or blank), comments skipped.
pub fn packages(sets: &[(String, String)]) -> BTreeSet<String> {
    sets.iter()
        .flat_map(|(_, t)| t.lines())
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            l.split([':', ' ', '\t'])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .into_set()
}

/// Installed (or held) packages named in a dpkg status file, architecture qualifiers dropped.
pub fn installed(status: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for stanza in status.split("\n\n") {
        let field = |name: &str| {
            stanza
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
        };
        let Some(pkg) = field("Package:") else {
            continue;
        };
        let words: Vec<&str> = field("Status:")
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        if matches!(words.as_slice(), ["install" | "hold", _, "installed"]) {
            out.insert(pkg.split(':').next().unwrap_or(pkg).to_string());
        }
    }
    out
}

pub fn apply(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) {
    if s.debconf.is_empty() {
        return;
    }
    let key = s.path("debconf_selections");
    let err = |e: crate::root::RootError| Diag::error(e.code(), e.to_string()).key(key.clone());
    if which(ctx.root, "debconf-set-selections").is_none() {
        let msg = "no debconf-set-selections in the target: selections not set";
        diags.push(Diag::error(Reason::ToolMissing, msg).key(key));
        return;
    }
    let text = selections(&s.debconf);
    if let Err(e) = ctx
        .root
        .write_file(FILE, text.as_bytes(), &FileSpec::mode(0o600))
    {
        diags.push(err(e));
        return;
    }
    ctx.exec.say("apt_configure: setting debconf selections");
    let outcome = ctx.exec.run(&["debconf-set-selections", FILE], &[]);
    if let Err(e) = ctx.root.remove_file(FILE) {
        diags.push(err(e));
    }
    if !outcome.ok() {
        let msg = format!("debconf-set-selections {}", outcome.describe());
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
        return;
    }
    let status = match ctx.root.read_file(DPKG_STATUS, 256 << 20) {
        Ok(data) => String::from_utf8_lossy(&data.unwrap_or_default()).into_owned(),
        Err(e) => return diags.push(err(e)),
    };
    let have = installed(&status);
    let preseeded: Vec<String> = packages(&s.debconf).intersection(&have).cloned().collect();
    let others: Vec<&str> = preseeded
        .iter()
        .map(String::as_str)
        .filter(|p| *p != "cloud-init")
        .collect();
    if !others.is_empty() {
        let msg = format!(
            "installed and preseeded, but cannot be reconfigured: {}",
            others.join(", ")
        );
        diags.push(Diag::warning(Reason::UnsupportedKey, msg).key(key.clone()));
    }
    if preseeded.iter().any(|p| p == "cloud-init") {
        reconfigure_cloud_init(ctx, &key, diags);
    }
}

/// cloud-init's cleaner for its own package, then `dpkg-reconfigure`.
fn reconfigure_cloud_init(ctx: &ModCtx, key: &str, diags: &mut Vec<Diag>) {
    let names = ctx.root.list_dir(CLOUD_CFG_D).unwrap_or_default();
    for name in names.iter().filter(|n| n.contains("dpkg")) {
        if let Err(e) = ctx.root.remove_file(&format!("{CLOUD_CFG_D}/{name}")) {
            diags.push(Diag::error(e.code(), e.to_string()).key(key));
        }
    }
    let argv = [
        "dpkg-reconfigure",
        "--frontend=noninteractive",
        "cloud-init",
    ];
    let outcome = ctx.exec.run(&argv, &[]);
    if !outcome.ok() {
        let msg = format!("dpkg-reconfigure {}", outcome.describe());
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets() -> Vec<(String, String)> {
        vec![
            ("a".into(), "tzdata tzdata/Areas select Etc\n# x y\n".into()),
            (
                "b".into(),
                "cloud-init:amd64 cloud-init/datasources multiselect NoCloud".into(),
            ),
        ]
    }

    #[test]
    fn joined_and_parsed() {
        assert_eq!(
            selections(&sets()),
            "tzdata tzdata/Areas select Etc\n# x y\n\n\
             cloud-init:amd64 cloud-init/datasources multiselect NoCloud\n"
        );
        let want: BTreeSet<String> = ["tzdata", "cloud-init"].map(String::from).into();
        assert_eq!(packages(&sets()), want);
        let status = "Package: tzdata\nStatus: install ok installed\n\n\
                      Package: vim\nStatus: deinstall ok config-files\n\n\
                      Package: libc6:amd64\nStatus: hold ok installed\n";
        let want: BTreeSet<String> = ["tzdata", "libc6"].map(String::from).into();
        assert_eq!(installed(status), want);
    }
}

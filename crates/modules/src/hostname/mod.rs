//! The machine's name in the target: cloud-init's `set_hostname` (per instance),
//! `update_hostname` and `update_etc_hosts` (every boot), in that order. `settings` reads their
//! keys; this file gathers the inputs the name decision (`names`) needs; `system` writes
//! /etc/hostname and cloud-init's state, `etc_hosts` writes /etc/hosts. The running kernel's
//! hostname is set only when ember-initrd runs in the booted system (an early unit, target
//! `/`): from the initramfs, the booted system reads /etc/hostname itself.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#set-hostname>

mod etc_hosts;
pub mod names;
mod settings;
mod system;

pub use etc_hosts::UpdateEtcHosts;
pub use names::{decide, invalid_reason, Inputs, Names, Source};
pub use settings::{
    read, read_etc_hosts, read_hostname, Configured, EtcHostsSettings, HostnameSettings, Manage,
    Settings,
};
pub use system::{SetHostname, UpdateHostname};

use super::ModuleCtx;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Root};

pub const ETC_HOSTNAME: &str = "/etc/hostname";
pub const ETC_HOSTS: &str = "/etc/hosts";

/// cloud-init's distribution family (`osfamily`) for an os-release ID: it names the hosts
/// template (`hosts.<family>.tmpl`) and decides the `prefer_fqdn_over_hostname` default.
pub fn family(distro: &str) -> Option<&'static str> {
    Some(match distro {
        "debian" | "ubuntu" => "debian",
        "rhel" | "centos" | "fedora" | "almalinux" | "rocky" | "amazon" | "cloudlinux"
        | "eurolinux" | "miraclelinux" | "virtuozzo" | "openmandriva" | "ol" => "redhat",
        "opensuse"
        | "opensuse-leap"
        | "opensuse-microos"
        | "opensuse-tumbleweed"
        | "sles"
        | "sle_hpc"
        | "sle-micro"
        | "suse" => "suse",
        "gentoo" | "cos" => "gentoo",
        "arch" => "arch",
        "alpine" => "alpine",
        "freebsd" => "freebsd",
        "photon" => "photon",
        "mariner" => "mariner",
        "azurelinux" => "azurelinux",
        "openeuler" => "openeuler",
        _ => return None,
    })
}

/// The families whose cloud-init distro class sets `prefer_fqdn = True`.
fn prefers_fqdn(distro: &str) -> bool {
    matches!(
        family(distro),
        Some("redhat" | "freebsd" | "photon" | "mariner" | "azurelinux")
    )
}

/// `prefer_fqdn_over_hostname` as configured, else the distribution's default.
pub(crate) fn prefer_fqdn(ctx: &ModuleCtx, configured: Option<bool>) -> bool {
    configured.unwrap_or_else(|| prefers_fqdn(ctx.distro))
}

/// A small text file of the target, if it is there and readable.
pub fn read_text(root: &Root, path: &str, max: u64) -> Option<String> {
    let data = root.read_file(path, max).ok()??;
    Some(String::from_utf8_lossy(&data).into_owned())
}

/// The name in a hostname file: the first line that is not blank once comments are cut.
pub fn hostname_in(text: &str) -> Option<&str> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
}

/// The names for this machine from the configured ones, or `None` after recording why there
/// are none (an invalid name: an error naming where it came from, nothing written).
pub(crate) fn names(
    ctx: &ModuleCtx,
    configured: &Configured,
    diags: &mut Vec<Diag>,
) -> Option<Names> {
    let max = ctx.limits.file_bytes;
    let target_hostname = read_text(ctx.root, ETC_HOSTNAME, max);
    let target_hosts = read_text(ctx.root, ETC_HOSTS, max);
    let inputs = Inputs {
        hostname: configured.hostname.as_deref(),
        fqdn: configured.fqdn.as_deref(),
        local_hostname: ctx.instance.local_hostname(),
        target_hostname: target_hostname.as_deref().and_then(hostname_in),
        target_hosts: target_hosts.as_deref(),
    };
    let names = decide(&inputs);
    if let Err((source, why)) = names::validate(&names) {
        diags.push(
            Diag::error(
                Reason::HostnameInvalid,
                format!("{} {why}: not a valid host name", source.key()),
            )
            .key(source.key()),
        );
        return None;
    }
    Some(names)
}

/// Writes `content` unless the file already holds exactly that; false after recording a
/// failure.
pub(crate) fn write_if_changed(
    root: &Root,
    path: &str,
    content: &str,
    mode: u32,
    diags: &mut Vec<Diag>,
) -> bool {
    let max = content.len() as u64 + 1;
    if let Ok(Some(old)) = root.read_file(path, max) {
        if old == content.as_bytes() {
            return true;
        }
    }
    match root.write_file(path, content.as_bytes(), &FileSpec::mode(mode)) {
        Ok(()) => true,
        Err(e) => {
            diags.push(Diag::error(e.code(), e.to_string()));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_fqdn_defaults() {
        let cases = [
            ("debian", Some("debian"), false),
            ("ubuntu", Some("debian"), false),
            ("fedora", Some("redhat"), true),
            ("rhel", Some("redhat"), true),
            ("centos", Some("redhat"), true),
            ("opensuse-leap", Some("suse"), false),
            ("arch", Some("arch"), false),
            ("alpine", Some("alpine"), false),
            ("freebsd", Some("freebsd"), true),
            ("", None, false),
            ("haiku", None, false),
        ];
        for (distro, fam, prefer) in cases {
            assert_eq!(
                (family(distro), prefers_fqdn(distro)),
                (fam, prefer),
                "{distro}"
            );
        }
    }

    #[test]
    fn hostname_files_as_written_by_hand() {
        assert_eq!(
            hostname_in("# set by image\n\n  box  # here\n"),
            Some("box")
        );
        assert_eq!(hostname_in("#only a comment\n"), None);
    }
}

//! The machine's name in the target: cloud-init's `set_hostname` (per instance),
//! `update_hostname` and `update_etc_hosts` (every boot), in that order. This file reads the
//! settings and the inputs the name decision (`names`) needs; `system` writes /etc/hostname and
//! cloud-init's state, `etc_hosts` writes /etc/hosts. The running kernel's hostname is not
//! set: the initramfs is not the booted system, which reads /etc/hostname itself.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#set-hostname>

mod etc_hosts;
pub(crate) mod names;
mod system;

pub use etc_hosts::UpdateEtcHosts;
pub use names::{decide, invalid_reason, Inputs, Names, Source};
pub use system::{SetHostname, UpdateHostname};

use super::ModuleCtx;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Root};
use serde_json::Value;

pub(crate) const ETC_HOSTNAME: &str = "/etc/hostname";
pub(crate) const ETC_HOSTS: &str = "/etc/hosts";

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

fn wrong_type(key: &str, want: &str) -> Diag {
    Diag::error(Reason::WrongType, format!("expected {want}")).key(key)
}

/// A boolean setting as cloud-init's `get_cfg_option_bool` reads it (YAML booleans, and the
/// strings true/yes/on/1 and false/no/off/0); anything else is an error and the default.
pub(crate) fn opt_bool(cfg: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<bool> {
    match cfg.get(key)? {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Some(true),
            "false" | "no" | "off" | "0" => Some(false),
            _ => {
                diags.push(wrong_type(key, "a boolean"));
                None
            }
        },
        _ => {
            diags.push(wrong_type(key, "a boolean"));
            None
        }
    }
}

/// A string setting; `Err` after recording the type error.
fn opt_str<'a>(cfg: &'a Value, key: &str, diags: &mut Vec<Diag>) -> Result<Option<&'a str>, ()> {
    match cfg.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => {
            diags.push(wrong_type(key, "a string"));
            Err(())
        }
    }
}

/// `preserve_hostname: true`: cloud-init leaves /etc/hostname alone.
pub(crate) fn preserve(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> bool {
    opt_bool(ctx.cfg, "preserve_hostname", diags).unwrap_or(false)
}

/// `prefer_fqdn_over_hostname`, else the distribution's default.
pub(crate) fn prefer_fqdn(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> bool {
    opt_bool(ctx.cfg, "prefer_fqdn_over_hostname", diags)
        .unwrap_or_else(|| prefers_fqdn(ctx.distro))
}

/// A small text file of the target, if it is there and readable.
pub(crate) fn read_text(root: &Root, path: &str, max: u64) -> Option<String> {
    let data = root.read_file(path, max).ok()??;
    Some(String::from_utf8_lossy(&data).into_owned())
}

/// The name in a hostname file: the first line that is not blank once comments are cut.
pub(crate) fn hostname_in(text: &str) -> Option<&str> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
}

/// The names for this machine, or `None` after recording why there are none (a wrong type
/// or an invalid name: an error naming the key, nothing written).
pub(crate) fn names(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> Option<Names> {
    let hostname = opt_str(ctx.cfg, "hostname", diags);
    let fqdn = opt_str(ctx.cfg, "fqdn", diags);
    let (Ok(hostname), Ok(fqdn)) = (hostname, fqdn) else {
        return None;
    };
    let max = ctx.limits.file_bytes;
    let target_hostname = read_text(ctx.root, ETC_HOSTNAME, max);
    let target_hosts = read_text(ctx.root, ETC_HOSTS, max);
    let inputs = Inputs {
        hostname,
        fqdn,
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
    fn bools_as_cloud_init_reads_them() {
        let cfg = serde_json::json!({"a": true, "b": "Yes", "c": "off", "d": [1], "e": "maybe"});
        let mut diags = Vec::new();
        let got: Vec<_> = ["a", "b", "c", "d", "e", "missing"]
            .iter()
            .map(|k| opt_bool(&cfg, k, &mut diags))
            .collect();
        assert_eq!(got, [Some(true), Some(true), Some(false), None, None, None]);
        let keys: Vec<_> = diags.iter().map(|d| d.key.as_deref().unwrap()).collect();
        assert_eq!(keys, ["d", "e"]);
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

//! WSL (Windows Subsystem for Linux), as cloud-init 26's WSL datasource: detected from a
//! kernel release naming WSL and the Windows drives mounted over 9p (`aname=drvfs`); the data
//! is in the Windows user's profile (data.rs). WSL has no initramfs: this runs in ember's
//! early-unit mode, inside the instance. The profile is found as cloud-init finds it:
//! `cmd.exe /C echo %USERPROFILE%` run through `/init` (binfmt is not up yet), translated by
//! `wslpath -au`; the instance's name is the last part of `wslpath -am /`, a
//! `//wsl.localhost/<name>/` path. Chosen only when the profile holds data for this instance
//! (`data::applicable`, ds-identify's test), so detect runs those tools too. Every path and
//! program is taken under the host prefix, so tests give fake ones.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/wsl.html>

mod data;

use crate::context::Env;
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::Facts;
use crate::error::Diag;
use crate::host::Host;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use std::path::PathBuf;
use std::process::Command;

pub struct Wsl;

const WSLPATH: &str = "/usr/bin/wslpath";

fn kernel_says_wsl(host: &Host) -> bool {
    std::fs::read_to_string(host.path("/proc/sys/kernel/osrelease"))
        .is_ok_and(|r| r.to_ascii_lowercase().contains("wsl"))
}

/// Mount points of the Windows drives (`9p` with `aname=drvfs`).
fn windows_drives(host: &Host) -> Vec<String> {
    let mounts = std::fs::read_to_string(host.path("/proc/mounts")).unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 4 && f[2] == "9p" && f[3].contains("aname=drvfs")).then(|| f[1].to_string())
        })
        .collect()
}

/// `wslpath` and `cmd.exe` answer with a line at once; past this they are hung (a Windows
/// side that does not answer) or not what they claim.
const TOOL: crate::child::Bounds = crate::child::Bounds {
    deadline: crate::bounds::WSL_TOOL,
    max_output: 64 << 10,
};

/// A program's first line of output, or a diagnostic naming it.
fn run(host: &Host, program: &str, args: &[&str]) -> Result<String, Diag> {
    let fail = |why: String| Diag::error(Reason::CommandFailed, why).file(program.to_string());
    let out = crate::child::output(Command::new(host.path(program)).args(args), TOOL)
        .map_err(|e| fail(e.to_string()))?;
    if !out.status.success() {
        return Err(fail(format!("exited with {}", out.status)));
    }
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match text.is_empty() {
        true => Err(fail("printed nothing".into())),
        false => Ok(text),
    }
}

/// The instance's name from the root's Windows path, `//wsl.localhost/<name>/`; anything
/// else is not wslpath's answer, and no name is guessed from it (as ds-identify).
fn instance_name(unc: &str) -> Option<&str> {
    let (_server, rest) = unc.strip_prefix("//")?.split_once('/')?;
    let name = rest.strip_suffix('/').unwrap_or(rest);
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// The Windows user's profile as a path here, and the instance's name.
fn profile(host: &Host) -> Result<(PathBuf, String), Diag> {
    let root = run(host, WSLPATH, &["-am", "/"])?;
    let instance = instance_name(&root).map(str::to_string).ok_or_else(|| {
        let msg = format!("wslpath -am / printed {root:?}, not //<host>/<instance>/");
        Diag::error(Reason::CommandFailed, msg).file(WSLPATH)
    })?;
    let cmd = windows_drives(host)
        .into_iter()
        .map(|m| format!("{}/Windows/System32/cmd.exe", m.trim_end_matches('/')))
        .find(|c| host.path(c).is_file())
        .ok_or_else(|| Diag::error(Reason::NoSeed, "no cmd.exe on a mounted Windows drive"))?;
    let home = run(host, "/init", &[&cmd, "/C", "echo %USERPROFILE%"])?;
    let home = run(host, WSLPATH, &["-au", &home])?;
    Ok((host.path(&home), instance))
}

/// os-release's ID and VERSION_ID (else VERSION_CODENAME), from the instance's root.
fn distro(env: &Env) -> data::Distro {
    let text = env
        .target
        .as_ref()
        .and_then(|t| t.read_file("/etc/os-release", 65536).ok().flatten())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_string())
            .filter(|v| !v.is_empty())
    };
    data::Distro {
        id: get("ID").unwrap_or_default(),
        version: get("VERSION_ID")
            .or_else(|| get("VERSION_CODENAME"))
            .unwrap_or_default(),
    }
}

impl Datasource for Wsl {
    fn name(&self) -> &'static str {
        "wsl"
    }
    fn cloud_init_name(&self) -> &'static str {
        "WSL"
    }

    /// ds-identify's test: WSL, with the Windows drives mounted, and in the Windows user's
    /// profile a file with data for this instance or distribution; else nothing, and
    /// cloud-init's generator would leave cloud-init off.
    fn detect(&self, env: &Env, _facts: &Facts) -> Vec<Evidence> {
        let drives = windows_drives(env.host);
        if !kernel_says_wsl(env.host) || drives.is_empty() {
            return Vec::new();
        }
        let Ok((home, instance)) = profile(env.host) else {
            return Vec::new();
        };
        let Some(file) = data::applicable(&home, &instance, &distro(env)) else {
            return Vec::new();
        };
        let ev = |source: &str, detail: String| Evidence {
            source: source.into(),
            detail,
        };
        vec![
            ev("kernel", "/proc/sys/kernel/osrelease names WSL".into()),
            ev(
                "mounts",
                format!("Windows drives (9p drvfs) at {}", drives.join(", ")),
            ),
            ev(
                "profile",
                format!("{} for instance {instance}", file.display()),
            ),
        ]
    }

    fn fetch(&self, env: &Env, _facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let (home, instance) = profile(env.host)?;
        let found = data::load(&home, &instance, &distro(env), env.limits(), env.fetched)?;
        let Some(found) = found else {
            let msg = format!("no user-data for instance {instance} in the Windows profile");
            return Err(Diag::error(Reason::NoSeed, msg).file(home.display().to_string()));
        };
        let id = match &found.meta_data["instance-id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        Ok(InstanceData {
            datasource: "wsl".into(),
            instance_id: id,
            meta_data: found.meta_data,
            user_data: Some(Secret::new(found.user_data)),
            reads: found.files.len() as u32,
            detail: format!("DataSourceWSL [{instance}]"),
            subplatform: format!("seed-dir ({})", home.display()),
            ..InstanceData::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_name_only_from_a_wsl_root_path() {
        assert_eq!(
            instance_name("//wsl.localhost/Noble-MLKit/"),
            Some("Noble-MLKit")
        );
        assert_eq!(instance_name("//wsl$/Ubuntu"), Some("Ubuntu"));
        for bad in [
            "/wsl.localhost/cant-findme",
            "//wsl.localhost/",
            "C:\\x",
            "//h/a/b/",
        ] {
            assert_eq!(instance_name(bad), None, "{bad}");
        }
    }
}

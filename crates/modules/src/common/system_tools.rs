//! What the runner's system modules (locale, keyboard, rsyslog, fan, byobu, grub_dpkg, ...)
//! share: the distribution cloud-init would take the target for, how its init system acts on
//! a service, installing packages through the target's own manager, running a tool with its
//! command line said in the output log, and cloud-init's loose readings of values (Python's
//! `str()` of a value, its true and false words). It decides nothing for any one module.

use crate::common::distro::{which, Family, OsRelease};
use crate::common::exec::Outcome;
use crate::common::package_manager::{Manager, Op};
use crate::error::Diag;
use crate::reason::Reason;
use crate::ModCtx;
use serde_json::Value;

/// The distribution classes of cloud-init whose locale, keymap and service handling differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distro {
    Debian,
    RaspberryPiOs,
    RedHat,
    Suse,
    Alpine,
    Arch,
    Other,
}

impl Distro {
    /// cloud-init's distro: the image's `system_info.distro` when it names one ember knows
    /// (cloud-init's own rule), else the target's os-release.
    pub fn of(ctx: &ModCtx, cfg: &Value) -> Distro {
        cfg.pointer("/system_info/distro")
            .and_then(Value::as_str)
            .and_then(Distro::named)
            .unwrap_or_else(|| Distro::from_os(&OsRelease::read(ctx.root)))
    }

    /// A cloud-init distro name (`system_info.distro`).
    pub fn named(name: &str) -> Option<Distro> {
        Some(match name {
            "debian" | "ubuntu" => Distro::Debian,
            "raspberry-pi-os" => Distro::RaspberryPiOs,
            "alpine" => Distro::Alpine,
            "arch" => Distro::Arch,
            "almalinux" | "amazon" | "azurelinux" | "centos" | "cloudlinux" | "eurolinux"
            | "fedora" | "mariner" | "miraclelinux" | "openmandriva" | "rhel" | "rocky"
            | "virtuozzo" => Distro::RedHat,
            "opensuse"
            | "opensuse-leap"
            | "opensuse-microos"
            | "opensuse-tumbleweed"
            | "sle_hpc"
            | "sle-micro"
            | "sles"
            | "suse" => Distro::Suse,
            _ => return None,
        })
    }

    pub fn from_os(os: &OsRelease) -> Distro {
        match os.family() {
            Family::Debian => Distro::Debian,
            Family::RedHat => Distro::RedHat,
            Family::Suse => Distro::Suse,
            Family::Alpine => Distro::Alpine,
            Family::Other => {
                let mut names = std::iter::once(&os.id).chain(&os.like);
                match names.find_map(|n| Distro::named(n)) {
                    Some(d) => d,
                    None => Distro::Other,
                }
            }
        }
    }
}

/// cloud-init's `uses_systemd()`: `/run/systemd/system` is a directory (in the target, which
/// on a live system is the running one).
pub fn uses_systemd(ctx: &ModCtx) -> bool {
    ctx.root.exists("/run/systemd/system")
}

/// The service actions cloud-init's `manage_service` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Stop,
    Start,
    Enable,
    Restart,
    TryReload,
}

/// The command cloud-init's `manage_service` runs: systemctl under systemd (always on Arch),
/// OpenRC's rc-service and rc-update on Alpine, else SysV `service`.
pub fn service_argv(distro: Distro, systemd: bool, action: Action, service: &str) -> Vec<String> {
    let words: Vec<&str> = if distro == Distro::Alpine {
        match action {
            Action::Enable => vec!["rc-update", "--nocolor", "add", service],
            Action::Stop => vec!["rc-service", "--nocolor", service, "stop"],
            Action::Start => vec!["rc-service", "--nocolor", service, "start"],
            Action::Restart | Action::TryReload => {
                vec!["rc-service", "--nocolor", service, "restart"]
            }
        }
    } else if systemd || distro == Distro::Arch {
        let verb = match action {
            Action::Stop => "stop",
            Action::Start => "start",
            Action::Enable => "enable",
            Action::Restart => "restart",
            Action::TryReload => "reload-or-try-restart",
        };
        vec!["systemctl", verb, service]
    } else {
        let verb = match action {
            Action::Stop => "stop",
            Action::Start | Action::Enable => "start",
            Action::Restart | Action::TryReload => "restart",
        };
        vec!["service", service, verb]
    };
    words.into_iter().map(str::to_string).collect()
}

/// Acts on `service` as cloud-init's distro class would.
pub fn service(ctx: &ModCtx, module: &str, distro: Distro, action: Action, name: &str) -> Outcome {
    let argv = service_argv(distro, uses_systemd(ctx), action, name);
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    run(ctx, module, &args, &[])
}

/// Runs `argv` in the target after saying its command line in the output log (the callers
/// pass no secret: these are tool names, locales, device names).
pub fn run(ctx: &ModCtx, module: &str, argv: &[&str], env: &[(&str, &str)]) -> Outcome {
    ctx.exec
        .say(&format!("{module}: running {}", argv.join(" ")));
    ctx.exec.run(argv, env)
}

/// cloud-init's `distro.install_packages`: the package sources refreshed, then `pkgs`
/// installed with the target's manager. False, with an error naming `key`, when the target
/// has no manager or a command fails (cloud-init raises, failing the module).
pub fn install(
    ctx: &ModCtx,
    module: &str,
    pkgs: &[&str],
    key: &str,
    diags: &mut Vec<Diag>,
) -> bool {
    let Some(m) = Manager::detect(ctx) else {
        let msg = format!(
            "{} must be installed, but the target has no package manager (apt-get, dnf, yum, apk, zypper)",
            pkgs.join(" ")
        );
        diags.push(Diag::error(Reason::PackageManagerMissing, msg).key(key));
        return false;
    };
    let env: &[(&str, &str)] = match m {
        Manager::Apt => &[("DEBIAN_FRONTEND", "noninteractive")],
        _ => &[],
    };
    let names: Vec<String> = pkgs.iter().map(|p| p.to_string()).collect();
    for (op, names) in [(Op::Update, &[][..]), (Op::Install, &names[..])] {
        let argv = m.argv(op, names);
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = run(ctx, module, &args, env);
        if !outcome.ok() {
            let msg = format!(
                "installing {}: {} {}",
                pkgs.join(" "),
                args[0],
                outcome.describe()
            );
            diags.push(Diag::error(Reason::PackageCommandFailed, msg).key(key));
            return false;
        }
    }
    true
}

/// cloud-init's `_ensure_tool`: installs `pkgs` when `tool` is not on the target's PATH.
/// True when the tool is (or may now be) there.
pub fn ensure_tool(
    ctx: &ModCtx,
    module: &str,
    tool: &str,
    pkgs: &[&str],
    key: &str,
    diags: &mut Vec<Diag>,
) -> bool {
    which(ctx.root, tool).is_some() || install(ctx, module, pkgs, key, diags)
}

/// Python's `str()` of a YAML value, as cloud-init's `get_cfg_option_str` and templates
/// turn values into text: `True`, `None`, `1`, `1.5`.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or_default();
            if f.fract() == 0.0 && f.abs() < 1e16 {
                format!("{f:.1}")
            } else {
                f.to_string()
            }
        }
        other => other.to_string(),
    }
}

/// cloud-init's `util.is_false`: `false`, or `off`, `0`, `no`, `false` in any case.
pub fn is_false(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        other => matches!(
            py_str(other).trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "no" | "false"
        ),
    }
}

/// cloud-init's `util.translate_bool`: an empty or zero value is false, a boolean itself,
/// else true only for `true`, `1`, `on`, `yes` in any case.
pub fn translate_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::String(s) if s.is_empty() => false,
        Value::Number(n) if n.as_f64() == Some(0.0) => false,
        Value::Array(a) if a.is_empty() => false,
        Value::Object(o) if o.is_empty() => false,
        other => matches!(
            py_str(other).trim().to_ascii_lowercase().as_str(),
            "true" | "1" | "on" | "yes"
        ),
    }
}

/// `Created by ember v. X on <date>`: cloud-init's `make_header` line for files it creates.
pub fn created_header() -> String {
    format!(
        "# Created by ember v. {} on {}",
        env!("CARGO_PKG_VERSION"),
        crate::date::format_utc(crate::clock::wall_seconds())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn distros_by_name_and_os_release() {
        assert_eq!(Distro::named("ubuntu"), Some(Distro::Debian));
        assert_eq!(
            Distro::named("raspberry-pi-os"),
            Some(Distro::RaspberryPiOs)
        );
        assert_eq!(Distro::named("rocky"), Some(Distro::RedHat));
        assert_eq!(Distro::named("sle-micro"), Some(Distro::Suse));
        assert_eq!(Distro::named("gentoo"), None);
        let os = |t: &str| Distro::from_os(&OsRelease::parse(t));
        assert_eq!(os("ID=arch\n"), Distro::Arch);
        assert_eq!(os("ID=endeavouros\nID_LIKE=arch\n"), Distro::Arch);
        assert_eq!(os("ID=alpine\n"), Distro::Alpine);
        assert_eq!(os("ID=gentoo\n"), Distro::Other);
        assert_eq!(os("ID=debian\n"), Distro::Debian);
    }

    #[test]
    fn service_commands_by_init_system() {
        let s = |d, sd, a| service_argv(d, sd, a, "rsyslog").join(" ");
        assert_eq!(
            s(Distro::Debian, true, Action::TryReload),
            "systemctl reload-or-try-restart rsyslog"
        );
        assert_eq!(
            s(Distro::Debian, false, Action::TryReload),
            "service rsyslog restart"
        );
        assert_eq!(
            s(Distro::Debian, false, Action::Enable),
            "service rsyslog start"
        );
        assert_eq!(
            s(Distro::Arch, false, Action::Stop),
            "systemctl stop rsyslog"
        );
        assert_eq!(
            s(Distro::Alpine, false, Action::Enable),
            "rc-update --nocolor add rsyslog"
        );
        assert_eq!(
            s(Distro::Alpine, true, Action::TryReload),
            "rc-service --nocolor rsyslog restart"
        );
    }

    #[test]
    fn python_readings() {
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(3)), "3");
        assert_eq!(py_str(&json!(1.0)), "1.0");
        assert_eq!(py_str(&json!(1.5)), "1.5");
        assert_eq!(py_str(&json!("x")), "x");
        for f in [
            json!(false),
            json!("No"),
            json!(" off "),
            json!(0),
            json!("FALSE"),
        ] {
            assert!(is_false(&f), "{f}");
        }
        for t in [json!(true), json!(null), json!("maybe"), json!(1)] {
            assert!(!is_false(&t), "{t}");
        }
        for t in [json!(true), json!("Yes"), json!(1), json!("on")] {
            assert!(translate_bool(&t), "{t}");
        }
        for f in [
            json!(false),
            json!(""),
            json!(0),
            json!("nope"),
            json!(null),
        ] {
            assert!(!translate_bool(&f), "{f}");
        }
    }
}

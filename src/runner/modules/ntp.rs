//! `ntp`: writes the NTP client's configuration in the target from `servers`, `pools`,
//! `peers` and `allow` (the distribution's pools when neither servers nor pools are given), for
//! chrony, systemd-timesyncd or ntpd; `auto` picks the first installed of those, in
//! cloud-init's order. The file is ember's own text, not cloud-init's templates, so
//! `config.template` is not supported. It installs nothing (that is `packages`'), and only
//! on the live system (`--target /`) enables and restarts the service.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ntp>

use super::distro::{flag, plain_word, which, Family, OsRelease};
use super::{ModCtx, RunnerModule};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod render;
use render::{render, Lists};

pub struct Ntp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    Chrony,
    Timesyncd,
    Ntpd,
}

/// cloud-init's preference when several are installed (and when none is).
const PREFERRED: [Client; 3] = [Client::Chrony, Client::Timesyncd, Client::Ntpd];

/// Where a client reads its configuration, what it runs as, how to tell it is installed.
#[derive(Debug, PartialEq, Eq)]
pub struct ClientCfg {
    pub confpath: String,
    pub service: String,
    pub check_exe: Vec<String>,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::Chrony => "chrony",
            Client::Timesyncd => "systemd-timesyncd",
            Client::Ntpd => "ntp",
        }
    }

    /// cloud-init's per-distribution defaults.
    pub fn defaults(self, family: Family) -> ClientCfg {
        let debian = family == Family::Debian;
        let (confpath, service, exe): (&str, &str, &[&str]) = match self {
            Client::Chrony if debian => ("/etc/chrony/chrony.conf", "chrony", &["chronyd"]),
            Client::Chrony if family == Family::Alpine => {
                ("/etc/chrony/chrony.conf", "chronyd", &["chronyd"])
            }
            Client::Chrony => ("/etc/chrony.conf", "chronyd", &["chronyd"]),
            Client::Timesyncd => (
                "/etc/systemd/timesyncd.conf.d/cloud-init.conf",
                "systemd-timesyncd",
                &[
                    "/lib/systemd/systemd-timesyncd",
                    "/usr/lib/systemd/systemd-timesyncd",
                ],
            ),
            Client::Ntpd => (
                "/etc/ntp.conf",
                if debian { "ntp" } else { "ntpd" },
                &["ntpd"],
            ),
        };
        ClientCfg {
            confpath: confpath.into(),
            service: service.into(),
            check_exe: exe.iter().map(|s| s.to_string()).collect(),
        }
    }
}

fn installed(ctx: &ModCtx, cfg: &ClientCfg) -> bool {
    cfg.check_exe.iter().any(|e| which(ctx.root, e).is_some())
}

/// A list of host names (or, for `allow`, networks) under `ntp.<key>`; bad items are errors
/// naming `ntp.<key>.N` and are left out, so they never become a line of their own.
fn hosts(ntp: &Value, key: &str, diags: &mut Vec<Diag>) -> Vec<String> {
    let path = format!("ntp.{key}");
    let items = match ntp.get(key) {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "expected a list").key(path));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().filter(|s| plain_word(s)) {
            Some(s) => out.push(s.to_string()),
            None => {
                let msg = "expected a host name or address; item skipped";
                diags.push(Diag::error(Reason::WrongType, msg).key(format!("{path}.{i}")));
            }
        }
    }
    out
}

/// `ntp.config`'s overrides of the client's defaults.
fn overrides(ntp: &Value, cfg: &mut ClientCfg, diags: &mut Vec<Diag>) {
    let Some(map) = ntp.get("config").and_then(Value::as_object) else {
        if ntp.get("config").is_some_and(|v| !v.is_null()) {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("ntp.config"));
        }
        return;
    };
    for (k, v) in map {
        let key = format!("ntp.config.{k}");
        let s = v.as_str();
        match k.as_str() {
            "confpath" if s.is_some_and(|p| p.starts_with('/') && plain_word(p)) => {
                cfg.confpath = s.unwrap_or_default().into()
            }
            "service_name" if s.is_some_and(plain_word) => {
                cfg.service = s.unwrap_or_default().into()
            }
            "check_exe" if s.is_some_and(plain_word) => {
                cfg.check_exe = vec![s.unwrap_or_default().into()]
            }
            "confpath" | "service_name" | "check_exe" => {
                diags.push(Diag::error(Reason::WrongType, "expected a path or name").key(key))
            }
            "packages" => {
                let msg = "ignored: ember's ntp installs nothing; list the client in packages";
                diags.push(Diag::warning(Reason::NtpPackagesIgnored, msg).key(key));
            }
            "template" | "template_name" => {
                let msg = "not supported: ember writes its own configuration file";
                diags.push(Diag::warning(Reason::NtpTemplateUnsupported, msg).key(key));
            }
            _ => diags.push(Diag::warning(Reason::UnknownKey, "unknown key; ignored").key(key)),
        }
    }
}

impl RunnerModule for Ntp {
    fn name(&self) -> &'static str {
        "ntp"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let ntp = match cfg.get("ntp") {
            None => return,
            // cloud-init: an empty `ntp:` configures the default client with default pools.
            Some(Value::Null) => Value::Object(Default::default()),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(_) => {
                diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("ntp"));
                return;
            }
        };
        if flag(ntp.get("enabled"), "ntp.enabled", diags) == Some(false) {
            return;
        }
        let os = OsRelease::read(ctx.root);
        let family = os.family();
        let client = match ntp.get("ntp_client") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_str() {
                Some("auto") => None,
                Some("chrony") => Some(Client::Chrony),
                Some("systemd-timesyncd") => Some(Client::Timesyncd),
                Some("ntp") => Some(Client::Ntpd),
                _ => {
                    let msg = "expected auto, chrony, systemd-timesyncd or ntp";
                    diags.push(Diag::error(Reason::WrongType, msg).key("ntp.ntp_client"));
                    return;
                }
            },
        };
        let client = client.unwrap_or_else(|| {
            PREFERRED
                .into_iter()
                .find(|c| installed(ctx, &c.defaults(family)))
                .unwrap_or(PREFERRED[0])
        });
        let mut ccfg = client.defaults(family);
        overrides(&ntp, &mut ccfg, diags);
        let lists = Lists {
            servers: hosts(&ntp, "servers", diags),
            pools: hosts(&ntp, "pools", diags),
            peers: hosts(&ntp, "peers", diags),
            allow: hosts(&ntp, "allow", diags),
        };
        for (key, used) in [
            ("peers", client != Client::Timesyncd),
            ("allow", client == Client::Chrony),
        ] {
            if !used && ntp.get(key).is_some_and(|v| !v.is_null()) {
                let msg = format!("ignored: {} has no such setting", client.name());
                diags.push(Diag::warning(Reason::NtpKeyIgnored, msg).key(format!("ntp.{key}")));
            }
        }
        let text = render(client, family, &os.id, &lists);
        if let Err(e) = write_config(ctx, &ccfg.confpath, &text) {
            diags.push(Diag::error(e.code(), e.to_string()).key("ntp"));
            return;
        }
        if !installed(ctx, &ccfg) {
            let msg = format!(
                "{} is not installed in the target: its configuration is written; install it with packages",
                client.name()
            );
            diags.push(Diag::warning(Reason::NtpClientMissing, msg).key("ntp"));
            return;
        }
        service(ctx, &ccfg.service, diags);
    }
}

/// Writes the file, first keeping the distribution's own as `<confpath>.dist` as cloud-init
/// does (once: a second run must not keep ember's file in its place).
fn write_config(ctx: &ModCtx, confpath: &str, text: &str) -> Result<(), crate::root::RootError> {
    let spec = FileSpec::mode(0o644);
    let dist = format!("{confpath}.dist");
    if let Some(old) = ctx.root.read_file(confpath, 1 << 20)? {
        if !old.starts_with(render::HEADER.as_bytes()) && !ctx.root.exists(&dist) {
            ctx.root.write_file(&dist, &old, &spec)?;
        }
    }
    ctx.root.write_file(confpath, text.as_bytes(), &spec)
}

/// Enables and restarts the service on the live system; in a target directory only says so.
fn service(ctx: &ModCtx, name: &str, diags: &mut Vec<Diag>) {
    if !ctx.exec.is_live() {
        ctx.exec.say(&format!(
            "ntp: service {name} not enabled or restarted (--target is not /)"
        ));
        return;
    }
    let cmds: [[&str; 3]; 2] = if which(ctx.root, "systemctl").is_some() {
        [
            ["systemctl", "enable", name],
            ["systemctl", "reload-or-restart", name],
        ]
    } else if which(ctx.root, "rc-update").is_some() {
        [["rc-update", "add", name], ["rc-service", name, "restart"]]
    } else {
        let msg = "no systemctl or rc-update in the target: service not restarted";
        diags.push(Diag::warning(Reason::NtpServiceManagerMissing, msg).key("ntp"));
        return;
    };
    for argv in cmds {
        let outcome = ctx.exec.run(&argv, &[]);
        if !outcome.ok() {
            let msg = format!("{} {} {}", argv[0], argv[1], outcome.describe());
            diags.push(Diag::error(Reason::NtpServiceFailed, msg).key("ntp"));
            return;
        }
    }
}

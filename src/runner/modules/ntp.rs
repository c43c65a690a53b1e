//! `ntp`: writes the NTP client's configuration in the target from `servers`, `pools`,
//! `peers` and `allow` (the distribution's pools when neither servers nor pools are given), for
//! chrony, systemd-timesyncd or ntpd; `auto` picks the first installed of those, in
//! cloud-init's order. The file is ember's own text, not cloud-init's templates, so
//! `config.template` is not supported. It installs nothing (that is `packages`'), and only
//! on the live system (`--target /`) enables and restarts the service.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ntp>

use super::distro::{which, Family, OsRelease};
use super::{ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod render;
mod settings;
use render::{render, Lists};
pub use settings::{read, Overrides, Settings};

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

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Ntp {
    fn name(&self) -> &'static str {
        "ntp"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        let os = OsRelease::read(ctx.root);
        let family = os.family();
        let client = settings.client.unwrap_or_else(|| {
            PREFERRED
                .into_iter()
                .find(|c| installed(ctx, &c.defaults(family)))
                .unwrap_or(PREFERRED[0])
        });
        let mut ccfg = client.defaults(family);
        settings.config.apply(&mut ccfg);
        warn_unused(client, &settings, diags);
        let lists = Lists {
            servers: settings.servers,
            pools: settings.pools,
            peers: settings.peers.unwrap_or_default(),
            allow: settings.allow.unwrap_or_default(),
        };
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

/// `peers` and `allow` given for a client that has no such setting.
fn warn_unused(client: Client, settings: &Settings, diags: &mut Vec<Diag>) {
    for (key, given, used) in [
        (
            "peers",
            settings.peers.is_some(),
            client != Client::Timesyncd,
        ),
        ("allow", settings.allow.is_some(), client == Client::Chrony),
    ] {
        if given && !used {
            let msg = format!("ignored: {} has no such setting", client.name());
            diags.push(Diag::warning(Reason::NtpKeyIgnored, msg).key(format!("ntp.{key}")));
        }
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

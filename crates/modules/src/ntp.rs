//! `ntp`: configures the NTP client as cloud-init's cc_ntp does. The client is `ntp_client`
//! (chrony, ntp, ntpdate, openntpd, systemd-timesyncd, or one of the user's own that
//! `ntp.config` describes in full), or for `auto` the distribution's first preferred client
//! that is installed; `ntp.config` overrides its defaults. Its file is rendered from
//! `servers`, `pools`, `peers` and `allow` (the distribution's pools when neither servers nor
//! pools are given): cloud-init's own templates in ember's code (`render.rs`), a user's
//! template through ember-initrd's Jinja (`template.rs`). Then, as cloud-init: the client's
//! packages are installed with the target's package manager when its `check_exe` is missing,
//! and its service reloaded or restarted (on the live system only: `--target /`).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ntp>

use super::packages::{Manager, Op};
use super::{ModCtx, RunnerModule};
use crate::common::distro::{which, Family, OsRelease};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod clients;
mod render;
mod settings;
mod template;
use clients::ClientCfg;
use render::{default_pools, Builtin, Lists};
pub use settings::{read, Overrides, Settings};

pub struct Ntp;

/// cloud-init's schema of `ntp`: null, or a mapping of these keys (its `config` has no
/// `template_name`, which its module reads all the same: so does the boot, with a warning).
const NTP: Shape = Shape::OneOf(&[Shape::Null, Shape::Map(&NTP_FIELDS)]);
const HOSTS: Shape = list(&Shape::Str, 0);
const NTP_FIELDS: Fields = Fields {
    fields: &[
        ("pools", HOSTS),
        ("servers", HOSTS),
        ("peers", HOSTS),
        ("allow", HOSTS),
        ("ntp_client", Shape::Str),
        ("enabled", Shape::Bool),
        ("config", Shape::Map(&CONFIG_FIELDS)),
    ],
    required: &[],
    open: false,
};
const CONFIG_FIELDS: Fields = Fields {
    fields: &[
        ("confpath", Shape::Str),
        ("check_exe", Shape::Str),
        ("packages", list(&Shape::Str, 0)),
        ("service_name", Shape::Str),
        ("template", Shape::Str),
    ],
    required: &[],
    open: false,
};

/// Its key's shape (cloud-init's schema) and its typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("ntp", NTP)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Ntp {
    fn name(&self) -> &'static str {
        "ntp"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let before = diags.len();
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        // A client of the user's own without its whole config: cloud-init's module fails.
        if diags[before..]
            .iter()
            .any(|d| d.code == Reason::MissingKey.as_str())
        {
            return;
        }
        let os = OsRelease::read(ctx.root);
        let distro = clients::distro_name(&os);
        let installed = |exe: &str| which(ctx.root, exe).is_some();
        let mut client = clients::select(settings.client.as_deref(), &distro, installed);
        merge(&mut client, &settings.config);
        let Some(lists) = lists(&settings, &client, &distro) else {
            return; // cloud-init writes nothing on COS without servers or pools
        };
        let Some(text) = config_text(ctx, &client, &distro, os.family(), &settings, &lists, diags)
        else {
            return;
        };
        let confpath = client.confpath.as_deref().unwrap_or_default();
        if let Err(e) = write_config(ctx, confpath, &text) {
            diags.push(Diag::error(e.code(), e.to_string()).key("ntp"));
            return;
        }
        if !install(ctx, &client, diags) {
            return;
        }
        service(ctx, &client, &os, diags);
    }
}

/// `ntp.config` over the client's defaults, key by key (cloud-init's merge).
fn merge(c: &mut ClientCfg, o: &Overrides) {
    let set = |field: &mut Option<String>, v: &Option<String>| {
        if v.is_some() {
            field.clone_from(v);
        }
    };
    set(&mut c.confpath, &o.confpath);
    set(&mut c.check_exe, &o.check_exe);
    set(&mut c.service_name, &o.service_name);
    set(&mut c.template, &o.template);
    set(&mut c.template_name, &o.template_name);
    if o.packages.is_some() {
        c.packages.clone_from(&o.packages);
    }
}

/// The template's parameters: cloud-init's default pools when neither servers nor pools are
/// given (Alpine's busybox ntpd: default servers, since it knows no pools). `None` where
/// cloud-init writes nothing (COS without servers or pools).
fn lists(s: &Settings, c: &ClientCfg, distro: &str) -> Option<Lists> {
    let mut l = Lists {
        servers: s.servers.clone(),
        pools: s.pools.clone(),
        allow: s.allow.clone().unwrap_or_default(),
        peers: s.peers.clone().unwrap_or_default(),
    };
    if l.servers.is_empty() && l.pools.is_empty() && distro == "cos" {
        return None;
    }
    if l.servers.is_empty() && distro == "alpine" && c.service_name.as_deref() == Some("ntpd") {
        l.servers = default_pools(distro);
    } else if l.servers.is_empty() && l.pools.is_empty() {
        l.pools = default_pools(distro);
    }
    Some(l)
}

/// The family's name for a template cloud-init has for the family but not for the
/// distribution (`chrony.conf.rocky` is `chrony.conf.rhel`).
fn family_distro(family: Family) -> Option<&'static str> {
    match family {
        Family::Debian => Some("debian"),
        Family::RedHat => Some("rhel"),
        Family::Suse => Some("opensuse"),
        Family::Alpine => Some("alpine"),
        Family::Other => None,
    }
}

/// The client's file: its inline template, else the template its name says (ember's copy of
/// cloud-init's, by the distribution or else its family; else the image's
/// `/etc/cloud/templates/<name>.tmpl`). `None` after an error: nothing is written.
fn config_text(
    ctx: &ModCtx,
    c: &ClientCfg,
    distro: &str,
    family: Family,
    s: &Settings,
    lists: &Lists,
    diags: &mut Vec<Diag>,
) -> Option<String> {
    let fail = |key: &str, msg: String| Diag::error(Reason::NtpTemplateFailed, msg).key(key);
    if let Some(t) = &c.template {
        return user_template(ctx, t, lists, "ntp.config.template", diags);
    }
    let Some(pattern) = &c.template_name else {
        let msg = format!("no template for the client {}", c.name);
        diags.push(fail("ntp.config.template", msg));
        return None;
    };
    let name = pattern.replace("{distro}", distro);
    let by_family = family_distro(family).map(|f| pattern.replace("{distro}", f));
    let builtin = Builtin::named(&name).or_else(|| by_family.as_deref().and_then(Builtin::named));
    if let Some(b) = builtin {
        warn_unused(b, s, diags);
        return Some(b.render(lists));
    }
    if let Err(e) = crate::root::one_name(&name, ".tmpl") {
        diags.push(Diag::from(e).key("ntp.config.template_name"));
        return None;
    }
    let path = crate::paths::system().template(&name);
    match ctx.root.read_file(&path, 1 << 20) {
        Ok(Some(data)) => {
            let text = String::from_utf8_lossy(&data);
            user_template(ctx, &text, lists, "ntp.config.template_name", diags)
        }
        Ok(None) => {
            let msg = format!("no template {name} (ember has none, nor has the image {path})");
            diags.push(fail("ntp", msg));
            None
        }
        Err(e) => {
            diags.push(Diag::error(e.code(), e.to_string()).key("ntp"));
            None
        }
    }
}

fn user_template(
    ctx: &ModCtx,
    text: &str,
    lists: &Lists,
    key: &str,
    diags: &mut Vec<Diag>,
) -> Option<String> {
    match template::render(ctx.root, text, lists) {
        Ok(r) => {
            for w in r.warnings {
                diags.push(Diag::warning(Reason::TemplateUndefined, w).key(key));
            }
            Some(r.text)
        }
        Err(msg) => {
            diags.push(Diag::error(Reason::NtpTemplateFailed, msg).key(key));
            None
        }
    }
}

/// `peers`, `allow` or `pools` given for a template that does not write them.
fn warn_unused(b: Builtin, s: &Settings, diags: &mut Vec<Diag>) {
    for (key, given) in [
        ("pools", !s.pools.is_empty()),
        ("peers", s.peers.is_some()),
        ("allow", s.allow.is_some()),
    ] {
        if given && !b.takes(key) {
            let msg = "ignored: the client's configuration has no such setting";
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

/// cloud-init's `install_ntp_client`: nothing when `check_exe` is found, else the client's
/// packages through the target's package manager (apt-get and apk refresh their sources
/// first, as cloud-init's distributions do). False after an error.
fn install(ctx: &ModCtx, c: &ClientCfg, diags: &mut Vec<Diag>) -> bool {
    let exe = c.check_exe.as_deref().unwrap_or_default();
    if which(ctx.root, exe).is_some() {
        return true;
    }
    let pkgs = c.packages.clone().unwrap_or_default();
    if pkgs.is_empty() {
        return true;
    }
    let Some(m) = Manager::detect(ctx) else {
        let msg = format!(
            "{} is not installed and the target has no package manager to install it with",
            c.name
        );
        diags.push(Diag::error(Reason::NtpClientMissing, msg).key("ntp"));
        return false;
    };
    let env: &[(&str, &str)] = match m {
        Manager::Apt => &[("DEBIAN_FRONTEND", "noninteractive")],
        _ => &[],
    };
    let mut steps = Vec::new();
    if matches!(m, Manager::Apt | Manager::Apk) {
        steps.push(m.argv(Op::Update, &[]));
    }
    steps.push(m.argv(Op::Install, &pkgs));
    for argv in steps {
        ctx.exec.say(&format!("ntp: running {}", argv.join(" ")));
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = ctx.exec.run(&args, env);
        if !outcome.ok() {
            let msg = format!("{} {}", argv[0], outcome.describe());
            diags.push(Diag::error(Reason::PackageCommandFailed, msg).key("ntp.config.packages"));
            return false;
        }
    }
    true
}

/// cloud-init's `manage_service("reload", ...)`: `systemctl reload-or-restart`, OpenRC's
/// `rc-service --nocolor NAME restart`, else `service NAME restart`; on the live system only.
fn service(ctx: &ModCtx, c: &ClientCfg, os: &OsRelease, diags: &mut Vec<Diag>) {
    let name = c.service_name.as_deref().unwrap_or_default();
    let argv: Vec<&str> = if which(ctx.root, "systemctl").is_some() {
        vec!["systemctl", "reload-or-restart", name]
    } else if os.family() == Family::Alpine || which(ctx.root, "rc-service").is_some() {
        vec!["rc-service", "--nocolor", name, "restart"]
    } else if which(ctx.root, "service").is_some() {
        vec!["service", name, "restart"]
    } else {
        let msg = "no systemctl, rc-service or service in the target: the service not restarted";
        diags.push(Diag::error(Reason::NtpServiceManagerMissing, msg).key("ntp"));
        return;
    };
    if !ctx.exec.is_live() {
        ctx.exec.say(&format!(
            "ntp: would run: {} (not run: --target is not /)",
            argv.join(" ")
        ));
        return;
    }
    let outcome = ctx.exec.run(&argv, &[]);
    if !outcome.ok() {
        let msg = format!("{} {}", argv[0], outcome.describe());
        diags.push(Diag::error(Reason::NtpServiceFailed, msg).key("ntp"));
    }
}

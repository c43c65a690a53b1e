//! `puppet`: installs puppet (`install_type: packages`: `package_name`, else puppet-agent
//! then puppet, pinned to `version`; `aio`: puppetlabs' installer fetched from
//! `aio_install_url` with the target's curl or wget and run with `-v`, `-c`, `--cleanup`),
//! asks `puppet config print` for the config, ssl and csr_attributes paths (the keys override
//! them, but cloud-init asks all three anyway), merges `conf` into puppet.conf as cloud-init's
//! configparser does (the previous file kept as `.old`), writes `conf.ca_cert` to
//! `<ssl_dir>/certs/ca.pem` (owned by the puppet user; 0771 ssl dir when ember makes it) and
//! `csr_attributes` as YAML (0600: it may hold a challenge password; cloud-init leaves 0644),
//! `certname`'s `%i` and `%f` replaced by the instance id and the machine's fqdn. Then it
//! enables the service (puppet-agent, else puppet), runs `puppet agent` with `exec_args`
//! (`--test`) when `exec`, and starts the service.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#puppet>

mod conf;
mod settings;

use super::{Guard, ModCtx, RunnerModule};
use crate::common::accounts::Accounts;
use crate::common::cfgmgmt::{self, capture, manage_service, Action, Pkg};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Owner};
use crate::yaml_emit as yaml;
use serde_json::Value;
pub use settings::{read, Settings};

pub struct Puppet;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: settings::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The packages (and services) cloud-init tries when no `package_name` is given.
const PACKAGES: [&str; 2] = ["puppet-agent", "puppet"];
/// Retries of the aio installer's download, as cloud-init's `readurl(retries=5)`.
const AIO_RETRIES: u32 = 5;

impl RunnerModule for Puppet {
    fn name(&self) -> &'static str {
        "puppet"
    }
    /// It installs and runs puppet: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if let Err(d) = apply(ctx, &s, diags) {
            diags.push(d);
        }
    }
}

fn apply(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> Result<(), Diag> {
    let aio = s.install_type == "aio";
    // aio's puppet lives under /opt/puppetlabs and runs as root.
    let (user, bin) = match aio {
        true => ("root", "/opt/puppetlabs/bin/puppet"),
        false => ("puppet", "puppet"),
    };
    let mut run = s.exec;
    if !s.install && s.version.is_some() {
        let msg = "install is false but a version is given: nothing installed";
        diags.push(Diag::warning(Reason::BadValue, msg).key("puppet.version"));
    } else if s.install {
        run &= install(ctx, s, diags)?;
    }
    let conf_file = path(ctx, bin, "config", &s.conf_file)?;
    let ssl_dir = path(ctx, bin, "ssldir", &s.ssl_dir)?;
    let csr_path = path(ctx, bin, "csr_attributes", &s.csr_attributes_path)?;
    if let Some(conf) = &s.conf {
        configure(ctx, conf, &conf_file, &ssl_dir, user, diags)?;
    }
    if let Some(csr) = &s.csr_attributes {
        let text = yaml::dump(csr.expose(), yaml::DUMP);
        cfgmgmt::write(
            ctx,
            &csr_path,
            text.as_bytes(),
            0o600,
            "puppet.csr_attributes",
        )?;
    }
    if s.start_service {
        services(ctx, Action::Enable, diags);
    }
    if run {
        let args = match &s.exec_args {
            None => vec!["--test".to_string()],
            Some(v) => settings::words(v).unwrap_or_else(|| {
                let msg = "expected a list or a string: puppet agent runs with --test";
                diags.push(Diag::warning(Reason::WrongType, msg).key("puppet.exec_args"));
                vec!["--test".to_string()]
            }),
        };
        ctx.exec.say("puppet: running puppet agent");
        let mut argv = vec![bin, "agent"];
        argv.extend(args.iter().map(String::as_str));
        let outcome = ctx.exec.run(&argv, &[]);
        if !outcome.ok() {
            return Err(cfgmgmt::failed("puppet agent", &outcome).key("puppet.exec"));
        }
    }
    if s.start_service {
        services(ctx, Action::Start, diags);
    }
    Ok(())
}

/// Installs puppet as `install_type` says; `Ok(false)` when the type is unknown (then
/// nothing runs either, as in cloud-init).
fn install(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> Result<bool, Diag> {
    let pkg = |name: &str| Pkg {
        name: name.to_string(),
        version: s.version.clone(),
    };
    match s.install_type.as_str() {
        "packages" => match &s.package_name {
            Some(name) => {
                cfgmgmt::install(ctx, &[pkg(name)]).map_err(|d| d.key("puppet.package_name"))?
            }
            None => {
                if !PACKAGES
                    .iter()
                    .any(|name| cfgmgmt::install(ctx, &[pkg(name)]).is_ok())
                {
                    let msg = "no installable puppet package (puppet-agent, puppet)";
                    diags.push(Diag::warning(Reason::PackageCommandFailed, msg).key("puppet"));
                }
            }
        },
        "aio" => {
            let mut args = Vec::new();
            if let Some(v) = &s.version {
                args.extend(["-v", v.as_str()]);
            }
            if let Some(c) = &s.collection {
                args.extend(["-c", c.as_str()]);
            }
            if s.cleanup {
                args.push("--cleanup");
            }
            cfgmgmt::fetch_and_run(
                ctx,
                &s.aio_install_url,
                AIO_RETRIES,
                "puppet-install",
                &args,
            )
            .map_err(|d| d.key("puppet.aio_install_url"))?;
        }
        _ => {
            let msg = "unknown install_type: puppet not installed or run";
            diags.push(Diag::warning(Reason::BadValue, msg).key("puppet.install_type"));
            return Ok(false);
        }
    }
    Ok(true)
}

/// `puppet config print SETTING` (cloud-init asks even when the key gives the path, and fails
/// when puppet cannot answer); the key's value wins.
fn path(ctx: &ModCtx, bin: &str, setting: &str, given: &Option<String>) -> Result<String, Diag> {
    let (outcome, out) = capture(ctx, &[bin, "config", "print", setting], &[]);
    if !outcome.ok() {
        let msg = format!("puppet config print {setting} {}", outcome.describe());
        return Err(Diag::error(Reason::CommandFailed, msg).key("puppet"));
    }
    Ok(given.clone().unwrap_or_else(|| out.trim_end().to_string()))
}

/// `conf` into puppet.conf, section by section, the CA certificate into the ssl directory.
fn configure(
    ctx: &ModCtx,
    conf: &serde_json::Map<String, Value>,
    conf_file: &str,
    ssl_dir: &str,
    user: &str,
    diags: &mut Vec<Diag>,
) -> Result<(), Diag> {
    let key = "puppet.conf";
    let Some(old) = ctx
        .root
        .read_file(conf_file, 4 << 20)
        .map_err(|e| Diag::from(e).key(key))?
    else {
        let msg = format!("{conf_file} does not exist: puppet.conf not configured");
        return Err(Diag::error(Reason::PathMissing, msg).key(key));
    };
    let mut current = String::from_utf8_lossy(&old).into_owned();
    let mut ini = conf::Conf::parse(&current).map_err(|why| {
        Diag::error(
            Reason::BadValue,
            format!("{conf_file} does not parse: {why}"),
        )
        .key(key)
    })?;
    for (name, v) in conf {
        if name == "ca_cert" {
            ca_cert(ctx, v.as_str().unwrap_or_default(), ssl_dir, user)?;
        } else {
            for (option, value) in v.as_object().into_iter().flatten() {
                let mut value = cfgmgmt::read::py_str(value);
                if option == "certname" {
                    value = value
                        .replace("%f", &cfgmgmt::fqdn(ctx))
                        .replace("%i", &ctx.handoff.instance_id)
                        .to_ascii_lowercase();
                }
                // A section, option or value puppet's reader would take as more than one
                // line is refused by name; the other options are still set.
                if let Err(why) = ini.set(name, option, &value) {
                    let msg = format!("{why}; not set");
                    let at = format!("puppet.conf.{name}.{option}");
                    diags.push(Diag::error(Reason::BadValue, msg).key(at));
                }
            }
        }
        // As cloud-init: after each section the file is rewritten, its previous text kept.
        let next = ini.write();
        let old = format!("{conf_file}.old");
        cfgmgmt::write(ctx, &old, current.as_bytes(), 0o644, key)?;
        cfgmgmt::write(ctx, conf_file, next.as_bytes(), 0o644, key)?;
        current = next;
    }
    Ok(())
}

/// The puppet server's CA certificate at `<ssl_dir>/certs/ca.pem`, owned by the puppet user
/// and group root.
fn ca_cert(ctx: &ModCtx, pem: &str, ssl_dir: &str, user: &str) -> Result<(), Diag> {
    let key = "puppet.conf.ca_cert";
    let uid = match user {
        "root" => 0,
        _ => {
            Accounts::load(ctx.root)
                .resolve_owner(user)
                .map_err(|why| Diag::error(Reason::UserMissing, why).key(key))?
                .uid
        }
    };
    let owner = Owner { uid, gid: 0 };
    let dir = ssl_dir.trim_end_matches('/');
    cfgmgmt::mkdir(ctx, dir, FileSpec::mode(0o771).with_owner(owner), key)?;
    let certs = format!("{dir}/certs");
    cfgmgmt::mkdir(ctx, &certs, FileSpec::DIR.with_owner(owner), key)?;
    let spec = FileSpec::mode(0o644).with_owner(owner);
    cfgmgmt::write_as(ctx, &format!("{certs}/ca.pem"), pem.as_bytes(), spec, key)
}

/// `action` on the first of puppet-agent.service and puppet.service that takes it.
fn services(ctx: &ModCtx, action: Action, diags: &mut Vec<Diag>) {
    let done = PACKAGES
        .iter()
        .any(|name| manage_service(ctx, action, &format!("{name}.service")).is_ok());
    if !done {
        let msg = "could not enable or start puppet-agent.service or puppet.service";
        diags.push(Diag::warning(Reason::CommandFailed, msg).key("puppet.start_service"));
    }
}

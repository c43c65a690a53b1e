//! `chef` (every boot, as cloud-init's PER_ALWAYS): makes chef's directories, writes
//! `validation_cert` to `validation_key` (0600, where cloud-init leaves it 0644; `system`
//! keeps the file there), renders /etc/chef/client.rb as cloud-init's template does and
//! writes firstboot.json (`run_list` and `initial_attributes`), installs chef when
//! /usr/bin/chef-client is missing or `force_install` (packages, gems, or the omnibus
//! installer fetched with the target's curl or wget), then runs chef-client when `exec` (by
//! default after a gems install) and, with `delete_validation_post_exec`, removes the
//! validation key. The omnibus download is tried `omnibus_url_retries` more times, 5 when
//! not given (the documented default; cloud-init's code passes 0).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#chef>

mod client_rb;
mod settings;

use super::{Guard, ModCtx, RunnerModule};
use crate::common::cfgmgmt::{self, Pkg};
use crate::config::reader::Reader;
use crate::date::format_utc;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::{Map, Value};
pub use settings::{read, Settings};

pub struct Chef;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: settings::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

const DIRS: &[&str] = &[
    "/etc/chef",
    "/var/log/chef",
    "/var/lib/chef",
    "/var/cache/chef",
    "/var/backups/chef",
    "/var/run/chef",
];
const CLIENT_RB: &str = "/etc/chef/client.rb";
const CHEF_CLIENT: &str = "/usr/bin/chef-client";
const DEFAULT_ARGS: &[&str] = &["-d", "-i", "1800", "-s", "20"];
const OMNIBUS_URL: &str = "https://www.chef.io/chef/install.sh";
const OMNIBUS_RETRIES: i64 = 5;

impl RunnerModule for Chef {
    fn name(&self) -> &'static str {
        "chef"
    }
    /// It installs and runs chef: marked started before and done after (per boot, it simply
    /// runs each boot).
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
    let dirs: Vec<&str> = match s.directories.is_empty() {
        true => DIRS.to_vec(),
        false => s.directories.iter().map(String::as_str).collect(),
    };
    for d in dirs.iter().chain(&["/etc/chef"]) {
        cfgmgmt::mkdir(ctx, d, FileSpec::DIR, "chef.directories")?;
    }
    if let Some(cert) = &s.validation_cert {
        if cert.expose() != "system" {
            // The validator's private key: born 0600, its text never logged.
            let pem = cert.expose().as_bytes();
            cfgmgmt::write(ctx, &s.validation_key, pem, 0o600, "chef.validation_cert")?;
        } else if !ctx.root.exists(&s.validation_key) {
            let msg = "system: but the validation_key file does not exist";
            diags.push(Diag::warning(Reason::PathMissing, msg).key("chef.validation_cert"));
        }
    }
    client_rb(ctx, &s.raw, diags)?;
    firstboot(ctx, s)?;
    let installed = ctx.exec.executable(CHEF_CLIENT);
    let run = if !installed || s.force_install {
        install(ctx, s, diags)?
    } else {
        s.exec.unwrap_or(false)
    };
    if run {
        run_chef(ctx, s, diags)?;
        if s.delete_validation_post_exec && ctx.root.exists(settings::VALIDATION_PEM) {
            ctx.root
                .remove_file(settings::VALIDATION_PEM)
                .map_err(|e| Diag::from(e).key("chef"))?;
        }
    }
    Ok(())
}

fn client_rb(ctx: &ModCtx, raw: &Map<String, Value>, diags: &mut Vec<Diag>) -> Result<(), Diag> {
    let params = client_rb::params(&ctx.handoff.instance_id, raw)
        .map_err(|key| Diag::error(Reason::MissingKey, format!("needs {key}")).key("chef"))?;
    // Best effort, as cloud-init: the directories the paths in client.rb live in.
    for key in client_rb::PATH_KEYS {
        if let client_rb::Param::Str(path) = params.get(key) {
            if let Some((dir, _)) = path.rsplit_once('/').filter(|(d, _)| !d.is_empty()) {
                let _ = ctx.root.create_dir_all(dir, &FileSpec::DIR);
            }
        }
    }
    let header = format!(
        "# Created by ember v. {} on {}",
        env!("CARGO_PKG_VERSION"),
        format_utc(crate::clock::wall_seconds())
    );
    // A bare setting that is not a symbol, constant or integer is left out (chef's default
    // stands) and named; the rest of client.rb is written.
    for (key, why) in client_rb::refused(&params) {
        let msg = format!("{why}; left out of client.rb");
        diags.push(Diag::error(Reason::BadValue, msg).key(format!("chef.{key}")));
    }
    let text = client_rb::render(&header, &params);
    cfgmgmt::write(ctx, CLIENT_RB, text.as_bytes(), 0o644, "chef")
}

/// firstboot.json: `run_list`, then the `initial_attributes` at the top level.
fn firstboot(ctx: &ModCtx, s: &Settings) -> Result<(), Diag> {
    if s.firstboot_path.is_empty() {
        ctx.exec
            .say("chef: firstboot_path is empty: no first boot JSON written");
        return Ok(());
    }
    // A Python dict: run_list first, then the attributes (one named run_list replaces it).
    let mut json: Vec<(String, Value)> = Vec::new();
    if let Some(list) = &s.run_list {
        json.push(("run_list".into(), list.clone()));
    }
    for (k, v) in s.initial_attributes.iter().flatten() {
        match json.iter_mut().find(|(name, _)| name == k) {
            Some(slot) => slot.1 = v.clone(),
            None => json.push((k.clone(), v.clone())),
        }
    }
    let text = cfgmgmt::pyjson::dumps_pairs(&json);
    cfgmgmt::write(
        ctx,
        &s.firstboot_path,
        text.as_bytes(),
        0o644,
        "chef.firstboot_path",
    )
}

/// Installs chef as `install_type` says; returns whether chef-client should run.
fn install(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> Result<bool, Diag> {
    let key = "chef.install_type";
    match s.install_type.as_str() {
        "packages" => {
            cfgmgmt::install(ctx, &[Pkg::new("chef")]).map_err(|d| d.key(key))?;
        }
        "gems" => {
            gems(ctx, s)?;
            return Ok(s.exec.unwrap_or(true));
        }
        "omnibus" => {
            let url = s.omnibus_url.as_deref().unwrap_or(OMNIBUS_URL);
            let retries = s.omnibus_url_retries.unwrap_or(OMNIBUS_RETRIES).max(0);
            let mut args = Vec::new();
            if let Some(v) = &s.omnibus_version {
                args = vec!["-v", v.as_str()];
            }
            let retries = u32::try_from(retries).unwrap_or(u32::MAX);
            cfgmgmt::fetch_and_run(ctx, url, retries, "chef-omnibus-install", &args)
                .map_err(|d| d.key(key))?;
        }
        _ => {
            let msg = "unknown install_type: chef not installed or run";
            diags.push(Diag::warning(Reason::BadValue, msg).key(key));
            return Ok(false);
        }
    }
    Ok(s.exec.unwrap_or(false))
}

/// cloud-init's gems install: ruby's packages, gem and ruby linked, `gem install chef`.
fn gems(ctx: &ModCtx, s: &Settings) -> Result<(), Diag> {
    let v = &s.ruby_version;
    // `/usr/bin/ruby{v}` is linked to: one name (rule 14).
    crate::root::one_name(&format!("ruby{v}-dev"), "")
        .map_err(|e| Diag::from(e).key("chef.ruby_version"))?;
    let mut pkgs = vec![
        Pkg::new(&format!("ruby{v}")),
        Pkg::new(&format!("ruby{v}-dev")),
    ];
    if v == "1.8" {
        pkgs.push(Pkg::new("libopenssl-ruby1.8"));
        pkgs.push(Pkg::new("rubygems1.8"));
    }
    cfgmgmt::install(ctx, &pkgs).map_err(|d| d.key("chef.install_type"))?;
    for tool in ["gem", "ruby"] {
        let link = format!("/usr/bin/{tool}");
        if !ctx.root.exists(&link) {
            ctx.root
                .symlink(&format!("/usr/bin/{tool}{v}"), &link)
                .map_err(|e| Diag::from(e).key("chef.install_type"))?;
        }
    }
    // cloud-init passes `-v VERSION` as one word.
    let pinned = s.version.as_ref().map(|v| format!("-v {v}"));
    let mut argv = vec!["/usr/bin/gem", "install", "chef"];
    argv.extend(pinned.as_deref());
    argv.extend(["--no-ri", "--no-rdoc", "--bindir", "/usr/bin", "-q"]);
    let outcome = ctx.exec.run(&argv, &[]);
    match outcome.ok() {
        true => Ok(()),
        false => Err(cfgmgmt::failed("gem", &outcome).key("chef.install_type")),
    }
}

fn run_chef(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> Result<(), Diag> {
    let mut argv: Vec<String> = vec![CHEF_CLIENT.into()];
    match &s.exec_arguments {
        None | Some(Value::Null) => argv.extend(DEFAULT_ARGS.iter().map(|a| a.to_string())),
        Some(Value::Array(items)) => argv.extend(items.iter().map(cfgmgmt::read::py_str)),
        Some(Value::String(one)) => argv.push(one.clone()),
        Some(_) => {
            let msg = "expected a list or a string; chef-client runs with its default arguments";
            diags.push(Diag::warning(Reason::WrongType, msg).key("chef.exec_arguments"));
            argv.extend(DEFAULT_ARGS.iter().map(|a| a.to_string()));
        }
    }
    ctx.exec.say("chef: running chef-client");
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let outcome = ctx.exec.run(&args, &[]);
    match outcome.ok() {
        true => Ok(()),
        false => Err(cfgmgmt::failed("chef-client", &outcome).key("chef")),
    }
}

//! `apt_configure`: apt's sources, keys, proxies and options from the `apt` key (and the
//! deprecated top-level `apt_*` keys cloud-init 26 still converts), on Debian and Ubuntu
//! targets, in cloud-init's order: debconf selections; the tools the config needs (gnupg for a
//! `keyid`, software-properties-common for a `ppa:`), installed when missing; unless
//! `preserve_sources_list`, the mirrors' keys and the default sources rendered from
//! `sources_list` or the image's cloud-init template; the proxy and `conf` files; then the
//! `sources` entries and `apt-get update`. It runs with no key too, as in cloud-init, where it
//! renders the default sources when the image has cloud-init's templates and otherwise leaves
//! the image's sources alone. Not done: renaming apt's cached lists after a mirror change
//! (cloud-init's `rename_apt_lists`; `apt-get update` fetches them again), patterns other than
//! the default `add_apt_repo_match`, and `system_info` package mirrors of the image.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#apt-configure>

use super::packages::Op;
use super::{Guard, ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::config::reader::Reader;
use crate::error::Diag;
use serde_json::Value;
use std::collections::BTreeMap;

mod conf;
mod convert;
mod debconf;
mod keys;
mod mirrors;
mod settings;
mod shape;
mod sources;
mod sources_list;
mod suites;
mod target;
mod template;

pub use settings::{read, Settings};

pub struct AptConfigure;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for AptConfigure {
    fn name(&self) -> &'static str {
        "apt_configure"
    }
    /// It appends to sources files and runs apt: at most once per instance, as cloud-init's
    /// semaphore does, so a retry never appends a source twice.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        debconf::apply(ctx, &s, diags);
        if s.empty && which(ctx.root, "apt-get").is_none() && which(ctx.root, "apt").is_none() {
            ctx.exec
                .say("apt_configure: no apt config and no apt in the target: nothing to do");
            return;
        }
        let target = target::Target::read(ctx.root, !s.empty, diags);
        let mirrors = mirrors::find(ctx, &s, &target, cfg, diags);
        ensure_tools(ctx, &s, diags);
        let mut keys = keys::Keys::default();
        if !s.preserve_sources_list {
            let mut vars = BTreeMap::new();
            for (name, list) in [("primary", &s.primary), ("security", &s.security)] {
                for (i, m) in list.iter().flatten().enumerate() {
                    let key = format!("{}.{i}", s.path(name));
                    if let Some(path) = keys.add(ctx, &m.keys, name, false, &key, diags) {
                        vars.insert(format!("{name}_key"), path);
                    }
                }
            }
            sources_list::generate(ctx, &s, &target, &mirrors, &vars, diags);
        }
        conf::apply(ctx, &s, diags);
        if let Some(list) = &s.sources {
            sources::add(ctx, list, &mirrors, &target.codename, &mut keys, diags);
        }
        keys.finish(ctx);
    }
}

/// cloud-init's `_ensure_dependencies`: gpg for a `keyid` to fetch (ember dearmors inline and
/// downloaded keys itself, so those need none), add-apt-repository for a `ppa:`-like source;
/// the missing ones' packages installed in one go.
fn ensure_tools(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) {
    let mirrors = (!s.preserve_sources_list)
        .then(|| s.primary.iter().chain(&s.security).flatten())
        .into_iter()
        .flatten();
    let sources = s.sources.iter().flatten();
    let gpg = mirrors
        .map(|m| &m.keys)
        .chain(sources.clone().map(|e| &e.keys));
    let mut wanted = Vec::new();
    if gpg.into_iter().any(settings::KeySpec::needs_gpg) && which(ctx.root, "gpg").is_none() {
        wanted.push("gnupg".to_string());
    }
    let ppa = sources
        .filter_map(|e| e.source.as_deref())
        .any(sources::is_repo_name);
    if ppa && which(ctx.root, "add-apt-repository").is_none() {
        wanted.push("software-properties-common".to_string());
    }
    if wanted.is_empty() {
        return;
    }
    if sources::update(ctx, "apt", diags) {
        sources::run_apt(ctx, Op::Install, &wanted, "apt", diags);
    }
}

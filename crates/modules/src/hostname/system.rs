//! /etc/hostname: `set_hostname` writes it once per instance, `update_hostname` on every boot
//! only while the user has not changed it since ember wrote it. Both keep cloud-init's state
//! files, so an image that ran cloud-init before (or runs it later) agrees with ember.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#set-hostname>
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#update-hostname>

use super::{hostname_in, names, prefer_fqdn, read_hostname, read_text, write_if_changed};
use super::{Names, ETC_HOSTNAME};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::{Module, ModuleCtx};
use serde_json::Value;

/// cloud-init's record of the names `set_hostname` last applied (JSON).
fn set_hostname_state() -> String {
    format!("{}/data/set-hostname", crate::paths::system().cloud_dir)
}

/// cloud-init's record of the name `update_hostname` last wrote (a hostname file).
fn previous_hostname() -> String {
    format!(
        "{}/data/previous-hostname",
        crate::paths::system().cloud_dir
    )
}

/// `/etc/hostname`'s contents: one line.
fn hostname_file(name: &str) -> String {
    format!("{name}\n")
}

/// cloud-init's `write_json` layout (one-space indent, sorted keys, final newline).
fn set_hostname_json(names: &Names) -> String {
    let q = |s: &str| Value::String(s.to_string()).to_string();
    format!(
        "{{\n \"fqdn\": {},\n \"hostname\": {}\n}}\n",
        q(&names.fqdn),
        q(&names.hostname)
    )
}

/// Writes /etc/hostname, unless `create_hostname_file: false` and the target has none
/// (cloud-init then leaves the name to the booted system).
fn write_etc_hostname(ctx: &ModuleCtx, create: bool, name: &str, diags: &mut Vec<Diag>) -> bool {
    if !create && !ctx.root.exists(ETC_HOSTNAME) {
        return true;
    }
    write_if_changed(ctx.root, ETC_HOSTNAME, &hostname_file(name), 0o644, diags)
}

/// What to apply: the names, the one for /etc/hostname, and `create_hostname_file`; `None`
/// when there is nothing to do.
fn wanted(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> Option<Wanted> {
    let settings = read_hostname(ctx.cfg, diags)?;
    let names = names(ctx, &settings.names, diags)?;
    // Neither config nor meta-data names the machine: the name is the target's own already
    // (cloud-init skips only "localhost"; writing a name back to where it came from would
    // change nothing but the state files).
    if names.is_default() {
        return None;
    }
    let prefer = prefer_fqdn(ctx, settings.prefer_fqdn_over_hostname);
    Some(Wanted {
        name: names.select(prefer).to_string(),
        names,
        create: settings.create_hostname_file,
    })
}

/// What `set_hostname` and `update_hostname` apply.
struct Wanted {
    names: Names,
    /// The name for /etc/hostname: the hostname or, preferred, the fqdn.
    name: String,
    create: bool,
}

/// `set_hostname`: the configured name into /etc/hostname, once per instance, and only when
/// it differs from the names cloud-init's state says were last applied.
pub struct SetHostname;

impl Module for SetHostname {
    fn name(&self) -> &'static str {
        "set_hostname"
    }
    fn reader(&self) -> Option<&'static Reader> {
        Some(&super::settings::READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some(Wanted {
            names,
            name,
            create,
        }) = wanted(ctx, diags)
        else {
            return;
        };
        let state = set_hostname_state();
        let prev: Option<Value> = read_text(ctx.root, &state, 64 * 1024)
            .and_then(|t| serde_json::from_slice(t.as_bytes()).ok());
        let field = |k: &str| {
            prev.as_ref()
                .and_then(|p| p.get(k)?.as_str().map(str::to_string))
        };
        if field("hostname").as_deref() == Some(names.hostname.as_str())
            && field("fqdn").as_deref() == Some(names.fqdn.as_str())
        {
            return;
        }
        if write_etc_hostname(ctx, create, &name, diags) {
            write_if_changed(ctx.root, &state, &set_hostname_json(&names), 0o644, diags);
            set_running_hostname(ctx, &name, diags);
        }
    }
}

/// `update_hostname`: every boot, records the wanted name in previous-hostname and rewrites
/// /etc/hostname only when it is missing or still holds the name ember wrote before (so a
/// name the user set since is kept), as cloud-init's `Distro.update_hostname` does.
pub struct UpdateHostname;

impl Module for UpdateHostname {
    fn name(&self) -> &'static str {
        "update_hostname"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&super::settings::READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some(Wanted { name, create, .. }) = wanted(ctx, diags) else {
            return;
        };
        let want = name.as_str();
        let max = ctx.limits.file_bytes;
        let prev_path = previous_hostname();
        let prev_text = read_text(ctx.root, &prev_path, max);
        let prev = prev_text.as_deref().and_then(hostname_in);
        let sys_text = read_text(ctx.root, ETC_HOSTNAME, max);
        let sys = sys_text.as_deref().and_then(hostname_in);
        if (sys.is_none() || (sys == prev && sys != Some(want)))
            && write_etc_hostname(ctx, create, want, diags)
        {
            set_running_hostname(ctx, want, diags);
        }
        if prev != Some(want) {
            write_if_changed(ctx.root, &prev_path, &hostname_file(want), 0o644, diags);
        }
    }
}

/// Whether the target is the running system: ember-initrd as an early unit of the booted
/// system (`--host / --target /`), not in the initramfs, whose root is not yet the one booted.
fn target_is_running_system(ctx: &ModuleCtx) -> bool {
    let root = std::path::Path::new("/");
    ctx.host.prefix() == root && ctx.target_path == root
}

/// The kernel's name as well, when the target is the running system: its init read
/// /etc/hostname before ember wrote it (cloud-init sets it through hostnamectl or hostname;
/// this early no hostnamed runs, and the syscall is what both end in). In the initramfs the
/// booted system reads /etc/hostname itself.
fn set_running_hostname(ctx: &ModuleCtx, name: &str, diags: &mut Vec<Diag>) {
    if !target_is_running_system(ctx) {
        return;
    }
    if rustix::system::uname().nodename().to_bytes() == name.as_bytes() {
        return;
    }
    if let Err(e) = rustix::system::sethostname(name.as_bytes()) {
        diags.push(
            Diag::warning(
                Reason::WriteFailed,
                format!("the running system's hostname was not set: {e}"),
            )
            .key("hostname"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hostname::Source;

    #[test]
    fn state_json_as_cloud_init_writes_it() {
        let names = Names {
            hostname: "web".into(),
            fqdn: "web.example.com".into(),
            hostname_from: Source::Hostname,
            fqdn_from: Source::Hostname,
        };
        assert_eq!(
            set_hostname_json(&names),
            "{\n \"fqdn\": \"web.example.com\",\n \"hostname\": \"web\"\n}\n"
        );
    }
}

//! /etc/hostname: `set_hostname` writes it once per instance, `update_hostname` on every boot
//! only while the user has not changed it since ember wrote it. Both keep cloud-init's state
//! files, so an image that ran cloud-init before (or runs it later) agrees with ember.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#set-hostname>
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#update-hostname>

use super::{hostname_in, names, opt_bool, prefer_fqdn, preserve, read_text, write_if_changed};
use super::{invalid_reason, Names, ETC_HOSTNAME};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::modules::{Module, ModuleCtx};
use crate::reason::Reason;
use crate::state::CLOUD_LIB;
use serde_json::Value;

/// cloud-init's record of the names `set_hostname` last applied (JSON).
fn set_hostname_state() -> String {
    format!("{CLOUD_LIB}/data/set-hostname")
}

/// cloud-init's record of the name `update_hostname` last wrote (a hostname file).
fn previous_hostname() -> String {
    format!("{CLOUD_LIB}/data/previous-hostname")
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
fn write_etc_hostname(ctx: &ModuleCtx, name: &str, diags: &mut Vec<Diag>) -> bool {
    let create = opt_bool(ctx.cfg, "create_hostname_file", diags).unwrap_or(true);
    if !create && !ctx.root.exists(ETC_HOSTNAME) {
        return true;
    }
    write_if_changed(ctx.root, ETC_HOSTNAME, &hostname_file(name), 0o644, diags)
}

/// The names to apply, or `None` when there is nothing to do.
fn wanted(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> Option<(Names, bool)> {
    if preserve(ctx, diags) {
        return None;
    }
    let prefer = prefer_fqdn(ctx, diags);
    let names = names(ctx, diags)?;
    // Neither config nor meta-data names the machine: the name is the target's own already
    // (cloud-init skips only "localhost"; writing a name back to where it came from would
    // change nothing but the state files).
    if names.is_default() {
        return None;
    }
    Some((names, prefer))
}

/// `set_hostname`: the configured name into /etc/hostname, once per instance, and only when
/// it differs from the names cloud-init's state says were last applied.
pub struct SetHostname;

/// What `schema` checks of the host names with this module's rules.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        for key in ["hostname", "fqdn"] {
            let why = cfg
                .get(key)
                .and_then(Value::as_str)
                .and_then(invalid_reason);
            if let Some(why) = why {
                let msg = format!("not a valid host name: {why}");
                d.push(Diag::error(Reason::HostnameInvalid, msg).key(key));
            }
        }
    },
};

impl Module for SetHostname {
    fn name(&self) -> &'static str {
        "set_hostname"
    }
    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some((names, prefer)) = wanted(ctx, diags) else {
            return;
        };
        let state = set_hostname_state();
        let prev: Option<Value> =
            read_text(ctx.root, &state, 64 * 1024).and_then(|t| serde_json::from_str(&t).ok());
        let field = |k: &str| {
            prev.as_ref()
                .and_then(|p| p.get(k)?.as_str().map(str::to_string))
        };
        if field("hostname").as_deref() == Some(names.hostname.as_str())
            && field("fqdn").as_deref() == Some(names.fqdn.as_str())
        {
            return;
        }
        if write_etc_hostname(ctx, names.select(prefer), diags) {
            write_if_changed(ctx.root, &state, &set_hostname_json(&names), 0o644, diags);
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

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some((names, prefer)) = wanted(ctx, diags) else {
            return;
        };
        let want = names.select(prefer);
        let max = ctx.limits.file_bytes;
        let prev_path = previous_hostname();
        let prev_text = read_text(ctx.root, &prev_path, max);
        let prev = prev_text.as_deref().and_then(hostname_in);
        let sys_text = read_text(ctx.root, ETC_HOSTNAME, max);
        let sys = sys_text.as_deref().and_then(hostname_in);
        if sys.is_none() || (sys == prev && sys != Some(want)) {
            write_etc_hostname(ctx, want, diags);
        }
        if prev != Some(want) {
            write_if_changed(ctx.root, &prev_path, &hostname_file(want), 0o644, diags);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modules::hostname::Source;

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

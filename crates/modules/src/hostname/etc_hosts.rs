//! `update_etc_hosts`, every boot: `manage_etc_hosts: true` renders /etc/hosts from the
//! target's `/etc/cloud/templates/hosts.<family>.tmpl` (else ember's built-in one);
//! `localhost` only keeps the 127.0.1.1 line naming this machine; false or absent leaves
//! /etc/hosts alone.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#update-etc-hosts>

use super::{family, names, read_etc_hosts, read_text, write_if_changed, Manage, Names, ETC_HOSTS};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::template::{self, Jinja, Kind};
use crate::{Module, ModuleCtx};
use serde_json::json;

/// The address of this machine's own names. cloud-init uses 127.0.0.1 on some families (Red
/// Hat, SUSE), where `localhost` mode then replaces the `localhost` line itself; the issue asks
/// for 127.0.1.1 everywhere, which leaves the loopback names alone.
const LOCAL_IP: &str = "127.0.1.1";

/// `fqdn hostname`, or one name when they are the same.
fn own_names(names: &Names) -> String {
    if names.fqdn == names.hostname {
        names.fqdn.clone()
    } else {
        format!("{} {}", names.fqdn, names.hostname)
    }
}

/// ember's own hosts file for targets without a template: this machine on 127.0.1.1, then
/// the loopback names as the family's own /etc/hosts spells them.
fn builtin(fam: Option<&str>, names: &Names) -> String {
    let (v4, v6) = match fam {
        Some("redhat") => (
            "localhost localhost.localdomain localhost4 localhost4.localdomain4",
            "::1 localhost localhost.localdomain localhost6 localhost6.localdomain6\n",
        ),
        Some("suse") => (
            "localhost",
            "::1 localhost ipv6-localhost ipv6-loopback\nfe00::0 ipv6-localnet\n\
             ff00::0 ipv6-mcastprefix\nff02::1 ipv6-allnodes\nff02::2 ipv6-allrouters\n",
        ),
        _ => (
            "localhost",
            "::1 localhost ip6-localhost ip6-loopback\nff02::1 ip6-allnodes\n\
             ff02::2 ip6-allrouters\n",
        ),
    };
    let template = crate::paths::system().template(&format!("hosts.{}", fam.unwrap_or("debian")));
    format!(
        "# Written by ember on every boot because manage_etc_hosts is true: edit\n\
         # {template}, or set manage_etc_hosts to false, to keep changes.\n\
         {LOCAL_IP} {}\n127.0.0.1 {v4}\n\n# IPv6\n{v6}",
        own_names(names),
    )
}

/// cloud-init's basic templates: `$name` and `${name}` for `hostname` and `fqdn`.
fn render_basic(text: &str, names: &Names) -> Result<String, String> {
    let lookup = |name: &str| match name {
        "hostname" => Some(names.hostname.clone()),
        "fqdn" => Some(names.fqdn.clone()),
        _ => None,
    };
    let (out, unknown) = template::basic(text, &lookup);
    if !unknown.is_empty() {
        return Err("names a variable other than hostname and fqdn".to_string());
    }
    Ok(out)
}

/// Renders a hosts template as cloud-init's templater does: a first line `## template: jinja`
/// (or `basic`) picks the renderer and is dropped; without one the whole file is basic.
fn render(
    text: &str,
    names: &Names,
    jinja: &dyn Jinja,
    limits: &Limits,
) -> Result<(String, Vec<String>), String> {
    let (kind, body) = template::split_header(text)
        .map_err(|_| "has an unknown template type in its first line".to_string())?;
    if kind != Some(Kind::Jinja) {
        return Ok((render_basic(body, names)?, Vec::new()));
    }
    let vars = json!({"hostname": names.hostname, "fqdn": names.fqdn});
    let r = jinja
        .render(body, &vars, limits)
        .map_err(|e| match e.line {
            // The header line was removed: template line n is the file's n+1.
            Some(l) => format!("{} at line {}", e.what, l + 1),
            None => e.what,
        })?;
    // Jinja drops the final newline; cloud-init puts it back.
    let nl = if body.ends_with('\n') { "\n" } else { "" };
    Ok((r.text + nl, r.undefined))
}

/// `localhost` mode: /etc/hosts with one 127.0.1.1 line naming this machine, every other line
/// kept. `None` when the file already has it (cloud-init: a 127.0.1.1 line whose canonical
/// name is the fqdn and which lists the hostname). The line replaces the first 127.0.1.1 line
/// in place (cloud-init appends it at the end) so the file keeps its order.
fn with_localhost(existing: Option<&str>, names: &Names) -> Option<String> {
    let fields = |line: &str| -> Vec<String> {
        let data = line.split('#').next().unwrap_or("");
        data.split_whitespace().map(str::to_string).collect()
    };
    let text = existing.unwrap_or("");
    let ours: Vec<Vec<String>> = text
        .lines()
        .map(fields)
        .filter(|f| f.first().map(String::as_str) == Some(LOCAL_IP))
        .collect();
    let present = ours.iter().any(|f| {
        f.get(1) == Some(&names.fqdn)
            && (names.hostname == names.fqdn || f[2..].contains(&names.hostname))
    });
    if present {
        return None;
    }
    let line = format!("{LOCAL_IP}\t{}", own_names(names).replace(' ', "\t"));
    let mut out: Vec<String> = Vec::new();
    if existing.is_none() {
        out.push("# Added by ember (manage_etc_hosts: localhost)".to_string());
    }
    let mut placed = false;
    for l in text.lines() {
        if fields(l).first().map(String::as_str) == Some(LOCAL_IP) {
            if !placed {
                out.push(line.clone());
                placed = true;
            }
        } else {
            out.push(l.to_string());
        }
    }
    if !placed {
        out.push(line);
    }
    Some(out.join("\n") + "\n")
}

pub struct UpdateEtcHosts;

impl Module for UpdateEtcHosts {
    fn name(&self) -> &'static str {
        "update_etc_hosts"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&super::settings::READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let Some(settings) = read_etc_hosts(ctx.cfg, diags) else {
            return;
        };
        let Some(names) = names(ctx, &settings.names, diags) else {
            return;
        };
        let max = ctx.limits.file_bytes;
        let content = if settings.manage == Manage::Localhost {
            let existing = match ctx.root.read_file(ETC_HOSTS, max) {
                Ok(d) => d.map(|d| String::from_utf8_lossy(&d).into_owned()),
                // Editing a file ember could not read would lose its lines.
                Err(e) => return diags.push(Diag::error(e.code(), e.to_string())),
            };
            match with_localhost(existing.as_deref(), &names) {
                Some(c) => c,
                None => return,
            }
        } else {
            let fam = family(ctx.distro);
            let tmpl = fam.and_then(|f| {
                let path = crate::paths::system().template(&format!("hosts.{f}"));
                Some((read_text(ctx.root, &path, max)?, path))
            });
            match tmpl {
                None => builtin(fam, &names),
                Some((text, path)) => match render(&text, &names, ctx.jinja, ctx.limits) {
                    Ok((out, undefined)) => {
                        if !undefined.is_empty() {
                            let msg = format!(
                                "undefined variables rendered empty: {}",
                                undefined.join(", ")
                            );
                            diags.push(Diag::warning(Reason::TemplateUndefined, msg).file(path));
                        }
                        out
                    }
                    Err(why) => {
                        let msg = format!("hosts template {why}; /etc/hosts left as it was");
                        return diags.push(Diag::error(Reason::TemplateError, msg).file(path));
                    }
                },
            }
        };
        write_if_changed(ctx.root, ETC_HOSTS, &content, 0o644, diags);
    }
}

#[cfg(test)]
#[path = "etc_hosts_tests.rs"]
mod tests;

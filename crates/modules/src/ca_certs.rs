//! `ca_certs` (and the deprecated `ca-certs`): each `trusted` certificate written to the
//! distribution's anchor directory as `cloud-init-ca-cert-N.crt`, then the store rebuilt with
//! the target's own `update-ca-certificates` or `update-ca-trust`. `remove_defaults` is done
//! as cloud-init does on Debian, Ubuntu and Alpine: every entry of `/etc/ca-certificates.conf`
//! deselected with `!`. On Red Hat and SUSE, where cloud-init deletes the whole system trust
//! directories, ember refuses with a warning: too destructive to replay from a runner.
//! It runs in ember's early unit, as cloud-init's init stage runs it.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ca-certificates>

use super::{ModCtx, RunnerModule};
use crate::common::distro::{which, Family, OsRelease};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod settings;
pub use settings::{read, Settings};

pub struct CaCerts;

const CONF: &str = "/etc/ca-certificates.conf";
const CONF_HEADER: &str = "# Modified by cloud-init to deselect certs due to user-data";
const DEBCONF: &str = "/var/lib/ember/ca-certificates.debconf";
const PREFIX: &str = "cloud-init-ca-cert-";

/// The anchor directory and the rebuild command.
fn store(family: Family) -> (&'static str, &'static str) {
    match family {
        // cloud-init uses /usr/share/pki/ca-trust-source/anchors (the packaged-trust
        // directory); ember follows its issue text, the administrator's directory.
        Family::RedHat => ("/etc/pki/ca-trust/source/anchors", "update-ca-trust"),
        Family::Suse => ("/usr/share/pki/trust/anchors", "update-ca-certificates"),
        _ => ("/usr/local/share/ca-certificates", "update-ca-certificates"),
    }
}

/// `/etc/ca-certificates.conf` with every selected entry deselected (`!`), under cloud-init's
/// header line. Comments, blank lines and deselected entries stay; a second pass changes
/// nothing.
pub fn deselect(conf: &str) -> String {
    let mut out = Vec::new();
    let mut header = false;
    for line in conf.lines() {
        if line == CONF_HEADER {
            header = true;
            out.push(line.to_string());
        } else if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            out.push(line.to_string());
        } else {
            if !header {
                out.push(CONF_HEADER.to_string());
                header = true;
            }
            out.push(format!("!{line}"));
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// cloud-init's schema for the key: a mapping of `remove_defaults` and a non-empty `trusted`
/// list (the module also takes one certificate as a string, and `ember schema` reports it, as
/// cloud-init's schema does).
const CA_FIELDS: Fields = Fields {
    fields: &[
        ("remove_defaults", Shape::Bool),
        (
            "remove-defaults",
            Shape::Deprecated(&Shape::Bool, "use remove_defaults"),
        ),
        ("trusted", list(&Shape::Str, 1)),
    ],
    required: &[],
    open: false,
};
const CA_CERTS: Shape = Shape::Map(&CA_FIELDS);
const CA_CERTS_OLD: Shape = Shape::Deprecated(&CA_CERTS, "use ca_certs");

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("ca_certs", CA_CERTS), ("ca-certs", CA_CERTS_OLD)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for CaCerts {
    fn name(&self) -> &'static str {
        "ca_certs"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        let key = settings.key;
        let family = OsRelease::read(ctx.root).family();
        let (dir, update) = store(family);
        if settings.remove_defaults {
            if let Err(d) = remove_defaults(ctx, family, key) {
                diags.push(d);
            }
        }
        write_trusted(ctx, dir, &settings, diags);
        if which(ctx.root, update).is_none() {
            let msg = format!("{update} not found in the target: certificate store not rebuilt");
            diags.push(Diag::error(Reason::CaCertsToolMissing, msg).key(key));
            return;
        }
        ctx.exec.say(&format!("ca_certs: running {update}"));
        let outcome = ctx.exec.run(&[update], &[]);
        if !outcome.ok() {
            let msg = format!("{update} {}", outcome.describe());
            diags.push(Diag::error(Reason::CaCertsUpdateFailed, msg).key(key));
        }
    }
}

/// Each trusted certificate into `dir` as `cloud-init-ca-cert-N.crt`; those a previous
/// instance listed beyond this one's count are removed, no longer trusted.
fn write_trusted(ctx: &ModCtx, dir: &str, settings: &Settings, diags: &mut Vec<Diag>) {
    let root_err =
        |e: crate::root::RootError| Diag::error(e.code(), e.to_string()).key(settings.key);
    let spec = FileSpec::mode(0o644);
    for (i, pem) in settings.trusted.iter().enumerate() {
        let path = format!("{dir}/{PREFIX}{}.crt", i + 1);
        if let Err(e) = ctx.root.write_file(&path, pem.as_bytes(), &spec) {
            diags.push(root_err(e));
        }
    }
    let names = match ctx.root.list_dir(dir) {
        Ok(names) => names,
        Err(e) => return diags.push(root_err(e)),
    };
    for name in names {
        let n = name
            .strip_prefix(PREFIX)
            .and_then(|r| r.strip_suffix(".crt"))
            .and_then(|n| n.parse::<usize>().ok());
        if n.is_some_and(|n| n > settings.trusted.len()) {
            if let Err(e) = ctx.root.remove_file(&format!("{dir}/{name}")) {
                diags.push(root_err(e));
            }
        }
    }
}

/// Deselects the distribution's certificates (Debian family and Alpine), and on Debian tells
/// debconf not to trust new ones either, as cloud-init does.
fn remove_defaults(ctx: &ModCtx, family: Family, key: &str) -> Result<(), Diag> {
    let dkey = format!("{key}.remove_defaults");
    let root_err = |e: crate::root::RootError| Diag::error(e.code(), e.to_string()).key(&dkey);
    if !matches!(family, Family::Debian | Family::Alpine | Family::Other) {
        let msg = "not supported on this distribution: the default certificates stay trusted";
        return Err(Diag::warning(Reason::CaCertsRemoveUnsupported, msg).key(&dkey));
    }
    if let Some(conf) = ctx.root.read_file(CONF, 4 << 20).map_err(root_err)? {
        let text = String::from_utf8_lossy(&conf);
        if !text.is_empty() {
            let out = deselect(&text);
            if out != text {
                let spec = FileSpec::mode(0o644);
                ctx.root
                    .write_file(CONF, out.as_bytes(), &spec)
                    .map_err(root_err)?;
            }
        }
    }
    if family == Family::Debian && which(ctx.root, "debconf-set-selections").is_some() {
        let sel = "ca-certificates ca-certificates/trust_new_crts select no\n";
        ctx.root
            .write_file(DEBCONF, sel.as_bytes(), &FileSpec::mode(0o644))
            .map_err(root_err)?;
        let outcome = ctx.exec.run(&["debconf-set-selections", DEBCONF], &[]);
        if !outcome.ok() {
            let msg = format!("debconf-set-selections {}", outcome.describe());
            return Err(Diag::error(Reason::CaCertsDebconfFailed, msg).key(&dkey));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deselects_once() {
        let conf = "# comment\nmozilla/A.crt\n\n!mozilla/B.crt\nmozilla/C.crt\n";
        let once = deselect(conf);
        assert_eq!(
            once,
            format!("# comment\n{CONF_HEADER}\n!mozilla/A.crt\n\n!mozilla/B.crt\n!mozilla/C.crt\n")
        );
        assert_eq!(deselect(&once), once);
    }
}

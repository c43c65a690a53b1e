//! The primary and security mirrors, chosen as cloud-init chooses them: the `primary` (or
//! `security`) item for the target's architecture, else the last `default` one; its `uri`,
//! else the first `search` URL whose host resolves, else with `search_dns` the first of
//! `http://<distro>-mirror.<domain>/<distro>`, `...-mirror.localdomain/...` and
//! `...-mirror/...` that resolves (`<distro>-security-mirror` for security). Security falls
//! back to the primary; with no primary, both are the distribution's defaults (cloud.cfg's
//! `package_mirrors` failsafe: deb.debian.org, archive/security or ports.ubuntu.com).
//!
//! Names are resolved with the target's own `getent hosts` (its resolver and nsswitch; the
//! runner has none): an IP literal needs none. cloud-init's guard against resolvers that
//! answer every name (it resolves two bogus names first) is not done.

use super::settings::{Mirror, Settings};
use super::target::Target;
use super::ModCtx;
use crate::common::distro::which;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mirrors {
    pub primary: String,
    pub security: String,
    /// From the distribution's defaults (cloud-init's datasource path), which also gives the
    /// lowercase `primary` and `security` variables to sources.
    pub defaults: bool,
}

impl Mirrors {
    /// The variables a `sources` line sees: `$MIRROR`, `$PRIMARY`, `$SECURITY`, and with the
    /// defaults `primary` and `security`.
    pub fn vars(&self) -> serde_json::Map<String, Value> {
        let mut vars = serde_json::Map::new();
        let mut put = |k: &str, v: &str| vars.insert(k.to_string(), v.into());
        put("MIRROR", &self.primary);
        put("PRIMARY", &self.primary);
        put("SECURITY", &self.security);
        if self.defaults {
            put("primary", &self.primary);
            put("security", &self.security);
        }
        vars
    }

    /// The distribution's default mirrors.
    pub fn defaults(target: &Target) -> Mirrors {
        let (primary, security) = match (target.distro.as_str(), target.arch.as_str()) {
            ("ubuntu", "amd64" | "i386") => (
                "http://archive.ubuntu.com/ubuntu",
                "http://security.ubuntu.com/ubuntu",
            ),
            ("ubuntu", _) => (
                "http://ports.ubuntu.com/ubuntu-ports",
                "http://ports.ubuntu.com/ubuntu-ports",
            ),
            _ => (
                "https://deb.debian.org/debian",
                "https://deb.debian.org/debian-security",
            ),
        };
        Mirrors {
            primary: primary.into(),
            security: security.into(),
            defaults: true,
        }
    }
}

/// The mirror spec for `arch`: the first naming it, else the last naming `default`.
pub fn select<'a>(list: &'a [Mirror], arch: &str) -> Option<&'a Mirror> {
    let mut default = None;
    for m in list {
        if m.arches.iter().any(|a| a == arch) {
            return Some(m);
        }
        if m.arches.iter().any(|a| a == "default") {
            default = Some(m);
        }
    }
    default
}

pub fn find(
    ctx: &ModCtx,
    s: &Settings,
    target: &Target,
    cfg: &Value,
    diags: &mut Vec<Diag>,
) -> Mirrors {
    let mut resolver = Resolver {
        ctx,
        missing: false,
    };
    let mut get = |list: &Option<Vec<Mirror>>, kind: &str, diags: &mut Vec<Diag>| {
        let m = select(list.as_deref()?, &target.arch)?;
        if let Some(uri) = &m.uri {
            return Some(uri.clone());
        }
        let found = m
            .search
            .iter()
            .flatten()
            .find(|u| resolver.resolves(u, diags));
        if let Some(url) = found {
            return Some(url.clone());
        }
        if !m.search_dns {
            return None;
        }
        dns_names(&target.distro, kind, &domain(ctx, cfg))
            .into_iter()
            .find(|u| resolver.resolves(u, diags))
    };
    let primary = get(&s.primary, "mirror", diags);
    let security = get(&s.security, "security-mirror", diags);
    match primary {
        Some(primary) => Mirrors {
            security: security.unwrap_or_else(|| primary.clone()),
            primary,
            defaults: false,
        },
        // cloud-init ignores a security mirror given without a primary one.
        None => Mirrors::defaults(target),
    }
}

/// The domain of this host's fqdn: the `fqdn` key, else a dotted `hostname`, else the
/// target's /etc/hostname (which ember-initrd wrote from the meta-data).
fn domain(ctx: &ModCtx, cfg: &Value) -> String {
    let text = |k: &str| cfg.get(k).and_then(Value::as_str).map(str::to_string);
    let fqdn = text("fqdn")
        .or_else(|| text("hostname").filter(|h| h.contains('.')))
        .or_else(|| {
            let data = ctx.root.read_file("/etc/hostname", 4096).ok()??;
            Some(String::from_utf8_lossy(&data).trim().to_string())
        })
        .unwrap_or_default();
    fqdn.split_once('.')
        .map(|(_, d)| d.to_string())
        .unwrap_or_default()
}

/// cloud-init's `search_dns` candidates, in order.
pub fn dns_names(distro: &str, kind: &str, domain: &str) -> Vec<String> {
    let mut posts = Vec::new();
    if !domain.is_empty() {
        posts.push(format!(".{domain}"));
    }
    posts.extend([".localdomain".to_string(), String::new()]);
    posts
        .iter()
        .map(|post| format!("http://{distro}-{kind}{post}/{distro}"))
        .collect()
}

/// The host of a URL, without user info, port or IPv6 brackets.
pub fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if let Some(v6) = host_port.strip_prefix('[') {
        return v6.split(']').next();
    }
    host_port.split(':').next().filter(|h| !h.is_empty())
}

/// An IPv6 literal (only those have a colon once the port is gone) or a dotted IPv4 quad,
/// which need no lookup (checked by hand: std's address parser is not otherwise linked).
fn ip_literal(host: &str) -> bool {
    let quad = host.split('.').count() == 4
        && host
            .split('.')
            .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
    host.contains(':') || quad
}

struct Resolver<'a, 'c> {
    ctx: &'a ModCtx<'c>,
    /// Whether the missing getent was reported.
    missing: bool,
}

impl Resolver<'_, '_> {
    fn resolves(&mut self, url: &str, diags: &mut Vec<Diag>) -> bool {
        let Some(host) = host_of(url) else {
            return false;
        };
        if ip_literal(host) {
            return true;
        }
        let plain = host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
        if !plain || host.starts_with('-') {
            return false;
        }
        if which(self.ctx.root, "getent").is_none() {
            if !self.missing {
                self.missing = true;
                let msg = "no getent in the target: mirror names cannot be looked up";
                diags.push(Diag::warning(Reason::ToolMissing, msg).key("apt"));
            }
            return false;
        }
        self.ctx.exec.run(&["getent", "hosts", host], &[]).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(arches: &[&str], uri: &str) -> Mirror {
        Mirror {
            arches: arches.iter().map(|a| a.to_string()).collect(),
            uri: Some(uri.into()),
            ..Mirror::default()
        }
    }

    #[test]
    fn arch_then_last_default() {
        let list = [
            m(&["default"], "d1"),
            m(&["arm64"], "a"),
            m(&["default"], "d2"),
        ];
        assert_eq!(select(&list, "arm64").unwrap().uri.as_deref(), Some("a"));
        assert_eq!(select(&list, "amd64").unwrap().uri.as_deref(), Some("d2"));
        assert!(select(&list[1..2], "amd64").is_none());
    }

    #[test]
    fn names_and_hosts() {
        assert_eq!(
            dns_names("debian", "security-mirror", "example.org"),
            [
                "http://debian-security-mirror.example.org/debian",
                "http://debian-security-mirror.localdomain/debian",
                "http://debian-security-mirror/debian"
            ]
        );
        assert_eq!(dns_names("ubuntu", "mirror", "").len(), 2);
        assert_eq!(
            host_of("http://u:p@Mirror.example:8080/x"),
            Some("Mirror.example")
        );
        assert_eq!(host_of("http://[fd00::1]:80/x"), Some("fd00::1"));
        assert_eq!(host_of("file:/srv/repo"), None);
        assert!(ip_literal("10.0.0.1") && ip_literal("fd00::1"));
        assert!(!ip_literal("10.0.0") && !ip_literal("a.b.c.d") && !ip_literal("mirror"));
    }
}

//! The locale on the Red Hat and SUSE families: one variable set in a sysconfig-style file
//! (`/etc/locale.conf` under systemd, else `/etc/sysconfig/i18n` or `/etc/sysconfig/language`)
//! as cloud-init's `update_sysconfig_file` sets it: other lines, comments and their order
//! kept, values unquoted when read and quoted only when they hold whitespace, and a `Created
//! by` line on a file it creates.

use super::super::ModCtx;
use super::{write, EN_US};
use crate::common::system_tools::{self as tools, uses_systemd};
use crate::conf_lang::shell;
use crate::error::Diag;

/// A sysconfig file: its lines, and where each variable is.
#[derive(Debug, Default)]
pub struct SysConf {
    lines: Vec<Line>,
}

#[derive(Debug)]
enum Line {
    Other(String),
    Var(String, String),
}

impl SysConf {
    pub fn parse(text: &str) -> SysConf {
        let lines = text
            .lines()
            .map(|raw| {
                let s = raw.trim();
                match raw.split_once('=') {
                    Some((k, v)) if !s.is_empty() && !s.starts_with('#') => {
                        Line::Var(k.trim().to_string(), unquote(v.trim()).to_string())
                    }
                    _ => Line::Other(raw.to_string()),
                }
            })
            .collect();
        SysConf { lines }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.lines.iter().rev().find_map(|l| match l {
            Line::Var(k, v) if k == key => Some(v.as_str()),
            _ => None,
        })
    }

    /// Sets `key` where it is (every occurrence), or appends it after the variables.
    pub fn set(&mut self, key: &str, value: &str) {
        let mut found = false;
        for l in &mut self.lines {
            if let Line::Var(k, v) = l {
                if k == key {
                    *v = value.to_string();
                    found = true;
                }
            }
        }
        if !found {
            let at = self
                .lines
                .iter()
                .rposition(|l| matches!(l, Line::Var(..)))
                .map_or(0, |i| i + 1);
            self.lines
                .insert(at, Line::Var(key.to_string(), value.to_string()));
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            match l {
                Line::Other(s) => out.push_str(s),
                Line::Var(k, v) => {
                    out.push_str(k);
                    out.push('=');
                    out.push_str(&quote(v));
                }
            }
            out.push('\n');
        }
        out
    }
}

fn unquote(v: &str) -> &str {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        &v[1..v.len() - 1]
    } else {
        v
    }
}

/// A value as cloud-init writes it back: as is, unless it holds whitespace (then quoted by
/// the shell's one writer, as Python's `shlex.quote` does). The value ember sets is a locale
/// name, which `locale::read` keeps to letters, digits and `_.@+-`; the others were read
/// from the file's own lines.
fn quote(v: &str) -> String {
    if !v.contains([' ', '\t', '\r', '\n']) {
        return v.to_string();
    }
    shell::quote(v)
}

/// Reads `path` (absent: empty and new), sets `key`, writes it back.
fn update(ctx: &ModCtx, path: &str, key: &str, value: &str, diags: &mut Vec<Diag>) {
    if value.is_empty() {
        return;
    }
    let existing = match ctx.root.read_file(path, 1 << 20) {
        Ok(found) => found,
        Err(e) => {
            diags.push(Diag::error(e.code(), e.to_string()).key("locale"));
            return;
        }
    };
    let mut conf = SysConf::parse(&String::from_utf8_lossy(
        existing.as_deref().unwrap_or_default(),
    ));
    conf.set(key, value);
    let mut text = String::new();
    if existing.is_none() {
        text.push_str(&tools::created_header());
        text.push('\n');
    }
    text.push_str(&conf.render());
    write(ctx, path, &text, "locale", diags);
}

/// The file the Red Hat family keeps `LANG` in.
fn red_hat_file(ctx: &ModCtx) -> &'static str {
    if uses_systemd(ctx) {
        "/etc/locale.conf"
    } else {
        "/etc/sysconfig/i18n"
    }
}

/// Red Hat family: `LANG` of its file, the default being the `LANG` already there (else
/// en_US.UTF-8). Written every time, as cloud-init does.
pub fn red_hat(ctx: &ModCtx, given: Option<String>, out_fn: Option<&str>, diags: &mut Vec<Diag>) {
    let sys_file = red_hat_file(ctx);
    let locale = given.unwrap_or_else(|| {
        let current = match ctx.root.read_file(sys_file, 1 << 20) {
            Ok(Some(data)) => SysConf::parse(&String::from_utf8_lossy(&data))
                .get("LANG")
                .map(str::to_string),
            _ => None,
        };
        current
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| EN_US.into())
    });
    update(ctx, out_fn.unwrap_or(sys_file), "LANG", &locale, diags);
}

/// SUSE family: `LANG` in /etc/locale.conf under systemd, else `RC_LANG` in
/// /etc/sysconfig/language.
pub fn suse(ctx: &ModCtx, locale: &str, out_fn: Option<&str>, diags: &mut Vec<Diag>) {
    let (file, key) = if uses_systemd(ctx) {
        ("/etc/locale.conf", "LANG")
    } else {
        ("/etc/sysconfig/language", "RC_LANG")
    };
    update(ctx, out_fn.unwrap_or(file), key, locale, diags);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_one_variable_and_keeps_the_rest() {
        let mut c = SysConf::parse("# comment\nLANG=\"en_US.UTF-8\"\nLC_TIME='de DE'\n\n# end\n");
        assert_eq!(c.get("LANG"), Some("en_US.UTF-8"));
        c.set("LANG", "fr_FR.UTF-8");
        assert_eq!(
            c.render(),
            "# comment\nLANG=fr_FR.UTF-8\nLC_TIME='de DE'\n\n# end\n"
        );
        let mut fresh = SysConf::parse("");
        fresh.set("RC_LANG", "de_DE.UTF-8");
        assert_eq!(fresh.render(), "RC_LANG=de_DE.UTF-8\n");
        let mut tail = SysConf::parse("A=1\n# trailing\n");
        tail.set("B", "x y");
        assert_eq!(tail.render(), "A=1\nB='x y'\n# trailing\n");
    }
}

//! `locale` (and `locale_configfile`): the system locale, as cloud-init's distro classes set
//! it. Without the key it applies the distribution's default (on Debian the `LANG` already in
//! /etc/default/locale, else C.UTF-8), and on Debian does nothing when that is already set.
//! `locale: false` turns it off. Debian and Ubuntu: /etc/locale.gen edited and `locale-gen`
//! run, then `update-locale` (the `locales` package installed first when missing); Raspberry
//! Pi OS: `raspi-config`; Red Hat and SUSE: `LANG` (`RC_LANG` on SUSE without systemd) in
//! /etc/locale.conf or /etc/sysconfig; Alpine: /etc/profile.d/50-cloud-init-locale.sh; Arch:
//! /etc/locale.gen, `locale-gen`, `localectl set-locale`. Elsewhere a given locale is a
//! warning, the default nothing.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#locale>

use super::{ModCtx, RunnerModule};
use crate::common::system_tools::{self as tools, is_false, py_str, Distro};
use crate::config::reader::Reader;
use crate::config::shape::Shape;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod debian;
mod sysconf;

pub struct Locale;

/// What the config asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `None`: the distribution's default; `Some(None)`: turned off (`locale: false`).
    pub locale: Option<Option<String>>,
    /// `locale_configfile`: where the setting is written instead of the distribution's file.
    pub configfile: Option<String>,
}

/// A locale name as glibc and musl spell them: `de_DE.UTF-8`, `sr_RS@latin`, `C.UTF-8`. It
/// goes into commands, /etc/locale.gen and a shell profile, so nothing else is accepted.
fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.@+-".contains(&b))
}

/// The `locale` and `locale_configfile` keys, read as cloud-init's `get_cfg_option_str` reads
/// them (a boolean is its Python text, so `false` turns the module off). `None` when a value
/// is unusable (the diagnostic says why): the module then does nothing.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let locale = match cfg.get("locale") {
        None => None,
        Some(v @ (Value::Bool(_) | Value::String(_))) if is_false(v) => Some(None),
        Some(v @ (Value::Bool(_) | Value::String(_))) => {
            let name = py_str(v);
            if !valid_name(&name) {
                let msg = "not a locale name such as de_DE.UTF-8 (letters, digits and _ . @ + -)";
                diags.push(Diag::error(Reason::BadValue, msg).key("locale"));
                return None;
            }
            Some(Some(name))
        }
        Some(_) => {
            let msg = "must be a locale name, or false to leave the locale alone";
            diags.push(Diag::error(Reason::WrongType, msg).key("locale"));
            return None;
        }
    };
    let configfile = match cfg.get("locale_configfile") {
        None => None,
        Some(Value::String(p)) if p.starts_with('/') && !p.contains(['\n', '\0']) => {
            Some(p.clone())
        }
        Some(Value::String(_)) => {
            let msg = "must be an absolute path";
            diags.push(Diag::error(Reason::BadValue, msg).key("locale_configfile"));
            return None;
        }
        Some(_) => {
            let msg = "must be a string: the path of the file to write the locale to";
            diags.push(Diag::error(Reason::WrongType, msg).key("locale_configfile"));
            return None;
        }
    };
    Some(Settings { locale, configfile })
}

/// Its keys' shapes (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[
        ("locale", Shape::OneOf(&[Shape::Bool, Shape::Str])),
        ("locale_configfile", Shape::Str),
    ],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Locale {
    fn name(&self) -> &'static str {
        "locale"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        let out_fn = settings.configfile.as_deref();
        let given = match settings.locale {
            Some(None) => {
                ctx.exec
                    .say("locale: turned off by the config (locale: false)");
                return;
            }
            Some(Some(name)) => Some(name),
            None => None,
        };
        match Distro::of(ctx, cfg) {
            Distro::Debian => {
                let locale = given.unwrap_or_else(|| debian::system_default(ctx));
                debian::apply(ctx, &locale, out_fn, diags);
            }
            Distro::RaspberryPiOs => {
                let locale = given.unwrap_or_else(|| debian::system_default(ctx));
                raspberry_pi_os(ctx, &locale, diags);
            }
            Distro::RedHat => sysconf::red_hat(ctx, given, out_fn, diags),
            Distro::Suse => sysconf::suse(ctx, &given.unwrap_or(EN_US.into()), out_fn, diags),
            Distro::Alpine => alpine(ctx, &given.unwrap_or("C.UTF-8".into()), out_fn, diags),
            Distro::Arch => arch(ctx, &given.unwrap_or(EN_US.into()), out_fn, diags),
            Distro::Other => {
                if given.is_some() {
                    let msg = "not set: ember sets the locale on Debian, Ubuntu, Raspberry Pi OS, \
                               Red Hat and SUSE families, Alpine and Arch";
                    diags.push(Diag::warning(Reason::UnsupportedKey, msg).key("locale"));
                }
            }
        }
    }
}

/// cloud-init's datasource default, for distributions whose class has none of its own.
const EN_US: &str = "en_US.UTF-8";

fn write(ctx: &ModCtx, path: &str, text: &str, key: &str, diags: &mut Vec<Diag>) -> bool {
    match ctx
        .root
        .write_file(path, text.as_bytes(), &FileSpec::mode(0o644))
    {
        Ok(()) => true,
        Err(e) => {
            diags.push(Diag::error(e.code(), e.to_string()).key(key));
            false
        }
    }
}

fn failed(what: &str, outcome: &crate::common::exec::Outcome, diags: &mut Vec<Diag>) {
    let msg = format!("{what} {}", outcome.describe());
    diags.push(Diag::error(Reason::CommandFailed, msg).key("locale"));
}

/// Raspberry Pi OS: `raspi-config nonint do_change_locale`, again with `.UTF-8` added when
/// the name has no such suffix and the first try failed.
fn raspberry_pi_os(ctx: &ModCtx, locale: &str, diags: &mut Vec<Diag>) {
    fn argv(l: &str) -> [&str; 4] {
        ["/usr/bin/raspi-config", "nonint", "do_change_locale", l]
    }
    let outcome = tools::run(ctx, "locale", &argv(locale), &[]);
    if outcome.ok() {
        return;
    }
    if locale.ends_with(".UTF-8") {
        failed("raspi-config do_change_locale", &outcome, diags);
        return;
    }
    let utf8 = format!("{locale}.UTF-8");
    let outcome = tools::run(ctx, "locale", &argv(&utf8), &[]);
    if !outcome.ok() {
        failed("raspi-config do_change_locale", &outcome, diags);
    }
}

/// Alpine (musl): a profile script exporting the locale, rewritten every time.
fn alpine(ctx: &ModCtx, locale: &str, out_fn: Option<&str>, diags: &mut Vec<Diag>) {
    let path = out_fn.unwrap_or("/etc/profile.d/50-cloud-init-locale.sh");
    let text = format!(
        "#\n# This file is created by ember once per new instance boot\n#\n\
         export CHARSET=UTF-8\nexport LANG={locale}\nexport LC_COLLATE=C\n"
    );
    write(ctx, path, &text, "locale", diags);
}

/// Arch: /etc/locale.gen holds just this locale, then `locale-gen` and `localectl`. A
/// `locale_configfile` other than /etc/locale.conf is not used (a warning, as in cloud-init).
fn arch(ctx: &ModCtx, locale: &str, out_fn: Option<&str>, diags: &mut Vec<Diag>) {
    if out_fn.is_some_and(|p| p != "/etc/locale.conf") {
        let msg = "not used on Arch: the only supported value is /etc/locale.conf";
        diags.push(Diag::warning(Reason::BadValue, msg).key("locale_configfile"));
    }
    let text = format!("{}\n{locale} UTF-8\n", tools::created_header());
    if !write(ctx, "/etc/locale.gen", &text, "locale", diags) {
        return;
    }
    for argv in [vec!["locale-gen"], vec!["localectl", "set-locale", locale]] {
        let outcome = tools::run(ctx, "locale", &argv, &[]);
        if !outcome.ok() {
            return failed(argv[0], &outcome, diags);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_names_off_and_mistakes() {
        let mut d = Vec::new();
        let r = |v: Value, d: &mut Vec<Diag>| read(&v, d);
        assert_eq!(
            r(json!({}), &mut d),
            Some(Settings {
                locale: None,
                configfile: None
            })
        );
        assert_eq!(
            r(json!({"locale": false}), &mut d).unwrap().locale,
            Some(None)
        );
        assert_eq!(
            r(json!({"locale": "off"}), &mut d).unwrap().locale,
            Some(None)
        );
        let s = r(
            json!({"locale": "fr_CA", "locale_configfile": "/etc/alternate_path/locale"}),
            &mut d,
        )
        .unwrap();
        assert_eq!(s.locale, Some(Some("fr_CA".into())));
        assert_eq!(s.configfile.as_deref(), Some("/etc/alternate_path/locale"));
        assert!(d.is_empty());
        assert_eq!(r(json!({"locale": "de_DE.UTF-8; rm -rf /"}), &mut d), None);
        assert_eq!(r(json!({"locale": ["x"]}), &mut d), None);
        assert_eq!(r(json!({"locale_configfile": "etc/x"}), &mut d), None);
        let got: Vec<_> = d
            .iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("bad-value", "locale"),
                ("wrong-type", "locale"),
                ("bad-value", "locale_configfile")
            ]
        );
    }
}

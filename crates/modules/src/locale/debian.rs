//! The locale on Debian and Ubuntu, as cloud-init's debian distro class sets it (26.x): the
//! name gets `.UTF-8` when it has no charset; when it differs from the `LANG` of
//! /etc/default/locale (or that is unset, or the target file is missing) its line from
//! /usr/share/i18n/SUPPORTED is the one enabled in /etc/locale.gen (every other line commented
//! out, as cloud-init does) and `locale-gen` runs; then `update-locale` writes the file. C and
//! POSIX need no generation, and their file is written as update-locale would write it, without
//! running it. When `LANG` already names the locale, nothing runs at all.

use super::super::ModCtx;
use super::failed;
use crate::common::system_tools::{self as tools, ensure_tool};
use crate::error::Diag;
use crate::root::FileSpec;

const LOCALE_CONF: &str = "/etc/default/locale";
const LOCALE_GEN: &str = "/etc/locale.gen";
const SUPPORTED: &str = "/usr/share/i18n/SUPPORTED";
/// The debian class's default locale, also the commands' environment.
const DEFAULT: &str = "C.UTF-8";
const ENV: [(&str, &str); 3] = [
    ("LANGUAGE", DEFAULT),
    ("LANG", DEFAULT),
    ("LC_ALL", DEFAULT),
];

/// `LANG` of /etc/default/locale: cloud-init's `read_system_locale` (empty when unset).
fn system_locale(ctx: &ModCtx) -> String {
    let Ok(Some(data)) = ctx.root.read_file(LOCALE_CONF, 1 << 20) else {
        return String::new();
    };
    shell_vars(&String::from_utf8_lossy(&data))
        .into_iter()
        .find(|(k, _)| k == "LANG")
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// The distribution's locale when the config names none: `LANG`, else C.UTF-8.
pub fn system_default(ctx: &ModCtx) -> String {
    let sys = system_locale(ctx);
    if sys.is_empty() {
        DEFAULT.into()
    } else {
        sys
    }
}

/// cloud-init's `load_shell_content`: `NAME=value` words split as a shell splits them
/// (quotes, backslashes, `#` comments), empty values left out. Words without `=` are skipped.
pub fn shell_vars(text: &str) -> Vec<(String, String)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' if !in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.extend(chars.next());
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
        .into_iter()
        .filter_map(|w| {
            let (k, v) = w.split_once('=')?;
            (!v.is_empty()).then(|| (k.to_string(), v.to_string()))
        })
        .collect()
}

/// cloud-init's `_normalize_locale`: C and POSIX as they are, else `.UTF-8` added to a name
/// with neither a charset nor a modifier.
pub fn normalize(requested: &str) -> String {
    let req = requested.trim();
    let lower = req.to_ascii_lowercase();
    if ["c", "posix", "c.utf-8", "c.utf8"].contains(&lower.as_str()) {
        return if lower != "c" && lower.contains("utf") {
            "C.UTF-8".into()
        } else {
            "C".into()
        };
    }
    if !req.contains(['.', '@']) {
        return format!("{req}.UTF-8");
    }
    req.to_string()
}

/// A request split as cloud-init's pattern `^([A-Za-z_]+)(\.[A-Za-z0-9-]+)?(@[A-Za-z0-9_-]+)?$`
/// splits it: the prefix SUPPORTED lines must start with (name and modifier) and the charset.
fn parse_request(req: &str) -> (String, Option<&str>) {
    let base_end = req
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
        .unwrap_or(req.len());
    let (base, mut rest) = req.split_at(base_end);
    let mut charset = None;
    let mut modifier = None;
    if let Some(r) = rest.strip_prefix('.') {
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(r.len());
        charset = (n > 0).then(|| &r[..n]);
        rest = if n > 0 { &r[n..] } else { rest };
    }
    if let Some(r) = rest.strip_prefix('@') {
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(r.len());
        modifier = (n > 0).then(|| &r[..n]);
        rest = if n > 0 { &r[n..] } else { rest };
    }
    if base.is_empty() || !rest.is_empty() {
        return (req.to_string(), None);
    }
    match modifier {
        Some(m) => (format!("{base}@{m}"), charset),
        None => (base.to_string(), charset),
    }
}

/// Whether a SUPPORTED line is `<prefix>[.charset][@modifier] <charmap>`.
fn candidate(line: &str, prefix: &str) -> bool {
    let Some(mut r) = line.strip_prefix(prefix) else {
        return false;
    };
    if let Some(x) = r.strip_prefix('.') {
        let n = x
            .find(|c: char| c.is_whitespace() || c == '@')
            .unwrap_or(x.len());
        if n == 0 {
            return false;
        }
        r = &x[n..];
    }
    if let Some(x) = r.strip_prefix('@') {
        let n = x.find(char::is_whitespace).unwrap_or(x.len());
        if n == 0 {
            return false;
        }
        r = &x[n..];
    }
    let t = r.trim_start();
    t.len() < r.len() && !t.is_empty() && !t.contains(char::is_whitespace)
}

/// cloud-init's `_lookup_supported_line`: the SUPPORTED line for `requested` (the one with
/// its charset when it names one, else the UTF-8 one, else the first), or one made up from
/// the request when SUPPORTED has none.
pub fn supported_line(supported: &str, requested: &str) -> String {
    let (prefix, charset) = parse_request(requested);
    let candidates: Vec<&str> = supported
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#') && candidate(l, &prefix))
        .map(str::trim)
        .collect();
    if candidates.is_empty() {
        let cs = charset.unwrap_or("UTF-8");
        return format!("{prefix}.{cs} {cs}");
    }
    if let Some(cs) = charset {
        let head = format!("{prefix}.{cs}");
        let exact = candidates.iter().find(|l| {
            l.strip_prefix(&head).is_some_and(|r| {
                let r = match r.strip_prefix('@') {
                    Some(m) => m.trim_start_matches(|c: char| !c.is_whitespace()),
                    None => r,
                };
                r.starts_with(char::is_whitespace)
            })
        });
        if let Some(l) = exact {
            return l.to_string();
        }
    }
    let utf8 = candidates.iter().find(|l| {
        let l = l.to_ascii_lowercase();
        l.strip_suffix("utf-8")
            .is_some_and(|r| r.ends_with(char::is_whitespace))
    });
    utf8.unwrap_or(&candidates[0]).to_string()
}

/// /etc/locale.gen with `line` the one enabled line: lines naming it (commented or not) are
/// enabled, every other uncommented line is commented out, `line` is appended when absent.
pub fn locale_gen(existing: &str, line: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut found = false;
    for raw in existing.lines() {
        let s = raw.trim();
        if s.is_empty() {
            out.push(raw.to_string());
            continue;
        }
        let bare = s.trim_start_matches(['#', ' ']).trim_end();
        if bare.trim_start() == line {
            out.push(line.to_string());
            found = true;
        } else if raw.trim_start().starts_with('#') {
            out.push(raw.to_string());
        } else {
            out.push(format!("# {raw}"));
        }
    }
    if !found {
        out.push(line.to_string());
    }
    let mut text = out.join("\n").trim_end().to_string();
    text.push('\n');
    text
}

/// Applies `locale` as cloud-init's debian class does, writing `out_fn` (default
/// /etc/default/locale).
pub fn apply(ctx: &ModCtx, locale: &str, out_fn: Option<&str>, diags: &mut Vec<Diag>) {
    let out_fn = out_fn.unwrap_or(LOCALE_CONF);
    let locale = normalize(locale);
    let sys = system_locale(ctx);
    let current = if sys.is_empty() { DEFAULT } else { &sys };
    let conf_exists = ctx.root.exists(out_fn);
    let need_regen = !locale.eq_ignore_ascii_case(current) || !conf_exists || sys.is_empty();
    if !need_regen {
        ctx.exec.say(&format!(
            "locale: {LOCALE_CONF} already has LANG={sys}; nothing to do"
        ));
        return;
    }
    if !regenerate(ctx, &locale, diags) {
        return;
    }
    // The C locales are always valid: where the image has update-locale (so nothing is to be
    // installed), the file it would write is written here, without starting Perl (0.7 s of a
    // first boot under emulation).
    if is_c_locale(&locale) && super::super::which(ctx.root, "update-locale").is_some() {
        let old = match ctx.root.read_file(out_fn, 1 << 20) {
            Ok(data) => data.map(|d| String::from_utf8_lossy(&d).into_owned()),
            Err(e) => return diags.push(Diag::error(e.code(), e.to_string()).key("locale")),
        };
        if let Some(text) = update_locale_text(old.as_deref(), "LANG", &locale) {
            let mode = ctx.root.file_mode(out_fn).unwrap_or(0o644);
            if let Err(e) = ctx
                .root
                .write_file(out_fn, text.as_bytes(), &FileSpec::mode(mode))
            {
                diags.push(Diag::error(e.code(), e.to_string()).key("locale"));
            }
            return;
        }
    }
    if !ensure_tool(
        ctx,
        "locale",
        "update-locale",
        &["locales"],
        "locale",
        diags,
    ) {
        return;
    }
    let file = format!("--locale-file={out_fn}");
    let lang = format!("LANG={locale}");
    let outcome = tools::run(ctx, "locale", &["update-locale", &file, &lang], &ENV);
    if !outcome.ok() {
        failed("update-locale", &outcome, diags);
    }
}

/// C, C.UTF-8 and POSIX: built into the C library, never generated, never invalid.
fn is_c_locale(locale: &str) -> bool {
    ["c", "c.utf-8", "posix"].contains(&locale.to_ascii_lowercase().as_str())
}

/// What Debian's `update-locale KEY=VALUE` makes of the file's text (None: no file): every
/// assignment commented out, then each variable the file set at a line's start, with KEY now
/// VALUE, put back on the first commented line of its name, or appended. `None` for an empty
/// file or one with a blank line, where the tool's patterns (`\s*` spans lines) do more than this says: the
/// tool itself runs then.
fn update_locale_text(old: Option<&str>, key: &str, value: &str) -> Option<String> {
    let Some(old) = old else {
        return Some(format!(
            "#  File generated by update-locale\n{key}={value}\n"
        ));
    };
    if old.is_empty() || old.lines().any(|l| l.trim().is_empty()) {
        return None;
    }
    let word = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for line in old.lines() {
        if let Some((k, v)) = line.split_once('=').filter(|(k, _)| word(k)) {
            match vars.iter_mut().find(|(name, _)| name == k) {
                Some(slot) => slot.1 = v.to_string(),
                None => vars.push((k.to_string(), v.to_string())),
            }
        }
        let assigns = line
            .trim_start()
            .split_once('=')
            .is_some_and(|(k, _)| word(k));
        lines.push(if assigns {
            format!("#{line}")
        } else {
            line.to_string()
        });
    }
    match vars.iter_mut().find(|(name, _)| name == key) {
        Some(slot) => slot.1 = value.to_string(),
        None => vars.push((key.to_string(), value.to_string())),
    }
    for (k, v) in vars {
        let commented = lines.iter_mut().find(|l| {
            l.strip_prefix('#')
                .map(str::trim_start)
                .and_then(|rest| rest.strip_prefix(k.as_str()))
                .is_some_and(|rest| rest.starts_with('='))
        });
        match commented {
            Some(line) => *line = format!("{k}={v}"),
            None => lines.push(format!("{k}={v}")),
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    Some(text)
}

/// Enables the locale in /etc/locale.gen and runs `locale-gen`. False when that failed.
fn regenerate(ctx: &ModCtx, locale: &str, diags: &mut Vec<Diag>) -> bool {
    if is_c_locale(locale) {
        return true;
    }
    if !ensure_tool(ctx, "locale", "locale-gen", &["locales"], "locale", diags) {
        return false;
    }
    let read = |path: &str| match ctx.root.read_file(path, 4 << 20) {
        Ok(Some(data)) => String::from_utf8_lossy(&data).into_owned(),
        _ => String::new(),
    };
    let line = supported_line(&read(SUPPORTED), locale);
    let text = locale_gen(&read(LOCALE_GEN), &line);
    if let Err(e) = ctx
        .root
        .write_file(LOCALE_GEN, text.as_bytes(), &FileSpec::mode(0o644))
    {
        diags.push(Diag::error(e.code(), e.to_string()).key("locale"));
        return false;
    }
    let outcome = tools::run(ctx, "locale", &["locale-gen"], &ENV);
    if !outcome.ok() {
        failed("locale-gen", &outcome, diags);
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUP: &str =
        "# comment\nen_US.UTF-8 UTF-8\nen_US ISO-8859-1\nen_US.ISO-8859-15 ISO-8859-15\n\
                       de_DE.UTF-8 UTF-8\nde_DE ISO-8859-1\nde_DE@euro ISO-8859-15\n\
                       sr_RS UTF-8\nsr_RS@latin UTF-8\nfi_FI ISO-8859-1\n";

    #[test]
    fn normalizes_like_cloud_init() {
        for (req, want) in [
            ("ar_AE", "ar_AE.UTF-8"),
            ("de_DE.ISO-8859-1", "de_DE.ISO-8859-1"),
            ("sr_RS@latin", "sr_RS@latin"),
            ("c", "C"),
            ("POSIX", "C"),
            ("C.utf8", "C.UTF-8"),
            (" fr_CA ", "fr_CA.UTF-8"),
        ] {
            assert_eq!(normalize(req), want, "{req}");
        }
    }

    #[test]
    fn finds_the_supported_line() {
        for (req, want) in [
            ("en_US.UTF-8", "en_US.UTF-8 UTF-8"),
            ("en_US.ISO-8859-15", "en_US.ISO-8859-15 ISO-8859-15"),
            ("de_DE@euro", "de_DE@euro ISO-8859-15"),
            ("sr_RS@latin", "sr_RS@latin UTF-8"),
            ("fi_FI.UTF-8", "fi_FI ISO-8859-1"),
            ("ar_AE.UTF-8", "ar_AE.UTF-8 UTF-8"),
            ("xx_YY.KOI8-R", "xx_YY.KOI8-R KOI8-R"),
        ] {
            assert_eq!(supported_line(SUP, req), want, "{req}");
        }
        assert_eq!(supported_line("", "de_DE.UTF-8"), "de_DE.UTF-8 UTF-8");
    }

    /// Against the SUPPORTED list of Debian's `locales`, where this machine has it: each
    /// answer is a line of it, as locale-gen needs.
    #[test]
    fn finds_lines_of_debians_own_list() {
        let Ok(real) = std::fs::read_to_string(SUPPORTED) else {
            eprintln!("SKIP: no {SUPPORTED} (Debian's locales package) on this machine");
            return;
        };
        for (req, want) in [
            ("de_DE", "de_DE.UTF-8 UTF-8"),
            ("de_DE@euro", "de_DE@euro ISO-8859-15"),
            ("ar_AE", "ar_AE.UTF-8 UTF-8"),
            ("sr_RS@latin", "sr_RS@latin UTF-8"),
            // No "fi_FI.ISO-8859-1" line (it is "fi_FI ISO-8859-1"): cloud-init takes UTF-8.
            ("fi_FI.ISO-8859-1", "fi_FI.UTF-8 UTF-8"),
            ("en_US.ISO-8859-15", "en_US.ISO-8859-15 ISO-8859-15"),
        ] {
            let got = supported_line(&real, &normalize(req));
            assert_eq!(got, want, "{req}");
            assert!(
                real.lines().any(|l| l == got),
                "{got} is not a line of SUPPORTED"
            );
        }
    }

    #[test]
    fn enables_one_line_in_locale_gen() {
        let gen = "# This file lists locales\n\n# de_DE.UTF-8 UTF-8\nen_US.UTF-8 UTF-8\n#  fr_FR.UTF-8 UTF-8\n";
        assert_eq!(
            locale_gen(gen, "de_DE.UTF-8 UTF-8"),
            "# This file lists locales\n\nde_DE.UTF-8 UTF-8\n# en_US.UTF-8 UTF-8\n#  fr_FR.UTF-8 UTF-8\n"
        );
        assert_eq!(locale_gen("", "de_DE.UTF-8 UTF-8"), "de_DE.UTF-8 UTF-8\n");
        let once = locale_gen(gen, "nl_NL.UTF-8 UTF-8");
        assert!(once.ends_with("\nnl_NL.UTF-8 UTF-8\n"), "{once}");
        assert_eq!(locale_gen(&once, "nl_NL.UTF-8 UTF-8"), once);
    }

    /// Differential: Debian's own update-locale on the same texts, where this machine has it.
    #[test]
    fn writes_what_update_locale_writes() {
        let cases: [Option<&str>; 7] = [
            None,
            Some("#  File generated by update-locale\n"),
            Some("LANG=en_US.UTF-8\n"),
            Some("# keep me\nLANG=\"de_DE.UTF-8\"\nLC_TIME=en_GB.UTF-8\n  LANGUAGE=de:en\n"),
            Some("#LANG=old\nLC_ALL=C"),
            Some("# LANG=a\n#\tLANG=b\nLANG=c\n"),
            Some("#LANGUAGE=x\nLANGUAGE=y\n"),
        ];
        let c = |old| update_locale_text(old, "LANG", "C.UTF-8");
        assert_eq!(
            c(None).unwrap(),
            "#  File generated by update-locale\nLANG=C.UTF-8\n"
        );
        assert_eq!(c(Some("LANG=en_US.UTF-8\n")).unwrap(), "LANG=C.UTF-8\n");
        // A blank line: the tool's own patterns decide, so the tool runs.
        assert_eq!(c(Some("# x\n\nLANG=en_US.UTF-8\n")), None);
        assert_eq!(c(Some("")), None);
        let tool = std::path::Path::new("/usr/sbin/update-locale");
        if !tool.exists() {
            eprintln!(
                "SKIP writes_what_update_locale_writes: no {}",
                tool.display()
            );
            return;
        }
        let dir = std::env::temp_dir().join(format!("ember-update-locale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, case) in cases.iter().enumerate() {
            let file = dir.join(format!("locale-{i}"));
            if let Some(text) = case {
                std::fs::write(&file, text).unwrap();
            }
            let out = std::process::Command::new(tool)
                .arg(format!("--locale-file={}", file.display()))
                .arg("--no-checks")
                .arg("LANG=C.UTF-8")
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            let theirs = std::fs::read_to_string(&file).unwrap();
            assert_eq!(c(*case).unwrap(), theirs, "{case:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_shell_assignments() {
        let text = "#  File generated by update-locale\nLANG=\"de_DE.UTF-8\"\nLC_ALL='C' # x\nLANGUAGE=\nexport\n";
        assert_eq!(
            shell_vars(text),
            [
                ("LANG".to_string(), "de_DE.UTF-8".to_string()),
                ("LC_ALL".to_string(), "C".to_string())
            ]
        );
    }
}

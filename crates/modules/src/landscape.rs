//! `landscape`: installs `landscape-client` and registers the machine with
//! `landscape-config --silent`, as cloud-init does: unless `landscape-config --is-registered`
//! says it already is (a warning), every `client` key becomes a `--key-name value` option over
//! cloud-init's defaults (log level, URLs, data path), sorted by name. `landscape-config`
//! itself writes /etc/landscape/client.conf and enables the client at boot
//! (/etc/default/landscape-client or the unit). Unlike cloud-init, the keys that may hold a
//! secret (`registration_key`, and the proxy URLs, which may carry a password) are not on the
//! command line: they go in a 0600 file read with `--import`, which landscape-config takes as
//! command-line options; and the keys already in client.conf are left for landscape-config to
//! read there rather than repeated on its command line.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#landscape>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::exec::Outcome;
use crate::common::private_io::{install, private_file};
use crate::conf_lang::configobj;
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;

pub struct Landscape;

const CLIENT_CONF: &str = "/etc/landscape/client.conf";
/// cloud-init's defaults, from the stock client.conf of landscape-client 11.07.
const BUILTIN: &[(&str, &str)] = &[
    ("data_path", "/var/lib/landscape/client"),
    ("log_level", "info"),
    ("ping_url", "http://landscape.canonical.com/ping"),
    ("url", "https://landscape.canonical.com/message-system"),
];
/// Keys whose values go through the import file, never the command line.
const SECRET_KEYS: &[&str] = &["registration_key", "http_proxy", "https_proxy"];
/// landscape-config's exit status for "not registered" with `--is-registered`.
const NOT_REGISTERED: i32 = 5;

fn tags_ok(s: &str) -> bool {
    s.split(',').all(|t| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

const CLIENT: Shape = Shape::Map(&Fields {
    fields: &[
        ("url", Shape::Str),
        ("ping_url", Shape::Str),
        ("data_path", Shape::Str),
        (
            "log_level",
            Shape::Lit(&[
                Lit::S("debug"),
                Lit::S("info"),
                Lit::S("warning"),
                Lit::S("error"),
                Lit::S("critical"),
            ]),
        ),
        ("computer_title", Shape::Str),
        ("account_name", Shape::Str),
        ("registration_key", Shape::Str),
        (
            "tags",
            Shape::Pattern(
                tags_ok,
                "comma-separated tag names (letters, digits, - and _)",
            ),
        ),
        ("http_proxy", Shape::Str),
        ("https_proxy", Shape::Str),
    ],
    required: &["account_name", "computer_title"],
    open: true,
});
const SHAPES: &[(&str, Shape)] = &[(
    "landscape",
    Shape::Map(&Fields {
        fields: &[("client", CLIENT)],
        required: &["client"],
        open: false,
    }),
)];

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The `client` settings as landscape-config options: name (with `_`) and value.
#[derive(Debug, Default)]
pub struct Settings {
    pub client: Vec<(String, Secret<String>)>,
}

/// `landscape`: `None` when absent, empty, or unusable (an error says why). A `client` value
/// is a string, or a number or boolean taken as Python writes it.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let map = match cfg.get("landscape")? {
        Value::Object(m) => m,
        _ => {
            let msg = "expected a mapping with the key client";
            diags.push(Diag::error(Reason::WrongType, msg).key("landscape"));
            return None;
        }
    };
    if map.is_empty() {
        return None;
    }
    let mut out = Settings::default();
    let client = match map.get("client") {
        None | Some(Value::Null) => return Some(out),
        Some(Value::Object(c)) => c,
        Some(_) => {
            let msg = "expected a mapping of landscape-config options";
            diags.push(Diag::error(Reason::WrongType, msg).key("landscape.client"));
            return None;
        }
    };
    let mut bad = false;
    for (name, v) in client {
        let at = format!("landscape.client.{name}");
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            _ => {
                let msg = "expected a string";
                diags.push(Diag::error(Reason::WrongType, msg).key(at));
                bad = true;
                continue;
            }
        };
        let name_ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !name_ok || configobj::one_line(&text).is_err() {
            let msg = "not usable as a landscape-config option (name or line break)";
            diags.push(Diag::error(Reason::BadValue, msg).key(at));
            bad = true;
            continue;
        }
        if SECRET_KEYS.contains(&name.as_str()) && conf_value(&text).is_none() {
            let msg = "holds both ''' and \"\"\": cannot be handed to landscape-config";
            diags.push(Diag::error(Reason::BadValue, msg).key(at));
            bad = true;
            continue;
        }
        out.client.push((name.clone(), Secret::new(text)));
    }
    (!bad).then_some(out)
}

impl RunnerModule for Landscape {
    fn name(&self) -> &'static str {
        "landscape"
    }
    /// It registers the machine: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        if !install(ctx, &["landscape-client"], "landscape", diags) {
            return;
        }
        let existing = conf_keys(ctx);
        let (flags, secret) = options(&settings, &existing);
        let check = ["landscape-config", "--silent", "--is-registered"];
        ctx.exec.say(&format!("landscape: {}", check.join(" ")));
        match ctx.exec.run(&check, &[]) {
            Outcome::Exited(NOT_REGISTERED) => {}
            Outcome::Exited(0) => {
                let msg = "client already registered to Landscape";
                diags.push(Diag::warning(Reason::CommandFailed, msg).key("landscape"));
                return;
            }
            o => {
                let msg = format!(
                    "failure registering client: landscape-config {}",
                    o.describe()
                );
                diags.push(Diag::error(Reason::CommandFailed, msg).key("landscape"));
                return;
            }
        }
        let file = if secret.is_empty() {
            None
        } else {
            match private_file(ctx.root, "landscape-import.conf", secret.as_bytes()) {
                Ok(f) => Some(f),
                Err(e) => {
                    diags.push(Diag::error(e.code(), e.to_string()).key("landscape"));
                    return;
                }
            }
        };
        let mut argv: Vec<&str> = vec!["landscape-config", "--silent"];
        argv.extend(flags.iter().map(String::as_str));
        if let Some(f) = &file {
            argv.extend(["--import", &f.path]);
        }
        ctx.exec.say(&format!("landscape: {}", argv.join(" ")));
        let outcome = ctx.exec.run(&argv, &[]);
        drop(file);
        if !outcome.ok() {
            let msg = format!(
                "failure registering client: landscape-config {}",
                outcome.describe()
            );
            diags.push(Diag::error(Reason::CommandFailed, msg).key("landscape"));
        }
    }
}

/// The options on the command line (cloud-init's defaults for keys neither the config nor
/// client.conf has, then the config's keys, sorted, each `--key-name value`), and the import
/// file holding the secret ones (empty when there are none).
fn options(s: &Settings, existing: &[String]) -> (Vec<String>, String) {
    let mut merged: Vec<(&str, &str)> = BUILTIN
        .iter()
        .filter(|(k, _)| !existing.iter().any(|e| e == k))
        .filter(|(k, _)| !s.client.iter().any(|(n, _)| n == k))
        .copied()
        .collect();
    merged.extend(
        s.client
            .iter()
            .map(|(n, v)| (n.as_str(), v.expose().as_str())),
    );
    ember_core::sort::sort(&mut merged);
    let mut flags = Vec::new();
    let mut import = String::new();
    for (name, value) in merged {
        if SECRET_KEYS.contains(&name) {
            if import.is_empty() {
                import.push_str("[client]\n");
            }
            let v = conf_value(value).unwrap_or_default();
            import.push_str(&format!("{name} = {v}\n"));
        } else {
            flags.push(format!("--{}", name.replace('_', "-")));
            flags.push(value.to_string());
        }
    }
    (flags, import)
}

/// `value` as landscape reads a ConfigObj value, by ConfigObj's one writer; `None` when it
/// refuses it (a line break, both kinds of triple quote).
fn conf_value(value: &str) -> Option<String> {
    configobj::unlisted(value).ok()
}

/// The names set in client.conf's `[client]` section: landscape-config reads those itself.
fn conf_keys(ctx: &ModCtx) -> Vec<String> {
    let Ok(Some(data)) = ctx.root.read_file(CLIENT_CONF, 1 << 20) else {
        return Vec::new();
    };
    let mut in_client = false;
    let mut keys = Vec::new();
    for line in String::from_utf8_lossy(&data).lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_client = line.trim_matches(['[', ']']).trim() == "client";
        } else if in_client && !line.starts_with('#') {
            if let Some((k, _)) = line.split_once('=') {
                keys.push(k.trim().to_string());
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_over_the_defaults_with_secrets_apart() {
        let cfg = json!({"landscape": {"client": {
            "computer_title": "kiosk 1", "account_name": "acct", "tags": "a,b",
            "registration_key": "s3cr#t", "http_proxy": "http://u:pw@proxy/", "log_level": "debug"}}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        assert!(d.is_empty());
        let existing = vec!["url".to_string()];
        let (flags, import) = options(&s, &existing);
        assert_eq!(
            flags.join(" "),
            "--account-name acct --computer-title kiosk 1 --data-path /var/lib/landscape/client \
             --log-level debug --ping-url http://landscape.canonical.com/ping --tags a,b"
        );
        assert_eq!(
            import,
            "[client]\nhttp_proxy = http://u:pw@proxy/\nregistration_key = \"\"\"s3cr#t\"\"\"\n"
        );
    }

    #[test]
    fn config_values() {
        assert_eq!(conf_value("abc").as_deref(), Some("abc"));
        assert_eq!(conf_value("a\"b").as_deref(), Some("\"\"\"a\"b\"\"\""));
        assert_eq!(conf_value("x\"\"\"").as_deref(), Some("'''x\"\"\"'''"));
        assert_eq!(conf_value("ends\"").as_deref(), Some("\"\"\"ends\"\"\"\""));
        assert_eq!(conf_value(" pad").as_deref(), Some("\"\"\" pad\"\"\""));
        assert_eq!(conf_value("a\"\"\"b'''"), None);
    }

    /// The import file is read by ConfigObj, which splits lines where Python's `splitlines`
    /// does: a secret holding any of those line ends (or another control character) would
    /// add an option of its own; it is refused by key, and never written.
    #[test]
    fn secrets_with_any_line_end_are_refused() {
        for v in [
            "a\u{2028}url = http://evil/",
            "a\u{85}x",
            "a\x0bx",
            "a\x0cx",
            "a\x1cx",
            "a\rx",
        ] {
            let cfg = json!({"landscape": {"client": {"registration_key": v}}});
            let mut d = Vec::new();
            let s = read(&cfg, &mut d);
            let keys: Vec<_> = d.iter().map(|d| d.key.as_deref().unwrap()).collect();
            assert_eq!(keys, ["landscape.client.registration_key"], "{v:?}");
            assert!(s.is_none_or(|s| !options(&s, &[]).1.contains("evil")));
            assert_eq!(conf_value(v), None, "{v:?}");
        }
    }

    #[test]
    fn reader_checks() {
        let mut d = Vec::new();
        assert!(read(&json!({"landscape": {}}), &mut d).is_none());
        assert!(d.is_empty());
        assert!(read(&json!({"landscape": "x"}), &mut d).is_none());
        let cfg = json!({"landscape": {"client": {"tags": ["a"], "x y": "1", "ok": 5}}});
        assert!(read(&cfg, &mut d).is_none());
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(
            keys,
            ["landscape", "landscape.client.tags", "landscape.client.x y"]
        );
        // The defaults alone when client is not given.
        let s = read(&json!({"landscape": {"client": null}}), &mut Vec::new()).unwrap();
        assert_eq!(options(&s, &[]).0.len(), 8);
    }
}

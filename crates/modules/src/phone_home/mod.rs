//! `phone_home`: POSTs the instance's host public keys, id, hostname and fqdn, form-encoded,
//! to `url` (`$INSTANCE_ID` substituted), with the target's own `curl` (or `wget`) since the
//! runner has no HTTP client; `tries` attempts (default 10) a few seconds apart. A failure is a
//! warning, as in cloud-init. The body goes through a 0600 file, not the command line.
//! `hostname` is the short name of the target's /etc/hostname (or of the `hostname` key) and
//! `fqdn` the `fqdn` key, else that name when it has a domain.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#phone-home>

mod shape;

use super::{ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::retry::{Policy, Retry};
use crate::root::FileSpec;
use serde_json::Value;
use std::time::{Duration, Instant};

pub struct PhoneHome;

/// What `post: all` sends, in cloud-init's order.
pub const ALL: &[&str] = &[
    "pub_key_rsa",
    "pub_key_ecdsa",
    "pub_key_ed25519",
    "instance_id",
    "hostname",
    "fqdn",
];
const BODY: &str = "/var/lib/ember/phone-home.body";
/// A bound on `tries`, so a typo cannot hold the final stage for hours.
const MAX_TRIES: u64 = 30;
/// Pause before attempt n+1: n seconds, at most this (cloud-init waits 3 s between tries).
const MAX_PAUSE_S: u64 = 3;

/// `application/x-www-form-urlencoded`, as Python's urlencode writes it.
pub fn form_encode(fields: &[(String, String)]) -> String {
    let enc = |s: &str| {
        let mut out = String::new();
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                    out.push(b as char)
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
        out
    };
    let pairs: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect();
    pairs.join("&")
}

fn read_text(ctx: &ModCtx, path: &str) -> Option<String> {
    let data = ctx.root.read_file(path, 64 * 1024).ok()??;
    Some(String::from_utf8_lossy(&data).into_owned())
}

/// Every value `post` may ask for; a missing one is absent (sent as `N/A`).
fn values(ctx: &ModCtx, cfg: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (field, kind) in [
        ("pub_key_rsa", "rsa"),
        ("pub_key_ecdsa", "ecdsa"),
        ("pub_key_ed25519", "ed25519"),
    ] {
        // Sent as read, trailing newline included, as cloud-init does.
        if let Some(key) = read_text(ctx, &format!("/etc/ssh/ssh_host_{kind}_key.pub")) {
            out.push((field, key));
        }
    }
    out.push(("instance_id", ctx.handoff.instance_id.clone()));
    let etc = read_text(ctx, "/etc/hostname").map(|s| s.trim().to_string());
    let name = cfg
        .get("hostname")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or(etc)
        .filter(|s| !s.is_empty());
    if let Some(name) = name {
        let fqdn = cfg.get("fqdn").and_then(Value::as_str).map(str::to_string);
        let short = name.split('.').next().unwrap_or(&name).to_string();
        out.push(("fqdn", fqdn.unwrap_or_else(|| name.clone())));
        out.push(("hostname", short));
    }
    out
}

/// `url` with `$INSTANCE_ID`/`${INSTANCE_ID}` replaced by cloud-init's basic renderer, and
/// the other names it met, left as written.
fn with_instance_id(url: &str, id: &str) -> (String, Vec<String>) {
    let lookup = |name: &str| (name == "INSTANCE_ID").then(|| id.to_string());
    crate::template::basic(url, &lookup)
}

/// What `phone_home` asks for: the URL (before `$INSTANCE_ID` is put in), the names to post,
/// and the attempts.
pub struct Settings {
    pub url: String,
    pub post: Vec<String>,
    pub tries: u64,
}

/// The `phone_home` key, or None when it is absent or cannot be used (the diagnostics say
/// why). `tries` may be a number or its digits, as cloud-init's `int()` takes it. The runner
/// and `ember schema` both read it here.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let ph = cfg.get("phone_home")?;
    let bad = |k: &str, m: &str| Diag::error(Reason::WrongType, m).key(format!("phone_home{k}"));
    if !ph.is_object() {
        diags.push(bad("", "expected a mapping"));
        return None;
    }
    // cloud-init skips the module with a warning when there is no url, and a post that
    // fails (a scheme it cannot fetch too) is a warning: neither fails the module.
    let Some(url) = ph.get("url").and_then(Value::as_str) else {
        let d = Diag::warning(Reason::WrongType, "expected a URL: nothing posted");
        diags.push(d.key("phone_home.url"));
        return None;
    };
    if !(url.starts_with("http://") || url.starts_with("https://"))
        || url.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        let msg = "expected an http:// or https:// URL: nothing posted";
        diags.push(Diag::warning(Reason::WrongType, msg).key("phone_home.url"));
        return None;
    }
    let post: Vec<String> = match ph.get("post") {
        None | Some(Value::Null) => ALL.iter().map(|s| s.to_string()).collect(),
        Some(Value::String(s)) if s == "all" => ALL.iter().map(|s| s.to_string()).collect(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(_) => {
            diags.push(bad(".post", "expected all or a list of names"));
            return None;
        }
    };
    let tries = match ph.get("tries") {
        None | Some(Value::Null) => 10,
        Some(v) => match v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        {
            Some(n) if n >= 1 => n.min(MAX_TRIES),
            _ => {
                // cloud-init falls back to 10 with a warning.
                let msg = "expected a positive number; 10 used";
                diags.push(Diag::warning(Reason::WrongType, msg).key("phone_home.tries"));
                10
            }
        },
    };
    Some(Settings {
        url: url.to_string(),
        post,
        tries,
    })
}

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("phone_home", shape::PHONE_HOME)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for PhoneHome {
    fn name(&self) -> &'static str {
        "phone_home"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        let id = &ctx.handoff.instance_id;
        let (url, unknown) = with_instance_id(&settings.url, id);
        if !unknown.is_empty() {
            // As cloud-init, whose render fails on them: not posted. The names are not shown:
            // a `$` may be part of a password or token in the URL.
            let msg = format!(
                "names {} variable(s) other than $INSTANCE_ID (a name runs over letters, \
                 digits, _ and .): not posted",
                unknown.len()
            );
            diags.push(Diag::error(Reason::BadValue, msg).key("phone_home.url"));
            return;
        }
        if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            let msg = "the instance id put in the URL makes it unusable: not posted";
            diags.push(Diag::warning(Reason::BadValue, msg).key("phone_home.url"));
            return;
        }
        let (post, tries) = (settings.post, settings.tries);
        let have = values(ctx, cfg);
        let mut fields = Vec::new();
        for (i, name) in post.iter().enumerate() {
            let v = have.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            if v.is_none() {
                let msg = "value not available; N/A sent";
                let d = Diag::warning(Reason::PhoneHomeValueMissing, msg);
                diags.push(d.key(format!("phone_home.post.{i}")));
            }
            fields.push((name.clone(), v.unwrap_or_else(|| "N/A".into())));
        }
        let spec = FileSpec::mode(0o600);
        if let Err(e) = ctx
            .root
            .write_file(BODY, form_encode(&fields).as_bytes(), &spec)
        {
            diags.push(Diag::error(e.code(), e.to_string()).key("phone_home"));
            return;
        }
        let argv: Vec<String> = if which(ctx.root, "curl").is_some() {
            let ct = "Content-Type: application/x-www-form-urlencoded";
            let data = format!("@{BODY}");
            let opts = [
                "-fsS",
                "--connect-timeout",
                "10",
                "--max-time",
                "30",
                "-o",
                "/dev/null",
            ];
            let tail = ["-H", ct, "--data-binary", &data, &url];
            ["curl"]
                .iter()
                .chain(&opts)
                .chain(&tail)
                .map(|s| s.to_string())
                .collect()
        } else if which(ctx.root, "wget").is_some() {
            let post = format!("--post-file={BODY}");
            let words = ["wget", "-q", "-T", "30", "-O", "/dev/null", &post, &url];
            words.iter().map(|s| s.to_string()).collect()
        } else {
            let msg = "no curl or wget in the target: not posted";
            diags.push(Diag::warning(Reason::PhoneHomeFailed, msg).key("phone_home"));
            return;
        };
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        // cloud-init's pace: 1 s, 2 s, then 3 s apart; the tries end it (each command has its
        // own 30 s timeout), not a deadline.
        let policy = Policy {
            first: Duration::from_secs(1),
            max: Duration::from_secs(MAX_PAUSE_S),
            attempts: Some(tries as u32),
            deadline: Instant::now() + Duration::from_secs(24 * 3600),
        };
        let mut retry = Retry::new(policy);
        let failed = loop {
            let outcome = ctx.exec.run(&argv, &[]);
            if outcome.ok() {
                break None;
            }
            if let Err(stop) = retry.any_failure(format!("{} {}", argv[0], outcome.describe())) {
                break Some(stop);
            }
        };
        let _ = ctx.root.remove_file(BODY);
        if let Some(stop) = failed {
            let msg = format!("not posted: {stop}");
            diags.push(Diag::warning(Reason::PhoneHomeFailed, msg).key("phone_home"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_urlencode() {
        let f = |k: &str, v: &str| (k.to_string(), v.to_string());
        let body = form_encode(&[
            f("pub_key_rsa", "ssh-rsa AAAA+/= x@y\n"),
            f("instance_id", "i-1"),
        ]);
        assert_eq!(
            body,
            "pub_key_rsa=ssh-rsa+AAAA%2B%2F%3D+x%40y%0A&instance_id=i-1"
        );
    }

    #[test]
    fn the_instance_id_goes_in_by_name_not_by_prefix() {
        assert_eq!(
            with_instance_id("http://h/$INSTANCE_ID/${INSTANCE_ID}x", "i-1").0,
            "http://h/i-1/i-1x"
        );
        // The whole name counts: `$INSTANCE_IDX` and `$INSTANCE_ID.json` are other names.
        let (url, unknown) = with_instance_id("http://h/$INSTANCE_IDX/$INSTANCE_ID.json", "i-1");
        assert_eq!(url, "http://h/$INSTANCE_IDX/$INSTANCE_ID.json");
        assert_eq!(unknown, ["INSTANCE_IDX", "INSTANCE_ID.json"]);
    }

    #[test]
    fn the_reader_takes_tries_as_cloud_init_does_and_refuses_other_schemes() {
        let read_one = |v: serde_json::Value| {
            let mut d = Vec::new();
            let got = read(&serde_json::json!({ "phone_home": v }), &mut d).map(|s| s.tries);
            let said: Vec<_> = d.iter().map(|d| (d.severity, d.key.clone())).collect();
            (got, said)
        };
        let url = "http://h/$INSTANCE_ID/";
        assert_eq!(
            read_one(serde_json::json!({"url": url, "tries": "5"})).0,
            Some(5)
        );
        assert_eq!(
            read_one(serde_json::json!({"url": url, "tries": 99})).0,
            Some(MAX_TRIES)
        );
        let (tries, said) = read_one(serde_json::json!({"url": url, "tries": "often"}));
        use crate::error::Severity::{Error, Warning};
        assert_eq!(tries, Some(10));
        assert_eq!(said, [(Warning, Some("phone_home.tries".to_string()))]);
        // cloud-init's post fails on it, with a warning: the module goes on.
        let (got, said) = read_one(serde_json::json!({"url": "ftp://h/"}));
        assert_eq!(got, None);
        assert_eq!(said, [(Warning, Some("phone_home.url".to_string()))]);
        let (got, said) = read_one(serde_json::json!({"post": "all"}));
        assert_eq!(got, None);
        assert_eq!(said, [(Warning, Some("phone_home.url".to_string()))]);
        let (got, said) = read_one(serde_json::json!("http://h/"));
        assert_eq!(got, None);
        assert_eq!(said, [(Error, Some("phone_home".to_string()))]);
    }
}

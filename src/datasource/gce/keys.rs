//! GCE's ssh keys as cloud-init's DataSourceGCE keeps them: the instance's `ssh-keys` and
//! legacy `sshKeys`, the project's unless the instance sets `block-project-ssh-keys: true` or
//! has legacy `sshKeys`; each line `user:key`, kept only for the default user or `cloudinit`;
//! a `google-ssh {"userName":…,"expireOn":"…"}` key dropped once expired. Pure: attributes and
//! the time in, keys out. Not here: the OS Login and guest-agent accounts, which are the
//! guest agent's.
//! <https://cloud.google.com/compute/docs/connect/add-ssh-keys#metadata>

use crate::datasource::PublicKey;
use serde_json::{Map, Value};

/// Where the lines are kept in meta-data, as cloud-init keeps them.
pub const META_KEY: &str = "public-keys-data";

/// The keys of meta-data's `public-keys-data` now, each for the user its line names
/// (`cloudinit` naming the default user, as in cloud-init).
pub fn from_meta_data(md: &Value) -> Vec<PublicKey> {
    let lines: Vec<String> = md
        .get(META_KEY)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().map(str::to_string))
        .collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    parse(&lines, now)
}

/// The `user:key` lines of the instance and project attributes, in cloud-init's order.
pub fn key_lines(instance: &Map<String, Value>, project: &Map<String, Value>) -> Vec<String> {
    let s = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let legacy = s(instance, "sshKeys").filter(|v| !v.is_empty());
    let mut sources = vec![legacy.clone(), s(instance, "ssh-keys")];
    let blocked =
        s(instance, "block-project-ssh-keys").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if !blocked && legacy.is_none() {
        sources.push(s(project, "ssh-keys"));
        sources.push(s(project, "sshKeys"));
    }
    let joined: Vec<String> = sources
        .into_iter()
        .flatten()
        .filter(|v| !v.is_empty())
        .collect();
    joined.join("\n").lines().map(str::to_string).collect()
}

/// The `user:key` lines not expired at `now` (seconds since the epoch) as keys for their user;
/// lines without a user or not ASCII are dropped.
pub fn parse(lines: &[String], now: i64) -> Vec<PublicKey> {
    lines
        .iter()
        .filter(|l| !l.is_empty() && l.is_ascii())
        .filter_map(|l| l.split_once(':'))
        .filter(|(_, key)| !expired(key, now))
        .map(|(user, key)| PublicKey {
            key: key.to_string(),
            user: (user != "cloudinit").then(|| user.to_string()),
        })
        .collect()
}

/// Whether a key in Google's format (`type blob google-ssh {json}`) has an `expireOn` before
/// `now`. Anything else (another comment, bad JSON, another time format) never expires.
pub fn expired(key: &str, now: i64) -> bool {
    let mut fields = key.trim_start().splitn(4, char::is_whitespace);
    let (_, _) = (fields.next(), fields.next());
    let (Some("google-ssh"), Some(json)) = (fields.next(), fields.next()) else {
        return false;
    };
    let Ok(Value::Object(meta)) = serde_json::from_slice::<Value>(json.trim().as_bytes()) else {
        return false;
    };
    let Some(when) = meta.get("expireOn").and_then(Value::as_str) else {
        return false;
    };
    parse_utc(when).is_some_and(|t| now > t)
}

/// `2024-03-01T12:00:00+0000`, the one form cloud-init accepts, as seconds since the epoch.
fn parse_utc(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 24 || &s[19..] != "+0000" || b[10] != b'T' {
        return None;
    }
    let shape = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if !shape.iter().all(|(i, c)| b[*i] == *c) {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = &s[r];
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let day = crate::date::days(y, mo, d)?;
    if h > 23 || mi > 59 || sec > 61 {
        return None;
    }
    Some(day * 86_400 + h * 3600 + mi * 60 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn times_as_cloud_init_reads_them() {
        assert_eq!(parse_utc("1970-01-01T00:00:00+0000"), Some(0));
        assert_eq!(parse_utc("2024-03-01T12:00:00+0000"), Some(1_709_294_400));
        assert_eq!(parse_utc("2000-02-29T00:00:01+0000"), Some(951_782_401));
        for bad in [
            "2024-03-01T12:00:00Z",
            "2023-02-29T00:00:00+0000",
            "2024-3-01T12:00:00+0000",
        ] {
            assert_eq!(parse_utc(bad), None, "{bad}");
        }
    }

    #[test]
    fn expiry_only_in_googles_format() {
        let now = 1_709_294_400; // 2024-03-01T12:00:00
        let past = r#"ssh-ed25519 AAAA google-ssh {"userName":"a@b.c","expireOn":"2024-02-01T00:00:00+0000"}"#;
        let future = r#"ssh-ed25519 AAAA google-ssh {"userName":"a@b.c","expireOn":"2025-02-01T00:00:00+0000"}"#;
        assert!(expired(past, now));
        assert!(!expired(future, now));
        for kept in [
            "ssh-ed25519 AAAA user@host",
            "ssh-ed25519 AAAA google-ssh not-json",
            r#"ssh-ed25519 AAAA google-ssh {"userName":"a"}"#,
            r#"ssh-ed25519 AAAA other {"expireOn":"2024-02-01T00:00:00+0000"}"#,
        ] {
            assert!(!expired(kept, now), "{kept}");
        }
    }

    #[test]
    fn project_keys_unless_blocked_or_legacy() {
        let project = map(json!({"ssh-keys": "admin:P1", "sshKeys": "admin:P2"}));
        let inst = map(json!({"ssh-keys": "admin:I1"}));
        assert_eq!(
            key_lines(&inst, &project),
            ["admin:I1", "admin:P1", "admin:P2"]
        );
        let blocked = map(json!({"ssh-keys": "admin:I1", "block-project-ssh-keys": "TRUE"}));
        assert_eq!(key_lines(&blocked, &project), ["admin:I1"]);
        let legacy = map(json!({"sshKeys": "admin:L1\nadmin:L2", "ssh-keys": "admin:I1"}));
        assert_eq!(
            key_lines(&legacy, &project),
            ["admin:L1", "admin:L2", "admin:I1"]
        );
        let not_blocked = map(json!({"block-project-ssh-keys": "false"}));
        assert_eq!(key_lines(&not_blocked, &project).len(), 2);
    }

    #[test]
    fn keys_name_their_user_and_cloudinit_names_the_default_user() {
        let lines: Vec<String> = [
            "admin:ssh-ed25519 A1 me",
            "cloudinit:ssh-ed25519 C1 ci",
            "bob:ssh-ed25519 B1 bob",
            "no-colon-here",
            "admin:ssh-ed25519 Ä non-ascii",
            "",
        ]
        .map(String::from)
        .to_vec();
        let key = |key: &str, user: Option<&str>| PublicKey {
            key: key.into(),
            user: user.map(String::from),
        };
        assert_eq!(
            parse(&lines, 0),
            [
                key("ssh-ed25519 A1 me", Some("admin")),
                key("ssh-ed25519 C1 ci", None),
                key("ssh-ed25519 B1 bob", Some("bob")),
            ]
        );
    }
}

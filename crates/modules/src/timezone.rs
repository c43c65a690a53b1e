//! `timezone`: `/etc/localtime` linked to the zone's file under /usr/share/zoneinfo, and
//! `/etc/timezone` written on Debian-family targets. The zone must exist in the target; it
//! does not set the hardware clock or call timedatectl.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#timezone>

use super::{ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct Timezone;

const ZONEINFO: &str = "/usr/share/zoneinfo";

/// A zone name as tzdata spells them: `Europe/Berlin`, `Etc/GMT+5`, `UTC`.
fn valid(tz: &str) -> bool {
    !tz.is_empty()
        && tz.len() <= 255
        && tz
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_+-".contains(&b))
        && tz.split('/').all(|c| !c.is_empty())
}

/// Debian and its derivatives keep the zone's name in /etc/timezone too.
fn debian_family(os_release: &str) -> bool {
    os_release.lines().any(|l| {
        let (k, v) = l.split_once('=').unwrap_or(("", ""));
        let v = v.trim_matches('"');
        (k == "ID" && v == "debian") || (k == "ID_LIKE" && v.split(' ').any(|w| w == "debian"))
    })
}

/// The `timezone` key: a zone name, or None when it is absent or unusable (the diagnostic says
/// why). The boot and `ember schema` both read it here.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<String> {
    let tz = cfg.get("timezone")?;
    match tz.as_str() {
        Some(t) if valid(t) => Some(t.to_string()),
        Some(_) => {
            let msg = "not a zone name such as Europe/Berlin";
            diags.push(Diag::error(Reason::BadValue, msg).key("timezone"));
            None
        }
        None => {
            let msg = "must be a string: a zone name such as Europe/Berlin";
            diags.push(Diag::error(Reason::WrongType, msg).key("timezone"));
            None
        }
    }
}

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Timezone {
    fn name(&self) -> &'static str {
        "timezone"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(tz) = read(cfg, diags) else {
            return;
        };
        let zone = format!("{ZONEINFO}/{tz}");
        if !ctx.root.exists(&zone) {
            let msg = format!("zone not found in the target's {ZONEINFO}");
            diags.push(Diag::error(Reason::TimezoneUnknown, msg).key("timezone"));
            return;
        }
        if let Err(e) = ctx.root.symlink(&zone, "/etc/localtime") {
            diags.push(Diag::error(e.code(), e.to_string()).key("timezone"));
        }
        let os = ctx.root.read_file("/etc/os-release", 64 * 1024);
        let os = os.ok().flatten().unwrap_or_default();
        if debian_family(&String::from_utf8_lossy(&os)) {
            let line = format!("{tz}\n");
            let spec = FileSpec::mode(0o644);
            if let Err(e) = ctx.root.write_file("/etc/timezone", line.as_bytes(), &spec) {
                diags.push(Diag::error(e.code(), e.to_string()).key("timezone"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_names() {
        for ok in [
            "UTC",
            "Europe/Berlin",
            "Etc/GMT+5",
            "America/Argentina/Buenos_Aires",
        ] {
            assert!(valid(ok), "{ok}");
        }
        for bad in ["", "../etc/passwd", "/UTC", "Europe//Berlin", "a b", "x/.."] {
            assert!(!valid(bad), "{bad}");
        }
        assert!(debian_family("ID=ubuntu\nID_LIKE=debian\n"));
        assert!(debian_family("ID=\"debian\"\n"));
        assert!(!debian_family("ID=fedora\n"));
    }

    #[test]
    fn the_reader_names_the_key_and_the_mistake() {
        let mut d = Vec::new();
        let cfg = serde_json::json!({"timezone": "Europe/Berlin"});
        assert_eq!(read(&cfg, &mut d).as_deref(), Some("Europe/Berlin"));
        assert_eq!(read(&serde_json::json!({}), &mut d), None);
        assert!(d.is_empty());
        let bad = serde_json::json!({"timezone": "../../etc/shadow"});
        assert_eq!(read(&bad, &mut d), None);
        assert_eq!(read(&serde_json::json!({"timezone": 5}), &mut d), None);
        let got: Vec<(&str, Option<&str>)> = d
            .iter()
            .map(|d| (d.code.as_str(), d.key.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("bad-value", Some("timezone")),
                ("wrong-type", Some("timezone"))
            ]
        );
    }
}

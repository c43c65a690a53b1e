//! What the target is, for the modules that act through its own tools (package manager, NTP
//! client, CA store): its os-release family and whether a program is on its PATH. Read-only:
//! it looks, through `Root` (so absolute symlinks resolve inside the target), and runs nothing.

use crate::error::Diag;
use crate::reason::Reason;
use crate::root::Root;
use serde_json::Value;

/// The distribution families whose files and tools differ for these modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Debian,
    Alpine,
    RedHat,
    Suse,
    Other,
}

/// `ID` and `ID_LIKE` of the target's `/etc/os-release` (or `/usr/lib/os-release`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OsRelease {
    pub id: String,
    pub like: Vec<String>,
}

impl OsRelease {
    pub fn read(root: &Root) -> OsRelease {
        for path in ["/etc/os-release", "/usr/lib/os-release"] {
            if let Ok(Some(data)) = root.read_file(path, 64 * 1024) {
                return OsRelease::parse(&String::from_utf8_lossy(&data));
            }
        }
        OsRelease::default()
    }

    pub fn parse(text: &str) -> OsRelease {
        let mut out = OsRelease::default();
        for line in text.lines() {
            let Some((k, v)) = line.split_once('=') else {
                continue;
            };
            let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
            match k.trim() {
                "ID" => out.id = v.to_ascii_lowercase(),
                "ID_LIKE" => out.like = v.split_whitespace().map(str::to_ascii_lowercase).collect(),
                _ => {}
            }
        }
        out
    }

    /// The family by `ID` first, then by the first `ID_LIKE` entry that names one.
    pub fn family(&self) -> Family {
        std::iter::once(&self.id)
            .chain(&self.like)
            .find_map(|name| match name.as_str() {
                "debian" | "ubuntu" => Some(Family::Debian),
                "alpine" => Some(Family::Alpine),
                "rhel" | "fedora" | "centos" => Some(Family::RedHat),
                "suse" | "opensuse" | "sles" => Some(Family::Suse),
                _ => None,
            })
            .unwrap_or(Family::Other)
    }
}

/// The directories the runner's commands search (exec.rs's PATH), in order.
const PATH_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

/// The target path of `name` on the runner's PATH, or of `name` itself when absolute.
pub fn which(root: &Root, name: &str) -> Option<String> {
    if name.starts_with('/') {
        return root.exists(name).then(|| name.to_string());
    }
    if name.is_empty() || name.contains('/') {
        return None;
    }
    PATH_DIRS
        .iter()
        .map(|d| format!("{d}/{name}"))
        .find(|p| root.exists(p))
}

/// cloud-init's booleans: true/false, or the strings YAML 1.1 and cloud-init read as such.
/// A wrong type is an error naming `key` and counts as false.
pub fn flag(v: Option<&Value>, key: &str, diags: &mut Vec<Diag>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::Null => Some(false),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Some(true),
            "false" | "no" | "off" | "0" => Some(false),
            _ => {
                diags.push(Diag::error(Reason::WrongType, "expected true or false").key(key));
                Some(false)
            }
        },
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected true or false").key(key));
            Some(false)
        }
    }
}

/// A word that goes into a command line or a config file line: no whitespace or control
/// characters (a newline would start a directive of its own), no leading `-` (an option).
pub fn plain_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && !s.starts_with('-')
        && s.chars().all(|c| !c.is_whitespace() && !c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        let cases = [
            ("ID=debian\n", Family::Debian),
            ("ID=ubuntu\nID_LIKE=debian\n", Family::Debian),
            (
                "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n",
                Family::RedHat,
            ),
            ("ID=fedora\n", Family::RedHat),
            ("ID=alpine\n", Family::Alpine),
            (
                "ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n",
                Family::Suse,
            ),
            ("ID=arch\n", Family::Other),
            ("", Family::Other),
        ];
        for (text, want) in cases {
            assert_eq!(OsRelease::parse(text).family(), want, "{text:?}");
        }
    }

    #[test]
    fn flags_and_words() {
        let mut d = Vec::new();
        assert_eq!(flag(Some(&Value::from("Yes")), "k", &mut d), Some(true));
        assert_eq!(flag(Some(&Value::from(false)), "k", &mut d), Some(false));
        assert_eq!(flag(None, "k", &mut d), None);
        assert!(d.is_empty());
        assert_eq!(flag(Some(&Value::from(3)), "a.b", &mut d), Some(false));
        assert_eq!(d[0].key.as_deref(), Some("a.b"));
        assert!(plain_word("0.pool.ntp.org") && plain_word("vim"));
        for bad in ["", "-o", "a b", "a\nserver evil", "x\t"] {
            assert!(!plain_word(bad), "{bad:?}");
        }
    }
}

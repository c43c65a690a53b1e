//! Names: how a caller's path splits into components, how it is shown in messages, the
//! temporary names atomic replacement uses, and the one check of a name from config or
//! metadata that becomes a file name (RELIABILITY rule 14). Pure apart from the random source.

use super::RootError;
use crate::error::Diag;
use crate::reason::Reason;
use rustix::io::Errno;
use std::fmt;

/// Longest `rel` accepted; the kernel's PATH_MAX, which also bounds the work per call.
const MAX_PATH: usize = 4096;

/// Longest name of one directory entry, in bytes: the kernel's NAME_MAX.
pub const NAME_MAX: usize = 255;

/// Why a name from config or metadata cannot become a file name. Says what is wrong, never
/// the name (RELIABILITY rule 3): the caller's diagnostic names the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadName(&'static str);

impl fmt::Display for BadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not usable as a file name: {}; not written", self.0)
    }
}

/// A `bad-value` error; the caller adds the key (`apt.sources.<key>.filename`).
impl From<BadName> for Diag {
    fn from(e: BadName) -> Diag {
        Diag::error(Reason::BadValue, e.to_string())
    }
}

/// RELIABILITY rule 14, the one check of every name from user-data, vendor-data or metadata
/// that becomes a file name: written with `suffix` after it (`.list`, `.repo`; `""` for
/// none), `name` is exactly one path component. Refused: the empty name, `.` and `..`, a `/`,
/// any control character (NUL, a line break, a tab, DEL, the C1 range), and more than
/// [`NAME_MAX`] bytes with the suffix. Anything else is a name, however odd (spaces, `\`,
/// non-ASCII): the root writer still resolves it inside the target.
pub fn one_name(name: &str, suffix: &str) -> Result<(), BadName> {
    let why = if name.is_empty() {
        "it is empty"
    } else if name == "." || name == ".." {
        "it is . or .."
    } else if name.contains('/') {
        "it holds a / (one name is wanted, not a path)"
    } else if name.chars().any(char::is_control) {
        "it holds a control character"
    } else if name.len() + suffix.len() > NAME_MAX {
        "it is longer than 255 bytes"
    } else {
        return Ok(());
    };
    Err(BadName(why))
}

/// For the keys where cloud-init documents an absolute path in place of a name (apt's and
/// rsyslog's `filename`): an absolute `path` whose every component passes [`one_name`] (the
/// last with `suffix`), so no `.`, `..` or empty component, at most 4096 bytes. The root
/// writer resolves it inside the target, as any other write.
pub fn one_path(path: &str, suffix: &str) -> Result<(), BadName> {
    let Some(rest) = path.strip_prefix('/') else {
        return Err(BadName("it is not an absolute path"));
    };
    if path.len() + suffix.len() > MAX_PATH {
        return Err(BadName("it is longer than 4096 bytes"));
    }
    let comps: Vec<&str> = rest.split('/').collect();
    let last = comps.len() - 1;
    for (i, c) in comps.iter().enumerate() {
        one_name(c, if i == last { suffix } else { "" })?;
    }
    Ok(())
}

/// [`one_path`] for a `name` starting with `/`, else [`one_name`].
pub fn name_or_path(name: &str, suffix: &str) -> Result<(), BadName> {
    if name.starts_with('/') {
        one_path(name, suffix)
    } else {
        one_name(name, suffix)
    }
}

/// The path as shown in messages: absolute inside the root, control characters escaped.
pub(super) fn shown(rel: &str) -> String {
    let mut s = String::from("/");
    for c in rel.trim_start_matches('/').chars() {
        if c.is_control() {
            s.extend(c.escape_default());
        } else {
            s.push(c);
        }
    }
    s
}

/// Splits `rel` into components; empty and `.` ones are dropped, `..` kept for the resolver.
pub(super) fn parse<'a>(rel: &'a str, shown: &str) -> Result<Vec<&'a str>, RootError> {
    if rel.contains('\0') {
        return Err(RootError::refused(shown, "path contains a NUL byte"));
    }
    if rel.len() > MAX_PATH {
        return Err(RootError::refused(shown, "path longer than 4096 bytes"));
    }
    Ok(rel
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect())
}

/// The final name and its parent's components; a write must name a file, not `/` or `..`.
pub(super) fn file_name<'c, 'a>(
    comps: &'c [&'a str],
    shown: &str,
) -> Result<(&'a str, &'c [&'a str]), RootError> {
    match comps.split_last() {
        Some((name, parent)) if *name != ".." => Ok((name, parent)),
        _ => Err(RootError::refused(
            shown,
            "path does not end in a file name",
        )),
    }
}

/// Runs `make` with the name `.<name>.ember-tmp`, else fresh names
/// `.<name>.ember-tmp-<random>` until one is not taken. The first name is fixed so that a
/// temp file left by a power cut is found again: it was never renamed into place, so nothing
/// reads it, and `remove` deletes it before the next write of the same file (a cut boot is
/// replayed, so every such file is written again). A second clash is a concurrent writer.
pub(super) fn with_temp_name<T>(
    name: &str,
    mut make: impl FnMut(&str) -> rustix::io::Result<T>,
    remove: impl FnOnce(&str),
) -> rustix::io::Result<(String, T)> {
    // Keep the name short enough that the prefix and suffix still fit in NAME_MAX (255).
    let mut cut = name.len().min(200);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let fixed = format!(".{}.ember-tmp", &name[..cut]);
    match make(&fixed) {
        Err(Errno::EXIST) => {
            remove(&fixed);
            if let Ok(t) = make(&fixed) {
                return Ok((fixed, t));
            }
        }
        other => return other.map(|t| (fixed, t)),
    }
    let mut tries = 0;
    loop {
        let tmp = format!("{fixed}-{:016x}", random_u64());
        match make(&tmp) {
            Err(Errno::EXIST) if tries < 8 => tries += 1,
            other => return other.map(|t| (tmp, t)),
        }
    }
}

/// Random bits for temp names. They need uniqueness, not secrecy (O_EXCL guards the create),
/// so this never blocks waiting for entropy at early boot: GRND_INSECURE (5.6+), else a
/// non-blocking read, else the clock, pid and a counter.
pub(super) fn random_u64() -> u64 {
    use rustix::rand::{getrandom, GetRandomFlags};
    let mut b = [0u8; 8];
    for flags in [GetRandomFlags::INSECURE, GetRandomFlags::NONBLOCK] {
        if getrandom(&mut b, flags) == Ok(8) {
            return u64::from_ne_bytes(b);
        }
    }
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let pid = u64::from(
        rustix::process::getpid()
            .as_raw_nonzero()
            .get()
            .unsigned_abs(),
    );
    (t.tv_nsec as u64)
        ^ ((t.tv_sec as u64) << 30)
        ^ (pid << 40)
        ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_table() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("/etc/hostname", Some(&["etc", "hostname"])),
            ("etc/hostname", Some(&["etc", "hostname"])),
            ("//etc/./x//y/", Some(&["etc", "x", "y"])),
            ("a/../b", Some(&["a", "..", "b"])),
            ("/", Some(&[])),
            ("etc/\0x", None),
        ];
        for (rel, want) in cases {
            assert_eq!(parse(rel, "").ok().as_deref(), *want, "{rel:?}");
        }
        assert!(parse(&"a/".repeat(3000), "").is_err());
    }

    /// Every class of name rule 14 closes, and the odd names that stay names.
    #[test]
    fn one_name_table() {
        let max = "n".repeat(NAME_MAX - 5);
        let over = "n".repeat(NAME_MAX - 4);
        let cases: &[(&str, &str, bool)] = &[
            ("repo", ".list", true),
            ("my repo \\ é;\"'", "", true),
            (".hidden", "", true),
            ("...", "", true),
            (&max, ".list", true),
            (&over, ".list", false),
            (&"é".repeat(128), "", false),
            ("", ".list", false),
            (".", "", false),
            ("..", ".list", false),
            ("../../cron.d/job", "", false),
            ("a/b", "", false),
            ("/abs", "", false),
            ("a\0b", "", false),
            ("a\nb", "", false),
            ("a\rb", "", false),
            ("a\tb", "", false),
            ("a\u{7f}b", "", false),
            ("a\u{85}b", "", false),
        ];
        for (name, suffix, ok) in cases {
            assert_eq!(one_name(name, suffix).is_ok(), *ok, "{name:?}{suffix}");
        }
    }

    #[test]
    fn one_path_table() {
        let cases: &[(&str, bool)] = &[
            ("/etc/apt/sources.list.d/x.list", true),
            ("/x", true),
            ("etc/x", false),
            ("/", false),
            ("/etc//x", false),
            ("/etc/x/", false),
            ("/etc/./x", false),
            ("/etc/../cron.d/x", false),
            ("/etc/a\nb/x", false),
            ("/etc/x\0", false),
        ];
        for (path, ok) in cases {
            assert_eq!(one_path(path, "").is_ok(), *ok, "{path:?}");
        }
        assert!(one_path(&format!("/{}", "a/".repeat(2100)), "").is_err());
        assert!(name_or_path("/etc/x", ".conf").is_ok());
        assert!(name_or_path("../x", ".conf").is_err());
        assert!(name_or_path("/etc/../x", ".conf").is_err());
        let e = one_name("../secret-looking-name", "")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("secret"), "{e}");
    }

    #[test]
    fn file_names() {
        assert_eq!(file_name(&["etc", "x"], "").unwrap(), ("x", &["etc"][..]));
        assert!(file_name(&[], "").is_err());
        assert!(file_name(&["etc", ".."], "").is_err());
    }

    #[test]
    fn shown_escapes_control_characters() {
        assert_eq!(shown("etc/a\nb"), "/etc/a\\nb");
        assert_eq!(shown("//etc/é"), "/etc/é");
    }

    #[test]
    fn temp_names_fit_and_clear_leftovers() {
        let long = "é".repeat(127);
        let (a, ()) = with_temp_name(&long, |_| Ok(()), |_| {}).unwrap();
        assert!(a.len() <= 255 && a.starts_with(".é"), "{a}");
        let (b, ()) = with_temp_name("hostname", |_| Ok(()), |_| {}).unwrap();
        assert_eq!(b, ".hostname.ember-tmp");
        // A leftover of a cut write is removed and its name reused.
        let mut taken = vec![".hostname.ember-tmp".to_string()];
        let removed = std::cell::RefCell::new(Vec::new());
        let make = |t: &str| {
            let clash = removed.borrow().is_empty() && taken.iter().any(|x| x == t);
            if clash {
                Err(Errno::EXIST)
            } else {
                Ok(())
            }
        };
        let (c, ()) = with_temp_name("hostname", make, |s| {
            removed.borrow_mut().push(s.to_string())
        })
        .unwrap();
        assert_eq!(
            (c.as_str(), removed.borrow().len()),
            (".hostname.ember-tmp", 1)
        );
        // Still taken after the removal (a concurrent writer): a random name.
        taken.push(String::new());
        let (d, ()) = with_temp_name(
            "hostname",
            |t| {
                if t == ".hostname.ember-tmp" {
                    Err(Errno::EXIST)
                } else {
                    Ok(())
                }
            },
            |_| {},
        )
        .unwrap();
        assert!(
            d.starts_with(".hostname.ember-tmp-") && d.len() == ".hostname.ember-tmp-".len() + 16
        );
        assert_ne!(random_u64(), random_u64());
    }
}

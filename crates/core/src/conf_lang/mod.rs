//! The one writer per config language ember writes values into (RELIABILITY.md rule 14, "a
//! value stays a value"): each turns a value into that language's text so that the language's
//! own reader gets the value back whole, or refuses it. A refusal says what was wrong, never
//! the value; the caller names the key (`apt.proxy`) and the rest of its module goes on. It
//! knows no module and writes no file.

pub mod apk;
pub mod apt_conf;
pub mod authorized_keys;
pub mod configobj;
pub mod debconf;
pub mod fstab;
pub mod ini;
pub mod resolv;
pub mod ruby;
pub mod shell;
pub mod sudoers;

use std::fmt;

/// Why a value cannot be written in a language (never the value itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused(pub &'static str);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// `v` as the rest of one line, for the languages that take it as it is (debconf's
/// protocols, authorized_keys options): no control character, so no line break.
pub(crate) fn rest_of_line(v: &str) -> Result<&str, Refused> {
    match control(v) {
        Some(r) => Err(r),
        None => Ok(v),
    }
}

/// The first control character's refusal: a line break, a NUL, or another control character.
pub(crate) fn control(v: &str) -> Option<Refused> {
    v.chars().find(|c| c.is_control()).map(|c| match c {
        '\n' | '\r' => Refused("holds a line break"),
        '\0' => Refused("holds a NUL byte"),
        _ => Refused("holds a control character"),
    })
}

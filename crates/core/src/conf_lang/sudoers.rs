//! sudoers(5): one rule a line, which ember writes as `USER RULE`. A line break (`\n`, and
//! `\r`, which sudo's lexer also ends a line at) would let a rule add a rule for another user, a
//! line ending in `\` joins the next line (the next user's rule) to it, and a NUL ends sudo's
//! reading of the line: each is refused (a tab is a blank). The rule itself is sudoers syntax, as cloud-init
//! takes it; `visudo -c` judges it.

use super::{control, Refused};

/// A user's rule, to follow the user's name on its line.
pub fn rule(r: &str) -> Result<&str, Refused> {
    if let Some(why) = control(&r.replace('\t', " ")) {
        return Err(why);
    }
    if r.trim_end().ends_with('\\') {
        return Err(Refused("ends in a backslash, which joins the next line"));
    }
    if r.trim().is_empty() {
        return Err(Refused("is empty"));
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_nuls_and_continuations_are_refused() {
        for r in [
            "ALL=(ALL) ALL\nmallory ALL=(ALL) NOPASSWD:ALL",
            "ALL=(ALL) ALL\rmallory ALL=(ALL) ALL",
            "ALL=(ALL) /bin/ls \\",
            "ALL=(ALL) /bin/ls\\ ",
            "ALL\0=(ALL) ALL",
            " ",
        ] {
            assert!(rule(r).is_err(), "{r:?}");
        }
        for r in [
            "ALL=(ALL) NOPASSWD:ALL",
            "ALL=(root) /bin/ls # a comment",
            "ALL=(ALL) /a\\,b",
            "ALL=(ALL)\tALL",
        ] {
            assert_eq!(rule(r), Ok(r));
        }
    }
}

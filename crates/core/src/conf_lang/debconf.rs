//! debconf's line protocols: `debconf-set-selections` reads `owner question type value`, one
//! a line, and `debconf-communicate` one command a line (`set question value`). The value is
//! the rest of its line, taken as it is: a line break would start another selection or
//! command, so line breaks, NULs and other control characters are refused.

use super::{rest_of_line, Refused};

/// A value, to end its line.
pub fn value(v: &str) -> Result<&str, Refused> {
    rest_of_line(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_controls_are_refused() {
        for v in [
            "/dev/sda\ngrub-pc grub-pc/x string y",
            "a\rb",
            "a\0b",
            "a\tb",
        ] {
            assert!(value(v).is_err(), "{v:?}");
        }
        for v in ["/dev/sda, /dev/sdb", "", "a#b;c $x `y` \\ \"q\""] {
            assert_eq!(value(v), Ok(v));
        }
    }
}

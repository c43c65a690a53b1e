//! sshd's authorized_keys (sshd(8), "AUTHORIZED_KEYS FILE FORMAT"): one key a line, its
//! options before it, comma-separated, an option's value in `"…"`. The options a config gives
//! (`disable_root_opts`) are that syntax as written, so the writer only keeps them to their
//! line: a line break would start a key line of its own (a key for root), and sshd reads no
//! NUL or other control character there. Each of those is refused.

use super::{rest_of_line, Refused};

/// A key's options, to go before it on its line.
pub fn options(v: &str) -> Result<&str, Refused> {
    rest_of_line(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_controls_are_refused() {
        for v in [
            "no-pty\nssh-ed25519 AAAAx a@b",
            "no-pty\rssh-ed25519 AAAAx",
            "a\0b",
            "a\tb",
        ] {
            assert!(options(v).is_err(), "{v:?}");
        }
        let v = r#"no-pty,command="echo 'use \"ann\"';exit 142""#;
        assert_eq!(options(v), Ok(v));
    }
}

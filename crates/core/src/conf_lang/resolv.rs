//! resolv.conf(5) (and the space-separated lists of systemd's resolved.conf): a line is a
//! keyword and words split at blanks, and `#` or `;` starts a comment. A word (a name server,
//! a search domain, a sortlist pair, an option) therefore holds no blank, no line break or
//! other control character, no `#` or `;`, and is not empty; an option's name holds no `:`.

use super::{control, Refused};

/// One word of a line.
pub fn word(v: &str) -> Result<&str, Refused> {
    if let Some(r) = control(v) {
        return Err(r);
    }
    if v.is_empty() {
        return Err(Refused("is empty"));
    }
    if v.contains([' ', '#', ';']) {
        return Err(Refused(
            "holds a blank, # or ;, which end a word of resolv.conf",
        ));
    }
    Ok(v)
}

/// An option's `name:value` (a value-less option is a flag, `name` alone).
pub fn option(name: &str, value: &str) -> Result<String, Refused> {
    word(name)?;
    if name.contains(':') {
        return Err(Refused("an option's name holds a :"));
    }
    Ok(format!("{name}:{}", word(value)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_comments_and_line_breaks_are_refused() {
        for v in [
            "1.1.1.1\nnameserver 6.6.6.6",
            "a\rb",
            "a b",
            "a\tb",
            "a#b",
            "a;b",
            "",
            "a\0b",
        ] {
            assert!(word(v).is_err(), "{v:?}");
        }
        for v in [
            "192.0.2.1",
            "2001:db8::1",
            "example.com",
            "130.155.160.0/255.255.240.0",
        ] {
            assert_eq!(word(v), Ok(v));
        }
        assert_eq!(option("ndots", "2").unwrap(), "ndots:2");
        assert!(option("a:b", "2").is_err() && option("ndots", "2\noptions x").is_err());
    }
}

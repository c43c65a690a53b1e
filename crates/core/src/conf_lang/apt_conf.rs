//! apt.conf (apt.conf(5), what `apt-config dump` reads): a value is a `"…"` string. apt's
//! reader knows no escape inside one: a `"` ends it, and a line break lets the next line be a
//! directive of its own (`APT::Update::Pre-Invoke` runs a command as root). So a value holding
//! a `"` or any control character (line breaks, NUL, tab) is refused; everything else (`;`,
//! `{`, `}`, `#`, `//`, `\`, `$`, `%`) is plain text inside the quotes.

use super::{control, Refused};

/// `value` as an apt.conf quoted string, quotes included.
pub fn quoted(value: &str) -> Result<String, Refused> {
    if let Some(r) = control(value) {
        return Err(r);
    }
    if value.contains('"') {
        return Err(Refused("holds a double quote, which apt.conf cannot quote"));
    }
    Ok(format!("\"{value}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_line_breaks_and_controls_are_refused_the_rest_kept_whole() {
        let refused = [
            ("a\";\nAPT::Update::Pre-Invoke {\"id\";};//", "line break"),
            ("a\"b", "double quote"),
            ("a\rAPT::X \"1\";", "line break"),
            ("a\nb", "line break"),
            ("a\0b", "NUL"),
            ("a\tb", "control"),
            ("a\u{1b}b", "control"),
        ];
        for (v, why) in refused {
            let r = quoted(v).unwrap_err();
            assert!(r.0.contains(why), "{v:?}: {r}");
            assert!(!r.0.contains(v), "the refusal shows the value");
        }
        for v in ["http://p:3128", "a#b;c{d}e//f\\g$h`i%41j[k]l m", "", "x;}"] {
            assert_eq!(quoted(v).unwrap(), format!("\"{v}\""));
        }
    }
}

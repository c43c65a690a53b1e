//! Making outside text fit for a message: URLs without the parts that may hold secrets (user
//! info, query, fragment), and any text printable and bounded, since URLs, error reasons and
//! header values are user- or server-controlled.

/// Longest URL or reason shown in a message, in characters.
const SHOWN_MAX: usize = 200;

/// Printable ASCII only (controls, escapes and non-ASCII such as bidi overrides become `_`),
/// cut to `SHOWN_MAX` characters with `...` marking the cut.
pub fn printable(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(SHOWN_MAX)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if text.chars().nth(SHOWN_MAX).is_some() {
        out.push_str("...");
    }
    out
}

/// A URL fit for a message: no query, fragment or user info; printable and bounded.
pub fn redact_url(url: &str) -> String {
    printable(&strip_secrets(url))
}

fn strip_secrets(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..cut];
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(host_end);
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => url.to_string(),
    }
}

/// An error reason fit for a message: every URL it quotes (the one asked for, a redirect
/// target) redacted, the rest printable and bounded (it may quote a server's words).
pub fn reason(text: &str) -> String {
    let words: Vec<String> = text
        .split(' ')
        .map(|w| {
            if w.contains("://") {
                strip_secrets(w)
            } else {
                w.to_string()
            }
        })
        .collect();
    printable(&words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_queries() {
        let cases = [
            ("http://u:p@10.0.0.1/seed/?token=x", "http://10.0.0.1/seed/"),
            ("https://h/a#frag", "https://h/a"),
            ("file:///var/seed/", "file:///var/seed/"),
            ("/plain/path", "/plain/path"),
            ("http://user@h", "http://h"),
            ("http://h/\u{202e}x\n", "http://h/_x_"),
        ];
        for (url, want) in cases {
            assert_eq!(redact_url(url), want);
        }
        assert!(redact_url(&format!("http://h/{}", "a".repeat(500))).ends_with("..."));
    }

    #[test]
    fn reasons_redact_every_url_they_quote() {
        let r = reason("redirect to https://u:pw@evil/x?k=SECRET failed");
        assert_eq!(r, "redirect to https://evil/x failed");
    }
}

//! Making outside text fit for a message: URLs without the parts that may hold secrets (user
//! info, query, fragment), and any text printable and bounded, since URLs, error reasons and
//! header values are user- or server-controlled.

/// Longest URL or reason shown in a message, in characters.
const SHOWN_MAX: usize = 200;

/// Printable ASCII only (controls, escapes and non-ASCII such as bidi overrides become `_`),
/// cut to `SHOWN_MAX` characters with `...` marking the cut.
pub fn printable(text: &str) -> String {
    printable_up_to(text, SHOWN_MAX)
}

/// `printable`, cut at `max` characters.
pub fn printable_up_to(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if text.chars().nth(max).is_some() {
        out.push_str("...");
    }
    out
}

/// A URL fit for a message: no query, fragment or user info; printable and bounded.
pub fn redact_url(url: &str) -> String {
    printable(&strip_secrets(url))
}

/// The user info goes first, before any cut at `?` or `#`: people type passwords with those
/// unencoded (`http://u:pa?ss#w@h/`), and cutting first would leave `http://u:pa`.
fn strip_secrets(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return cut_query(url).to_string();
    };
    let rest = userinfo_end(rest).map_or(rest, |at| &rest[at + 1..]);
    format!("{scheme}://{}", cut_query(rest))
}

/// Where the user info of an authority-and-path `rest` ends (its last `@`): the last `@`
/// before the first `/`; or, when the text before that `/` is not `host[:port]` (a password
/// holding `/`), the last `@` anywhere.
fn userinfo_end(rest: &str) -> Option<usize> {
    let slash = rest.find('/').unwrap_or(rest.len());
    if let Some(at) = rest[..slash].rfind('@') {
        return Some(at);
    }
    if is_host_port(cut_query(&rest[..slash])) {
        None
    } else {
        rest.rfind('@')
    }
}

/// `host`, `host:port` or `[v6]:port`: a port, when given, is all digits.
fn is_host_port(authority: &str) -> bool {
    let after_v6 = authority
        .rfind(']')
        .map_or(authority, |i| &authority[i + 1..]);
    match after_v6.rsplit_once(':') {
        Some((_, port)) => port.bytes().all(|b| b.is_ascii_digit()),
        None => true,
    }
}

fn cut_query(url: &str) -> &str {
    &url[..url.find(['?', '#']).unwrap_or(url.len())]
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
            ("http://user:pa?ss#word@h/x?y", "http://h/x"),
            ("http://user:pa#ss@h:8080/x", "http://h:8080/x"),
            ("http://user:pa/ss?w@h/x", "http://h/x"),
            ("http://h/a/b@c?q=d@e", "http://h/a/b@c"),
            ("http://[fe80::1]:80/x?u@v", "http://[fe80::1]:80/x"),
            ("http://h:8080/p@x", "http://h:8080/p@x"),
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

//! A small MIME reader for user-data: header blocks with continuation lines, parameters
//! (RFC 2231's single `name*=charset'lang'value` form too, which `encode_param` writes),
//! multipart bodies split on their boundary, and transfer decodings. Not a mail library: no
//! RFC 2047 encoded words, no RFC 2231 continuations, no charsets (payloads stay bytes).

use base64::engine::general_purpose::{GeneralPurpose, NO_PAD_INDIFFERENT};
use base64::Engine as _;

/// One MIME entity: its headers (names lower-cased, values unfolded) and its raw body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entity<'a> {
    pub headers: Vec<(String, String)>,
    pub body: &'a [u8],
}

impl Entity<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `type/subtype`, lower-cased; `text/plain` when absent or malformed, as in RFC 2045.
    pub fn content_type(&self) -> String {
        let value = self.header("content-type").unwrap_or("");
        let t = value
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if t.contains('/') {
            t
        } else {
            "text/plain".to_string()
        }
    }

    /// Content-Disposition `filename`, else Content-Type `name`, like Python's `get_filename`;
    /// the RFC 2231 form (`filename*=utf-8''a%22b`) first, decoded.
    pub fn filename(&self) -> Option<String> {
        let from = |h: &str, p: &str| {
            let v = self.header(h)?;
            param(v, &format!("{p}*"))
                .and_then(|x| decode_2231(&x))
                .or_else(|| param(v, p))
        };
        from("content-disposition", "filename").or_else(|| from("content-type", "name"))
    }

    /// The body with its Content-Transfer-Encoding undone.
    pub fn decoded_body(&self) -> Result<Vec<u8>, &'static str> {
        let cte = self.header("content-transfer-encoding").unwrap_or("");
        match cte.trim().to_ascii_lowercase().as_str() {
            "base64" => decode_base64(self.body),
            "quoted-printable" => Ok(decode_qp(self.body)),
            // 7bit, 8bit, binary and unknown encodings: the bytes as they are.
            _ => Ok(self.body.to_vec()),
        }
    }
}

/// Lines with their terminator: (line without terminator, offset after the terminator).
fn lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8], usize)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= data.len() {
            return None;
        }
        let start = pos;
        let end = data[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(data.len(), |i| start + i);
        pos = (end + 1).min(data.len());
        let line = &data[start..end];
        Some((start, line.strip_suffix(b"\r").unwrap_or(line), pos))
    })
}

/// A header line's name, if the line is `Name: value` with an RFC 5322 field name.
fn header_name(line: &[u8]) -> Option<&[u8]> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = &line[..colon];
    let ok = !name.is_empty() && name.iter().all(|&b| b.is_ascii_graphic() && b != b':');
    ok.then_some(name)
}

/// Splits headers from body. Parsing stops at the blank line, or (like Python's parser) at
/// the first line that is neither a header nor a continuation, which then starts the body.
pub fn parse_entity(data: &[u8]) -> Entity<'_> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for (start, line, next) in lines(data) {
        if line.is_empty() {
            return Entity {
                headers,
                body: &data[next..],
            };
        }
        if matches!(line[0], b' ' | b'\t') && !headers.is_empty() {
            if let Some((_, v)) = headers.last_mut() {
                v.push(' ');
                v.push_str(String::from_utf8_lossy(line).trim());
            }
            continue;
        }
        let Some(name) = header_name(line) else {
            return Entity {
                headers,
                body: &data[start..],
            };
        };
        let value = String::from_utf8_lossy(&line[name.len() + 1..])
            .trim()
            .to_string();
        headers.push((String::from_utf8_lossy(name).to_ascii_lowercase(), value));
    }
    Entity {
        headers,
        body: &data[data.len()..],
    }
}

/// Whether data is a MIME message rather than a bare payload: it must open with a header
/// block that names `MIME-Version` or `Content-Type`. (cloud-init looks for `mime-version:`
/// anywhere in the first 4 KiB, which also catches scripts that merely mention it.)
pub fn looks_like_mime(data: &[u8]) -> bool {
    let head = &data[..data.len().min(4096)];
    let Some((_, first, _)) = lines(head).next() else {
        return false;
    };
    if header_name(first).is_none() {
        return false;
    }
    parse_entity(head)
        .headers
        .iter()
        .any(|(n, _)| n == "mime-version" || n == "content-type")
}

/// A parameter of a structured header value (`boundary`, `filename`, `name`), unquoted.
pub fn param(value: &str, wanted: &str) -> Option<String> {
    let mut rest = value.split_once(';')?.1;
    loop {
        let (name, after) = rest.split_once('=')?;
        let after = after.trim_start();
        let (val, tail) = if let Some(q) = after.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = q.char_indices();
            let mut end = q.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => out.extend(chars.next().map(|(_, c)| c)),
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => out.push(c),
                }
            }
            let tail = q[end..].split_once(';').map_or("", |(_, t)| t);
            (out, tail)
        } else {
            let (v, t) = after.split_once(';').unwrap_or((after, ""));
            (v.trim().to_string(), t)
        };
        if name.trim().eq_ignore_ascii_case(wanted) {
            return Some(val);
        }
        rest = tail;
    }
}

/// An RFC 2231 extended value, `charset'language'percent-encoded`, decoded (as UTF-8 whatever
/// the charset: user-data names are UTF-8 or ASCII). `None` when it lacks its two quotes.
fn decode_2231(v: &str) -> Option<String> {
    let mut it = v.splitn(3, '\'');
    let (_charset, _lang, text) = (it.next()?, it.next()?, it.next()?);
    Some(crate::percent::decode(text))
}

pub use ember_core::mime::encode_param;

/// The bodies of a multipart entity's parts. The line break before a boundary belongs to
/// the boundary; preamble and epilogue are dropped; a missing close ends at end of data.
pub fn split_multipart<'a>(body: &'a [u8], boundary: &str) -> Vec<&'a [u8]> {
    let delim = format!("--{boundary}");
    let mut parts = Vec::new();
    let mut current: Option<usize> = None;
    for (start, line, next) in lines(body) {
        let Some(rest) = line.strip_prefix(delim.as_bytes()) else {
            continue;
        };
        let (close, rest) = match rest.strip_prefix(b"--") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        if !rest.iter().all(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        if let Some(from) = current.take() {
            let mut end = start;
            if end > from && body[end - 1] == b'\n' {
                end -= 1;
                if end > from && body[end - 1] == b'\r' {
                    end -= 1;
                }
            }
            parts.push(&body[from..end.max(from)]);
        }
        if close {
            return parts;
        }
        current = Some(next);
    }
    if let Some(from) = current {
        parts.push(&body[from..]);
    }
    parts
}

/// Base64 as mail readers do it: characters outside the alphabet (line breaks) are skipped.
fn decode_base64(body: &[u8]) -> Result<Vec<u8>, &'static str> {
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        NO_PAD_INDIFFERENT.with_decode_allow_trailing_bits(true),
    );
    let clean: Vec<u8> = body
        .iter()
        .copied()
        .take_while(|&b| b != b'=')
        .filter(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
        .collect();
    LENIENT.decode(clean).map_err(|_| "invalid base64")
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Quoted-printable: `=XX` escapes and `=` soft line breaks; a malformed `=` stays literal.
fn decode_qp(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'=' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        let rest = &body[i + 1..];
        let ws = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if rest[ws..].starts_with(b"\r\n") {
            i += 1 + ws + 2;
        } else if rest[ws..].starts_with(b"\n") {
            i += 1 + ws + 1;
        } else if let (Some(h), Some(l)) = (
            rest.first().copied().and_then(hex),
            rest.get(1).copied().and_then(hex),
        ) {
            out.push(h << 4 | l);
            i += 3;
        } else {
            out.push(b'=');
            i += 1;
        }
    }
    out
}

#[cfg(test)]
#[path = "mime_tests.rs"]
mod tests;

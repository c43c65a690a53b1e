//! Where a YAML text's first invalid UTF-8 byte lies, told as its reader would want it: the
//! line, whether the byte is in a mapping key or a value, and the key path above it as far
//! as the block structure before it tells (indentation, `- ` items counted, block scalars
//! skipped). The text cannot be parsed, so this reads only its shape, never shows the bytes,
//! and costs one pass over what comes before the byte. Not here: flow collections (`{a: b}`)
//! are not walked into; their line is still named.

/// Where invalid UTF-8 was found.
#[derive(Debug, PartialEq)]
pub struct Utf8Place {
    /// 1-based.
    pub line: u32,
    /// The key path (`write_files.0.owner`): of the mapping that holds a broken key, or of a
    /// key whose value is broken; `None` when the structure does not tell.
    pub key: Option<String>,
    /// The byte is in a mapping key (before the key's `:`).
    pub in_key: bool,
}

impl Utf8Place {
    /// The diagnostic's message for the byte at `at`.
    pub fn message(&self, at: usize) -> String {
        let line = self.line;
        match (self.in_key, &self.key) {
            (true, _) => format!("invalid UTF-8 in a mapping key (line {line}, byte {at})"),
            (false, Some(_)) => format!("invalid UTF-8 in the value (line {line}, byte {at})"),
            (false, None) => format!("invalid UTF-8 (line {line}, byte {at})"),
        }
    }
}

/// The `not-utf8` diagnostic for `data`, whose first invalid byte is at `at`: the line, the
/// key path as far as known, and whether a key or a value is broken (the caller adds the
/// file and what was left out).
pub fn diag(data: &[u8], at: usize, left_out: &str) -> crate::error::Diag {
    let place = locate(data, at);
    let msg = format!("{}{left_out}", place.message(at));
    let d = crate::error::Diag::error(crate::reason::Reason::NotUtf8, msg).line(Some(place.line));
    match place.key {
        Some(key) => d.key(key),
        None => d,
    }
}

enum Frame {
    Key(String),
    Item(usize),
}

/// A block key at the start of `content` (`name:` followed by a blank or the end), and what
/// follows it.
fn key_of(content: &[u8]) -> Option<(&[u8], &[u8])> {
    if matches!(
        content.first(),
        Some(b'{' | b'[' | b'"' | b'\'' | b'#' | b'&' | b'*' | b'!')
    ) {
        return None;
    }
    let colon = content
        .windows(2)
        .position(|w| w[0] == b':' && (w[1] == b' ' || w[1] == b'\t'))
        .or_else(|| (content.last() == Some(&b':')).then(|| content.len() - 1))?;
    Some((&content[..colon], &content[colon + 1..]))
}

/// `|`, `>`, with their indicators: the lines below belong to the scalar.
fn starts_block_scalar(rest: &[u8]) -> bool {
    let rest = rest.trim_ascii();
    let rest = rest
        .split(|b| *b == b'#')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    matches!(rest.first(), Some(b'|' | b'>'))
        && rest[1..]
            .iter()
            .all(|b| matches!(b, b'+' | b'-' | b'0'..=b'9'))
}

/// Where the byte at `at` (the first invalid one: what precedes it is valid) lies in `data`.
pub fn locate(data: &[u8], at: usize) -> Utf8Place {
    let at = at.min(data.len());
    let line_start = data[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let line = data[..line_start].iter().filter(|b| **b == b'\n').count() as u32 + 1;
    let mut stack: Vec<(usize, Frame)> = Vec::new();
    // Lines indented more than this belong to a block scalar.
    let mut scalar: Option<usize> = None;
    let line_end = data[at..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(data.len(), |p| at + p);
    let mut in_key = false;
    let mut own_key = None;
    for (start, text) in lines(&data[..line_end]) {
        let bad = start == line_start;
        let indent = text.iter().take_while(|b| **b == b' ').count();
        let body = &text[indent..];
        let blank = body.trim_ascii().is_empty() || body.starts_with(b"#");
        if let Some(s) = scalar {
            if blank || indent > s {
                if bad {
                    return Utf8Place {
                        line,
                        key: path(&stack),
                        in_key: false,
                    };
                }
                continue;
            }
            scalar = None;
        }
        if blank && !bad {
            continue;
        }
        let (mut indent, mut content) = (indent, body);
        while stack.last().is_some_and(|(i, _)| *i > indent) {
            stack.pop();
        }
        while content.starts_with(b"- ") || content == b"-" {
            let next = match stack.last() {
                Some((i, Frame::Item(n))) if *i == indent => n + 1,
                _ => 0,
            };
            if matches!(stack.last(), Some((i, Frame::Item(_))) if *i == indent) {
                stack.pop();
            }
            stack.push((indent, Frame::Item(next)));
            let skip = 1 + content[1..].iter().take_while(|b| **b == b' ').count();
            indent += skip;
            content = &content[skip.min(content.len())..];
        }
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        match key_of(content) {
            Some((key, rest)) => {
                if bad {
                    let bad_at = (at - start).saturating_sub(text.len() - content.len());
                    in_key = bad_at < key.len();
                    if !in_key {
                        own_key = std::str::from_utf8(key).ok().map(|k| k.trim().to_string());
                    }
                    break;
                }
                let name = String::from_utf8_lossy(key).trim().to_string();
                if starts_block_scalar(rest) {
                    scalar = Some(indent);
                }
                stack.push((indent, Frame::Key(name)));
            }
            None if bad => break,
            None => {}
        }
    }
    let mut key = path(&stack);
    if let Some(own) = own_key {
        key = Some(match key {
            Some(k) => format!("{k}.{own}"),
            None => own,
        });
    }
    Utf8Place { line, key, in_key }
}

/// Each line with the offset it starts at.
fn lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    data.split(|b| *b == b'\n').map(move |l| {
        let s = start;
        start += l.len() + 1;
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        (s, l)
    })
}

fn path(stack: &[(usize, Frame)]) -> Option<String> {
    let parts: Vec<String> = stack
        .iter()
        .map(|(_, f)| match f {
            Frame::Key(k) => k.clone(),
            Frame::Item(n) => n.to_string(),
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(data: &[u8]) -> Utf8Place {
        locate(data, std::str::from_utf8(data).unwrap_err().valid_up_to())
    }

    #[test]
    fn keys_values_lists_and_block_scalars() {
        let cases: [(&[u8], u32, Option<&str>, bool); 7] = [
            (b"a\xff: 1\n", 1, None, true),
            (b"a: \xff\n", 1, Some("a"), false),
            (b"a:\n  b:\n    c\xff: 1\n", 3, Some("a.b"), true),
            (b"l:\n- x\n- y: 1\n  z\xff: 2\n", 4, Some("l.1"), true),
            (b"l:\n  - - q\n    - r: \xff\n", 3, Some("l.0.1.r"), false),
            (b"s: |\n  k: v\n  w\xff: 1\nt: 1\n", 3, Some("s"), false),
            (b"{\"a\": \"\xff\"}\n", 1, None, false),
        ];
        for (data, line, key, in_key) in cases {
            let want = Utf8Place {
                line,
                key: key.map(String::from),
                in_key,
            };
            assert_eq!(at(data), want, "{}", String::from_utf8_lossy(data));
        }
    }

    #[test]
    fn any_offset_of_any_shape_is_answered() {
        let shapes: [&[u8]; 4] = [
            b"a:\n  - - b: |\n      c\n  - d:\r\n- \n-\n:\n  x: y\n",
            b"- - - -",
            b"\n\n  #c\n k: [1, {a: b}]\n",
            b"",
        ];
        for data in shapes {
            for at in 0..=data.len() + 1 {
                let place = locate(data, at);
                assert!(place.line >= 1);
            }
        }
    }
}

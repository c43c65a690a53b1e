//! Percent-decoding (`%41` → `A`), the one decoder for URLs and the kernel command line's
//! `cc:` blocks. An escape that is not two hex digits is kept as it is, as browsers and
//! cloud-init's `unquote` do.

pub fn decode(text: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let (bytes, mut out, mut i) = (text.as_bytes(), Vec::with_capacity(text.len()), 0);
    while i < bytes.len() {
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|&b| hex(b)),
            bytes.get(i + 2).and_then(|&b| hex(b)),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(hi << 4 | lo);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_and_invalid_ones() {
        let cases = [
            ("a%20b", "a b"),
            ("%41%4a%4A", "AJJ"),
            ("100%", "100%"),
            ("%4", "%4"),
            ("%zz%", "%zz%"),
            ("%C3%A9", "é"),
            ("%FF", "\u{FFFD}"),
        ];
        for (input, want) in cases {
            assert_eq!(super::decode(input), want, "{input}");
        }
    }
}

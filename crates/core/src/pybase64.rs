//! Base64 decoded as Python's `base64.b64decode` does by default (`binascii.a2b_base64` without
//! `strict_mode`), which is what cloud-init calls for write_files' `b64` content and PyYAML for
//! `!!binary`: bytes outside the alphabet are dropped, a complete padding ends the data, and
//! only a wrong length or padding is an error. Not here: the strict mode, alternative alphabets.

/// The decoded bytes, and how many input bytes outside the alphabet were dropped (a caller
/// that wants to say so warns; cloud-init is silent).
#[derive(Debug, PartialEq, Eq)]
pub struct Decoded {
    pub bytes: Vec<u8>,
    pub dropped: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// Python refuses a `str` with non-ASCII characters before decoding.
    NotAscii,
    /// One data character more than a multiple of four: no input encodes to that.
    OneExtraCharacter,
    /// The last group is short and has no (or too little) padding.
    IncorrectPadding,
}

impl Base64Error {
    /// Python's wording, without the input.
    pub fn message(self) -> &'static str {
        match self {
            Base64Error::NotAscii => "base64 text has non-ASCII characters",
            Base64Error::OneExtraCharacter => {
                "invalid base64: the number of data characters is 1 more than a multiple of 4"
            }
            Base64Error::IncorrectPadding => "invalid base64: incorrect padding",
        }
    }
}

fn sextet(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

pub fn b64decode(text: &[u8]) -> Result<Decoded, Base64Error> {
    if !text.is_ascii() {
        return Err(Base64Error::NotAscii);
    }
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut quad_pos, mut pads, mut dropped) = (0u32, 0u32, 0usize);
    let mut left = 0u8;
    for &byte in text {
        if byte == b'=' {
            // A pad completes the group only after two data characters; elsewhere it is
            // skipped. A completed group ends the data: whatever follows is ignored.
            pads += 1;
            if quad_pos >= 2 && quad_pos + pads >= 4 {
                return Ok(Decoded { bytes, dropped });
            }
            continue;
        }
        let Some(v) = sextet(byte) else {
            // Line breaks are what YAML and MIME leave; not worth a word.
            dropped += usize::from(!byte.is_ascii_whitespace());
            continue;
        };
        pads = 0;
        match quad_pos {
            0 => left = v,
            1 => {
                bytes.push((left << 2) | (v >> 4));
                left = v & 0x0f;
            }
            2 => {
                bytes.push((left << 4) | (v >> 2));
                left = v & 0x03;
            }
            _ => bytes.push((left << 6) | v),
        }
        quad_pos = (quad_pos + 1) % 4;
    }
    match quad_pos {
        0 => Ok(Decoded { bytes, dropped }),
        1 => Err(Base64Error::OneExtraCharacter),
        _ => Err(Base64Error::IncorrectPadding),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> (Vec<u8>, usize) {
        let d = b64decode(text.as_bytes()).unwrap();
        (d.bytes, d.dropped)
    }

    /// Each case checked against CPython 3.11's `base64.b64decode`.
    #[test]
    fn as_python_decodes() {
        assert_eq!(ok("aGVsbG8="), (b"hello".to_vec(), 0));
        assert_eq!(ok("aGVs\nbG8=\n"), (b"hello".to_vec(), 0));
        // Outside the alphabet: dropped (cloud-init's documented example ends in `...`).
        assert_eq!(ok("aGVs...bG8="), (b"hello".to_vec(), 3));
        assert_eq!(ok("aGVsbG8h..."), (b"hello!".to_vec(), 3));
        assert_eq!(ok("a-G_V*s"), (b"hel".to_vec(), 3));
        // A complete padding ends the data.
        assert_eq!(ok("aGk=IGNsb3VkLWluaXQ="), (b"hi".to_vec(), 0));
        assert_eq!(ok("aA==trailing"), (b"h".to_vec(), 0));
        // Stray pads before a group is half full are skipped.
        assert_eq!(ok("=aGk=="), (b"hi".to_vec(), 0));
        assert_eq!(ok("a=Gk="), (b"hi".to_vec(), 0));
        // Extra padding after a complete group is ignored.
        assert_eq!(ok("aGVsbG8h===="), (b"hello!".to_vec(), 0));
        assert_eq!(ok(""), (Vec::new(), 0));
        assert_eq!(ok("..."), (Vec::new(), 3));
    }

    #[test]
    fn as_python_refuses() {
        let err = |t: &str| b64decode(t.as_bytes()).unwrap_err();
        assert_eq!(err("aGVsbG8"), Base64Error::IncorrectPadding);
        assert_eq!(err("aGk"), Base64Error::IncorrectPadding);
        assert_eq!(err("aGVsb"), Base64Error::OneExtraCharacter);
        assert_eq!(err("a==="), Base64Error::OneExtraCharacter);
        assert_eq!(err("aGVsbG8é="), Base64Error::NotAscii);
    }
}

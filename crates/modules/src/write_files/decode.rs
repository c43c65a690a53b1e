//! `write_files` `encoding`: cloud-init's names for base64 and gzip content, decoded with the
//! inflated size capped. Errors say what was wrong, never the content (it may be a secret).

use crate::gzip::{self, is_gzip};
use crate::pybase64::{self, Base64Error};
use crate::reason::Reason;
use std::borrow::Cow;

/// How `content` is encoded; cloud-init's `text/plain` is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Plain,
    Base64,
    Gzip,
    GzipBase64,
}

impl Encoding {
    /// cloud-init's names, case-insensitive. `Err(())` for a name cloud-init does not know:
    /// it warns and takes the content as text/plain, and so does the caller.
    #[allow(clippy::result_unit_err)]
    pub fn parse(name: &str) -> Result<Encoding, ()> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "text/plain" => Ok(Encoding::Plain),
            "b64" | "base64" => Ok(Encoding::Base64),
            "gz" | "gzip" => Ok(Encoding::Gzip),
            "gz+b64" | "gz+base64" | "gzip+b64" | "gzip+base64" => Ok(Encoding::GzipBase64),
            _ => Err(()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    Base64(Base64Error),
    GzipCorrupt,
    /// Inflated past the `inflated_bytes` budget.
    TooLarge,
}

impl DecodeError {
    pub fn code(self) -> Reason {
        match self {
            DecodeError::Base64(_) => Reason::Base64Invalid,
            DecodeError::GzipCorrupt => Reason::GzipCorrupt,
            DecodeError::TooLarge => Reason::BudgetExceeded,
        }
    }
    pub fn message(self) -> &'static str {
        match self {
            DecodeError::Base64(e) => e.message(),
            DecodeError::GzipCorrupt => "content is not valid gzip",
            DecodeError::TooLarge => "content inflates past its budget",
        }
    }
}

/// As cloud-init's `b64decode`: bytes outside the alphabet dropped (counted in `dropped`).
fn base64(text: &[u8], dropped: &mut usize) -> Result<Vec<u8>, DecodeError> {
    let decoded = pybase64::b64decode(text).map_err(DecodeError::Base64)?;
    *dropped += decoded.dropped;
    Ok(decoded.bytes)
}

/// Decodes `content` (a YAML string) as `encoding` says, inflating at most `cap` bytes.
/// Plain content is borrowed, not copied. `dropped` counts the characters outside the base64
/// alphabet that were skipped, as Python skips them.
pub fn decode<'c>(
    content: &'c str,
    encoding: Encoding,
    cap: u64,
    dropped: &mut usize,
) -> Result<Cow<'c, [u8]>, DecodeError> {
    // `content: !!binary` that is not UTF-8 arrives in the YAML reader's form for bytes:
    // cloud-init has the bytes themselves, and so has every encoding here.
    let binary = crate::yaml_doc::binary_bytes(content);
    let raw = binary.as_deref().unwrap_or(content.as_bytes());
    let decoded = match encoding {
        Encoding::Plain if binary.is_some() => Ok(raw.to_vec()),
        Encoding::Plain => return Ok(Cow::Borrowed(content.as_bytes())),
        Encoding::Base64 => base64(raw, dropped),
        Encoding::GzipBase64 => inflate(&base64(raw, dropped)?, cap),
        // cloud-init documents `encoding: gzip` with `content: !!binary ...`; plain base64
        // text of the gzip is taken too (ember's reader kept that form before).
        Encoding::Gzip if is_gzip(raw) => inflate(raw, cap),
        Encoding::Gzip => match pybase64::b64decode(raw) {
            Ok(d) if is_gzip(&d.bytes) => inflate(&d.bytes, cap),
            _ => Err(DecodeError::GzipCorrupt),
        },
    };
    decoded.map(Cow::Owned)
}

/// The one capped inflater (shared with user-data): a gzip bomb costs at most `cap` bytes.
fn inflate(data: &[u8], cap: u64) -> Result<Vec<u8>, DecodeError> {
    gzip::inflate(data, cap).map_err(|e| match e {
        gzip::InflateError::TooLarge => DecodeError::TooLarge,
        gzip::InflateError::Corrupt => DecodeError::GzipCorrupt,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;

    pub(crate) fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn b64(data: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(data)
    }

    #[test]
    fn encoding_names() {
        use Encoding::*;
        let cases = [
            ("", Ok(Plain)),
            ("text/plain", Ok(Plain)),
            ("b64", Ok(Base64)),
            ("BASE64", Ok(Base64)),
            (" gz ", Ok(Gzip)),
            ("gzip", Ok(Gzip)),
            ("gz+b64", Ok(GzipBase64)),
            ("gz+base64", Ok(GzipBase64)),
            ("gzip+b64", Ok(GzipBase64)),
            ("gzip+base64", Ok(GzipBase64)),
            ("base32", Err(())),
        ];
        for (name, want) in cases {
            assert_eq!(Encoding::parse(name), want, "{name}");
        }
    }

    #[test]
    fn each_encoding_decodes() {
        let text = b"line one\nline two\n";
        let zipped = gz(text);
        // gzip bytes as the YAML reader hands them over (not UTF-8), and as base64 text.
        let binary_form = format!("ci-b64:{}", b64(&zipped));
        let text_form = b64(&zipped);
        let wrapped = format!("{}\n{}\n", &b64(text)[..10], &b64(text)[10..]);
        // cloud-init's first documented example ends its base64 in `...`.
        let dotted = format!("{}...", b64(text));
        let cases: [(&str, Encoding); 6] = [
            ("line one\nline two\n", Encoding::Plain),
            (&wrapped, Encoding::Base64),
            (&dotted, Encoding::Base64),
            (&text_form, Encoding::GzipBase64),
            (&binary_form, Encoding::Gzip),
            (&text_form, Encoding::Gzip),
        ];
        for (content, enc) in cases {
            let mut dropped = 0;
            let data = decode(content, enc, 1024, &mut dropped).unwrap();
            assert_eq!(*data, text[..], "{enc:?}");
            assert_eq!(dropped, if content == dotted { 3 } else { 0 });
        }
    }

    /// `content: !!binary` of bytes that are not UTF-8 is written as those bytes (cloud-init
    /// writes what PyYAML made of it); text that only looks like that form stays text.
    #[test]
    fn binary_content_is_its_bytes() {
        let bytes = b"\x89PNG\r\n\x1a\n\xff\x00";
        let form = format!("ci-b64:{}", b64(bytes));
        let data = decode(&form, Encoding::Plain, 1024, &mut 0).unwrap();
        assert_eq!(*data, bytes[..]);
        for text in ["ci-b64:aGVsbG8=", "ci-b64:not base64", "ci-b64:"] {
            let data = decode(text, Encoding::Plain, 1024, &mut 0).unwrap();
            assert_eq!(*data, *text.as_bytes());
        }
    }

    #[test]
    fn bad_input_is_an_error_not_a_guess() {
        let zipped = b64(&gz(&[b'a'; 4096]));
        let padding = DecodeError::Base64(Base64Error::IncorrectPadding);
        let unpadded = b64(b"line one").trim_end_matches('=').to_string();
        let extra = DecodeError::Base64(Base64Error::OneExtraCharacter);
        let cases = [
            ("not base64!", Encoding::Base64, extra),
            ("not base64!", Encoding::GzipBase64, extra),
            // Python refuses a missing padding, and so cloud-init does.
            (&unpadded, Encoding::Base64, padding),
            (
                &b64(b"plain, not gzip"),
                Encoding::GzipBase64,
                DecodeError::GzipCorrupt,
            ),
            ("plain text", Encoding::Gzip, DecodeError::GzipCorrupt),
            (&zipped, Encoding::GzipBase64, DecodeError::TooLarge),
        ];
        for (content, enc, want) in cases {
            assert_eq!(decode(content, enc, 100, &mut 0), Err(want), "{enc:?}");
        }
        assert_eq!(padding.code(), "base64-invalid");
        assert_eq!(DecodeError::TooLarge.code(), "budget-exceeded");
    }
}

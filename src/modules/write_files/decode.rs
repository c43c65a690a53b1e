//! `write_files` `encoding`: cloud-init's names for base64 and gzip content, decoded with the
//! inflated size capped. Errors say what was wrong, never the content (it may be a secret).

use crate::reason::Reason;
use crate::userdata::gzip::{self, is_gzip};
use base64::engine::general_purpose::{GeneralPurpose, NO_PAD_INDIFFERENT};
use base64::Engine as _;
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
    Base64,
    GzipCorrupt,
    /// Inflated past the `inflated_bytes` budget.
    TooLarge,
}

impl DecodeError {
    pub fn code(self) -> Reason {
        match self {
            DecodeError::Base64 => Reason::Base64Invalid,
            DecodeError::GzipCorrupt => Reason::GzipCorrupt,
            DecodeError::TooLarge => Reason::BudgetExceeded,
        }
    }
    pub fn message(self) -> &'static str {
        match self {
            DecodeError::Base64 => "content is not valid base64",
            DecodeError::GzipCorrupt => "content is not valid gzip",
            DecodeError::TooLarge => "content inflates past its budget",
        }
    }
}

/// Lenient like Python's `b64decode` about padding and line breaks (YAML block scalars wrap
/// long base64), strict about anything else.
const BASE64: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, NO_PAD_INDIFFERENT);

fn base64(text: &[u8]) -> Result<Vec<u8>, DecodeError> {
    // A copy without the whitespace only when there is some: the input may be large.
    let clean: Cow<[u8]> = match text.iter().any(u8::is_ascii_whitespace) {
        true => text
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect(),
        false => Cow::Borrowed(text),
    };
    BASE64.decode(clean).map_err(|_| DecodeError::Base64)
}

/// Decodes `content` (a YAML string) as `encoding` says, inflating at most `cap` bytes.
/// Plain content is borrowed, not copied.
pub fn decode(content: &str, encoding: Encoding, cap: u64) -> Result<Cow<'_, [u8]>, DecodeError> {
    let raw = content.as_bytes();
    let decoded = match encoding {
        Encoding::Plain => return Ok(Cow::Borrowed(raw)),
        Encoding::Base64 => base64(raw),
        Encoding::GzipBase64 => inflate(&base64(raw)?, cap),
        // cloud-init documents `encoding: gzip` with `content: !!binary ...`. JSON has no
        // bytes, so our YAML reader keeps binary that is not UTF-8 (gzip never is) as its
        // base64 text: that form is accepted here too.
        Encoding::Gzip if is_gzip(raw) => inflate(raw, cap),
        Encoding::Gzip => match base64(raw) {
            Ok(bytes) if is_gzip(&bytes) => inflate(&bytes, cap),
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
        // gzip bytes as the YAML reader hands them over: not UTF-8, so base64 text.
        let binary_form = b64(&zipped);
        let unpadded = b64(text).trim_end_matches('=').to_string();
        let wrapped = format!("{}\n{}\n", &b64(text)[..10], &b64(text)[10..]);
        let cases: [(&str, Encoding); 5] = [
            ("line one\nline two\n", Encoding::Plain),
            (&wrapped, Encoding::Base64),
            (&unpadded, Encoding::Base64),
            (&binary_form, Encoding::GzipBase64),
            (&binary_form, Encoding::Gzip),
        ];
        for (content, enc) in cases {
            assert_eq!(*decode(content, enc, 1024).unwrap(), text[..], "{enc:?}");
        }
    }

    #[test]
    fn bad_input_is_an_error_not_a_guess() {
        let zipped = b64(&gz(&[b'a'; 4096]));
        let cases = [
            ("not base64!", Encoding::Base64, DecodeError::Base64),
            ("not base64!", Encoding::GzipBase64, DecodeError::Base64),
            (
                &b64(b"plain, not gzip"),
                Encoding::GzipBase64,
                DecodeError::GzipCorrupt,
            ),
            ("plain text", Encoding::Gzip, DecodeError::GzipCorrupt),
            (&zipped, Encoding::GzipBase64, DecodeError::TooLarge),
        ];
        for (content, enc, want) in cases {
            assert_eq!(decode(content, enc, 100), Err(want), "{enc:?}");
        }
        assert_eq!(DecodeError::Base64.code(), "base64-invalid");
        assert_eq!(DecodeError::TooLarge.code(), "budget-exceeded");
    }
}

//! cloud-init's `util.maybe_b64decode` for user-data fields: a payload that is strict base64
//! (standard alphabet, padded, no line breaks, as Python's `b64decode(validate=True)` wants)
//! is decoded, anything else is kept as given. Clouds whose API carries only text (Hetzner)
//! let users pass gzip or binary this way. Not here: base64 that must decode (Akamai), which
//! is an error when it does not.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The decoded bytes when `data` is base64, else `data` unchanged.
pub fn maybe_decode(data: Vec<u8>) -> Vec<u8> {
    match STANDARD.decode(&data) {
        Ok(decoded) => decoded,
        Err(_) => data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_decoded_and_text_is_kept() {
        let cases: [(&[u8], &[u8]); 4] = [
            (b"I2Nsb3VkLWNvbmZpZwo=", b"#cloud-config\n"),
            (
                b"#cloud-config\nruncmd: []\n",
                b"#cloud-config\nruncmd: []\n",
            ),
            // Line breaks make it not strict base64, as with Python's validate=True.
            (b"I2Nsb3Vk\nLWNvbmZpZwo=", b"I2Nsb3Vk\nLWNvbmZpZwo="),
            (b"", b""),
        ];
        for (given, want) in cases {
            assert_eq!(maybe_decode(given.to_vec()), want, "{given:?}");
        }
    }
}

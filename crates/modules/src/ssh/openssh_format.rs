//! OpenSSH's key formats: the SSH wire encoding, unencrypted "openssh-key-v1" private keys
//! (PROTOCOL.key), public key lines, and fingerprints as `ssh-keygen -l` prints them. Pure: no
//! key generation (see `keygen`) and no files. Encrypted private keys are not read.

use crate::secret::Secret;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine as _;

const MAGIC: &[u8] = b"openssh-key-v1\0";
const BEGIN: &str = "-----BEGIN OPENSSH PRIVATE KEY-----";
const END: &str = "-----END OPENSSH PRIVATE KEY-----";
/// The block size of cipher "none": the private section is padded to it.
const BLOCK: usize = 8;

/// Builds the SSH wire encoding (RFC 4251 §5).
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn string(&mut self, s: &[u8]) -> &mut Self {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s);
        self
    }
    /// A non-negative big-endian integer: leading zeros dropped, a zero byte added where the
    /// top bit would make it negative.
    pub fn mpint(&mut self, be: &[u8]) -> &mut Self {
        let start = be.iter().position(|&b| b != 0).unwrap_or(be.len());
        let v = &be[start..];
        if v.first().is_some_and(|&b| b & 0x80 != 0) {
            self.u32(v.len() as u32 + 1);
            self.0.push(0);
            self.0.extend_from_slice(v);
            self
        } else {
            self.string(v)
        }
    }
}

/// Reads the SSH wire encoding; every read is bounds-checked.
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    pub fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_be_bytes(*head))
    }
    pub fn string(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        if len > self.0.len() {
            return None;
        }
        let (s, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(s)
    }
}

/// How many wire strings/mpints follow the type name in a private key of `key_type`.
fn private_field_count(key_type: &str) -> Option<usize> {
    match key_type {
        "ssh-ed25519" => Some(2),
        "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" => Some(3),
        "ssh-rsa" => Some(6),
        _ => None,
    }
}

/// An unencrypted private key in OpenSSH's container.
pub struct PrivateKey {
    /// The wire-encoded public key (what fingerprints hash).
    pub public_blob: Vec<u8>,
    pub key_type: String,
    /// The type-specific fields after the type name, wire-encoded.
    pub private_fields: Secret<Vec<u8>>,
    pub comment: String,
}

/// The PEM-armoured "openssh-key-v1" file, base64 wrapped at 70 columns as ssh-keygen writes it.
/// `check` is the random check int (both copies), which an unencrypted key still carries.
pub fn encode_private(key: &PrivateKey, check: u32) -> Secret<String> {
    let mut private = Writer::default();
    private
        .u32(check)
        .u32(check)
        .string(key.key_type.as_bytes());
    private.0.extend_from_slice(key.private_fields.expose());
    private.string(key.comment.as_bytes());
    let mut pad = 1u8;
    while private.0.len() % BLOCK != 0 {
        private.0.push(pad);
        pad += 1;
    }
    let mut out = Writer(MAGIC.to_vec());
    out.string(b"none").string(b"none").string(b"").u32(1);
    out.string(&key.public_blob).string(&private.0);
    let b64 = STANDARD.encode(&out.0);
    let mut pem = String::with_capacity(b64.len() + 80);
    pem.push_str(BEGIN);
    pem.push('\n');
    for chunk in b64.as_bytes().chunks(70) {
        pem.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        pem.push('\n');
    }
    pem.push_str(END);
    pem.push('\n');
    Secret::new(pem)
}

/// The container's bytes from its PEM armour.
fn decode_armour(pem: &str) -> Result<Vec<u8>, &'static str> {
    let body = pem
        .trim()
        .strip_prefix(BEGIN)
        .and_then(|s| s.strip_suffix(END))
        .ok_or("not an OpenSSH private key")?;
    let b64: String = body.split_whitespace().collect();
    STANDARD.decode(b64).map_err(|_| "bad base64")
}

/// The public blob of an OpenSSH private key file; it sits outside the private section, so
/// this works whatever the cipher.
pub fn public_blob_of(pem: &str) -> Result<Vec<u8>, &'static str> {
    let data = decode_armour(pem)?;
    let mut r = Reader(data.strip_prefix(MAGIC).ok_or("bad magic")?);
    let bad = "truncated key";
    for _ in 0..3 {
        r.string().ok_or(bad)?;
    }
    if r.u32().ok_or(bad)? != 1 {
        return Err("not exactly one key");
    }
    Ok(r.string().ok_or(bad)?.to_vec())
}

/// Parses an unencrypted "openssh-key-v1" file, checking the check ints, the key type against
/// the public blob, and the padding.
pub fn parse_private(pem: &str) -> Result<PrivateKey, &'static str> {
    let data = decode_armour(pem)?;
    let mut r = Reader(data.strip_prefix(MAGIC).ok_or("bad magic")?);
    let bad = "truncated key";
    let (cipher, kdf, _) = (r.string(), r.string(), r.string());
    if cipher != Some(b"none") || kdf != Some(b"none") {
        return Err("encrypted keys are not supported");
    }
    if r.u32().ok_or(bad)? != 1 {
        return Err("not exactly one key");
    }
    let public_blob = r.string().ok_or(bad)?.to_vec();
    let private = r.string().ok_or(bad)?;
    if !r.0.is_empty() || private.len() % BLOCK != 0 {
        return Err("trailing data");
    }
    let mut p = Reader(private);
    if p.u32() != p.u32() {
        return Err("check ints differ");
    }
    let key_type = String::from_utf8(p.string().ok_or(bad)?.to_vec()).map_err(|_| bad)?;
    if key_type_of(&public_blob) != Some(key_type.as_str()) {
        return Err("key type differs from the public key");
    }
    let fields_start = p.0;
    for _ in 0..private_field_count(&key_type).ok_or("unsupported key type")? {
        p.string().ok_or(bad)?;
    }
    let fields = fields_start[..fields_start.len() - p.0.len()].to_vec();
    let comment = String::from_utf8_lossy(p.string().ok_or(bad)?).into_owned();
    if p.0.iter().enumerate().any(|(i, &b)| b as usize != i + 1) {
        return Err("bad padding");
    }
    Ok(PrivateKey {
        public_blob,
        key_type,
        private_fields: Secret::new(fields),
        comment,
    })
}

/// The key type named at the start of a public blob.
pub fn key_type_of(blob: &[u8]) -> Option<&str> {
    std::str::from_utf8(Reader(blob).string()?).ok()
}

/// `ssh-ed25519 AAAA… comment`, the form of a `.pub` file (with its newline).
pub fn public_line(blob: &[u8], comment: &str) -> String {
    let key_type = key_type_of(blob).unwrap_or("unknown");
    format!("{key_type} {} {comment}\n", STANDARD.encode(blob))
}

/// The blob of a public key line (`type base64 [comment]`).
pub fn parse_public_line(line: &str) -> Option<Vec<u8>> {
    let mut it = line.split_whitespace();
    let (key_type, b64) = (it.next()?, it.next()?);
    let blob = STANDARD.decode(b64).ok()?;
    (key_type_of(&blob) == Some(key_type)).then_some(blob)
}

/// `SHA256:` and the unpadded base64 of the blob's SHA-256, as ssh-keygen prints it.
pub fn fingerprint(blob: &[u8]) -> String {
    format!(
        "SHA256:{}",
        STANDARD_NO_PAD.encode(super::digest::sha256(blob))
    )
}

/// Size in bits and ssh-keygen's label for the key in `blob`.
pub fn bits_and_label(blob: &[u8]) -> Option<(usize, &'static str)> {
    let mut r = Reader(blob);
    let key_type = r.string()?;
    Some(match key_type {
        b"ssh-ed25519" => (256, "ED25519"),
        b"ecdsa-sha2-nistp256" => (256, "ECDSA"),
        b"ecdsa-sha2-nistp384" => (384, "ECDSA"),
        b"ecdsa-sha2-nistp521" => (521, "ECDSA"),
        b"ssh-rsa" => {
            let (_e, n) = (r.string()?, r.string()?);
            let n = &n[n.iter().position(|&b| b != 0)?..];
            (n.len() * 8 - n[0].leading_zeros() as usize, "RSA")
        }
        b"ssh-dss" => {
            let p = r.string()?;
            let p = &p[p.iter().position(|&b| b != 0)?..];
            (p.len() * 8 - p[0].leading_zeros() as usize, "DSA")
        }
        _ => return None,
    })
}

/// `256 SHA256:… comment (ED25519)`, the line `ssh-keygen -lf key.pub` prints.
pub fn fingerprint_line(blob: &[u8], comment: &str) -> Option<String> {
    let (bits, label) = bits_and_label(blob)?;
    let comment = if comment.is_empty() {
        "no comment"
    } else {
        comment
    };
    Some(format!("{bits} {} {comment} ({label})", fingerprint(blob)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpint_encoding() {
        let cases: [(&[u8], &[u8]); 4] = [
            (&[0, 0, 1], &[0, 0, 0, 1, 1]),
            (&[0x80], &[0, 0, 0, 2, 0, 0x80]),
            (&[0, 0x7f, 0xff], &[0, 0, 0, 2, 0x7f, 0xff]),
            (&[0, 0], &[0, 0, 0, 0]),
        ];
        for (input, want) in cases {
            assert_eq!(Writer::default().mpint(input).0, want, "{input:?}");
        }
    }

    #[test]
    fn reader_refuses_overlong_strings() {
        assert_eq!(Reader(&[0, 0, 0, 5, 1, 2]).string(), None);
        assert_eq!(Reader(&[0, 0]).u32(), None);
    }

    #[test]
    fn garbage_is_refused() {
        for pem in [
            "",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n!!\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----",
        ] {
            assert!(parse_private(pem).is_err(), "{pem}");
            assert!(public_blob_of(pem).is_err(), "{pem}");
        }
    }

    #[test]
    fn fingerprint_of_a_known_key() {
        // ssh-keygen -lf on this line prints the fingerprint below.
        let line =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm a@b";
        let blob = parse_public_line(line).unwrap();
        assert_eq!(
            fingerprint_line(&blob, "a@b").unwrap(),
            "256 SHA256:CPbIAhCDnzgQJJNup6YpVUvpwEPhk43z5Ob2aITTatY a@b (ED25519)"
        );
    }
}

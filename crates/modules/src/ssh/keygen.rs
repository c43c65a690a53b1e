//! Host key generation in-process with ring: Ed25519 and ECDSA P-256, returned in OpenSSH's
//! container. RSA is not here: ring cannot generate RSA keys (see `hostkeys` for the handoff).

use super::hostkey_settings::KeyType;
use super::openssh_format::{encode_private, public_line, PrivateKey, Writer};
use crate::secret::Secret;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};

/// A new key pair: the private key file (secret) and the public key line.
pub struct Generated {
    pub private_pem: Secret<String>,
    pub public_line: String,
}

/// ring's PKCS#8 v1 document for a P-256 key is this prefix, the 32-byte scalar, `P256_MIDDLE`
/// and the 65-byte uncompressed point (ring's own template: RFC 5915 inside RFC 5208).
const P256_PREFIX: &[u8] = &[
    0x30, 0x81, 0x87, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
    0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x6d, 0x30, 0x6b, 0x02,
    0x01, 0x01, 0x04, 0x20,
];
const P256_MIDDLE: &[u8] = &[0xa1, 0x44, 0x03, 0x42, 0x00];

/// Generates a key of `kind`: Ed25519 or ECDSA P-256, the kinds ring can make.
pub fn generate(kind: KeyType, comment: &str) -> Result<Generated, &'static str> {
    let rng = SystemRandom::new();
    match kind {
        KeyType::Ed25519 => ed25519(&rng, comment),
        KeyType::Ecdsa => ecdsa_p256(&rng, comment),
        _ => Err("ring cannot generate this key type"),
    }
}

fn ed25519(rng: &SystemRandom, comment: &str) -> Result<Generated, &'static str> {
    let mut raw = [0u8; 32];
    rng.fill(&mut raw).map_err(|_| "no randomness")?;
    let seed = Secret::new(raw);
    let pair = Ed25519KeyPair::from_seed_unchecked(seed.expose()).map_err(|_| "key rejected")?;
    let public = pair.public_key().as_ref();
    let mut blob = Writer::default();
    blob.string(b"ssh-ed25519").string(public);
    // OpenSSH keeps the 64-byte "secret key" of ref10: the seed followed by the public key.
    let mut secret = seed.expose().to_vec();
    secret.extend_from_slice(public);
    let mut fields = Writer::default();
    fields.string(public).string(&secret);
    secret.fill(0);
    finish(rng, "ssh-ed25519", blob.0, fields.0, comment)
}

fn ecdsa_p256(rng: &SystemRandom, comment: &str) -> Result<Generated, &'static str> {
    let alg = &ECDSA_P256_SHA256_FIXED_SIGNING;
    let doc = EcdsaKeyPair::generate_pkcs8(alg, rng).map_err(|_| "no randomness")?;
    let der = doc.as_ref();
    let (d, q) = der
        .strip_prefix(P256_PREFIX)
        .and_then(|rest| rest.split_at_checked(32))
        .and_then(|(d, rest)| Some((d, rest.strip_prefix(P256_MIDDLE)?)))
        .filter(|(_, q)| q.len() == 65)
        .ok_or("unexpected PKCS#8 layout from ring")?;
    // Proves the scalar and point we cut out belong together before they are written.
    EcdsaKeyPair::from_private_key_and_public_key(alg, d, q, rng)
        .map_err(|_| "key pair inconsistent")?;
    let mut blob = Writer::default();
    blob.string(b"ecdsa-sha2-nistp256")
        .string(b"nistp256")
        .string(q);
    let mut fields = Writer::default();
    fields.string(b"nistp256").string(q).mpint(d);
    finish(rng, "ecdsa-sha2-nistp256", blob.0, fields.0, comment)
}

fn finish(
    rng: &SystemRandom,
    key_type: &str,
    public_blob: Vec<u8>,
    fields: Vec<u8>,
    comment: &str,
) -> Result<Generated, &'static str> {
    let mut check = [0u8; 4];
    rng.fill(&mut check).map_err(|_| "no randomness")?;
    let key = PrivateKey {
        public_blob,
        key_type: key_type.to_string(),
        private_fields: Secret::new(fields),
        comment: comment.to_string(),
    };
    Ok(Generated {
        private_pem: encode_private(&key, u32::from_ne_bytes(check)),
        public_line: public_line(&key.public_blob, comment),
    })
}

#[cfg(test)]
mod tests {
    use super::super::openssh_format::{parse_private, parse_public_line, Reader};
    use super::*;

    #[test]
    fn generated_keys_parse_back() {
        let kinds = [
            (KeyType::Ed25519, "ssh-ed25519"),
            (KeyType::Ecdsa, "ecdsa-sha2-nistp256"),
        ];
        for (kind, key_type) in kinds {
            let g = generate(kind, "root@host").unwrap();
            let parsed = parse_private(g.private_pem.expose()).unwrap();
            assert_eq!(parsed.key_type, key_type);
            assert_eq!(parsed.comment, "root@host");
            assert_eq!(
                parse_public_line(&g.public_line).unwrap(),
                parsed.public_blob
            );
            assert!(g.public_line.starts_with(&format!("{key_type} AAAA")));
            assert!(g.public_line.ends_with(" root@host\n"));
            let pem = g.private_pem.expose();
            assert!(pem.lines().all(|l| l.len() <= 70 || l.starts_with("-----")));
            // The private fields repeat the public key: they must agree with the blob.
            let mut f = Reader(parsed.private_fields.expose());
            let mut b = Reader(&parsed.public_blob);
            b.string();
            if kind == KeyType::Ed25519 {
                let public = f.string().unwrap();
                assert_eq!(public, b.string().unwrap());
                let secret = f.string().unwrap();
                assert_eq!(&secret[32..], public);
                let again = Ed25519KeyPair::from_seed_unchecked(&secret[..32]).unwrap();
                assert_eq!(again.public_key().as_ref(), public);
            } else {
                assert_eq!(f.string().unwrap(), b"nistp256");
                assert_eq!(b.string().unwrap(), b"nistp256");
                assert_eq!(f.string().unwrap(), b.string().unwrap());
                assert!(f.string().unwrap().len() <= 33);
            }
            assert!(f.0.is_empty());
        }
        assert!(generate(KeyType::Rsa, "x").is_err());
    }

    #[test]
    fn two_keys_differ() {
        let a = generate(KeyType::Ed25519, "c").unwrap();
        let b = generate(KeyType::Ed25519, "c").unwrap();
        assert_ne!(a.public_line, b.public_line);
    }
}

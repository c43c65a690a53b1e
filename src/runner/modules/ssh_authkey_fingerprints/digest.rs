//! The digests `authkey_hash` may name, as Python's `hashlib` names them: SHA-1 and SHA-2
//! from ring, MD5 here (ring has none; it is cloud-init's classic fingerprint). Fingerprints
//! of public keys only: nothing here guards a secret.

/// The digest of `data` by `name` (any case), or None for a hash ember does not compute.
pub fn digest(name: &str, data: &[u8]) -> Option<Vec<u8>> {
    use ring::digest as d;
    let alg = match name.to_ascii_lowercase().as_str() {
        "md5" => return Some(md5(data).to_vec()),
        "sha1" => &d::SHA1_FOR_LEGACY_USE_ONLY,
        "sha256" => &d::SHA256,
        "sha384" => &d::SHA384,
        "sha512" => &d::SHA512,
        "sha512_256" => &d::SHA512_256,
        _ => return None,
    };
    Some(d::digest(alg, data).as_ref().to_vec())
}

/// RFC 1321.
pub fn md5(data: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    // floor(abs(sin(i + 1)) * 2^32)
    let k: [u32; 64] =
        std::array::from_fn(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32);
    let mut h: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for block in msg.chunks_exact(64) {
        let m: [u32; 16] = std::array::from_fn(|i| {
            u32::from_le_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ])
        });
        let [mut a, mut b, mut c, mut d] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 16];
    for (i, w) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// RFC 1321's test suite, and the block boundaries.
    #[test]
    fn md5_vectors() {
        let cases = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(hex(&md5(input.as_bytes())), want, "{input:?}");
        }
        assert_eq!(
            hex(&md5(&[b'x'; 56])),
            hex(&digest("MD5", &[b'x'; 56]).unwrap())
        );
    }

    #[test]
    fn names() {
        assert_eq!(
            hex(&digest("sha256", b"abc").unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(digest("SHA1", b"").map(|d| d.len()), Some(20));
        assert_eq!(digest("sha512", b"").map(|d| d.len()), Some(64));
        assert!(digest("sha3_256", b"").is_none() && digest("nonsense", b"").is_none());
    }
}

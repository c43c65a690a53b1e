//! Password work shared by `users`, `chpasswd` and Azure's provisioning: SHA-512 crypt with a random salt, random
//! passwords from getrandom (RELIABILITY rule 4), hash detection, and shadow's day counts.
//! Clear-text passwords only ever travel inside `Secret`.

use crate::secret::Secret;

mod sha512_crypt;

/// Rounds written into new hashes (`rounds=5000$`, crypt's default, spelled out).
const ROUNDS: u32 = 5000;

/// Bytes from the kernel's CSPRNG; `None` only if getrandom itself fails.
fn random_bytes(n: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let mut filled = 0;
    while filled < n {
        match rustix::rand::getrandom(&mut buf[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(k) => filled += k,
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return None,
        }
    }
    Some(buf)
}

/// `$6$rounds=5000$…` for `plain`, with a 96-bit random salt (16 crypt characters, the
/// maximum; each random byte's low six bits pick one, so every character is uniform).
pub fn hash(plain: &Secret<String>) -> Option<Secret<String>> {
    let salt: String = random_bytes(16)?
        .iter()
        .map(|b| char::from(sha512_crypt::ALPHABET[usize::from(b & 0x3f)]))
        .collect();
    let h = sha512_crypt::hash(plain.expose().as_bytes(), &salt, Some(ROUNDS));
    Some(Secret::new(h))
}

/// Whether `hash` (a `$6$` crypt string) is the hash of `plain`; false for other schemes
/// (a `$5$` or older hash is then replaced by a fresh `$6$` one, never kept as matching).
pub fn verifies(plain: &Secret<String>, hash: &str) -> bool {
    sha512_crypt::verify(plain.expose().as_bytes(), hash)
}

/// Letters and digits only: nothing a console, a shell or a `user:password` line mangles.
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A random password of 20 characters from 62: 119 bits. Rejection sampling keeps every
/// character uniform (bytes of 248 and above are dropped).
pub fn random_password() -> Option<Secret<String>> {
    let mut out = String::with_capacity(20);
    while out.len() < 20 {
        for b in random_bytes(32)? {
            if b < 248 && out.len() < 20 {
                out.push(ALPHABET[usize::from(b) % ALPHABET.len()] as char);
            }
        }
    }
    Some(Secret::new(out))
}

/// Whether a chpasswd `list` value is already a crypt hash, as cloud-init decides it
/// (`$1$`, `$2a$`, `$2y$`, `$5$`, `$6$` followed by two more `$` fields).
pub fn looks_hashed(value: &str) -> bool {
    let Some(rest) = value.strip_prefix('$') else {
        return false;
    };
    let mut parts = rest.splitn(2, '$');
    let id = parts.next().unwrap_or("");
    let tail = parts.next().unwrap_or("");
    ["1", "2a", "2y", "5", "6"].contains(&id)
        && tail.split('$').count() >= 2
        && tail.split('$').all(|p| !p.is_empty())
}

/// Today in days since the epoch (shadow's last-change field).
pub fn today() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| (d.as_secs() / 86400) as i64)
}

/// `YYYY-MM-DD` to days since the epoch (shadow's expire field), `None` if not a real date.
pub fn days_from_date(s: &str) -> Option<i64> {
    let mut it = s.trim().splitn(3, '-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    crate::date::days(y, m, d).filter(|_| y >= 1970)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_salts_differ() {
        let pw = Secret::new("correct horse".to_string());
        let (a, b) = (hash(&pw).unwrap(), hash(&pw).unwrap());
        assert!(a.expose().starts_with("$6$rounds=5000$"));
        assert_eq!(a.expose().len(), "$6$rounds=5000$".len() + 16 + 1 + 86);
        assert_ne!(a.expose(), b.expose());
        assert!(verifies(&pw, a.expose()));
        assert!(!verifies(&Secret::new("wrong".into()), a.expose()));
        assert!(!verifies(&pw, "!"));
        // A hash made elsewhere (`openssl passwd -6 -salt saltsalt hello`).
        let glibc = "$6$saltsalt$YTeBOLnmm3CoeJTzBuijUEtOEWCqrw/nQ8/AeMmON4LGp3k0ZiMjC1OdqzWFUAfDQBvYkOch9BWtQTBcZ1E/p0";
        assert!(verifies(&Secret::new("hello".into()), glibc));
    }

    #[test]
    fn random_passwords_are_long_and_plain() {
        let a = random_password().unwrap();
        assert_eq!(a.expose().len(), 20);
        assert!(a.expose().bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(a.expose(), random_password().unwrap().expose());
    }

    #[test]
    fn hashed_detection() {
        let cases = [
            ("$6$salt$hash", true),
            ("$6$rounds=5000$salt$hash", true),
            ("$1$a$b", true),
            ("$7$a$b", false),
            ("$6$only", false),
            ("plain", false),
            ("R", false),
        ];
        for (v, want) in cases {
            assert_eq!(looks_hashed(v), want, "{v}");
        }
    }

    #[test]
    fn dates() {
        let cases = [
            ("1970-01-01", Some(0)),
            ("2012-09-01", Some(15584)),
            ("2000-02-29", Some(11016)),
            ("2001-02-29", None),
            ("2024-13-01", None),
            ("soon", None),
        ];
        for (s, want) in cases {
            assert_eq!(days_from_date(s), want, "{s}");
        }
    }
}

//! SHA-512 crypt (`$6$`), as Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512"
//! specifies it (<https://www.akkadia.org/drepper/SHA-crypt.txt>), on ring's SHA-512: the
//! scheme glibc, libxcrypt, shadow and `openssl passwd -6` write into /etc/shadow.

use ring::digest::{Context, SHA512};

/// Rounds when the setting names none; such hashes carry no `rounds=` field.
const ROUNDS_DEFAULT: u32 = 5000;
const ROUNDS_MIN: u32 = 1000;
const ROUNDS_MAX: u32 = 999_999_999;
/// Salt characters beyond the sixteenth are ignored.
const SALT_MAX: usize = 16;
/// crypt's base64 alphabet: `.`, `/`, digits, upper case, lower case.
pub const ALPHABET: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `$6$[rounds=N$]salt$hash` for `password`. `salt` stops at its first `$` and at 16 bytes;
/// `rounds` is clamped to 1000..=999999999 and, when given, written out even if it is the
/// default 5000 (as crypt(3) does for an explicit `rounds=`).
pub fn hash(password: &[u8], salt: &str, rounds: Option<u32>) -> String {
    String::from_utf8_lossy(&crypt(password, salt.as_bytes(), rounds)).into_owned()
}

/// Whether `hash` is the `$6$` crypt of `password`: the hash is recomputed from its own
/// setting and the whole string compared in constant time. Anything malformed is false, and
/// is found so before any hashing: a salt over 16 characters, a `rounds=` outside
/// 1000..=999999999 (crypt(3) would write another count), a hash part not of 86 characters.
pub fn verify(password: &[u8], hash: &str) -> bool {
    let Some(rest) = hash.as_bytes().strip_prefix(b"$6$") else {
        return false;
    };
    let (rounds, rest) = match rest.strip_prefix(b"rounds=") {
        Some(r) => {
            let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || r.get(digits) != Some(&b'$') {
                return false;
            }
            let n = r[..digits].iter().fold(0u32, |n, d| {
                n.saturating_mul(10).saturating_add(u32::from(d - b'0'))
            });
            if !(ROUNDS_MIN..=ROUNDS_MAX).contains(&n) {
                return false;
            }
            (Some(n), &r[digits + 1..])
        }
        None => (None, rest),
    };
    let Some(salt_len) = rest.iter().position(|&b| b == b'$') else {
        return false;
    };
    if salt_len > SALT_MAX || rest.len() != salt_len + 1 + 86 {
        return false;
    }
    constant_time_eq(&crypt(password, &rest[..salt_len], rounds), hash.as_bytes())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

fn sha512(parts: &[&[u8]]) -> [u8; 64] {
    let mut ctx = Context::new(&SHA512);
    for p in parts {
        ctx.update(p);
    }
    let mut out = [0u8; 64];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

/// `n` bytes of `digest` repeated (the specification's P and S byte sequences).
fn stretch(digest: &[u8; 64], n: usize) -> Vec<u8> {
    digest.iter().copied().cycle().take(n).collect()
}

/// The whole algorithm; `salt` is the setting after `$6$` and any `rounds=N$`.
fn crypt(password: &[u8], salt: &[u8], rounds: Option<u32>) -> Vec<u8> {
    let salt_end = salt.iter().position(|&b| b == b'$').unwrap_or(salt.len());
    let salt = &salt[..salt_end.min(SALT_MAX)];
    let n_rounds = rounds.map_or(ROUNDS_DEFAULT, |r| r.clamp(ROUNDS_MIN, ROUNDS_MAX));
    let plen = password.len();

    // Digest B: password, salt, password.
    let b = sha512(&[password, salt, password]);

    // Digest A: password, salt, then as many bytes of B as the password is long, then for each
    // bit of the password's length (lowest first) B for a one and the password for a zero.
    let mut ctx = Context::new(&SHA512);
    ctx.update(password);
    ctx.update(salt);
    ctx.update(&stretch(&b, plen));
    let mut len = plen;
    while len > 0 {
        ctx.update(if len & 1 == 1 { &b[..] } else { password });
        len >>= 1;
    }
    let mut acc = [0u8; 64];
    acc.copy_from_slice(ctx.finish().as_ref());

    // P: digest DP (the password once per byte of it) stretched to the password's length.
    let mut ctx = Context::new(&SHA512);
    for _ in 0..plen {
        ctx.update(password);
    }
    let mut dp = [0u8; 64];
    dp.copy_from_slice(ctx.finish().as_ref());
    let p = stretch(&dp, plen);

    // S: digest DS (the salt 16 + A[0] times) stretched to the salt's length.
    let mut ctx = Context::new(&SHA512);
    for _ in 0..16 + usize::from(acc[0]) {
        ctx.update(salt);
    }
    let mut ds = [0u8; 64];
    ds.copy_from_slice(ctx.finish().as_ref());
    let s = stretch(&ds, salt.len());

    // The rounds: each digest feeds the next.
    for i in 0..n_rounds {
        let mut ctx = Context::new(&SHA512);
        if i % 2 == 1 {
            ctx.update(&p);
        } else {
            ctx.update(&acc);
        }
        if i % 3 != 0 {
            ctx.update(&s);
        }
        if i % 7 != 0 {
            ctx.update(&p);
        }
        if i % 2 == 1 {
            ctx.update(&acc);
        } else {
            ctx.update(&p);
        }
        acc.copy_from_slice(ctx.finish().as_ref());
    }

    let mut out = Vec::with_capacity(3 + 20 + SALT_MAX + 1 + 86);
    out.extend_from_slice(b"$6$");
    if rounds.is_some() {
        out.extend_from_slice(format!("rounds={n_rounds}$").as_bytes());
    }
    out.extend_from_slice(salt);
    out.push(b'$');
    encode(&acc, &mut out);
    out
}

/// Appends `n` characters for the 24-bit group `b2 b1 b0`, least significant six bits first.
fn push_group(out: &mut Vec<u8>, b2: u8, b1: u8, b0: u8, n: usize) {
    let mut w = (u32::from(b2) << 16) | (u32::from(b1) << 8) | u32::from(b0);
    for _ in 0..n {
        out.push(ALPHABET[(w & 0x3f) as usize]);
        w >>= 6;
    }
}

/// The final digest in the specification's byte order: group `i` of 21 takes bytes `i`,
/// `i + 21` and `i + 42`, rotated by `i mod 3` (so 0,21,42 then 22,43,1 then 44,2,23 …), then
/// byte 63 alone as two characters. 86 characters in all.
fn encode(d: &[u8; 64], out: &mut Vec<u8>) {
    for i in 0..21 {
        let t = [d[i], d[i + 21], d[i + 42]];
        let r = i % 3;
        push_group(out, t[r], t[(r + 1) % 3], t[(r + 2) % 3], 4);
    }
    push_group(out, 0, 0, d[63], 2);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The setting (`$6$[rounds=N$]salt`) of a vector split into salt and rounds.
    fn setting(s: &str) -> (&str, Option<u32>) {
        let rest = s.strip_prefix("$6$").unwrap();
        match rest.strip_prefix("rounds=") {
            Some(r) => {
                let (n, salt) = r.split_once('$').unwrap();
                (salt, Some(n.parse().unwrap()))
            }
            None => (rest, None),
        }
    }

    /// The SHA-512 test vectors published with the specification.
    const SPEC: [(&str, &str, &str); 7] = [
        (
            "$6$saltstring",
            "Hello world!",
            "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
        ),
        (
            "$6$rounds=10000$saltstringsaltstring",
            "Hello world!",
            "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.",
        ),
        (
            "$6$rounds=5000$toolongsaltstring",
            "This is just a test",
            "$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0",
        ),
        (
            "$6$rounds=1400$anotherlongsaltstring",
            "a very much longer text to encrypt.  This one even stretches over morethan one line.",
            "$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1",
        ),
        (
            "$6$rounds=77777$short",
            "we have a short salt string but not a short password",
            "$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0",
        ),
        (
            "$6$rounds=123456$asaltof16chars..",
            "a short string",
            "$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1",
        ),
        (
            "$6$rounds=10$roundstoolow",
            "the minimum number is still observed",
            "$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.",
        ),
    ];

    #[test]
    fn specification_vectors() {
        for (set, pw, want) in SPEC {
            let (salt, rounds) = setting(set);
            assert_eq!(hash(pw.as_bytes(), salt, rounds), want, "{set}");
            assert!(verify(pw.as_bytes(), want), "{set}");
            assert!(!verify(b"not it", want), "{set}");
        }
    }

    #[test]
    fn salt_stops_at_dollar_and_sixteen_bytes() {
        let a = hash(b"pw", "abcdefghijklmnopqrstuvwxyz", None);
        assert!(a.starts_with("$6$abcdefghijklmnop$"), "{a}");
        assert_eq!(a, hash(b"pw", "abcdefghijklmnop$rest", None));
        assert_eq!(a.len(), 3 + 16 + 1 + 86);
        // An explicit default is written out; a huge count is clamped.
        assert!(hash(b"pw", "s", Some(5000)).starts_with("$6$rounds=5000$s$"));
        assert!(hash(b"pw", "s", Some(1000)).starts_with("$6$rounds=1000$s$"));
        // Empty password and empty salt are legal.
        let e = hash(b"", "", None);
        assert!(e.starts_with("$6$$") && verify(b"", &e), "{e}");
    }

    #[test]
    fn openssl_hashes_verify() {
        // `openssl passwd -6 -salt abcdefghijklmnop secret`
        let h = "$6$abcdefghijklmnop$J/AWykHqo2Tx5UtavGnFc3ytI33la50JpzLTarSWVhkIXK6wOjNwwZjsrIw2UgmrER2EKrSHCeQyAINEEXAk1/";
        assert!(verify(b"secret", h));
        assert!(!verify(b"Secret", h));
        assert_eq!(hash(b"secret", "abcdefghijklmnop", None), h);
        // `openssl passwd -6 -salt 'rounds=7000$ab./XY09' 'p\u{e4}ssw\u{f6}rd'` (UTF-8 bytes).
        let h = "$6$rounds=7000$ab./XY09$7mdddiPFDDZzdPRabFZEsBSbsWAFuzK5zkZBhayf3a5Eo5msDNFdPc/G0mvNA/hGgMS74rfYfpwfhEsSNnLQ7/";
        assert!(verify("p\u{e4}ssw\u{f6}rd".as_bytes(), h));
        assert_eq!(
            hash("p\u{e4}ssw\u{f6}rd".as_bytes(), "ab./XY09", Some(7000)),
            h
        );
    }

    #[test]
    fn malformed_hashes_are_rejected() {
        let good = SPEC[0].2;
        let pw = b"Hello world!";
        let cut = &good[..good.len() - 1];
        let long = format!("{good}x");
        let trailing = format!("{good}$");
        let bad = [
            "",
            "!",
            "*",
            "$6$",
            "$6",
            "6$saltstring$x",
            "$5$saltstring$svn8",
            "$6$saltstring",
            "$6$saltstring$",
            "$6$rounds=$saltstring$x",
            "$6$rounds=abc$saltstring$x",
            "$6$rounds=99999999999999999999$s$x",
            "$6$rounds=4294967295$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
            "$6$rounds=1000000000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
            "$6$rounds=999$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
            "$6$rounds=10$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.",
            "$6$saltstringsaltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
            "$6$rounds=5000",
            "$6$rounds=5000$",
            cut,
            &long,
            &trailing,
            "$6$\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}$x",
        ];
        for h in bad {
            assert!(!verify(pw, h), "{h:?}");
        }
        // Byte-by-byte truncations never panic.
        for i in 0..good.len() {
            assert!(!verify(pw, &good[..i]));
        }
    }
}

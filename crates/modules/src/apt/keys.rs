//! The OpenPGP keys of `apt.sources` entries and of `primary`/`security` mirrors, written as
//! cloud-init writes them: dearmored (binary) to `/etc/apt/trusted.gpg.d/<name>.gpg`, or to
//! `/etc/apt/cloud-init.gpg.d/<name>.gpg` for a source that names it as `$KEY_FILE`. An
//! armored `key` is dearmored here (base64 with its CRC-24 checked, no gpg needed); a `keyid`
//! is fetched from its `keyserver` (default `keyserver.ubuntu.com`) with the target's own
//! gpg in a throwaway GNUPGHOME; a `keyurl` (used only when none of `key`, `keyid`,
//! `keyserver` is given) with the target's curl or wget, or read from the target for a
//! `file://` URL or a path.

use super::settings::KeySpec;
use super::ModCtx;
use crate::common::distro::which;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use base64::Engine;

const TRUSTED_DIR: &str = "/etc/apt/trusted.gpg.d/";
const HARDENED_DIR: &str = "/etc/apt/cloud-init.gpg.d/";
const DEFAULT_KEYSERVER: &str = "keyserver.ubuntu.com";
/// The throwaway GNUPGHOME and download directory, in the target.
const WORK: &str = "/tmp/ember-apt-keys";
/// Keys are small; a keyring of a few hundred keys is still under this.
const MAX_KEY: u64 = 4 << 20;

/// Why a key could not be had; the message never quotes the key.
#[derive(Debug, PartialEq, Eq)]
pub enum KeyError {
    /// Not an OpenPGP key cloud-init's `gpg --dearmor` would take.
    Invalid(&'static str),
    /// Fetching it failed (the message says how).
    Fetch(String),
}

/// `gpg --dearmor`: the binary packets of every armored block in `data`, or `data` itself
/// when it is already binary OpenPGP (the first byte a packet tag).
pub fn dearmor(data: &[u8]) -> Result<Vec<u8>, KeyError> {
    if data.first().is_some_and(|b| b & 0x80 != 0) {
        return Ok(data.to_vec());
    }
    let text = std::str::from_utf8(data).map_err(|_| KeyError::Invalid("not UTF-8 text"))?;
    let mut out = Vec::new();
    let mut lines = text.lines().map(str::trim_end);
    let mut found = false;
    while let Some(line) = lines.next() {
        if !(line.starts_with("-----BEGIN PGP ") && line.ends_with("-----")) {
            continue;
        }
        found = true;
        let mut body = String::new();
        let mut crc = None;
        let mut headers = true;
        let mut ended = false;
        for line in lines.by_ref() {
            if line.starts_with("-----END PGP ") {
                ended = true;
                break;
            }
            if headers {
                // Armor headers (`Comment: ...`) up to a blank line; a block may have none.
                if line.is_empty() || line.contains(": ") {
                    headers = !line.is_empty();
                    continue;
                }
                headers = false;
            }
            match line.strip_prefix('=') {
                Some(sum) if line.len() == 5 => crc = Some(sum.to_string()),
                _ => body.push_str(line.trim()),
            }
        }
        if !ended {
            return Err(KeyError::Invalid("an armored block without its END line"));
        }
        let engine = base64::engine::general_purpose::STANDARD;
        let bytes = engine
            .decode(body.as_bytes())
            .map_err(|_| KeyError::Invalid("its armored body is not base64"))?;
        if let Some(sum) = crc {
            let want = engine
                .decode(sum.as_bytes())
                .map_err(|_| KeyError::Invalid("its armor checksum is not base64"))?;
            let got = crc24(&bytes).to_be_bytes();
            if want != got[1..] {
                return Err(KeyError::Invalid("its armor checksum does not match"));
            }
        }
        out.extend(bytes);
    }
    if !found {
        return Err(KeyError::Invalid("no -----BEGIN PGP ...----- block"));
    }
    if out.is_empty() {
        return Err(KeyError::Invalid("an empty armored block"));
    }
    Ok(out)
}

/// OpenPGP's CRC-24 (RFC 4880, 6.1).
fn crc24(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xB7_04CE;
    for &b in data {
        crc ^= u32::from(b) << 16;
        for _ in 0..8 {
            crc <<= 1;
            if crc & 0x100_0000 != 0 {
                crc ^= 0x186_4CFB;
            }
        }
    }
    crc & 0xFF_FFFF
}

/// cloud-init's name for a key file: the stem of the entry's file name (`repo.list` → `repo`).
pub fn stem(filename: &str) -> &str {
    let base = filename.rsplit('/').next().unwrap_or(filename);
    match base.rfind('.') {
        Some(at) if at > 0 => &base[..at],
        _ => base,
    }
}

/// Fetches keys with the target's tools; `finish` cleans up after them.
#[derive(Default)]
pub struct Keys {
    /// Whether the work directory was made (and gpg ran in it).
    started: bool,
    gpg_ran: bool,
}

impl Keys {
    /// Writes the key `spec` gives, if any, as `<dir>/<name>.gpg`; `key` names the entry in
    /// diagnostics. Returns the path written, `/dev/null` when the key was not usable (as
    /// cloud-init, which logs that and goes on), or `None` when the entry has no key. A key
    /// that cannot be fetched is an error and `None`.
    pub fn add(
        &mut self,
        ctx: &ModCtx,
        spec: &KeySpec,
        name: &str,
        hardened: bool,
        key: &str,
        diags: &mut Vec<Diag>,
    ) -> Option<String> {
        let data: Vec<u8> = if let Some(k) = &spec.key {
            k.as_bytes().to_vec()
        } else if let Some(id) = &spec.keyid {
            let server = spec.keyserver.as_deref().unwrap_or(DEFAULT_KEYSERVER);
            match self.by_id(ctx, id, server) {
                Ok(d) => d,
                Err(e) => return self.failed(e, &format!("{key}.keyid"), diags),
            }
        } else if let Some(url) = spec.keyurl.as_deref().filter(|_| spec.keyserver.is_none()) {
            match self.by_url(ctx, url) {
                Ok(d) => d,
                Err(e) => return self.failed(e, &format!("{key}.keyurl"), diags),
            }
        } else {
            return None;
        };
        let dir = if hardened { HARDENED_DIR } else { TRUSTED_DIR };
        let path = format!("{dir}{name}.gpg");
        let binary = match dearmor(&data) {
            Ok(b) => b,
            Err(e) => {
                self.failed(e, key, diags);
                return Some("/dev/null".into());
            }
        };
        if let Err(e) = ctx.root.write_file(&path, &binary, &FileSpec::mode(0o644)) {
            diags.push(Diag::error(e.code(), e.to_string()).key(key));
            return Some("/dev/null".into());
        }
        ctx.exec
            .say(&format!("apt_configure: wrote the key {path}"));
        Some(path)
    }

    fn failed(&self, e: KeyError, key: &str, diags: &mut Vec<Diag>) -> Option<String> {
        diags.push(match e {
            KeyError::Invalid(why) => {
                let msg = format!("not a usable OpenPGP key ({why}); not added");
                Diag::warning(Reason::BadValue, msg).key(key)
            }
            KeyError::Fetch(why) => Diag::error(Reason::CommandFailed, why).key(key),
        });
        None
    }

    fn work_dir(&mut self, ctx: &ModCtx) -> Result<(), KeyError> {
        if !self.started {
            let fail = |e: crate::root::RootError| KeyError::Fetch(e.to_string());
            ctx.root.remove_tree(WORK).map_err(fail)?;
            ctx.root
                .create_dir_all(WORK, &FileSpec::mode(0o700))
                .map_err(fail)?;
            self.started = true;
        }
        Ok(())
    }

    /// The downloaded file, then removed.
    fn take(&self, ctx: &ModCtx, path: &str) -> Result<Vec<u8>, KeyError> {
        let data = ctx.root.read_file(path, MAX_KEY);
        let _ = ctx.root.remove_file(path);
        match data {
            Ok(Some(d)) if !d.is_empty() => Ok(d),
            Ok(_) => Err(KeyError::Fetch("the key was not found".into())),
            Err(e) => Err(KeyError::Fetch(e.to_string())),
        }
    }

    /// `gpg --recv-keys` (three tries a second apart, as cloud-init), then `--export`.
    fn by_id(&mut self, ctx: &ModCtx, id: &str, server: &str) -> Result<Vec<u8>, KeyError> {
        if which(ctx.root, "gpg").is_none() {
            return Err(KeyError::Fetch(
                "no gpg in the target to fetch the key".into(),
            ));
        }
        self.work_dir(ctx)?;
        self.gpg_ran = true;
        let env = [("GNUPGHOME", WORK)];
        let server_arg = format!("--keyserver={server}");
        let recv = ["gpg", "--no-tty", &server_arg, "--recv-keys", id];
        let mut outcome = ctx.exec.run(&recv, &env);
        for _ in 0..2 {
            if outcome.ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
            outcome = ctx.exec.run(&recv, &env);
        }
        if !outcome.ok() {
            let msg = format!(
                "gpg could not fetch the key from {server}: it {}",
                outcome.describe()
            );
            return Err(KeyError::Fetch(msg));
        }
        let file = format!("{WORK}/key.gpg");
        let export = ["gpg", "--no-tty", "--output", &file, "--export", id];
        let outcome = ctx.exec.run(&export, &env);
        if !outcome.ok() {
            return Err(KeyError::Fetch(format!(
                "gpg --export {}",
                outcome.describe()
            )));
        }
        self.take(ctx, &file)
    }

    /// A `file://` URL or a path is read from the target; http(s) is fetched with the target's
    /// curl (else wget), three retries three seconds apart as cloud-init's.
    fn by_url(&mut self, ctx: &ModCtx, url: &str) -> Result<Vec<u8>, KeyError> {
        let local = url
            .strip_prefix("file://")
            .or(url.starts_with('/').then_some(url));
        if let Some(path) = local {
            return match ctx.root.read_file(path, MAX_KEY) {
                Ok(Some(d)) => Ok(d),
                Ok(None) => Err(KeyError::Fetch("no such file in the target".into())),
                Err(e) => Err(KeyError::Fetch(e.to_string())),
            };
        }
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(KeyError::Fetch(
                "only http, https and file URLs are fetched".into(),
            ));
        }
        self.work_dir(ctx)?;
        let file = format!("{WORK}/key.url");
        let argv: Vec<&str> = if which(ctx.root, "curl").is_some() {
            let opts = ["--fail", "--silent", "--show-error", "--location"];
            let retry = ["--retry", "3", "--retry-delay", "3", "--output", &file, url];
            std::iter::once("curl").chain(opts).chain(retry).collect()
        } else if which(ctx.root, "wget").is_some() {
            vec![
                "wget",
                "--quiet",
                "--tries=4",
                "--waitretry=3",
                "-O",
                &file,
                url,
            ]
        } else {
            return Err(KeyError::Fetch(
                "no curl or wget in the target to fetch the key".into(),
            ));
        };
        let outcome = ctx.exec.run(&argv, &[]);
        if !outcome.ok() {
            return Err(KeyError::Fetch(format!(
                "{} {}",
                argv[0],
                outcome.describe()
            )));
        }
        self.take(ctx, &file)
    }

    /// Stops the agents gpg started (cloud-init's `gpgconf --kill all`) and removes the work
    /// directory.
    pub fn finish(self, ctx: &ModCtx) {
        if self.gpg_ran && which(ctx.root, "gpgconf").is_some() {
            let _ = ctx
                .exec
                .run(&["gpgconf", "--kill", "all"], &[("GNUPGHOME", WORK)]);
        }
        if self.started {
            let _ = ctx.root.remove_tree(WORK);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small binary "key" (an OpenPGP user ID packet) and its armor, made by hand: the
    /// checksum computed independently of `crc24` (RFC 4880's example value for no data).
    #[test]
    fn dearmors_with_checksum() {
        assert_eq!(crc24(&[]), 0xB7_04CE);
        let packet = b"\xb4\x05hello".to_vec();
        let engine = base64::engine::general_purpose::STANDARD;
        let body = engine.encode(&packet);
        let sum = engine.encode(&crc24(&packet).to_be_bytes()[1..]);
        let armored = format!(
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: test\n\n{body}\n={sum}\n\
             -----END PGP PUBLIC KEY BLOCK-----\n"
        );
        assert_eq!(dearmor(armored.as_bytes()).unwrap(), packet);
        // No headers, CRLF line ends, two blocks: both kept, in order.
        let two = format!(
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\r\n{body}\r\n-----END PGP PUBLIC KEY BLOCK-----\r\n\
             -----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body}\n-----END PGP PUBLIC KEY BLOCK-----\n"
        );
        assert_eq!(
            dearmor(two.as_bytes()).unwrap(),
            [&packet[..], &packet].concat()
        );
        // Binary passes through.
        assert_eq!(dearmor(&packet).unwrap(), packet);
        let bad_sum = armored.replace(&format!("={sum}"), "=AAAA");
        assert!(matches!(
            dearmor(bad_sum.as_bytes()),
            Err(KeyError::Invalid(_))
        ));
        for bad in ["<key data>", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n!!\n"] {
            assert!(
                matches!(dearmor(bad.as_bytes()), Err(KeyError::Invalid(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn stems() {
        assert_eq!(stem("repo.list"), "repo");
        assert_eq!(stem("/etc/apt/x/a.b.list"), "a.b");
        assert_eq!(stem("primary"), "primary");
        assert_eq!(stem(".list"), ".list");
    }
}

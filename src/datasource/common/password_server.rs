//! The CloudStack password server (Exoscale runs the same) on port 8080 of the metadata host:
//! `DomU_Request: send_my_password` answers the instance's new password, or nothing or
//! `saved_password` when there is none; `DomU_Request: saved_password` then acknowledges it,
//! so the server stops handing it out. The password is a `Secret` from the socket on and
//! leaves this file only as a SHA-512 crypt hash in the platform's cloud-config, the way
//! cloud-init sets it: the default user's `password`, not expiring, `ssh_pwauth` on.
//! Not here: the metadata service (the datasources').
//! <https://docs.cloudstack.apache.org/en/latest/adminguide/templates/_password.html>

use super::client::Client;
use crate::datasource::InstanceData;
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{json, Value};

/// Passwords are short; anything longer is not one.
const MAX_BYTES: u64 = 4096;

/// The URL of the server on `port` of the host of `base` (`http://169.254.169.254`), with
/// `path` after it.
pub fn url_on_port(base: &str, port: u16, path: &str) -> String {
    let rest = base.split_once("://").map_or(base, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host = match authority.strip_prefix('[') {
        Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or(v6)),
        None => authority.split(':').next().unwrap_or(authority).to_string(),
    };
    format!("http://{host}:{port}/{}", path.trim_start_matches('/'))
}

/// The new password, acknowledged; `None` when the server has none for this instance. An
/// `Err` names the URL and says what failed, never a password; after a failed
/// acknowledgement the password is not used (the server hands it out again next boot).
pub fn fetch(client: &Client, url: &str, reads: &mut u32) -> Result<Option<Secret<String>>, Diag> {
    let shown = crate::fetch::redact_url(url);
    let ask =
        |request: &str, reads: &mut u32| -> Result<Secret<String>, Diag> {
            let headers = [("DomU_Request".to_string(), request.to_string())];
            let body = Secret::new(client.get_beside(url, &headers, MAX_BYTES, reads)?);
            match std::str::from_utf8(body.expose()) {
                Ok(text) => Ok(Secret::new(text.trim().to_string())),
                Err(_) => Err(Diag::error(Reason::NotUtf8, "the answer is not UTF-8 text")
                    .file(shown.clone())),
            }
        };
    let password = ask("send_my_password", reads)?;
    match password.expose().as_str() {
        "" | "saved_password" => return Ok(None),
        "bad_request" => {
            let msg = "the password server answered bad_request";
            return Err(Diag::error(Reason::MetadataStatus, msg).file(shown));
        }
        _ => {}
    }
    ask("saved_password", reads).map_err(|mut d| {
        d.message = format!(
            "{}; the password is not set (the server keeps it for the next boot)",
            d.message
        );
        d
    })?;
    Ok(Some(password))
}

/// cloud-init's config for a platform password: the default user's `password` (here its
/// SHA-512 crypt hash), `chpasswd: {expire: false}`, `ssh_pwauth: true`. `None` when no
/// randomness could salt the hash.
pub fn config(password: &Secret<String>) -> Option<Value> {
    let hash = crate::password::hash(password)?;
    Some(json!({
        "ssh_pwauth": true,
        "password": hash.expose(),
        "chpasswd": {"expire": false},
    }))
}

/// The password server's password at `url` (read with `client`'s timing) into `data`'s
/// platform config (as its hash); a failure is a warning, as cloud-init logs it and goes on:
/// the instance provisions without it.
pub fn apply(client: &Client, url: &str, data: &mut InstanceData) {
    match fetch(client, url, &mut data.reads) {
        Ok(None) => {}
        Ok(Some(pw)) => match config(&pw) {
            Some(cfg) => data.config = Some(cfg),
            None => data.diags.push(
                Diag::error(
                    Reason::PasswordFailed,
                    "no randomness to salt the hash: password not set",
                )
                .file(crate::fetch::redact_url(url)),
            ),
        },
        Err(mut d) => {
            d.severity = Severity::Warning;
            d.message = format!("password server: {}", d.message);
            data.diags.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_on_the_metadata_host() {
        let cases = [
            (
                "http://169.254.169.254",
                8080,
                "1.0/",
                "http://169.254.169.254:8080/1.0/",
            ),
            ("http://127.0.0.1:4242/", 9999, "", "http://127.0.0.1:9999/"),
            ("http://10.1.1.1/latest/", 8080, "", "http://10.1.1.1:8080/"),
            ("http://[fd00::1]:80", 8080, "", "http://[fd00::1]:8080/"),
        ];
        for (base, port, path, want) in cases {
            assert_eq!(url_on_port(base, port, path), want, "{base}");
        }
    }

    #[test]
    fn the_config_holds_a_hash_only() {
        let pw = Secret::new("Pw-plain-1".to_string());
        let cfg = config(&pw).unwrap();
        let hashed = cfg["password"].as_str().unwrap();
        assert!(hashed.starts_with("$6$"), "{hashed}");
        assert!(!cfg.to_string().contains("Pw-plain-1"));
        assert_eq!(cfg["chpasswd"]["expire"], false);
        assert_eq!(cfg["ssh_pwauth"], true);
    }
}

//! `apt.proxy`, `http_proxy`, `ftp_proxy`, `https_proxy` into
//! `/etc/apt/apt.conf.d/90cloud-init-aptproxy` (`Acquire::<scheme>::Proxy "URL";` lines in
//! that order), and `apt.conf` as given into `/etc/apt/apt.conf.d/94cloud-init-config`. As
//! cloud-init, a file whose keys are not given is removed, so a later instance does not
//! inherit an earlier one's proxy. A proxy URL with a password makes its file 0600 (cloud-init
//! leaves it world-readable).

use super::settings::Settings;
use super::ModCtx;
use crate::conf_lang::apt_conf;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;

pub const PROXY_FILE: &str = "/etc/apt/apt.conf.d/90cloud-init-aptproxy";
pub const CONFIG_FILE: &str = "/etc/apt/apt.conf.d/94cloud-init-config";

/// The proxy file's text, or `None` with no proxy. A URL apt.conf cannot hold (a `"`, a line
/// break: either would let it add a directive of its own) is an error naming its key and is
/// left out; the other proxies are written.
pub fn proxy_text(s: &Settings, diags: &mut Vec<Diag>) -> Option<String> {
    let mut lines = Vec::new();
    for (scheme, key, url) in &s.proxies {
        match apt_conf::quoted(url) {
            Ok(url) => lines.push(format!("Acquire::{scheme}::Proxy {url};")),
            Err(why) => {
                let msg = format!("{why}; proxy not set");
                diags.push(Diag::error(Reason::BadValue, msg).key(s.path(key)));
            }
        }
    }
    if lines.is_empty() {
        return None;
    }
    Some(lines.join("\n") + "\n")
}

/// Whether a URL carries a password (`scheme://user:pass@host`).
fn has_secret(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or_default();
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

pub fn apply(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) {
    let secret = s.proxies.iter().any(|(_, _, url)| has_secret(url));
    let mode = if secret { 0o600 } else { 0o644 };
    put(
        ctx,
        PROXY_FILE,
        proxy_text(s, diags),
        mode,
        &s.path("proxy"),
        diags,
    );
    put(
        ctx,
        CONFIG_FILE,
        s.conf.clone(),
        0o644,
        &s.path("conf"),
        diags,
    );
}

fn put(
    ctx: &ModCtx,
    path: &str,
    text: Option<String>,
    mode: u32,
    key: &str,
    diags: &mut Vec<Diag>,
) {
    let done = match &text {
        Some(t) => ctx
            .root
            .write_file(path, t.as_bytes(), &FileSpec::mode(mode)),
        None if ctx.root.exists(path) => ctx.root.remove_file(path),
        None => return,
    };
    match done {
        Ok(()) if text.is_some() => ctx.exec.say(&format!("apt_configure: wrote {path}")),
        Ok(()) => ctx.exec.say(&format!("apt_configure: removed {path}")),
        Err(e) => diags.push(Diag::error(e.code(), e.to_string()).key(key)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_lines_in_cloud_inits_order() {
        let s = Settings {
            proxies: vec![
                ("http", "proxy", "http://p:3128".into()),
                ("ftp", "ftp_proxy", "ftp://f".into()),
                ("https", "https_proxy", "https://u:pw@q".into()),
            ],
            ..Settings::default()
        };
        let mut d = Vec::new();
        assert_eq!(
            proxy_text(&s, &mut d).unwrap(),
            "Acquire::http::Proxy \"http://p:3128\";\nAcquire::ftp::Proxy \"ftp://f\";\n\
             Acquire::https::Proxy \"https://u:pw@q\";\n"
        );
        assert!(proxy_text(&Settings::default(), &mut d).is_none());
        assert!(d.is_empty());
        assert!(has_secret("https://u:pw@q") && !has_secret("http://u@q/a:b@c"));
        assert!(!has_secret("http://p:3128"));
    }
}

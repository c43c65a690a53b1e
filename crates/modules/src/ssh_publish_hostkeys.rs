//! cc_ssh's `ssh_publish_hostkeys` on GCE, finished by the runner: ember-initrd's ssh module
//! leaves the URL and blacklist (`modules::ssh::publish`), and at the start of the config stage,
//! when every host key exists (RSA comes from `ember init`) and the network is up, each
//! `/etc/ssh/ssh_host_<type>_key.pub` not blacklisted is PUT, its key (the second word) as the
//! body, to `<url><key type>` with `Metadata-Flavor: Google`, by the target's curl (or GNU
//! wget), never through a proxy. As in cloud-init, an answer that is not 2xx is ignored; a
//! request that gets no answer is a warning and ends the publishing. Not a module of its own:
//! cloud-init does it inside cc_ssh, which ember runs in the initramfs.
//! <https://cloud.google.com/compute/docs/metadata/manage-guest-attributes>

use super::ModCtx;
use crate::common::distro::which;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::ssh::publish::{PendingPublish, PUBLISH_FILE};

/// The body of the request being made (a public key).
const BODY: &str = "/var/lib/ember/publish-hostkey.body";

/// `(key type, key)` of each public host key to publish, in glob order, as cloud-init's
/// `get_public_host_keys` reads them (the first two words of the file).
fn host_keys(ctx: &ModCtx, blacklist: &[String]) -> Vec<(String, String)> {
    let skipped: Vec<String> = blacklist
        .iter()
        .map(|t| format!("ssh_host_{t}_key.pub"))
        .collect();
    let names = ctx.root.list_dir("/etc/ssh").unwrap_or_default();
    names
        .into_iter()
        .filter(|n| n.starts_with("ssh_host_") && n.ends_with("_key.pub"))
        .filter(|n| !skipped.contains(n))
        .filter_map(|n| {
            let data = ctx
                .root
                .read_file(&format!("/etc/ssh/{n}"), 64 * 1024)
                .ok()??;
            let text = String::from_utf8_lossy(&data).into_owned();
            let mut words = text.split_whitespace();
            Some((words.next()?.to_string(), words.next()?.to_string()))
        })
        .collect()
}

/// The PUT of the body file to `url`, by the target's curl or wget.
fn put_argv(ctx: &ModCtx, url: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = if which(ctx.root, "curl").is_some() {
        vec![
            "curl",
            "-sS",
            "--noproxy",
            "*",
            "--connect-timeout",
            "10",
            "--max-time",
            "30",
            "-o",
            "/dev/null",
            "-X",
            "PUT",
            "-H",
            "Metadata-Flavor: Google",
            "--data-binary",
        ]
    } else if which(ctx.root, "wget").is_some() {
        vec![
            "wget",
            "-q",
            "--no-proxy",
            "-T",
            "30",
            "-O",
            "/dev/null",
            "--method=PUT",
            "--header=Metadata-Flavor: Google",
        ]
    } else {
        return None;
    };
    let mut argv: Vec<String> = words.into_iter().map(str::to_string).collect();
    if argv[0] == "curl" {
        argv.push(format!("@{BODY}"));
    } else {
        argv.push(format!("--body-file={BODY}"));
    }
    argv.push(url.to_string());
    Some(argv)
}

/// Publishes the host keys when ember-initrd left word to; `None` when it did not (no step).
pub fn publish(ctx: &ModCtx, diags: &mut Vec<Diag>) -> Option<String> {
    let data = ctx.root.read_file(PUBLISH_FILE, 64 * 1024).ok()??;
    let done = |diags: &mut Vec<Diag>, result: &str| {
        let _ = ctx.root.remove_file(BODY);
        if let Err(e) = ctx.root.remove_file(PUBLISH_FILE) {
            diags.push(Diag::error(e.code(), e.to_string()));
        }
        Some(result.to_string())
    };
    let pending: PendingPublish = match serde_json::from_slice(&data) {
        Ok(p) => p,
        Err(_) => {
            let msg = "not what ember-initrd writes: nothing published";
            diags.push(Diag::error(Reason::BadValue, msg).file(PUBLISH_FILE));
            return done(diags, "error");
        }
    };
    let url_ok = |u: &str| {
        u.starts_with("http://") && !u.chars().any(|c| c.is_whitespace() || c.is_control())
    };
    if !url_ok(&pending.url) {
        let msg = "the URL is not an http:// URL: nothing published";
        diags.push(Diag::error(Reason::BadValue, msg).file(PUBLISH_FILE));
        return done(diags, "error");
    }
    if put_argv(ctx, &pending.url).is_none() {
        let msg = "no curl or wget in the target: host keys not published";
        diags.push(Diag::warning(Reason::ToolMissing, msg).key("ssh_publish_hostkeys"));
        return done(diags, "ok");
    }
    for (key_type, key) in host_keys(ctx, &pending.blacklist) {
        let url = format!("{}{key_type}", pending.url);
        let Some(argv) = put_argv(ctx, &url).filter(|_| url_ok(&url)) else {
            continue;
        };
        if let Err(e) = ctx
            .root
            .write_file(BODY, key.as_bytes(), &FileSpec::mode(0o600))
        {
            diags.push(Diag::warning(e.code(), e.to_string()).key("ssh_publish_hostkeys"));
            break;
        }
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = ctx.exec.run(&argv, &[]);
        if !outcome.ok() {
            let msg = format!(
                "publishing host keys failed: {} {}",
                argv[0],
                outcome.describe()
            );
            diags.push(Diag::warning(Reason::CommandFailed, msg).key("ssh_publish_hostkeys"));
            break;
        }
    }
    done(diags, "ok")
}

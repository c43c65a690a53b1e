//! `apt.sources`: each entry's key first (to `$KEY_FILE`, `/etc/apt/cloud-init.gpg.d/`, when
//! its `source` names it, else `/etc/apt/trusted.gpg.d/`), then its `source` line with
//! `$MIRROR`, `$PRIMARY`, `$SECURITY`, `$RELEASE` and `$KEY_FILE` put in: a line like
//! `ppa:owner/name` (cloud-init's `add_apt_repo_match`) goes to the target's
//! `add-apt-repository --no-update`, any other is appended (or with `append: false` written) to
//! `/etc/apt/sources.list.d/<filename>.list` (`.list` added; an absolute `filename` kept), as
//! cloud-init writes it whatever its format. Then apt's lists are refreshed (`apt-get update`).
//! Entries go in name order: the handoff's mappings are sorted (cloud-init keeps YAML order).

use super::keys::{stem, Keys};
use super::mirrors::Mirrors;
use super::settings::Source;
use super::template::{self, Error};
use super::ModCtx;
use crate::common::distro::which;
use crate::error::Diag;
use crate::packages::{Manager, Op};
use crate::reason::Reason;
use crate::root::FileSpec;

const PARTS: &str = "/etc/apt/sources.list.d/";

/// cloud-init's default `add_apt_repo_match`, `^[\w-]+:\w`: a word (dashes allowed), a
/// colon, a word character (`ppa:x`, `cloud-archive:y`; not `deb http://...`).
pub fn is_repo_name(source: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let Some((head, rest)) = source.split_once(':') else {
        return false;
    };
    !head.is_empty()
        && head.chars().all(|c| word(c) || c == '-')
        && rest.chars().next().is_some_and(word)
}

/// The file an entry's line goes to. `filename` passed `crate::root::name_or_path` when the
/// settings were read: one name, or an absolute path without `.` or `..` components.
pub fn list_file(filename: &str) -> String {
    let mut path = if filename.starts_with('/') {
        filename.to_string()
    } else {
        format!("{PARTS}{filename}")
    };
    if !path.ends_with(".list") {
        path.push_str(".list");
    }
    path
}

pub fn add(
    ctx: &ModCtx,
    sources: &[Source],
    mirrors: &Mirrors,
    release: &str,
    keys: &mut Keys,
    diags: &mut Vec<Diag>,
) {
    // cloud-init keeps the last $KEY_FILE for later entries that name none of their own.
    let mut key_file: Option<String> = None;
    for src in sources {
        let uses_key_file = src
            .source
            .as_deref()
            .is_some_and(|s| s.contains("$KEY_FILE"));
        let name = stem(&src.filename);
        let written = keys.add(ctx, &src.keys, name, uses_key_file, &src.path, diags);
        if uses_key_file {
            key_file = written;
        }
        let Some(line) = &src.source else { continue };
        let mut vars = mirrors.vars();
        vars.insert("RELEASE".into(), release.into());
        if let Some(k) = &key_file {
            vars.insert("KEY_FILE".into(), k.as_str().into());
        }
        let line = match template::render(ctx.root, line, &vars.into()) {
            Ok(l) => l,
            Err(e) => {
                let msg = format!("{e}; entry skipped");
                let code = match e {
                    Error::Template(_) => Reason::TemplateError,
                    _ if uses_key_file && key_file.is_none() => Reason::MissingKey,
                    Error::Undefined(_) => Reason::TemplateUndefined,
                };
                diags.push(Diag::error(code, msg).key(format!("{}.source", src.path)));
                continue;
            }
        };
        if is_repo_name(&line) {
            add_repository(ctx, &line, &src.path, diags);
            continue;
        }
        let path = list_file(&src.filename);
        let text = format!("{line}\n");
        let spec = FileSpec::mode(0o644);
        let done = if src.append {
            ctx.root.append_file(&path, text.as_bytes(), &spec)
        } else {
            ctx.root.write_file(&path, text.as_bytes(), &spec)
        };
        match done {
            Ok(()) => ctx.exec.say(&format!("apt_configure: wrote {path}")),
            Err(e) => diags.push(Diag::error(e.code(), e.to_string()).key(&src.path)),
        }
    }
    update(ctx, "apt.sources", diags);
}

/// `add-apt-repository --no-update LINE` (the repository's name is config, not a secret).
fn add_repository(ctx: &ModCtx, line: &str, key: &str, diags: &mut Vec<Diag>) {
    let key = format!("{key}.source");
    if which(ctx.root, "add-apt-repository").is_none() {
        let msg = "no add-apt-repository in the target (software-properties-common)";
        diags.push(Diag::error(Reason::ToolMissing, msg).key(key));
        return;
    }
    let outcome = ctx
        .exec
        .run(&["add-apt-repository", "--no-update", line], &[]);
    if !outcome.ok() {
        let msg = format!("add-apt-repository {}", outcome.describe());
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
    }
}

/// `apt-get update`, as cloud-init's distro class runs it.
pub fn update(ctx: &ModCtx, key: &str, diags: &mut Vec<Diag>) -> bool {
    run_apt(ctx, Op::Update, &[], key, diags)
}

/// apt-get `op` on `pkgs`; false (with an error naming `key`) when it failed.
pub fn run_apt(ctx: &ModCtx, op: Op, pkgs: &[String], key: &str, diags: &mut Vec<Diag>) -> bool {
    let argv = Manager::Apt.argv(op, pkgs);
    ctx.exec
        .say(&format!("apt_configure: running {}", argv.join(" ")));
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let outcome = ctx
        .exec
        .run(&args, &[("DEBIAN_FRONTEND", "noninteractive")]);
    if !outcome.ok() {
        let msg = format!("apt-get {}", outcome.describe());
        diags.push(Diag::error(Reason::PackageCommandFailed, msg).key(key));
    }
    outcome.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_names() {
        for yes in ["ppa:owner/name", "cloud-archive:caracal", "a_b-c:x"] {
            assert!(is_repo_name(yes), "{yes}");
        }
        for no in ["deb http://x y z", "ppa:", ":x", "ppa :x", "deb [a] x:y"] {
            assert!(!is_repo_name(no), "{no}");
        }
    }

    #[test]
    fn list_files() {
        assert_eq!(list_file("repo"), "/etc/apt/sources.list.d/repo.list");
        assert_eq!(list_file("repo.list"), "/etc/apt/sources.list.d/repo.list");
        assert_eq!(list_file("/etc/apt/x.sources"), "/etc/apt/x.sources.list");
    }
}

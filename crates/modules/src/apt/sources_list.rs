//! The default sources, rendered as cloud-init renders them unless `preserve_sources_list`:
//! `apt.sources_list` when given, else the image's cloud-init template
//! (`/etc/cloud/templates/sources.list.<distro>[.deb822].tmpl`, then `sources.list.tmpl`),
//! over `$MIRROR`/`$PRIMARY`/`$SECURITY`/`$RELEASE` and `{{ mirror }}`, `{{ codename }}`,
//! `{{ primary_key }}`... (Jinja by ember-initrd, see `template`). deb822 text goes to
//! `/etc/apt/sources.list.d/<distro>.sources` (then `/etc/apt/sources.list` is removed, or on
//! Ubuntu reduced to its pointer comment), one-line text to `/etc/apt/sources.list`; then
//! `disable_suites` comments suites out.
//!
//! With no template in the image (ember without cloud-init's package) cloud-init warns and
//! writes nothing: the image's own sources stay. ember says so in the log, and warns only
//! when the config asked for something only rendering could do (`primary`, `security`,
//! `disable_suites`).

use super::mirrors::Mirrors;
use super::settings::Settings;
use super::suites;
use super::target::Target;
use super::template::{self, Error};
use super::ModCtx;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use ember_core::sort::IntoMap;
use std::collections::BTreeMap;

const SOURCES_LIST: &str = "/etc/apt/sources.list";
const SOURCE_PARTS: &str = "/etc/apt/sources.list.d/";
/// What Ubuntu's images leave in /etc/apt/sources.list once sources moved to deb822, which
/// cloud-init keeps (and puts back in place of anything else there).
const UBUNTU_POINTER: &str = "\
# Ubuntu sources have moved to the /etc/apt/sources.list.d/ubuntu.sources
# file, which uses the deb822 format. Use deb822-formatted .sources files
# to manage package sources in the /etc/apt/sources.list.d/ directory.
# See the sources.list(5) manual page for details.
";

/// Renders and writes the default sources. `keys` are the `primary_key`/`security_key`
/// variables (the mirror keys' files).
pub fn generate(
    ctx: &ModCtx,
    s: &Settings,
    target: &Target,
    mirrors: &Mirrors,
    keys: &BTreeMap<String, String>,
    diags: &mut Vec<Diag>,
) {
    let deb822_file = format!("{SOURCE_PARTS}{}.sources", target.distro);
    let mut file = if target.deb822 {
        deb822_file.clone()
    } else {
        SOURCES_LIST.to_string()
    };
    let key = s.path("sources_list");
    let (tmpl, origin) = match &s.sources_list {
        Some(t) => (t.clone(), key.clone()),
        None => match template_file(ctx, target) {
            Some((path, text)) => (text, path),
            None => {
                let wanted =
                    ["primary", "security", "disable_suites"]
                        .into_iter()
                        .find(|k| match *k {
                            "primary" => s.primary.is_some(),
                            "security" => s.security.is_some(),
                            _ => !s.disable_suites.is_empty(),
                        });
                let dir = &crate::paths::system().templates_dir;
                let msg = format!("no sources template in {dir}/: {file} not rendered");
                match wanted {
                    Some(k) => diags.push(Diag::warning(Reason::PathMissing, msg).key(s.path(k))),
                    None => ctx
                        .exec
                        .say(&format!("apt_configure: {msg} (the image's sources stay)")),
                }
                return;
            }
        },
    };
    // The keys' files first: the fixed names win, as cloud-init's params.update leaves them.
    let mut vars: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().into()))
        .into_map();
    for (names, value) in [
        (&["RELEASE", "codename"][..], &target.codename),
        (
            &["MIRROR", "mirror", "PRIMARY", "primary"],
            &mirrors.primary,
        ),
        (&["SECURITY", "security"], &mirrors.security),
    ] {
        for name in names {
            vars.insert(name.to_string(), value.as_str().into());
        }
    }
    let rendered = match template::render(ctx.root, &tmpl, &vars.into()) {
        Ok(r) => r,
        Err(e) => {
            let reason = match e {
                Error::Undefined(_) => Reason::TemplateUndefined,
                Error::Template(_) => Reason::TemplateError,
            };
            let msg = format!("{origin}: {e}; {file} not written");
            diags.push(Diag::error(reason, msg).key(key));
            return;
        }
    };
    match suites::looks_deb822(&rendered) {
        Some(true) => file = deb822_file.clone(),
        Some(false) => file = SOURCES_LIST.to_string(),
        None => {
            let msg = "neither deb822 nor one-line sources: taken as one-line";
            diags.push(Diag::warning(Reason::BadValue, msg).key(key.clone()));
            file = SOURCES_LIST.to_string();
        }
    }
    let text = match suites::disable(ctx.root, &s.disable_suites, &rendered, &target.codename) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!("{e}; {file} not written");
            diags.push(Diag::error(Reason::TemplateUndefined, msg).key(s.path("disable_suites")));
            return;
        }
    };
    if let Err(e) = ctx
        .root
        .write_file(&file, text.as_bytes(), &FileSpec::mode(0o644))
    {
        diags.push(Diag::error(e.code(), e.to_string()).key(key));
        return;
    }
    ctx.exec.say(&format!("apt_configure: wrote {file}"));
    if file == deb822_file && ctx.root.exists(SOURCES_LIST) {
        retire_sources_list(ctx, target, diags);
    }
}

/// The template cloud-init would pick, with its path.
fn template_file(ctx: &ModCtx, target: &Target) -> Option<(String, String)> {
    let fmt = if target.deb822 { ".deb822" } else { "" };
    let names = [
        format!("sources.list.{}{fmt}", target.distro),
        "sources.list".to_string(),
    ];
    names.iter().find_map(|n| {
        let path = crate::paths::system().template(n);
        let data = ctx.root.read_file(&path, 1 << 20).ok()??;
        Some((path, String::from_utf8_lossy(&data).into_owned()))
    })
}

/// With the sources in deb822, the one-line list goes (on Ubuntu: becomes the pointer).
fn retire_sources_list(ctx: &ModCtx, target: &Target, diags: &mut Vec<Diag>) {
    let done = if target.distro == "ubuntu" {
        let current = ctx.root.read_file(SOURCES_LIST, 4 << 20).ok().flatten();
        if current.as_deref() == Some(UBUNTU_POINTER.as_bytes()) {
            return;
        }
        let spec = FileSpec::mode(0o644);
        ctx.root
            .write_file(SOURCES_LIST, UBUNTU_POINTER.as_bytes(), &spec)
    } else {
        ctx.root.remove_file(SOURCES_LIST)
    };
    match done {
        Ok(()) => ctx.exec.say(&format!(
            "apt_configure: {SOURCES_LIST} replaced in favour of the deb822 sources"
        )),
        Err(e) => diags.push(Diag::error(e.code(), e.to_string()).key("apt")),
    }
}

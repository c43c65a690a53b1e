//! `apk_configure`: writes /etc/apk/repositories from `apk_repos.alpine_repo` (main, and
//! community and testing when enabled) and `local_repo_base_url`, with the text cloud-init's
//! Jinja template renders, produced here without Jinja. `preserve_repositories: true` (or no
//! `alpine_repo.version`) leaves the file alone.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#apk-configure>

use super::{ModCtx, RunnerModule};
use crate::common::pyvalue::{py_str, translate_bool, truthy};
use crate::conf_lang::apk;
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct ApkConfigure;

const REPOSITORIES: &str = "/etc/apk/repositories";
/// cloud-init's mirror when `base_url` is not given.
const DEFAULT_MIRROR: &str = "https://alpine.global.ssl.fastly.net/alpine";

#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    pub base_url: String,
    pub version: String,
    pub community: bool,
    pub testing: bool,
    /// `local_repo_base_url`; empty when not given.
    pub local: String,
}

/// `apk_repos`: None when the file is to be left alone (the reasons cloud-init skips quietly,
/// or a value it fails on, with its diagnostic).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let apk = cfg.get("apk_repos").filter(|v| truthy(v))?;
    let Some(apk) = apk.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("apk_repos"));
        return None;
    };
    if translate_bool(apk.get("preserve_repositories")) {
        return None;
    }
    let repo = apk.get("alpine_repo").filter(|v| truthy(v))?;
    let Some(repo) = repo.as_object() else {
        let msg = "expected a mapping";
        diags.push(Diag::error(Reason::WrongType, msg).key("apk_repos.alpine_repo"));
        return None;
    };
    let version = repo.get("version").filter(|v| truthy(v))?;
    let s = Settings {
        base_url: repo.get("base_url").map_or(DEFAULT_MIRROR.into(), py_str),
        version: py_str(version),
        community: repo.get("community_enabled").is_some_and(truthy),
        testing: repo.get("testing_enabled").is_some_and(truthy),
        local: apk
            .get("local_repo_base_url")
            .map(py_str)
            .unwrap_or_default(),
    };
    // Each part goes into a repository line (`conf_lang::apk`); the local one when given.
    let parts = [
        (&s.base_url, "apk_repos.alpine_repo.base_url"),
        (&s.version, "apk_repos.alpine_repo.version"),
        (&s.local, "apk_repos.local_repo_base_url"),
    ];
    for (v, key) in parts.into_iter().filter(|(v, _)| !v.is_empty()) {
        if let Err(why) = apk::part(v) {
            let msg = format!("{why}; the repositories are left as they are");
            diags.push(Diag::error(Reason::BadValue, msg).key(key));
            return None;
        }
    }
    Some(s)
}

/// The repositories file, exactly as cloud-init's template renders it.
pub fn render(s: &Settings) -> String {
    let (base, ver) = (&s.base_url, &s.version);
    let mut out = String::from(
        "#\n# Created by cloud-init\n#\n# This file is written on first boot of an instance\n#\n\n",
    );
    out.push_str(&format!("{base}/{ver}/main\n"));
    if s.community {
        out.push_str(&format!("{base}/{ver}/community\n"));
    }
    if s.testing {
        if ver != "edge" {
            out.push_str(
                "#\n# Testing - using with non-Edge installation may cause problems!\n#\n",
            );
        }
        out.push_str(&format!("{base}/edge/testing\n"));
    }
    if !s.local.is_empty() {
        out.push_str(&format!("\n#\n# Local repo\n#\n{}/{ver}\n", s.local));
    }
    out.push('\n');
    out
}

const ALPINE_REPO: Fields = Fields {
    fields: &[
        ("base_url", Shape::Str),
        ("community_enabled", Shape::Bool),
        ("testing_enabled", Shape::Bool),
        ("version", Shape::Str),
    ],
    required: &["version"],
    open: false,
};
const APK_REPOS: Fields = Fields {
    fields: &[
        ("preserve_repositories", Shape::Bool),
        (
            "alpine_repo",
            Shape::OneOf(&[Shape::Null, Shape::Map(&ALPINE_REPO)]),
        ),
        ("local_repo_base_url", Shape::Str),
    ],
    required: &[],
    open: false,
};
const SHAPES: &[(&str, Shape)] = &[("apk_repos", Shape::Map(&APK_REPOS))];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for ApkConfigure {
    fn name(&self) -> &'static str {
        "apk_configure"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        let text = render(&settings);
        let spec = FileSpec::mode(0o644);
        if let Err(e) = ctx.root.write_file(REPOSITORIES, text.as_bytes(), &spec) {
            diags.push(Diag::error(e.code(), e.to_string()).key("apk_repos"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HEAD: &str =
        "#\n# Created by cloud-init\n#\n# This file is written on first boot of an instance\n#\n\n";

    fn file(cfg: Value) -> Option<String> {
        let mut d = Vec::new();
        let s = read(&cfg, &mut d);
        assert!(d.is_empty(), "{d:?}");
        s.as_ref().map(render)
    }

    /// A base URL, version or local repository with a line break (a repository of its own)
    /// or a blank is an error naming its key, and nothing is written.
    #[test]
    fn repository_parts_with_line_breaks_are_refused_by_key() {
        for (k, v, key) in [
            (
                "base_url",
                "http://m\nhttp://evil.example/alpine/v3.18/main",
                "apk_repos.alpine_repo.base_url",
            ),
            (
                "version",
                "v3.18\rhttp://evil",
                "apk_repos.alpine_repo.version",
            ),
            ("local", "http://l/a b", "apk_repos.local_repo_base_url"),
        ] {
            let mut repo = json!({"version": "v3.18"});
            let mut apk = json!({});
            match k {
                "local" => apk["local_repo_base_url"] = json!(v),
                _ => repo[k] = json!(v),
            }
            apk["alpine_repo"] = repo;
            let mut d = Vec::new();
            assert_eq!(read(&json!({"apk_repos": apk}), &mut d), None, "{k}");
            let keys: Vec<_> = d.iter().map(|d| d.key.as_deref().unwrap()).collect();
            assert_eq!(keys, [key]);
        }
    }

    #[test]
    fn renders_as_the_template() {
        let m = DEFAULT_MIRROR;
        let only = json!({"apk_repos": {"alpine_repo": {"version": "v3.12"}}});
        assert_eq!(file(only).unwrap(), format!("{HEAD}{m}/v3.12/main\n\n"));
        let all = json!({"apk_repos": {"alpine_repo": {"version": "v3.12",
            "community_enabled": true, "testing_enabled": true},
            "local_repo_base_url": "http://l/x"}});
        assert_eq!(
            file(all).unwrap(),
            format!(
                "{HEAD}{m}/v3.12/main\n{m}/v3.12/community\n#\n# Testing - using with \
                 non-Edge installation may cause problems!\n#\n{m}/edge/testing\n\n#\n\
                 # Local repo\n#\nhttp://l/x/v3.12\n\n"
            )
        );
        let edge = json!({"apk_repos": {"alpine_repo": {"version": "edge",
            "base_url": "https://mirror/alpine", "testing_enabled": true}}});
        let b = "https://mirror/alpine";
        assert_eq!(
            file(edge).unwrap(),
            format!("{HEAD}{b}/edge/main\n{b}/edge/testing\n\n")
        );
    }

    #[test]
    fn left_alone_as_cloud_init_leaves_it() {
        let cases = [
            json!({"apk_repos": {"preserve_repositories": true,
                                 "alpine_repo": {"version": "v3.12"}}}),
            json!({"apk_repos": {"preserve_repositories": "yes",
                                 "alpine_repo": {"version": "v3.12"}}}),
            json!({"apk_repos": {"alpine_repo": null}}),
            json!({"apk_repos": {"alpine_repo": {"community_enabled": true}}}),
            json!({"apk_repos": {}}),
        ];
        for cfg in cases {
            assert_eq!(file(cfg.clone()), None, "{cfg}");
        }
        let mut d = Vec::new();
        assert_eq!(
            read(&json!({"apk_repos": {"alpine_repo": [1]}}), &mut d),
            None
        );
        assert_eq!(d[0].key.as_deref(), Some("apk_repos.alpine_repo"));
    }
}

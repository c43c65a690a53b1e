//! The module on a temporary root with a scripted URL reader: keys of bad items, the source
//! fallback, defer, and content kept out of every message.

use super::*;
use crate::instance::InstanceData;
use crate::limits::Limits;
use crate::root::Root;
use crate::url_read::{FetchError, HeaderUrlReader, UrlReader};
use serde_json::{json, Value};
use std::sync::Mutex;

/// Answers `https://ok/...` with the path and the headers it got; anything else fails.
#[derive(Default)]
struct Urls(Mutex<Vec<Request>>);

/// A URL asked for, with its headers.
type Request = (String, Vec<(String, String)>);

impl UrlReader for Urls {
    fn read(&self, url: &str, max: u64) -> Result<Vec<u8>, FetchError> {
        self.read_with_headers(url, &[], max)
    }
}

impl HeaderUrlReader for Urls {
    fn read_with_headers(
        &self,
        url: &str,
        h: &[(String, String)],
        _: u64,
    ) -> Result<Vec<u8>, FetchError> {
        self.0.lock().unwrap().push((url.to_string(), h.to_vec()));
        match url.strip_prefix("https://ok") {
            Some(rest) => Ok(format!("fetched {rest}\n").into_bytes()),
            None => Err(FetchError::Failed {
                url: url.into(),
                reason: format!("refused {url}"),
            }),
        }
    }
}

/// Runs the module on a fresh root holding one file, `/etc/src`.
fn run(name: &str, cfg: Value, urls: &Urls, check: impl FnOnce(&std::path::Path, Vec<Diag>)) {
    let dir = std::env::temp_dir().join(format!("ember-wf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = Root::open(&dir).unwrap();
    root.write_file("/etc/src", b"from the target\n", &FileSpec::mode(0o644))
        .unwrap();
    let diags = run_on(&root, &cfg, urls);
    check(&dir, diags);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn run_on(root: &Root, cfg: &Value, urls: &Urls) -> Vec<Diag> {
    let instance = InstanceData {
        instance_id: "iid-1".into(),
        ..InstanceData::default()
    };
    let limits = Limits::default();
    let ctx = ModuleCtx {
        root,
        cfg,
        instance: &instance,
        limits: &limits,
        distro: "debian",
        console: &|_| {},
        urls,
        jinja: &ember_jinja::MiniJinja,
        host: &crate::host::Host::new("/nonexistent"),
        target_path: std::path::Path::new("/nonexistent"),
        cmdline: &[],
        marks: &Default::default(),
    };
    let mut diags = Vec::new();
    WriteFiles.run(&ctx, &mut diags);
    diags
}

fn keys(diags: &[Diag]) -> Vec<(String, String)> {
    diags
        .iter()
        .map(|d| (d.code.clone(), d.key.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn bad_types_name_their_keys() {
    let urls = Urls::default();
    run("types-top", json!({"write_files": 5}), &urls, |_, d| {
        assert_eq!(
            keys(&d),
            [("wrong-type".to_string(), "write_files".to_string())]
        );
    });
    let cfg = json!({"write_files": [
        {"path": "/a", "content": 3},
        {"content": "SECRET-1"},
        {"path": "rel", "permissions": "0999", "owner": ["x"], "append": 2},
        {"path": "/b", "encoding": "b64", "content": "SECRET-2!!"},
        "just a string",
        {"path": "/ok", "content": "SECRET-3", "encoding": "rot13", "permissions": 644},
    ]});
    run("types-items", cfg, &urls, |dir, d| {
        let want = [
            ("wrong-type", "write_files.0.content"),
            ("path-missing", "write_files.1.path"),
            ("wrong-type", "write_files.2.append"),
            ("path-invalid", "write_files.2.path"),
            ("wrong-type", "write_files.2.owner"),
            ("permissions-invalid", "write_files.2.permissions"),
            ("base64-invalid", "write_files.3.content"),
            ("wrong-type", "write_files.4"),
            ("encoding-unknown", "write_files.5.encoding"),
            ("permissions-decimal", "write_files.5.permissions"),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(c, k)| (c.to_string(), k.to_string()))
            .collect();
        assert_eq!(keys(&d), want);
        // cloud-init warns and goes on for an entry without a path and for a flag it cannot
        // read (false); the rest fail the item.
        let warned: Vec<_> = d
            .iter()
            .filter(|d| !d.is_error())
            .map(|d| d.key.clone())
            .collect();
        let warned: Vec<_> = warned.iter().flatten().map(String::as_str).collect();
        assert_eq!(
            warned,
            [
                "write_files.1.path",
                "write_files.2.append",
                "write_files.5.encoding",
                "write_files.5.permissions"
            ]
        );
        assert!(!d.iter().any(|d| d.to_string().contains("SECRET")), "{d:?}");
        assert_eq!(std::fs::read(dir.join("ok")).unwrap(), b"SECRET-3");
        assert!(!dir.join("a").exists() && !dir.join("b").exists());
    });
}

#[test]
fn source_is_fetched_or_falls_back_to_content() {
    let urls = Urls::default();
    let cfg = json!({"write_files": [
        {"path": "/f1", "source": {"uri": "https://ok/one", "headers": {"Authorization": "Bearer T0KEN"}},
         "content": "unused", "encoding": "b64"},
        {"path": "/f2", "source": {"uri": "https://down/x?token=SECRETQ"}, "content": "ZmFsbGJhY2sK", "encoding": "b64"},
        {"path": "/f3", "source": {"uri": "file:///etc/src"}},
        {"path": "/f4", "source": {"uri": "ftp://x/y"}},
    ]});
    run("source", cfg, &urls, |dir, d| {
        assert_eq!(
            std::fs::read_to_string(dir.join("f1")).unwrap(),
            "fetched /one\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("f2")).unwrap(),
            "fallback\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("f3")).unwrap(),
            "from the target\n"
        );
        assert_eq!(std::fs::read_to_string(dir.join("f4")).unwrap(), "");
        let want = [
            ("fetch-failed", "write_files.1.source"),
            ("fetch-failed", "write_files.3.source"),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(c, k)| (c.to_string(), k.to_string()))
            .collect();
        assert_eq!(keys(&d), want);
        assert!(d.iter().all(|d| !d.is_error()));
        let shown = format!("{d:?}");
        assert!(
            !shown.contains("SECRETQ") && !shown.contains("T0KEN"),
            "{shown}"
        );
    });
    let seen = urls.0.lock().unwrap();
    assert_eq!(
        seen[0].1,
        [("Authorization".to_string(), "Bearer T0KEN".to_string())]
    );
}

#[test]
fn deferred_items_are_left_for_the_runner() {
    let urls = Urls::default();
    let cfg = json!({"write_files": [
        {"path": "/now", "content": "a"},
        {"path": "/later", "content": "c2VjcmV0", "encoding": "base64", "owner": "app:app", "defer": true},
    ]});
    run("defer", cfg, &urls, |dir, d| {
        assert!(d.is_empty(), "{d:?}");
        assert!(dir.join("now").exists() && !dir.join("later").exists());
        let json = std::fs::read(dir.join("var/lib/ember/deferred/write_files.json")).unwrap();
        let files: Vec<DecodedFile> = serde_json::from_slice(&json).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(
            (files[0].path.as_str(), &files[0].content[..]),
            ("/later", &b"secret"[..])
        );
        assert_eq!(
            (files[0].owner.as_str(), files[0].permissions),
            ("app:app", 0o644)
        );
    });
}

#[test]
fn rerun_replaces_and_does_not_append_twice() {
    let urls = Urls::default();
    let cfg = json!({"write_files": [
        {"path": "/etc/src", "content": "more\n", "append": true},
        {"path": "/etc/new", "content": "one\n", "append": true},
        {"path": "/etc/whole", "content": "whole\n", "permissions": "0600"},
        {"path": "/etc/fails", "owner": "ghost"},
    ]});
    run("rerun", cfg.clone(), &urls, |dir, first| {
        let root = Root::open(dir).unwrap();
        let again = run_on(&root, &cfg, &urls);
        assert_eq!(keys(&first), keys(&again));
        let read = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap();
        assert_eq!(read("etc/src"), "from the target\nmore\n");
        assert_eq!(read("etc/new"), "one\n");
        assert_eq!(read("etc/whole"), "whole\n");
        let journal = read("var/lib/ember/instances/iid-1/write_files.appended");
        assert_eq!(journal.lines().count(), 2);
        assert!(!journal.contains("more") && !journal.contains("one"));
    });
}

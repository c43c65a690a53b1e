//! `#include` and friends through a fake URL reader: loops, depth, bytes, failures.

use super::*;
use crate::userdata::include::redact_url;
use serde_json::json;
use std::collections::HashMap;

fn with_urls(data: &str, urls: &FakeUrls, limits: &Limits) -> Processed {
    run_with(data.as_bytes(), limits, urls)
}

#[test]
fn include_fetches_each_url_in_order() {
    let urls = FakeUrls::with(&[
        ("http://h/a", "#cloud-config\n{\"a\": 1, \"l\": [1]}"),
        ("http://h/b", "#!/bin/sh\necho SECRET"),
        ("http://h/c", "#cloud-config\n{\"l\": [2]}"),
    ]);
    let p = with_urls(
        "#include\nhttp://h/a\n\n# a comment\n  http://h/b  \n#include http://h/c\n",
        &urls,
        &Limits::default(),
    );
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config, json!({"a": 1, "l": [2]}));
    assert_eq!(p.scripts.len(), 1);
    let names: Vec<&str> = p.docs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["user-data part 1 (part-001)", "user-data part 3 (part-003)"]
    );
}

/// An in-memory `OnceCache`; `broken` makes every read and write fail.
#[derive(Default)]
struct MemCache {
    map: std::cell::RefCell<HashMap<String, Vec<u8>>>,
    broken: bool,
}

impl OnceCache for MemCache {
    fn get(&self, url: &str, _: u64) -> Result<Option<Vec<u8>>, String> {
        if self.broken {
            return Err("cannot read /cache/x: Permission denied".into());
        }
        Ok(self.map.borrow().get(url).cloned())
    }
    fn put(&self, url: &str, content: &[u8]) -> Result<(), String> {
        if self.broken {
            return Err("cannot write /cache/x: Read-only file system".into());
        }
        self.map.borrow_mut().insert(url.into(), content.into());
        Ok(())
    }
}

const ONCE: &str = "#include-once\nhttp://h/a?t=SECRET\n#include http://h/b\n";

#[test]
fn include_once_is_cached_and_read_from_the_cache_later() {
    let urls = FakeUrls::with(&[
        ("http://h/a?t=SECRET", "#cloud-config\n{\"a\": 1}"),
        ("http://h/b", "#cloud-config\n{\"b\": 1}"),
    ]);
    let cache = MemCache::default();
    let p = run_cached(ONCE.as_bytes(), &Limits::default(), &urls, &cache);
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config, json!({"a": 1, "b": 1}));
    // Only the include-once URL is kept; a plain #include is fetched every time.
    let kept: Vec<String> = cache.map.borrow().keys().cloned().collect();
    assert_eq!(kept, ["http://h/a?t=SECRET"]);

    // A later boot: the one-time URL is gone, the cache still has it.
    let later = FakeUrls::with(&[("http://h/b", "#cloud-config\n{\"b\": 2}")]);
    let p = run_cached(ONCE.as_bytes(), &Limits::default(), &later, &cache);
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config, json!({"a": 1, "b": 2}));

    // Without the cache (a new instance), it is fetched again, and now fails.
    let p = run_cached(
        ONCE.as_bytes(),
        &Limits::default(),
        &later,
        &MemCache::default(),
    );
    assert_eq!(codes(&p), ["fetch-failed"]);
}

#[test]
fn a_broken_cache_warns_and_the_include_is_still_used() {
    let urls = FakeUrls::with(&[
        ("http://h/a?t=SECRET", "#cloud-config\n{\"a\": 1}"),
        ("http://h/b", "#cloud-config\n{\"b\": 1}"),
    ]);
    let cache = MemCache {
        broken: true,
        ..MemCache::default()
    };
    let p = run_cached(ONCE.as_bytes(), &Limits::default(), &urls, &cache);
    assert_eq!(codes(&p), ["read-failed", "write-failed"]);
    assert!(p.diags.iter().all(|d| !d.is_error()), "{:?}", p.diags);
    assert!(p.diags[0].message.contains("/cache/x"), "{}", p.diags[0]);
    assert_eq!(p.cloud_config, json!({"a": 1, "b": 1}));
}

#[test]
fn a_cached_include_counts_against_the_include_budget() {
    let cache = MemCache::default();
    cache
        .map
        .borrow_mut()
        .insert("http://h/a?t=SECRET".into(), vec![b' '; 100]);
    let limits = Limits {
        include_bytes: 50,
        ..Limits::default()
    };
    let urls = FakeUrls::default();
    let p = run_cached(
        b"#include-once http://h/a?t=SECRET\n",
        &limits,
        &urls,
        &cache,
    );
    assert_eq!(codes(&p), ["budget-exceeded"]);
}

#[test]
fn include_loop_is_reported_not_followed() {
    let urls = FakeUrls::with(&[
        ("http://h/a", "#include\nhttp://h/b\n"),
        ("http://h/b", "#include\nhttp://h/a\nhttp://h/c\n"),
        ("http://h/c", "#cloud-config\n{\"c\": 1}"),
    ]);
    let p = with_urls("#include\nhttp://h/a\n", &urls, &Limits::default());
    assert_eq!(codes(&p), ["include-loop"]);
    assert!(p.diags[0].message.contains("http://h/a"));
    assert_eq!(p.cloud_config, json!({"c": 1}));
}

#[test]
fn include_depth_is_bounded() {
    let urls = FakeUrls::with(&[
        ("http://h/1", "#include\nhttp://h/2\n"),
        ("http://h/2", "#include\nhttp://h/3\n"),
        ("http://h/3", "#cloud-config\n{\"deep\": 1}"),
    ]);
    let limits = Limits {
        include_depth: 2,
        ..Limits::default()
    };
    let p = with_urls("#include\nhttp://h/1\n", &urls, &limits);
    assert_eq!(codes(&p), ["budget-exceeded"]);
    assert_eq!(p.diags[0].budget.as_deref(), Some("include_depth"));
    assert_eq!(p.cloud_config, Value::Null);
    let deep_enough = Limits {
        include_depth: 3,
        ..Limits::default()
    };
    let p = with_urls("#include\nhttp://h/1\n", &urls, &deep_enough);
    assert_eq!(p.cloud_config, json!({"deep": 1}));
}

#[test]
fn include_bytes_are_bounded() {
    let urls = FakeUrls::with(&[
        ("http://h/a", "#!/bin/sh\n# 20 bytes"),
        ("http://h/b", "#!/bin/sh\n"),
    ]);
    let limits = Limits {
        include_bytes: 25,
        ..Limits::default()
    };
    let p = with_urls("#include\nhttp://h/a\nhttp://h/b\n", &urls, &limits);
    assert_eq!(p.scripts.len(), 1);
    assert_eq!(codes(&p), ["budget-exceeded"]);
    assert_eq!(p.diags[0].budget.as_deref(), Some("include_bytes"));
}

#[test]
fn failing_url_is_named_without_its_query() {
    let mut urls = FakeUrls::with(&[("http://h/ok", "#cloud-config\n{\"ok\": 1}")]);
    let bad = "https://user:SECRETpw@meta.example/ud?token=SECRET";
    urls.0.insert(
        bad.to_string(),
        Err(FetchError::Failed {
            url: bad.to_string(),
            reason: format!("connection refused for {bad}, redirected to https://x/y?token=SECRET"),
        }),
    );
    let p = with_urls(
        &format!("#include\n{bad}\nhttp://h/missing?token=SECRET\nhttp://h/ok\n"),
        &urls,
        &Limits::default(),
    );
    assert_eq!(codes(&p), ["fetch-failed", "fetch-failed"]);
    let msg = &p.diags[0].message;
    assert!(msg.contains("https://meta.example/ud"), "{msg}");
    assert!(!msg.contains("token") && !msg.contains("secret"), "{msg}");
    assert!(
        p.diags[1].message.contains("http://h/missing: not found")
            || p.diags[1].message.contains("not found")
    );
    assert!(p.diags.iter().all(|d| d.is_error()));
    // The rest of the list is still read.
    assert_eq!(p.cloud_config, json!({"ok": 1}));
}

#[test]
fn mime_include_part_and_gzip_include() {
    let z = gz(b"#cloud-config\n{\"z\": 1}");
    let mut urls = FakeUrls::default();
    urls.0.insert("file:///seed/z".to_string(), Ok(z));
    let m = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
             Content-Type: text/x-include-url\n\nfile:///seed/z\n--B--\n";
    let p = with_urls(m, &urls, &Limits::default());
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config, json!({"z": 1}));
}

#[test]
fn redaction_table() {
    let cases = [
        ("https://h/p?token=x", "https://h/p"),
        ("https://u:pw@h:8080/p#frag", "https://h:8080/p"),
        ("file:///var/lib/x", "file:///var/lib/x"),
        ("no-scheme?q", "no-scheme"),
    ];
    for (url, want) in cases {
        assert_eq!(redact_url(url), want);
    }
}

/// URLs and fetch errors are user- and server-controlled: shown printable and bounded, and
/// any URL an error quotes is redacted, query or not.
#[test]
fn urls_and_reasons_in_messages_are_bounded() {
    let mut urls = FakeUrls::default();
    let long = format!("http://h/{}\u{1b}[2J", "p".repeat(5000));
    let bad = "http://h/bad";
    urls.0.insert(
        bad.to_string(),
        Err(FetchError::Failed {
            url: bad.to_string(),
            reason: format!(
                "redirected to https://u:SECRETpw@x/y and then \u{1b}]0;{}",
                "z".repeat(5000)
            ),
        }),
    );
    let p = with_urls(
        &format!("#include\n{long}\n{bad}\n"),
        &urls,
        &Limits::default(),
    );
    assert_eq!(codes(&p), ["fetch-failed", "fetch-failed"]);
    for d in &p.diags {
        let shown = d.to_string();
        assert!(shown.len() < 600, "{} bytes", shown.len());
        assert!(!shown.contains('\u{1b}'), "{shown:?}");
    }
    assert!(p.diags[1].message.contains("https://x/y"), "{}", p.diags[1]);
    assert!(redact_url(&long).ends_with("..."));
}

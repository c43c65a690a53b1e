//! Test harness for user-data processing: a JSON stand-in for the YAML parser, a map-backed
//! URL reader, and a runner that checks no diagnostic ever quotes user data.

mod formats;
mod include;
mod jinja_parts;
mod launch_index;
mod mime;
mod pycompat;

use super::*;
use crate::fetch::FetchError;
use crate::yaml::{Doc, YamlError};
use std::collections::HashMap;

/// YAML is a superset of JSON: tests write `#cloud-config\n{"a": 1}`. Comment lines are
/// blanked (keeping line numbers) and the rest read as JSON.
pub fn json_yaml(text: &str) -> Result<Doc, YamlError> {
    let body: Vec<&str> = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with('#') {
                ""
            } else {
                l
            }
        })
        .collect();
    let body = body.join("\n");
    if body.trim().is_empty() {
        return Ok(Doc::default());
    }
    serde_json::from_str(&body)
        .map(|value| Doc {
            value,
            ..Doc::default()
        })
        .map_err(|e| YamlError {
            line: e.line() as u32,
            column: 0,
            message: "invalid document".to_string(),
            budget: None,
        })
}

/// URLs served from a map; anything else is not found.
#[derive(Default)]
pub struct FakeUrls(pub HashMap<String, Result<Vec<u8>, FetchError>>);

impl FakeUrls {
    pub fn with(pairs: &[(&str, &str)]) -> FakeUrls {
        let map = pairs
            .iter()
            .map(|(u, body)| (u.to_string(), Ok(body.as_bytes().to_vec())))
            .collect();
        FakeUrls(map)
    }
}

impl UrlReader for FakeUrls {
    fn read(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError> {
        match self.0.get(url) {
            Some(Ok(b)) if b.len() as u64 > max_bytes => Err(FetchError::TooLarge {
                url: url.to_string(),
                max_bytes,
                budget: "file_bytes",
            }),
            Some(r) => r.clone(),
            None => Err(FetchError::NotFound {
                url: url.to_string(),
            }),
        }
    }
}

pub fn instance_data() -> Value {
    serde_json::json!({
        "v1": {"local_hostname": "box1", "instance_id": "i-123"},
        "ds": {"meta-data": {"local-hostname": "box1"}},
    })
}

/// Processes `data` and checks that no diagnostic quotes the word `SECRET`, which tests
/// put into every payload.
pub fn run_with(data: &[u8], limits: &Limits, urls: &FakeUrls) -> Processed {
    run_cached(data, limits, urls, &NoOnceCache)
}

/// `run_with`, keeping `#include-once` content in `cache`.
pub fn run_cached(
    data: &[u8],
    limits: &Limits,
    urls: &FakeUrls,
    cache: &dyn OnceCache,
) -> Processed {
    let idata = instance_data();
    let ctx = Context {
        limits,
        urls,
        parse_yaml: &json_yaml,
        instance_data: &idata,
        once_cache: cache,
    };
    let out = process(data, "user-data", &ctx);
    for d in &out.diags {
        let shown = format!("{d} {d:?}");
        assert!(!shown.contains("SECRET"), "diag leaks user data: {shown}");
    }
    assert!(!format!("{out:?}").contains("SECRET"));
    out
}

pub fn run(data: &str) -> Processed {
    run_with(data.as_bytes(), &Limits::default(), &FakeUrls::default())
}

/// Diagnostic codes, in order, for compact assertions.
pub fn codes(p: &Processed) -> Vec<&str> {
    p.diags.iter().map(|d| d.code.as_str()).collect()
}

pub fn gz(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn payload(p: &Part) -> String {
    String::from_utf8_lossy(p.payload.expose()).into_owned()
}

//! `#include` / `#include-once` / `text/x-include-url` and `#cloud-config-archive`: parts
//! that bring in more parts, bounded by depth, bytes and loop detection.

use super::parts::{self, Incoming};
use super::Run;
use crate::error::Diag;
use crate::fetch::FetchError;
use crate::reason::Reason;
use serde_json::Value;

pub use crate::redact::redact_url;

impl Run<'_, '_> {
    /// Enters one level of include/archive nesting, or reports the depth budget.
    fn deeper(&mut self, what: &str) -> bool {
        if self.depth >= self.ctx.limits.include_depth {
            let msg = format!("{what} nested too deep; ignored");
            let d = Diag::error(Reason::BudgetExceeded, msg)
                .file(self.source)
                .budget("include_depth");
            self.diag(d);
            return false;
        }
        self.depth += 1;
        true
    }

    /// One URL a line; `#include-once` / `#include` switch the mode for the rest of the line
    /// and the lines after it. Blank lines and other `#` lines are skipped.
    pub(super) fn include(&mut self, payload: &[u8]) {
        let text = String::from_utf8_lossy(payload).into_owned();
        let mut once = false;
        for line in text.lines() {
            let mut line = line.trim_start();
            let lower = line.to_ascii_lowercase();
            if lower.starts_with("#include-once") {
                line = &line["#include-once".len()..];
                once = true;
            } else if lower.starts_with("#include") {
                line = &line["#include".len()..];
                once = false;
            }
            let url = line.trim();
            if url.is_empty() || url.starts_with('#') {
                continue;
            }
            // Each URL counts as a part, so a list of empty documents is bounded too.
            if !self.count_part() {
                return;
            }
            self.include_url(url, once);
        }
    }

    fn include_url(&mut self, url: &str, once: bool) {
        let shown = redact_url(url);
        if self.chain.iter().any(|u| u == url) {
            let msg = format!("include of {shown} loops back to itself; skipped");
            self.diag(Diag::error(Reason::IncludeLoop, msg).file(self.source));
            return;
        }
        let left = self.ctx.limits.include_bytes.saturating_sub(self.included);
        if left == 0 {
            return self.include_too_large(&shown);
        }
        if !self.deeper(&format!("include of {shown}")) {
            return;
        }
        match self.include_content(url, once, left, &shown) {
            Some(data) if data.len() as u64 > left => self.include_too_large(&shown),
            Some(data) => {
                self.included += data.len() as u64;
                self.chain.push(url.to_string());
                self.blob(&data);
                self.chain.pop();
            }
            None => {}
        }
        self.depth -= 1;
    }

    fn include_too_large(&mut self, shown: &str) {
        let msg = format!("include of {shown} exceeds the include byte limit; skipped");
        let d = Diag::error(Reason::BudgetExceeded, msg).file(self.source);
        self.diag(d.budget("include_bytes"));
    }

    /// What `url` includes: under `#include-once` the instance's cached copy when there is
    /// one, else fetched (and, under `#include-once`, cached for later boots, as cloud-init
    /// does). `None` once the reason there is nothing has been reported.
    fn include_content(
        &mut self,
        url: &str,
        once: bool,
        left: u64,
        shown: &str,
    ) -> Option<Vec<u8>> {
        if once {
            match self.ctx.once_cache.get(url, left) {
                Ok(Some(data)) => return Some(data),
                Ok(None) => {}
                Err(why) => {
                    let msg =
                        format!("cached include-once content of {shown}: {why}; fetched again");
                    self.diag(Diag::warning(Reason::ReadFailed, msg).file(self.source));
                }
            }
        }
        match self.ctx.urls.read(url, left) {
            Ok(data) => {
                if once && data.len() as u64 <= left {
                    if let Err(why) = self.ctx.once_cache.put(url, &data) {
                        let msg = format!(
                            "include-once content of {shown} not cached: {why}; a later boot fetches it again"
                        );
                        self.diag(Diag::warning(Reason::WriteFailed, msg).file(self.source));
                    }
                }
                Some(data)
            }
            Err(FetchError::TooLarge { .. }) => {
                self.include_too_large(shown);
                None
            }
            Err(e) => {
                // reason() redacts any URL it quotes, the asked one included.
                let why = e.reason();
                let msg = format!("include of {shown} failed: {why}");
                self.diag(Diag::error(Reason::FetchFailed, msg).file(self.source));
                None
            }
        }
    }

    /// `#cloud-config-archive`: a YAML list of `{type, content, filename, ...}` or strings.
    pub(super) fn archive(&mut self, payload: &[u8]) {
        let name = format!("{} cloud-config-archive", self.source);
        let Ok(text) = std::str::from_utf8(payload) else {
            let msg = "cloud-config-archive is not valid UTF-8; ignored";
            self.diag(Diag::error(Reason::NotUtf8, msg).file(&name));
            return;
        };
        let items = match (self.ctx.parse_yaml)(text) {
            Ok(doc) => {
                doc.problem_diags(&name)
                    .into_iter()
                    .for_each(|d| self.diag(d));
                doc.value
            }
            Err(e) => {
                return self.diag(e.to_diag(&name));
            }
        };
        let Value::Array(items) = items else {
            let msg = "cloud-config-archive must be a list; ignored";
            return self.diag(Diag::error(Reason::ArchiveType, msg).file(&name));
        };
        if !self.deeper("cloud-config-archive") {
            return;
        }
        for (i, item) in items.into_iter().enumerate() {
            if !self.count_part() {
                break;
            }
            if self.other_instances(item.get("launch-index")) {
                continue;
            }
            match archive_item(item) {
                Some(p) => self.part(p),
                None => {
                    let msg = format!("item {i} is not a mapping with string content; skipped");
                    self.diag(
                        Diag::warning(Reason::ArchiveItem, msg)
                            .file(&name)
                            .key(i.to_string()),
                    );
                }
            }
        }
        self.depth -= 1;
    }
}

/// One archive entry as a part; the type defaults to what the content's first line says,
/// else cloud-config (cloud-init's default for archives).
fn archive_item(item: Value) -> Option<Incoming<'static>> {
    let mut map = match item {
        Value::String(s) => {
            let mut m = serde_json::Map::new();
            m.insert("content".into(), Value::String(s));
            m
        }
        Value::Object(m) => m,
        _ => return None,
    };
    let payload = match map.remove("content") {
        Some(Value::String(s)) => s.into_bytes(),
        None | Some(Value::Null) => Vec::new(),
        Some(_) => return None,
    };
    let content_type = match map.get("type").and_then(Value::as_str) {
        Some(t) if !t.trim().is_empty() => t.trim().to_ascii_lowercase(),
        _ => parts::detect(&payload)
            .unwrap_or("text/cloud-config")
            .to_string(),
    };
    let filename = map
        .get("filename")
        .and_then(Value::as_str)
        .map(str::to_string);
    // cloud-init copies an item's other keys into MIME headers of the part; of those
    // headers only the merge type is ever read, so that is all that is taken here.
    let header = |h: &str| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(h))
            .and_then(|(_, v)| v.as_str())
            .map(str::to_string)
    };
    let merge_type = header("merge-type").or_else(|| header("x-merge-type"));
    Some(Incoming {
        content_type,
        filename,
        merge_type,
        payload: payload.into(),
    })
}

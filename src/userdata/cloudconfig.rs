//! Cloud-config parts: parsed with the given YAML reader, merged by `merge_how` /
//! `Merge-Type` (cloud-init's default `dict(replace)+list()+str()`), or patched by
//! `#cloud-config-jsonp`.
//!
//! <https://docs.cloud-init.io/en/latest/reference/merging.html>

use super::{jsonpatch, NamedDoc, Run};
use crate::config::merge::{self, Mergers};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

impl Run<'_, '_> {
    /// Parses a cloud-config part and merges it into what came before.
    pub(super) fn cloud_config(&mut self, name: &str, payload: &[u8], merge_type: Option<&str>) {
        let text = match std::str::from_utf8(payload) {
            Ok(t) => t,
            Err(e) => {
                let d = crate::yaml::not_utf8(payload, e.valid_up_to(), "; part ignored");
                self.diag(d.file(name));
                return;
            }
        };
        let mut doc = match (self.ctx.parse_yaml)(text) {
            Ok(doc) => doc,
            Err(e) => {
                self.diag(e.to_diag(name));
                return;
            }
        };
        doc.drop_failed_keys(name)
            .into_iter()
            .for_each(|d| self.diag(d));
        // An empty document is an empty mapping, not an error.
        if doc.value.is_null() {
            doc.value = Value::Object(Map::new());
        }
        if !doc.value.is_object() {
            let msg = "cloud-config must be a mapping; part ignored";
            self.diag(Diag::error(Reason::CloudConfigType, msg).file(name));
            return;
        }
        if self.other_instances(doc.value.get("launch-index")) {
            return;
        }
        let keys = doc
            .value
            .as_object()
            .into_iter()
            .flat_map(|map| map.keys())
            .map(|key| (key.clone(), doc.line_of(key)))
            .collect();
        let mut value = doc.value;
        let mut how = match merge::take_merge_how(&mut value) {
            Ok(m) => m.unwrap_or_default(),
            Err(e) => return self.bad_merge(name, "merge_how", &e),
        };
        match merge_type.map(merge::parse_merge_how) {
            Some(Ok(m)) => how.extend(m),
            Some(Err(e)) => return self.bad_merge(name, "Merge-Type", &e),
            None => {}
        }
        for setting in std::mem::take(&mut how.ignored) {
            let msg = format!("unknown merge setting {setting} ignored");
            self.diag(
                Diag::warning(Reason::MergeHowUnknown, msg)
                    .file(name)
                    .key("merge_how"),
            );
        }
        if how.is_empty() {
            how = Mergers::user_data_default();
        }
        let base = self.merged.get_or_insert_with(|| Value::Object(Map::new()));
        merge::merge(base, value, &how);
        self.out.docs.push(NamedDoc {
            name: name.to_string(),
            keys,
        });
    }

    fn bad_merge(&mut self, name: &str, key: &str, why: &str) {
        let msg = format!("invalid merge rule ({why}); part ignored");
        self.diag(
            Diag::error(Reason::MergeHowInvalid, msg)
                .file(name)
                .key(key),
        );
    }

    /// `#cloud-config-jsonp`: a JSON patch on the cloud-config merged so far.
    pub(super) fn jsonp(&mut self, name: &str, payload: &[u8]) {
        let text = String::from_utf8_lossy(payload);
        let trimmed = text.trim_start();
        let header = "#cloud-config-jsonp";
        let body = match trimmed.get(..header.len()) {
            Some(h) if h.eq_ignore_ascii_case(header) => &trimmed[header.len()..],
            _ => trimmed,
        };
        let patch: Value = match serde_json::from_slice(body.as_bytes()) {
            Ok(p) => p,
            Err(e) => {
                let msg = format!(
                    "JSON patch is not valid JSON ({:?}); part ignored",
                    e.classify()
                );
                let line = u32::try_from(e.line()).ok();
                self.diag(Diag::error(Reason::JsonpInvalid, msg).file(name).line(line));
                return;
            }
        };
        let base = self
            .merged
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()));
        match jsonpatch::apply(base, &patch, self.ctx.limits) {
            Ok(v) => self.merged = Some(v),
            Err(e) => {
                let msg = format!("JSON patch failed at {}; part ignored", e.message);
                let mut d = Diag::error(Reason::JsonpFailed, msg).file(name);
                if let Some(budget) = e.budget {
                    d = d.budget(budget);
                }
                self.diag(d);
            }
        }
    }
}

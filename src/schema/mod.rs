//! `schema`: validates a cloud-config document against ember's model, as `cloud-init schema`
//! does, and reports every problem with its key path and line. Each key is checked against the
//! shape its module declares (or, for keys no module owns, the `rules` table); then the
//! modules' own typed readers check what they would refuse at boot, so `schema` and the boot
//! say the same things. It reads and reports only: nothing is applied.

pub mod annotate;
pub mod cli;
mod modules_check;
mod network_config;
mod rules;
mod system;
mod user_data_type;

use crate::config::{known_keys, shape};
use crate::error::{Diag, Reason, Severity};
use crate::limits::Limits;
use crate::yaml;

/// The first line a user-data cloud-config starts with.
pub const HEADER: &str = "#cloud-config";

/// What a document needs to be read as cloud-config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// User-data or vendor-data: must start with `#cloud-config`, as cloud-init requires.
    UserData,
    /// /etc/cloud/cloud.cfg and cloud.cfg.d: plain YAML, no header.
    ImageConfig,
}

/// Every problem of one document, in line order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub problems: Vec<Diag>,
}

impl Report {
    pub fn is_valid(&self) -> bool {
        !self.problems.iter().any(Diag::is_error)
    }
}

/// Checks one document.
pub fn check(text: &str, kind: Kind, limits: &Limits) -> Report {
    let mut problems = Vec::new();
    if kind == Kind::UserData && !text.starts_with(HEADER) {
        let p = Diag::error(
            Reason::CloudConfigHeader,
            format!("needs to begin with \"{HEADER}\""),
        )
        .key("format-l1.c1")
        .line(Some(1));
        return Report { problems: vec![p] };
    }
    let doc = match yaml::parse(text, limits) {
        Ok(doc) => doc,
        Err(e) => {
            let key = format!("format-l{}.c{}", e.line, e.column);
            let mut p = Diag::error(
                Reason::YamlSyntax,
                format!("is not valid YAML: {}", e.message),
            )
            .key(key);
            if let Some(budget) = e.budget {
                p.message.push_str(&format!(" (budget {budget})"));
            }
            p.line = (e.line > 0).then_some(e.line);
            return Report { problems: vec![p] };
        }
    };
    for e in &doc.problems {
        let p = Diag::error(Reason::YamlType, format!("{}: {}", e.path, e.message));
        problems.push(
            p.key(format!("format-l{}.c{}", e.line, e.column))
                .line(Some(e.line)),
        );
    }
    match &doc.value {
        serde_json::Value::Object(map) => {
            let mut shape_failed = Vec::new();
            for (key, value) in map {
                if kind == Kind::UserData && rules::IMAGE_ONLY.contains(&key.as_str()) {
                    let msg = "is read from the image's config only (cloud-init's schema \
                               refuses it in user-data): ignored here";
                    problems.push(Diag::error(Reason::UnknownKey, msg).key(key.as_str()));
                    shape_failed.push(key.as_str());
                } else if !check_key(key, value, &mut problems) {
                    shape_failed.push(key.as_str());
                }
            }
            modules_check::check(&doc.value, &shape_failed, &mut problems);
            crate::config::ember::check(&doc.value, kind == Kind::UserData, &mut problems);
        }
        // A comment-only image config file is common and harmless; empty user-data is refused
        // by cloud-init's schema ("not a YAML dict").
        serde_json::Value::Null if kind == Kind::ImageConfig => {}
        _ => {
            let p = Diag::error(Reason::CloudConfigType, "must be a mapping of keys");
            problems.push(p.key("format-l1.c1").line(Some(1)));
        }
    }
    for p in &mut problems {
        if p.line.is_none() {
            p.line = line_of(&doc, p.key.as_deref().unwrap_or_default());
        }
    }
    ember_core::sort::sort_by_key(&mut problems, |p| {
        (p.line.unwrap_or(0), p.severity != Severity::Error)
    });
    // The table and a module's reader may both note one deprecation.
    let mut seen = std::collections::BTreeSet::new();
    problems.retain(|p| seen.insert((p.key.clone(), p.line, p.severity as u8)));
    Report { problems }
}

/// One top-level key: known? then its shape. False when the shape found an error, so the
/// module's reader does not report the same key again.
fn check_key(key: &str, value: &serde_json::Value, out: &mut Vec<Diag>) -> bool {
    if !known_keys::is_known(key) {
        out.push(Diag::warning(Reason::UnknownKey, "unknown cloud-config key, ignored").key(key));
        return true;
    }
    if known_keys::is_unsupported(key) {
        let msg = "no ember module handles this key yet: not checked, ignored at boot";
        out.push(Diag::warning(Reason::ModuleUnsupported, msg).key(key));
        return true;
    }
    if let Some(why) = known_keys::not_acted_on(key) {
        out.push(Diag::warning(Reason::UnsupportedKey, why).key(key));
    }
    let Some(shape) = modules_check::shape_of(key) else {
        return true;
    };
    let before = out.len();
    shape::check(value, shape, key, out);
    !out[before..].iter().any(Diag::is_error)
}

/// The line of `key`, else of the nearest parent that has one.
fn line_of(doc: &yaml::Doc, key: &str) -> Option<u32> {
    let mut path = key;
    loop {
        if let Some(line) = doc.line_of(path) {
            return Some(line);
        }
        path = &path[..path.rfind('.')?];
    }
}

#[cfg(test)]
mod tests;

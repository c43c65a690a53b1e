//! `schema --annotate`: the document with `# E1`-style markers at the end of each line that has
//! a problem, then a legend, as cloud-init prints it. Values of password-like keys (and ssh
//! private keys) are replaced by `<redacted>`: the annotated copy is shown on a terminal and
//! pasted into bug reports.

use super::Report;
use crate::error::Diag;
use crate::error::Severity;
use crate::limits::Limits;
use std::collections::{BTreeMap, BTreeSet};

const REDACTED: &str = "<redacted>";

pub fn annotate(text: &str, report: &Report, limits: &Limits) -> String {
    let secret = secret_lines(text, limits);
    let mut labels: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut legend = [
        ("Errors", 'E', Vec::new()),
        ("Deprecations", 'D', Vec::new()),
        ("Warnings", 'W', Vec::new()),
    ];
    for p in &report.problems {
        let slot = match p.severity {
            Severity::Error => 0,
            Severity::Deprecated => 1,
            Severity::Warning => 2,
        };
        let (_, letter, items) = &mut legend[slot];
        let label = format!("{letter}{}", items.len() + 1);
        items.push(format!("# {label}: {}", describe(p)));
        labels.entry(p.line.unwrap_or(1)).or_default().push(label);
    }
    let mut out = String::new();
    let mut hidden_below: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let indent = line.len() - line.trim_start().len();
        let shown = match hidden_below {
            Some(level) if indent > level || line.trim().is_empty() => hide_all(line),
            _ if secret.contains(&n) => {
                hidden_below = Some(indent);
                hide_value(line)
            }
            _ => {
                hidden_below = None;
                line.to_string()
            }
        };
        out.push_str(&shown);
        if let Some(l) = labels.get(&n) {
            out.push_str(&format!("\t\t# {}", l.join(",")));
        }
        out.push('\n');
    }
    for (title, _, items) in &legend {
        if !items.is_empty() {
            out.push_str(&format!("\n# {title}: -------------\n"));
            for item in items {
                out.push_str(item);
                out.push('\n');
            }
        }
    }
    out
}

fn describe(p: &Diag) -> String {
    format!(
        "{}: {}",
        crate::redact::printable(p.key.as_deref().unwrap_or_default()),
        p.message
    )
}

/// Lines holding a secret's value: from the key paths of the parsed document, and, should the
/// document not parse, from the look of the line (`passwd: …`).
fn secret_lines(text: &str, limits: &Limits) -> BTreeSet<u32> {
    let mut lines = BTreeSet::new();
    if let Ok(doc) = crate::yaml::parse(text, limits) {
        for (path, line) in &doc.lines {
            if is_secret_path(path) {
                lines.insert(*line);
            }
        }
    }
    for (i, line) in text.lines().enumerate() {
        let key = line.trim_start().trim_start_matches("- ");
        let key = key
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(['"', '\'']);
        if line.contains(':') && is_secret_name(key) {
            lines.insert(u32::try_from(i + 1).unwrap_or(u32::MAX));
        }
    }
    lines
}

fn is_secret_name(name: &str) -> bool {
    matches!(
        name,
        "passwd"
            | "password"
            | "hashed_passwd"
            | "plain_text_passwd"
            | "list"
            // salt_minion's, chef's and mcollective's private keys
            | "private_key"
            | "validation_cert"
            | "private-cert"
            // ubuntu_pro's, landscape's, rh_subscription's, spacewalk's and lxd's secrets
            | "token"
            | "registration_key"
            | "activation_key"
            | "activation-key"
            | "trust_password"
            | "encrypted_data_bag_secret"
    ) || name.ends_with("_private")
}

fn is_secret_path(path: &str) -> bool {
    let mut parts = path.split('.');
    let last = path.rsplit('.').next().unwrap_or("");
    (parts.next() == Some("chpasswd") && parts.next() == Some("list"))
        || (is_secret_name(last) && last != "list")
}

/// `  passwd: xyz` → `  passwd: <redacted>`; a list item's whole value.
fn hide_value(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    let body = &line[indent..];
    if let Some(item) = body.strip_prefix("- ") {
        if !item.contains(": ") {
            return format!("{}- {REDACTED}", &line[..indent]);
        }
    }
    match line.find(':') {
        Some(at) => format!("{}: {REDACTED}", &line[..at]),
        None => hide_all(line),
    }
}

fn hide_all(line: &str) -> String {
    if line.trim().is_empty() {
        return line.to_string();
    }
    let indent = line.len() - line.trim_start().len();
    format!("{}{REDACTED}", &line[..indent])
}

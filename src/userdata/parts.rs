//! One user-data part by its type: cloud-config merged, jsonp patched, scripts and boothooks
//! kept, templates rendered and read again, part-handlers kept with the parts after them
//! that they may claim, anything else kept and reported.

use super::{gzip, jinja, Frequency, HandlerPart, Part, Run};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use std::borrow::Cow;

pub use ember_core::mime::{shown_type, NOT_MULTIPART, PART_HANDLER};

/// A part as it arrives from MIME, an archive or a bare payload; a bare payload is borrowed,
/// so a large user-data is not copied to become its one part.
pub struct Incoming<'a> {
    pub content_type: String,
    pub filename: Option<String>,
    /// `Merge-Type` / `X-Merge-Type` header.
    pub merge_type: Option<String>,
    pub payload: Cow<'a, [u8]>,
}

/// First-line headers and their types, longest first so `#cloud-config-archive` is not
/// taken for `#cloud-config`. Matched lower-cased after leading blanks, as cloud-init does.
const STARTS_WITH: &[(&str, &str)] = &[
    (jinja::HEADER, "text/jinja2"),
    ("#cloud-config-archive", "text/cloud-config-archive"),
    ("#cloud-config-jsonp", "text/cloud-config-jsonp"),
    ("#cloud-boothook", "text/cloud-boothook"),
    ("#cloud-config", "text/cloud-config"),
    ("#include-once", "text/x-include-once-url"),
    ("#part-handler", PART_HANDLER),
    ("#include", "text/x-include-url"),
    ("#!", "text/x-shellscript"),
];

/// The type named by a payload's first line, if any.
pub fn detect(payload: &[u8]) -> Option<&'static str> {
    let start = payload.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = &payload[start..payload.len().min(start + 64)];
    let head = String::from_utf8_lossy(head).to_lowercase();
    STARTS_WITH
        .iter()
        .find(|(prefix, _)| head.starts_with(prefix))
        .map(|(_, t)| *t)
}

/// Types whose content decides: cloud-init re-detects these from the first line
/// (`text/x-shellscript` too, since a real script must start with `#!`).
const REDETECT: &[&str] = &[
    "text/plain",
    NOT_MULTIPART,
    "application/octet-stream",
    "text/x-shellscript",
];

const GZIP_TYPES: &[&str] = &[
    "application/gzip",
    "application/gzip-compressed",
    "application/gzipped",
    "application/x-compress",
    "application/x-compressed",
    "application/x-gunzip",
    "application/x-gzip",
    "application/x-gzip-compressed",
];

/// Longest name `safe_filename` returns, in bytes (all ASCII, so also in characters).
pub(crate) const FILENAME_MAX: usize = 128;

/// A part's file name (user-controlled: a MIME `filename`/`name` parameter or an archive
/// item's `filename`) made safe both as one path component and for a message.
///
/// ASCII letters, digits, `.`, `_` and `-` are kept; every other character (`/`, `\`,
/// spaces, controls, any non-ASCII such as bidi overrides) becomes `_`; a leading `-`
/// becomes `_` too, so the name is never read as an option. The result is cut to
/// [`FILENAME_MAX`] characters. `None` when nothing usable is left: empty, or only dots
/// (`.`, `..`, `...`). Deterministic and never longer than `FILENAME_MAX`; uniqueness
/// within a directory is the caller's business.
pub(crate) fn safe_filename(name: &str) -> Option<String> {
    let mut clean: String = name
        .trim()
        .chars()
        .take(FILENAME_MAX)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.starts_with('-') {
        clean.replace_range(..1, "_");
    }
    (!clean.trim_matches('.').is_empty()).then_some(clean)
}

/// Template variable paths fit for a message: at most a few, each an identifier path of
/// bounded length (they come from the template text, which is user data).
fn shown_names(names: &[String]) -> String {
    const MAX_NAMES: usize = 8;
    let mut shown: Vec<&str> = names
        .iter()
        .take(MAX_NAMES)
        .map(|n| {
            let ok = n.len() <= 64
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if ok {
                n.as_str()
            } else {
                "<name not shown>"
            }
        })
        .collect();
    let more;
    if names.len() > MAX_NAMES {
        more = format!("and {} more", names.len() - MAX_NAMES);
        shown.push(&more);
    }
    shown.join(", ")
}

impl Run<'_, '_> {
    /// Sorts out compression and the real type, then includes, archives or attaches.
    pub(super) fn part(&mut self, mut p: Incoming<'_>) {
        if self.stopped {
            return;
        }
        let declared_gzip = GZIP_TYPES.contains(&p.content_type.as_str());
        if declared_gzip || gzip::is_gzip(&p.payload) {
            let Some(inner) = self.gunzip(&p.payload, self.source) else {
                return;
            };
            p.payload = Cow::Owned(inner);
            if declared_gzip {
                // Unknown after inflating, like cloud-init: the content decides.
                p.content_type = "text/plain".to_string();
            }
        }
        if REDETECT.contains(&p.content_type.as_str()) {
            if let Some(t) = detect(&p.payload) {
                p.content_type = t.to_string();
            }
        }
        match p.content_type.as_str() {
            "text/x-include-url" | "text/x-include-once-url" => self.include(&p.payload),
            "text/cloud-config-archive" => self.archive(&p.payload),
            _ => self.attach(p),
        }
    }

    /// A part that ends up in the result: numbered and named like cloud-init's parts.
    fn attach(&mut self, p: Incoming<'_>) {
        self.attached += 1;
        let n = self.attached;
        let filename = p
            .filename
            .as_deref()
            .and_then(safe_filename)
            .unwrap_or_else(|| format!("part-{n:03}"));
        let name = if self.bare && self.depth == 0 {
            self.source.to_string()
        } else {
            format!("{} part {n} ({filename})", self.source)
        };
        let ctype = p.content_type.clone();
        self.typed(
            &name,
            filename,
            &ctype,
            p.merge_type.as_deref(),
            p.payload,
            true,
        );
    }

    fn typed(
        &mut self,
        name: &str,
        filename: String,
        ctype: &str,
        merge_type: Option<&str>,
        payload: Cow<'_, [u8]>,
        may_template: bool,
    ) {
        // The payload moves into the part kept: scripts are not held twice.
        let keep = |frequency, payload: Cow<'_, [u8]>| Part {
            filename: filename.clone(),
            content_type: ctype.to_string(),
            frequency,
            payload: Secret::new(payload.into_owned()),
        };
        match ctype {
            "text/cloud-config" => self.cloud_config(name, &payload, merge_type),
            "text/cloud-config-jsonp" => self.jsonp(name, &payload),
            "text/x-shellscript" | "text/x-shellscript-per-instance" => {
                self.out.scripts.push(keep(Frequency::PerInstance, payload))
            }
            "text/x-shellscript-per-boot" => {
                self.out.scripts.push(keep(Frequency::PerBoot, payload))
            }
            "text/x-shellscript-per-once" => {
                self.out.scripts.push(keep(Frequency::PerOnce, payload))
            }
            "text/cloud-boothook" => {
                let body = strip_first_line_if(&payload, "#cloud-boothook");
                self.out
                    .boothooks
                    .push(keep(Frequency::PerBoot, Cow::Owned(body)));
            }
            "text/jinja2" if may_template => self.template(name, filename, merge_type, &payload),
            // As cloud-init: a handler registers where it stands, so it sees the parts after it.
            // A template cannot make one (cloud-init's template handler hands its result to the
            // cloud-config and script handlers only).
            PART_HANDLER if may_template => self.out.part_handlers.push(HandlerPart {
                name: name.to_string(),
                part: keep(Frequency::PerInstance, payload),
            }),
            t if may_template && t != NOT_MULTIPART && self.has_handler() => {
                self.out.part_handlers.push(HandlerPart {
                    name: name.to_string(),
                    part: keep(Frequency::PerInstance, payload),
                })
            }
            _ => {
                let (code, msg) = match ctype {
                    NOT_MULTIPART => (
                        Reason::UnhandledPart,
                        "Unhandled non-multipart user-data: no known header on its first line"
                            .to_string(),
                    ),
                    "text/jinja2" | PART_HANDLER => (
                        Reason::UnhandledPart,
                        "a template rendered to a type templates cannot produce; kept unused"
                            .to_string(),
                    ),
                    t => (
                        Reason::UnhandledPart,
                        format!("unhandled content type {}; part kept unused", shown_type(t)),
                    ),
                };
                self.diag(Diag::warning(code, msg).file(name));
                self.out
                    .unhandled
                    .push(keep(Frequency::PerInstance, payload));
            }
        }
    }

    /// Whether a part-handler came before in this data: parts of other types are then kept
    /// for it rather than reported (the runner reports those no handler claims).
    fn has_handler(&self) -> bool {
        self.out.part_handlers.iter().any(HandlerPart::is_handler)
    }

    /// Renders a template and handles the result by its own header. Like cloud-init, the
    /// result may be cloud-config (or jsonp), a script or a boothook, nothing else.
    fn template(&mut self, name: &str, filename: String, merge: Option<&str>, payload: &[u8]) {
        let Ok(text) = std::str::from_utf8(payload) else {
            let msg = "jinja template is not UTF-8; part ignored";
            self.diag(Diag::error(Reason::TemplateError, msg).file(name));
            return;
        };
        // Called for a part whose header said template: the header is there.
        let (body, skipped) = jinja::strip_header(text).unwrap_or((text, 0));
        let rendered = match jinja::render(body, self.ctx.instance_data, self.ctx.limits) {
            Ok(r) => r,
            Err(e) => {
                let d = match e.budget {
                    Some(budget) => {
                        let msg = if budget == "template_bytes" {
                            format!(
                                "jinja template output exceeds {} bytes; part ignored",
                                self.ctx.limits.template_bytes
                            )
                        } else {
                            "jinja template ran out of fuel; part ignored".to_string()
                        };
                        Diag::error(Reason::BudgetExceeded, msg).budget(budget)
                    }
                    None => {
                        let msg = format!("jinja template failed ({}); part ignored", e.what);
                        Diag::error(Reason::TemplateError, msg)
                    }
                };
                self.diag(d.file(name).line(e.line.map(|l| l + skipped)));
                return;
            }
        };
        if !rendered.undefined.is_empty() {
            let msg = format!(
                "undefined template variable(s) rendered empty: {}",
                shown_names(&rendered.undefined)
            );
            self.diag(Diag::warning(Reason::TemplateUndefined, msg).file(name));
        }
        let out = rendered.text.into_bytes();
        let ctype = detect(&out).filter(|t| !t.contains("include") && !t.contains("archive"));
        let ctype = ctype.unwrap_or("text/jinja2");
        self.typed(name, filename, ctype, merge, Cow::Owned(out), false);
    }
}

/// Drops the first line when it is `header` (case-insensitive), as cloud-init strips the
/// boothook header before running the rest.
fn strip_first_line_if(payload: &[u8], header: &str) -> Vec<u8> {
    let start = payload
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let rest = &payload[start..];
    if rest.len() >= header.len() && rest[..header.len()].eq_ignore_ascii_case(header.as_bytes()) {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        return rest[end..].to_vec();
    }
    payload.to_vec()
}

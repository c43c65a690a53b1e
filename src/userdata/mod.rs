//! User-data and vendor-data as cloud-init reads them: gzip, MIME multipart, `#include`,
//! archives, jinja templates, and cloud-config parts merged by `merge_how`. Pure apart from
//! the URL reader it is given; it writes nothing and runs nothing.
//!
//! <https://docs.cloud-init.io/en/latest/explanation/format.html>

mod cloudconfig;
pub use ember_core::gzip;
mod include;
pub use ember_jinja as jinja;
pub mod jinja_marked;
mod jsonpatch;
pub(crate) mod mime;
pub use mime::encode_param;
/// Crate-visible for `parts::safe_filename`, which the record step reuses.
pub(crate) mod parts;

use crate::error::Diag;
use crate::fetch::UrlReader;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;
use std::fmt;

/// Everything `process` needs from outside.
pub struct Context<'a> {
    pub limits: &'a Limits,
    /// Reads `#include` and `text/x-include-url` URLs (file:// and http(s)://).
    pub urls: &'a dyn UrlReader,
    /// The YAML parser, passed in so tests can stand a simpler one in.
    pub parse_yaml: &'a dyn Fn(&str) -> Result<crate::yaml::Doc, crate::yaml::YamlError>,
    /// cloud-init's instance-data.json shape (`{"v1": {...}, "ds": {...}, ...}`).
    pub instance_data: &'a Value,
    /// Where `#include-once` content is kept between boots of the instance.
    pub once_cache: &'a dyn OnceCache,
}

/// The instance's `#include-once` cache (cloud-init's `urlcache`): a URL read under
/// `#include-once` is fetched once per instance, and later boots read it from here.
/// Errors are messages naming the cache file, never the URL or the content.
pub trait OnceCache {
    /// The content cached for `url`, if any, at most `max_bytes`.
    fn get(&self, url: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, String>;
    /// Keeps `content`, just fetched from `url`, for the instance's later boots.
    fn put(&self, url: &str, content: &[u8]) -> Result<(), String>;
}

/// No cache: every `#include-once` is fetched (where there is no instance to keep it for).
pub struct NoOnceCache;

impl OnceCache for NoOnceCache {
    fn get(&self, _: &str, _: u64) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }
    fn put(&self, _: &str, _: &[u8]) -> Result<(), String> {
        Ok(())
    }
}

/// When a script runs: `text/x-shellscript` is per-instance; the `-per-*` types say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frequency {
    PerInstance,
    PerBoot,
    PerOnce,
}

/// A part kept for later stages: a script, a boothook, or an unhandled part.
#[derive(Clone)]
pub struct Part {
    /// The part's file name (`part-001` when it had none), made safe by `safe_filename`.
    pub filename: String,
    /// The type as declared or detected, lower-cased; user-controlled and unbounded for
    /// unknown types: show it only through `parts::shown_type`.
    pub content_type: String,
    pub frequency: Frequency,
    pub payload: Secret<Vec<u8>>,
}

/// Shows the type only sanitised and bounded, and never the payload.
impl fmt::Debug for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Part")
            .field("filename", &self.filename)
            .field("content_type", &parts::shown_type(&self.content_type))
            .field("frequency", &self.frequency)
            .field("payload", &self.payload)
            .finish()
    }
}

/// A Python part-handler (`text/part-handler`), or a part after one whose type ember does
/// not handle itself, which the handler may claim (its `list_types()` says, when it runs).
#[derive(Debug)]
pub struct HandlerPart {
    /// How diagnostics name the part: `user-data part 2 (handler.py)`.
    pub name: String,
    pub part: Part,
}

impl HandlerPart {
    pub fn is_handler(&self) -> bool {
        self.part.content_type == parts::PART_HANDLER
    }
}

/// One cloud-config part's top-level keys with their lines, kept for the unknown-key
/// diagnostics. Only the names: the part's values are merged (moved) into the config.
pub struct NamedDoc {
    /// e.g. `user-data part 2 (cloud-config.txt)`, or `user-data` for a plain document.
    pub name: String,
    /// Top-level keys in document order, each with the 1-based line of its value.
    pub keys: Vec<(String, Option<u32>)>,
}

/// The result of reading one user-data (or vendor-data) blob.
#[derive(Default)]
pub struct Processed {
    /// All cloud-config parts merged; `Value::Null` if there were none.
    pub cloud_config: Value,
    pub docs: Vec<NamedDoc>,
    /// Shell scripts in part order.
    pub scripts: Vec<Part>,
    /// `#cloud-boothook` parts with the header line removed, in part order.
    pub boothooks: Vec<Part>,
    /// `text/part-handler` parts, each followed (in part order) by the parts after it that
    /// ember does not handle itself: the runner's init stage hands them to the handlers.
    pub part_handlers: Vec<HandlerPart>,
    /// Unknown types and undetectable parts no part-handler came before, kept and reported.
    pub unhandled: Vec<Part>,
    pub diags: Vec<Diag>,
}

/// Counts only: the merged config and payloads are user data and must not reach a log.
impl fmt::Debug for Processed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Processed")
            .field("cloud_config", &"<redacted>")
            .field("docs", &self.docs.len())
            .field("scripts", &self.scripts)
            .field("boothooks", &self.boothooks)
            .field("part_handlers", &self.part_handlers)
            .field("unhandled", &self.unhandled)
            .field("diags", &self.diags)
            .finish()
    }
}

/// Reads user-data from `source` (`user-data`, `vendor-data`, `vendor-data2`). Never fails:
/// every problem becomes a `Diag` and the rest of the data is still used.
pub fn process(data: &[u8], source: &str, ctx: &Context) -> Processed {
    let mut run = Run::new(ctx, source);
    run.blob(data);
    run.finish()
}

/// The launch index meta-data gives (`ds.meta-data.ami-launch-index` in instance-data).
fn instance_launch_index(instance_data: &Value) -> Option<i64> {
    let md = instance_data.get("ds")?;
    let md = md.get("meta-data").or_else(|| md.get("meta_data"))?;
    match md.get("ami-launch-index")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Nesting of multiparts inside multiparts, gzip inside gzip and templates: a fixed
/// structural cap (far beyond real use) that keeps recursion bounded.
const MAX_NESTING: u32 = 16;

/// State of one `process` call.
struct Run<'c, 'a> {
    ctx: &'c Context<'a>,
    source: &'c str,
    out: Processed,
    /// The merged cloud-config so far (cloud-init's `cloud_buf`).
    merged: Option<Value>,
    /// Parts attached so far; numbers the parts and their default names.
    attached: u32,
    /// MIME entities and parts seen, against `limits.mime_parts`.
    seen: u32,
    inflated: u64,
    included: u64,
    /// URLs being included, outermost first: a repeat is a loop.
    chain: Vec<String>,
    /// Include and archive nesting, against `limits.include_depth`.
    depth: u32,
    nesting: u32,
    /// The whole input is one bare document: name it after the source alone.
    bare: bool,
    /// A budget that ends the whole run (part count) was exceeded.
    stopped: bool,
    /// This instance's launch index (EC2's `ami-launch-index`): parts marked for another are
    /// dropped, as cloud-init's launch-index filter drops them.
    launch_index: Option<i64>,
}

impl<'c, 'a> Run<'c, 'a> {
    fn new(ctx: &'c Context<'a>, source: &'c str) -> Self {
        Run {
            ctx,
            source,
            out: Processed::default(),
            merged: None,
            attached: 0,
            seen: 0,
            inflated: 0,
            included: 0,
            chain: Vec::new(),
            depth: 0,
            nesting: 0,
            bare: false,
            stopped: false,
            launch_index: instance_launch_index(ctx.instance_data),
        }
    }

    /// Whether a part marked with launch index `marked` (a `Launch-Index` header, an archive
    /// item's or a cloud-config's `launch-index`) is another instance's. Unmarked parts, and
    /// every part where the platform gives no index, are everyone's; a mark that is not a
    /// number is no one's (cloud-init's `safe_int` makes it None, which matches no index).
    fn other_instances(&self, marked: Option<&Value>) -> bool {
        let (Some(wanted), Some(marked)) = (self.launch_index, marked) else {
            return false;
        };
        let index = match marked {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        index != Some(wanted)
    }

    fn finish(mut self) -> Processed {
        self.out.cloud_config = self.merged.take().unwrap_or(Value::Null);
        self.out
    }

    fn diag(&mut self, d: Diag) {
        self.out.diags.push(d);
    }

    /// Counts one entity against `mime_parts`; false once the budget is spent.
    fn count_part(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        self.seen += 1;
        if self.seen > self.ctx.limits.mime_parts {
            self.stopped = true;
            let d = Diag::error(
                Reason::BudgetExceeded,
                "too many parts; the rest are ignored",
            )
            .file(self.source)
            .budget("mime_parts");
            self.diag(d);
            return false;
        }
        true
    }

    /// Enters one level of structural nesting; false (with a Diag) when too deep.
    fn enter(&mut self, what: &str) -> bool {
        if self.nesting >= MAX_NESTING {
            let msg = format!("{what} nested more than {MAX_NESTING} levels deep; ignored");
            self.diag(Diag::error(Reason::NestingTooDeep, msg).file(self.source));
            return false;
        }
        self.nesting += 1;
        true
    }

    /// Inflates a gzip payload against what is left of `inflated_bytes` for this run (a
    /// per-run total, so many small bombs cannot add up to more than one).
    fn gunzip(&mut self, data: &[u8], name: &str) -> Option<Vec<u8>> {
        let left = self.ctx.limits.inflated_bytes.saturating_sub(self.inflated);
        match gzip::inflate(data, left) {
            Ok(v) => {
                self.inflated += v.len() as u64;
                Some(v)
            }
            Err(gzip::InflateError::TooLarge) => {
                let msg = "gzip data inflates beyond the limit; ignored";
                self.diag(
                    Diag::error(Reason::BudgetExceeded, msg)
                        .file(name)
                        .budget("inflated_bytes"),
                );
                None
            }
            Err(gzip::InflateError::Corrupt) => {
                self.diag(
                    Diag::error(Reason::GzipCorrupt, "gzip data is corrupt; ignored").file(name),
                );
                None
            }
        }
    }

    /// A whole blob: the input, an included document. Gzip and MIME are sniffed here.
    fn blob(&mut self, data: &[u8]) {
        if data.is_empty() || self.stopped {
            return;
        }
        if gzip::is_gzip(data) {
            if !self.enter("gzip") {
                return;
            }
            if let Some(inner) = self.gunzip(data, self.source) {
                self.blob(&inner);
            }
            self.nesting -= 1;
            return;
        }
        if mime::looks_like_mime(data) {
            self.entity(&mime::parse_entity(data));
            return;
        }
        // cloud-init's "text/x-not-multipart": the type comes from the first line.
        self.bare = self.depth == 0 && self.attached == 0;
        self.part(parts::Incoming {
            content_type: parts::NOT_MULTIPART.to_string(),
            filename: None,
            merge_type: None,
            payload: std::borrow::Cow::Borrowed(data),
        });
        self.bare = false;
    }

    /// A MIME entity: a multipart container is walked, anything else is one part.
    fn entity(&mut self, e: &mime::Entity) {
        if !self.count_part() {
            return;
        }
        let marked = e.header("launch-index").map(|h| Value::String(h.into()));
        if self.other_instances(marked.as_ref()) {
            return;
        }
        let ctype = e.content_type();
        if !ctype.starts_with("multipart/") {
            let payload = match e.decoded_body() {
                Ok(p) => p,
                Err(why) => {
                    let shown = parts::shown_type(&ctype);
                    let msg = format!("MIME part ({shown}): {why}; part ignored");
                    self.diag(Diag::error(Reason::MimeEncoding, msg).file(self.source));
                    return;
                }
            };
            let merge_type = e.header("merge-type").or(e.header("x-merge-type"));
            self.part(parts::Incoming {
                content_type: ctype,
                filename: e.filename(),
                merge_type: merge_type.filter(|m| !m.is_empty()).map(str::to_string),
                payload: std::borrow::Cow::Owned(payload),
            });
            return;
        }
        let boundary = e
            .header("content-type")
            .and_then(|v| mime::param(v, "boundary"));
        let Some(boundary) = boundary.filter(|b| !b.is_empty()) else {
            let msg = "multipart entity without a boundary; ignored";
            self.diag(Diag::error(Reason::MimeMalformed, msg).file(self.source));
            return;
        };
        if !self.enter("multipart") {
            return;
        }
        for body in mime::split_multipart(e.body, &boundary) {
            self.entity(&mime::parse_entity(body));
        }
        self.nesting -= 1;
    }
}

#[cfg(test)]
mod tests;

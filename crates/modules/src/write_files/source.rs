//! `write_files` `source: {uri, headers}`: content read from a URL or a file of the target,
//! within the `file_bytes` budget. A failure is the caller's to report (a warning, then
//! `content` is used, as cloud-init does); reasons never quote the URL.

use super::ModuleCtx;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

#[derive(Clone, PartialEq, Eq)]
pub struct Source {
    pub uri: String,
    /// Sent with http(s) requests only; may hold tokens, so never shown.
    pub headers: Vec<(String, String)>,
}

/// The URL redacted and the header names only: both may carry tokens.
impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Source")
            .field("uri", &crate::redact::redact_url(&self.uri))
            .field("headers", &names)
            .finish()
    }
}

/// Reads `source` of item `key` (`write_files.3`). `Ok(None)` when absent or its uri is empty
/// (cloud-init then uses `content`). Wrong types are errors naming the key.
pub fn parse(value: Option<&Value>, key: &str) -> Result<Option<Source>, Vec<Diag>> {
    let map = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(vec![Diag::error(
                Reason::WrongType,
                "must be a mapping with uri",
            )
            .key(format!("{key}.source"))])
        }
    };
    let mut errors = Vec::new();
    let uri = match map.get("uri") {
        Some(Value::String(s)) => s.trim().to_string(),
        None | Some(Value::Null) => String::new(),
        Some(_) => {
            errors.push(
                Diag::error(Reason::WrongType, "must be a string").key(format!("{key}.source.uri")),
            );
            String::new()
        }
    };
    let mut headers = Vec::new();
    match map.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(h)) => {
            for (name, value) in h {
                let value = match value {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => {
                        errors.push(
                            Diag::error(Reason::WrongType, "must be a string")
                                .key(format!("{key}.source.headers.{name}")),
                        );
                        continue;
                    }
                };
                headers.push((name.clone(), value));
            }
        }
        Some(_) => errors.push(
            Diag::error(
                Reason::WrongType,
                "must be a mapping of header names to values",
            )
            .key(format!("{key}.source.headers")),
        ),
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok((!uri.is_empty()).then_some(Source { uri, headers }))
}

/// The content at `source`, or why not (a reason free of the URL and of the headers).
///
/// `file://` and plain paths are read from the target root, not the initramfs: cloud-init
/// reads them on the booted system, whose files are the target's.
pub fn fetch(ctx: &ModuleCtx, source: &Source) -> Result<Vec<u8>, String> {
    let max = ctx.limits.file_bytes;
    let uri = source.uri.as_str();
    let path = match uri.strip_prefix("file://") {
        Some(rest) => Some(rest.strip_prefix("localhost").unwrap_or(rest)),
        None => uri.starts_with('/').then_some(uri),
    };
    if let Some(path) = path {
        return match ctx.root.read_file(path, max) {
            Ok(Some(data)) => Ok(data),
            Ok(None) => Err("not found in the target".into()),
            Err(e) => Err(match e.code() {
                Reason::BudgetExceeded => {
                    format!("larger than the file_bytes budget of {max} bytes")
                }
                _ => "cannot be read in the target".into(),
            }),
        };
    }
    if uri.starts_with("http://") || uri.starts_with("https://") {
        return ctx
            .urls
            .read_with_headers(uri, &source.headers, max)
            .map_err(|e| e.reason());
    }
    Err("unsupported URL scheme".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn source_types() {
        let ok = parse(
            Some(&json!({"uri": " https://h/x ", "headers": {"A": "b", "N": 1}})),
            "w.0",
        );
        let src = ok.unwrap().unwrap();
        assert_eq!(src.uri, "https://h/x");
        assert_eq!(
            src.headers,
            [("A".into(), "b".into()), ("N".into(), "1".into())]
        );
        assert_eq!(parse(None, "w.0").unwrap(), None);
        assert_eq!(parse(Some(&json!({"uri": ""})), "w.0").unwrap(), None);
        let keys = |v: Value| -> Vec<String> {
            parse(Some(&v), "w.0")
                .unwrap_err()
                .into_iter()
                .map(|d| d.key.unwrap())
                .collect()
        };
        assert_eq!(keys(json!("https://h/x")), ["w.0.source"]);
        assert_eq!(
            keys(json!({"uri": 5, "headers": []})),
            ["w.0.source.uri", "w.0.source.headers"]
        );
        assert_eq!(
            keys(json!({"uri": "/x", "headers": {"T": [1]}})),
            ["w.0.source.headers.T"]
        );
    }
}

//! AliYun's meta-data as cloud-init reads it: the one JSON document `meta-data/all`, each leaf
//! decoded as EC2's leaves are (text starting with `{` that parses is JSON, text of several
//! lines a list); where that document is missing or unreadable, the EC2-style tree crawled
//! listing by listing (`public-keys/` as `N=name` with the key under `N/openssh-key`), within
//! a budget of depth and requests so a looping or huge tree cannot hold the boot.
//! Not here: the token and what the keys mean (mod.rs).

use crate::datasource::ec2::imds::{Error, Imds};
use serde_json::{Map, Value};

/// Depth of the crawled tree (`network/interfaces/macs/<mac>/ipv6s` is 5).
const MAX_DEPTH: usize = 6;
/// Requests a crawl may send.
const MAX_REQUESTS: u32 = 256;
/// Entries of one listing read.
const MAX_ENTRIES: usize = 64;

/// One leaf as cloud-init's `MetadataLeafDecoder` makes it.
pub fn decode_leaf(text: &str) -> Value {
    if text.starts_with('{') {
        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
            return v;
        }
    }
    if text.contains('\n') {
        return Value::Array(text.lines().map(|l| Value::String(l.into())).collect());
    }
    Value::String(text.into())
}

/// Every string leaf of the JSON document decoded; other values kept.
pub fn decode_all(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, decode_all(v))).collect()),
        Value::Array(a) => Value::Array(a.into_iter().map(decode_all).collect()),
        Value::String(s) => decode_leaf(&s),
        other => other,
    }
}

fn text(body: Vec<u8>) -> String {
    String::from_utf8_lossy(&body).into_owned()
}

/// The tree under `path` (`2016-01-01/meta-data`), `None` when the service has no listing.
pub fn crawl(imds: &mut Imds, path: &str) -> Result<Option<Value>, Error> {
    let mut sent = 0;
    crawl_dir(imds, path, 0, &mut sent)
}

fn crawl_dir(
    imds: &mut Imds,
    path: &str,
    depth: usize,
    sent: &mut u32,
) -> Result<Option<Value>, Error> {
    let Some(listing) = get(imds, &format!("{path}/"), sent)? else {
        return Ok(None);
    };
    let mut out = Map::new();
    let listing = text(listing);
    let entries = listing.lines().map(str::trim).filter(|l| !l.is_empty());
    for entry in entries.take(MAX_ENTRIES) {
        if let Some(dir) = entry.strip_suffix('/') {
            if depth + 1 >= MAX_DEPTH || dir.is_empty() || dir.contains("..") {
                continue;
            }
            if let Some(v) = crawl_dir(imds, &format!("{path}/{dir}"), depth + 1, sent)? {
                out.insert(dir.to_string(), v);
            }
        } else if let Some((ident, name)) = entry.split_once('=') {
            // `public-keys/`: `0=my-key`, the key itself at `0/openssh-key`.
            if let Some(key) = get(imds, &format!("{path}/{ident}/openssh-key"), sent)? {
                let mut k = Map::new();
                k.insert("openssh-key".into(), decode_leaf(text(key).trim_end()));
                out.insert(name.to_string(), Value::Object(k));
            }
        } else if !entry.contains("..") {
            if let Some(leaf) = get(imds, &format!("{path}/{entry}"), sent)? {
                out.insert(entry.to_string(), decode_leaf(text(leaf).trim_end()));
            }
        }
    }
    Ok(Some(Value::Object(out)))
}

/// One GET within the crawl's budget: past it, the rest of the tree is left out.
fn get(imds: &mut Imds, path: &str, sent: &mut u32) -> Result<Option<Vec<u8>>, Error> {
    if *sent >= MAX_REQUESTS {
        return Ok(None);
    }
    *sent += 1;
    imds.get(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaves_decode_as_cloud_init_decodes_them() {
        assert_eq!(decode_leaf("i-abc"), json!("i-abc"));
        assert_eq!(
            decode_leaf("100.100.2.136\n100.100.2.138"),
            json!(["100.100.2.136", "100.100.2.138"])
        );
        assert_eq!(decode_leaf("{\"a\": 1}"), json!({"a": 1}));
        assert_eq!(decode_leaf("{not json"), json!("{not json"));
        let all = json!({"dns-conf": {"nameservers": "a\nb"}, "n": 3, "keys": ["x"]});
        assert_eq!(
            decode_all(all),
            json!({"dns-conf": {"nameservers": ["a", "b"]}, "n": 3, "keys": ["x"]})
        );
    }
}

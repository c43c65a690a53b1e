//! An EC2-style meta-data tree read as cloud-init's `get_instance_metadata` reads it, for the
//! clouds that serve one without a JSON document (Exoscale, CloudStack, AliYun's fallback):
//! listing by listing (`dir/` a subtree, `N=name` a public key under `N/openssh-key`), each
//! leaf decoded as cloud-init's `MetadataLeafDecoder` does (text starting with `{` that parses
//! is JSON, text of several lines a list), within a budget of depth and requests so a looping
//! or huge tree cannot hold the boot. The GET is the caller's (a token, a retry policy).
//! Not here: what the keys mean.

use ember_core::sort::IntoMap;
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
        if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(text.as_bytes()) {
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
        Value::Object(m) => {
            Value::Object(m.into_iter().map(|(k, v)| (k, decode_all(v))).into_map())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(decode_all).collect()),
        Value::String(s) => decode_leaf(&s),
        other => other,
    }
}

fn text(body: Vec<u8>) -> String {
    String::from_utf8_lossy(&body).into_owned()
}

/// One GET of a path under the service's base: the body, `None` when absent (404).
pub trait Get<E>: FnMut(&str) -> Result<Option<Vec<u8>>, E> {}
impl<E, F: FnMut(&str) -> Result<Option<Vec<u8>>, E>> Get<E> for F {}

/// The tree under `path` (`2016-01-01/meta-data`), `None` when the service has no listing.
pub fn crawl<E>(get_path: &mut impl Get<E>, path: &str) -> Result<Option<Value>, E> {
    let mut sent = 0;
    crawl_dir(get_path, path, 0, &mut sent)
}

fn crawl_dir<E>(
    imds: &mut impl Get<E>,
    path: &str,
    depth: usize,
    sent: &mut u32,
) -> Result<Option<Value>, E> {
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
fn get<E>(imds: &mut impl Get<E>, path: &str, sent: &mut u32) -> Result<Option<Vec<u8>>, E> {
    if *sent >= MAX_REQUESTS {
        return Ok(None);
    }
    *sent += 1;
    imds(path)
}

/// The fuzz target `metadata_tree`: `data` as every listing and leaf of a tree (so only the
/// crawl's budgets end it), and as a `meta-data/all` document to decode.
#[doc(hidden)]
pub fn fuzz(data: &[u8]) {
    let mut get = |_: &str| -> Result<Option<Vec<u8>>, ()> { Ok(Some(data.to_vec())) };
    let _ = crawl(&mut get, "md");
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        let _ = decode_all(v);
    }
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

    #[test]
    fn a_tree_is_crawled_within_its_budget() {
        let served = |p: &str| -> Option<&str> {
            Some(match p {
                "md/" => "instance-id\npublic-keys/\nplacement/\nloop/\n",
                "md/instance-id" => "i-1\n",
                "md/public-keys/" => "0=mine\n",
                "md/public-keys/0/openssh-key" => "ssh-ed25519 AAA k\n",
                "md/placement/" => "availability-zone",
                "md/placement/availability-zone" => "z-1",
                p if p.starts_with("md/loop") && p.ends_with('/') => "loop/",
                _ => return None,
            })
        };
        let mut asked = 0;
        let mut get = |p: &str| -> Result<Option<Vec<u8>>, ()> {
            asked += 1;
            Ok(served(p).map(|b| b.as_bytes().to_vec()))
        };
        let tree = crawl(&mut get, "md").unwrap().unwrap();
        assert_eq!(tree["instance-id"], "i-1");
        assert_eq!(
            tree["public-keys"]["mine"]["openssh-key"],
            "ssh-ed25519 AAA k"
        );
        assert_eq!(tree["placement"]["availability-zone"], "z-1");
        // The self-similar `loop/` ends at the depth budget.
        assert!(asked < 20, "{asked}");
        let mut none = |_: &str| -> Result<Option<Vec<u8>>, ()> { Ok(None) };
        assert_eq!(crawl(&mut none, "md"), Ok(None));
        let mut failing = |_: &str| -> Result<Option<Vec<u8>>, &str> { Err("down") };
        assert_eq!(crawl(&mut failing, "md"), Err("down"));
    }
}

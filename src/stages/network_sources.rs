//! Which of cloud-init's network config sources count, and in what order: the system config's
//! `network` key and the platforms that prefer their own config over it.

use serde_json::Value;

/// The platforms (cloud-init's names) whose datasource network config comes before the
/// system config's, as their cloud-init datasources order them.
const DATASOURCE_FIRST: &[&str] = &["MAAS", "Oracle"];

/// Whether the datasource `name` (ember's name) prefers its own network config.
pub fn datasource_first(name: &str) -> bool {
    crate::datasource::by_name(name)
        .is_some_and(|ds| DATASOURCE_FIRST.contains(&ds.cloud_init_name()))
}

/// The system config's network config: `network`, or what it holds under a second `network`
/// key; `None` when that is empty (`network:` with nothing, `{}`), which counts as no config.
pub fn system(cfg: &Value) -> Option<&Value> {
    let net = cfg.get("network")?;
    let inner = net.get("network").unwrap_or(net);
    Some(inner).filter(|v| !is_empty(v))
}

/// Whether the system config has a `network` key that says nothing (cloud-init warns then).
pub fn empty_in_system(cfg: &Value) -> bool {
    cfg.get("network").is_some_and(is_empty)
}

/// Python's falsiness, which is what cloud-init tests a network config for.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_network_key_is_no_config() {
        for empty in [json!(null), json!({}), json!({"network": null}), json!([])] {
            assert_eq!(system(&json!({"network": empty})), None, "{empty}");
        }
        assert!(empty_in_system(&json!({"network": null})));
        assert!(!empty_in_system(&json!({})));
        let v2 = json!({"version": 2});
        assert_eq!(system(&json!({"network": {"network": v2}})), Some(&v2));
    }

    #[test]
    fn maas_and_oracle_prefer_their_own_config() {
        assert!(datasource_first("maas") && datasource_first("oracle"));
        assert!(!datasource_first("nocloud") && !datasource_first("no-such-cloud"));
    }
}

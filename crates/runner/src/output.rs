//! cloud-init's `output:` setting: where the runner's commands' output goes, per stage
//! (`init`, `config`, `final`, else `all`). ember takes the file forms: `>> /path`, `> /path`
//! and `| tee [-a] /path` (cloud-init's default); other pipes are not run (ember does not pass
//! user text to a shell as a pipeline) and fall back to the default log with a warning.
//! <https://docs.cloud-init.io/en/latest/reference/base_config_reference.html#output>

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

/// cloud-init's default log, in the target.
pub const DEFAULT_LOG: &str = "/var/log/cloud-init-output.log";

/// The log file for `stage` (`init`, `config`, `final`) from the `output` value.
pub fn log_for(output: &Value, stage: &str, diags: &mut Vec<Diag>) -> String {
    let Some(map) = output.as_object() else {
        if !output.is_null() {
            diags.push(Diag::error(Reason::WrongType, "must be a mapping").key("output"));
        }
        return DEFAULT_LOG.into();
    };
    let (key, spec) = match map.get(stage) {
        Some(v) => (stage, v),
        None => match map.get("all") {
            Some(v) => ("all", v),
            None => return DEFAULT_LOG.into(),
        },
    };
    // A list or `{output, error}` names stdout's target first; ember merges stderr into it.
    let spec = match spec {
        Value::Array(items) => items.first().unwrap_or(&Value::Null),
        Value::Object(m) => m.get("output").unwrap_or(&Value::Null),
        other => other,
    };
    let key = format!("output.{key}");
    let Some(text) = spec.as_str() else {
        diags.push(Diag::error(Reason::WrongType, "must be a string, list or mapping").key(key));
        return DEFAULT_LOG.into();
    };
    match target(text) {
        Some(path) => path,
        None => {
            let msg = "only `>> file`, `> file` and `| tee [-a] file` are supported; using the default log";
            diags.push(Diag::warning(Reason::OutputUnsupported, msg).key(key));
            DEFAULT_LOG.into()
        }
    }
}

/// The file a spec writes to, when it is one of the forms ember takes.
fn target(spec: &str) -> Option<String> {
    let spec = spec.trim();
    let path: &str = if let Some(rest) = spec.strip_prefix(">>").or_else(|| spec.strip_prefix('>'))
    {
        rest.trim()
    } else {
        let words: Vec<&str> = spec.strip_prefix('|')?.split_whitespace().collect();
        match words.as_slice() {
            ["tee", "-a", path] | ["tee", path] => path,
            _ => return None,
        }
    };
    (path.starts_with('/') && !path.contains(char::is_whitespace)).then(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_cloud_init_writes() {
        let cases = [
            (json!(null), "config", Some(DEFAULT_LOG)),
            (
                json!({"all": "| tee -a /var/log/x.log"}),
                "final",
                Some("/var/log/x.log"),
            ),
            (
                json!({"all": ">> /var/log/a", "final": "> /var/log/f"}),
                "final",
                Some("/var/log/f"),
            ),
            (
                json!({"all": ">> /var/log/a", "final": "> /var/log/f"}),
                "init",
                Some("/var/log/a"),
            ),
            (
                json!({"init": [">> /var/log/i", "> /var/log/e"]}),
                "init",
                Some("/var/log/i"),
            ),
            (
                json!({"all": {"output": "| tee /var/log/o", "error": "> /dev/null"}}),
                "config",
                Some("/var/log/o"),
            ),
        ];
        for (output, stage, want) in cases {
            let mut diags = Vec::new();
            assert_eq!(
                log_for(&output, stage, &mut diags).as_str(),
                want.unwrap(),
                "{output}"
            );
            assert!(diags.is_empty(), "{diags:?}");
        }
    }

    #[test]
    fn other_pipes_warn_and_keep_the_default() {
        let mut diags = Vec::new();
        let out = json!({"all": "| logger -t cloud-init"});
        assert_eq!(log_for(&out, "final", &mut diags), DEFAULT_LOG);
        assert_eq!(diags[0].code, "output-unsupported");
        assert_eq!(diags[0].key.as_deref(), Some("output.all"));
        let mut diags = Vec::new();
        assert_eq!(
            log_for(&json!({"all": 5}), "final", &mut diags),
            DEFAULT_LOG
        );
        assert!(diags[0].is_error());
        assert_eq!(target(">> relative/path"), None);
    }
}

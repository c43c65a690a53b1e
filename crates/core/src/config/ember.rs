//! ember's own settings, under the image config's `ember:` key: the budgets (`limits`), which
//! removable seeds are accepted (`removable_seeds`), whether the inputs are measured into the
//! TPM (`measure`) and when the RSA host key is made (`rsa_host_key`). One reader for the boot and `ember schema`, so both say the same thing
//! with the same severity: a misspelt key or value is a warning and the default stands; budgets
//! that do not read are an error (every budget falls back to its default).

use crate::error::{Diag, Reason};
use crate::limits::Limits;
use serde_json::Value;

/// The keys under `ember:`, each with what it may be.
pub const KEYS: &[(&str, &str)] = &[
    ("limits", "a mapping of budgets (the manual: Budgets)"),
    ("measure", "auto, required or off"),
    ("removable_seeds", "always or first-boot"),
    ("rsa_host_key", "after-sshd or before-sshd"),
];

/// Settings user-data and vendor-data cannot make: the budgets bound the reading of user-data
/// itself, and a seed may not loosen the gate it passes through.
/// Nor may they switch off the measurement of themselves.
const IMAGE_ONLY: &[&str] = &["limits", "measure", "removable_seeds"];

/// What the image's `ember:` mapping sets, defaults where it does not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmberSettings {
    pub limits: Limits,
    /// `removable_seeds: first-boot`: a seed on removable media only while the machine has no
    /// instance yet (the manual: Removable seeds).
    pub removable_seeds_first_boot: bool,
    /// `measure`: whether the inputs are measured into the TPM before they are used.
    pub measure: Measure,
}

/// `ember.measure` (the manual: Measured provisioning).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Measure {
    /// Measured where the machine has a TPM; none is no problem, a failing one an error.
    #[default]
    Auto,
    /// Provisioning stops unless every input was measured.
    Required,
    /// Never measured.
    Off,
}

/// Reads the image's settings; `rsa_host_key`, which the ssh module reads from the config it
/// is given, is checked there (`rsa_before_sshd`), not twice.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> EmberSettings {
    let Some(ember) = cfg.get("ember").filter(|v| !v.is_null()) else {
        return EmberSettings::default();
    };
    let Some(map) = ember.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "must be a mapping").key("ember"));
        return EmberSettings::default();
    };
    for key in map
        .keys()
        .filter(|k| !KEYS.iter().any(|(known, _)| known == k))
    {
        let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        let why = format!(
            "unknown ember setting, ignored (known: {})",
            known.join(", ")
        );
        diags.push(Diag::warning(Reason::UnknownKey, why).key(format!("ember.{key}")));
    }
    EmberSettings {
        limits: limits(map.get("limits"), diags),
        removable_seeds_first_boot: removable_seeds_first_boot(map.get("removable_seeds"), diags),
        measure: measure(map.get("measure"), diags),
    }
}

/// Everything `ember schema` reports for the `ember:` mapping: what the boot reports. In
/// user-data (`from_instance`), the image-only settings are also said to be ignored.
pub fn check(cfg: &Value, from_instance: bool, diags: &mut Vec<Diag>) {
    read(cfg, diags);
    rsa_before_sshd(cfg, diags);
    if from_instance {
        ignored_from_instance(&Value::Null, cfg, diags);
    }
}

/// A warning for each image-only setting the instance's data (merged into `merged`) set to
/// something other than the `image`'s: ignored, the image's stands.
pub fn ignored_from_instance(image: &Value, merged: &Value, diags: &mut Vec<Diag>) {
    for key in IMAGE_ONLY {
        let path = format!("/ember/{key}");
        if merged.pointer(&path).is_some() && merged.pointer(&path) != image.pointer(&path) {
            let why = "an image setting (cloud.cfg, /etc/ember/ember.cfg): not taken from \
                       user-data or vendor-data, ignored";
            diags.push(Diag::warning(Reason::UnsupportedKey, why).key(format!("ember.{key}")));
        }
    }
}

fn limits(value: Option<&Value>, diags: &mut Vec<Diag>) -> Limits {
    let Some(v) = value.filter(|v| !v.is_null()) else {
        return Limits::default();
    };
    serde_json::from_value(v.clone()).unwrap_or_else(|e| {
        let why = format!("invalid budget: {e}; every budget keeps its default");
        diags.push(Diag::error(Reason::ConfigInvalid, why).key("ember.limits"));
        Limits::default()
    })
}

/// `ember.removable_seeds`: `always` (the default, cloud-init's behaviour) or `first-boot`.
fn removable_seeds_first_boot(value: Option<&Value>, diags: &mut Vec<Diag>) -> bool {
    one_of_two(value, "removable_seeds", ("always", "first-boot"), diags)
}

/// `ember.measure`: `auto` (the default), `required` or `off`. An unquoted `off` is YAML 1.1's
/// false, as PyYAML reads it: it means off too, and `true` the default.
fn measure(value: Option<&Value>, diags: &mut Vec<Diag>) -> Measure {
    match value.filter(|v| !v.is_null()) {
        None => Measure::Auto,
        Some(Value::Bool(false)) => Measure::Off,
        Some(Value::Bool(true)) => Measure::Auto,
        Some(v) if v == "auto" => Measure::Auto,
        Some(v) if v == "required" => Measure::Required,
        Some(v) if v == "off" => Measure::Off,
        Some(_) => {
            let why = "must be auto, required or off; auto is used";
            diags.push(Diag::warning(Reason::BadValue, why).key("ember.measure"));
            Measure::Auto
        }
    }
}

/// `ember.rsa_host_key`: `after-sshd` (the default) or `before-sshd`.
pub fn rsa_before_sshd(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    let value = cfg.pointer("/ember/rsa_host_key");
    one_of_two(value, "rsa_host_key", ("after-sshd", "before-sshd"), diags)
}

/// A setting that is `default` (also when absent) or `other`: true for `other`; anything else
/// warns and the default stands.
fn one_of_two(
    value: Option<&Value>,
    key: &str,
    (default, other): (&str, &str),
    diags: &mut Vec<Diag>,
) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(v) if v == other => true,
        Some(v) if v == default => false,
        Some(_) => {
            let why = format!("must be {default} or {other}; {default} is used");
            diags.push(Diag::warning(Reason::BadValue, why).key(format!("ember.{key}")));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Severity;
    use serde_json::json;

    fn diags_of(cfg: Value) -> (EmberSettings, Vec<(String, String, Severity)>) {
        let mut diags = Vec::new();
        let settings = read(&cfg, &mut diags);
        rsa_before_sshd(&cfg, &mut diags);
        let named = diags
            .into_iter()
            .map(|d| (d.key.unwrap_or_default(), d.code, d.severity))
            .collect();
        (settings, named)
    }

    #[test]
    fn absent_empty_or_null_is_the_defaults() {
        for cfg in [json!({}), json!({"ember": null}), json!({"ember": {}})] {
            assert_eq!(diags_of(cfg), (EmberSettings::default(), vec![]));
        }
    }

    #[test]
    fn every_setting_read() {
        let cfg = json!({"ember": {
            "limits": {"file_bytes": 4096},
            "measure": "required",
            "removable_seeds": "first-boot",
            "rsa_host_key": "before-sshd",
        }});
        let (settings, diags) = diags_of(cfg.clone());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(settings.limits.file_bytes, 4096);
        assert_eq!(settings.measure, Measure::Required);
        assert!(settings.removable_seeds_first_boot);
        assert!(rsa_before_sshd(&cfg, &mut Vec::new()));
    }

    #[test]
    fn misspelt_keys_and_values_warn_and_bad_budgets_are_errors() {
        let cfg = json!({"ember": {
            "rsa_hostkey": "before-sshd",
            "removable_seeds": "firstboot",
            "rsa_host_key": true,
            "limits": {"file_byte": 1},
            "measure": "yes",
        }});
        let (settings, diags) = diags_of(cfg);
        assert_eq!(settings, EmberSettings::default());
        let want = [
            ("ember.rsa_hostkey", "unknown-key", Severity::Warning),
            ("ember.limits", "config-invalid", Severity::Error),
            ("ember.removable_seeds", "bad-value", Severity::Warning),
            ("ember.measure", "bad-value", Severity::Warning),
            ("ember.rsa_host_key", "bad-value", Severity::Warning),
        ];
        let want: Vec<_> = want
            .map(|(k, r, s)| (k.to_string(), r.to_string(), s))
            .into();
        assert_eq!(diags, want);
    }

    #[test]
    fn image_only_settings_from_the_instance_are_ignored() {
        let image = json!({"ember": {"limits": {"file_bytes": 1}}});
        let merged = json!({"ember": {
            "limits": {"file_bytes": 1},
            "removable_seeds": "always",
            "rsa_host_key": "before-sshd",
        }});
        let mut diags = Vec::new();
        ignored_from_instance(&image, &merged, &mut diags);
        let keys: Vec<_> = diags.iter().map(|d| d.key.as_deref().unwrap()).collect();
        assert_eq!(keys, ["ember.removable_seeds"]);
        ignored_from_instance(&image, &image, &mut diags);
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn not_a_mapping_is_an_error() {
        let (settings, diags) = diags_of(json!({"ember": ["limits"]}));
        assert_eq!(settings, EmberSettings::default());
        assert_eq!(
            diags,
            vec![(
                "ember".to_string(),
                "wrong-type".to_string(),
                Severity::Error
            )]
        );
    }
}

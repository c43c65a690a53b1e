//! /etc/chef/client.rb as cloud-init renders its `chef_client.rb.tmpl` (trim_blocks Jinja,
//! a blank line at the end), written in Rust: one line per value that is set, in the
//! template's order, from cloud-init's defaults overridden by the `chef` keys. The
//! validation key's text is never part of it, only its path.

use crate::common::cfgmgmt::read::py_str;
use crate::conf_lang::{ruby, Refused};
use serde_json::{Map, Value};

/// A template value: a string, `show_time`'s boolean, or unset (`None` in cloud-init).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    Str(String),
    Bool(bool),
    Unset,
}

impl Param {
    /// Jinja's truth of the value.
    fn set(&self) -> bool {
        match self {
            Param::Str(s) => !s.is_empty(),
            Param::Bool(b) => *b,
            Param::Unset => false,
        }
    }
    fn text(&self) -> &str {
        match self {
            Param::Str(s) => s,
            Param::Bool(true) => "True",
            Param::Bool(false) => "False",
            Param::Unset => "None",
        }
    }
}

/// cloud-init's `CHEF_RB_TPL_DEFAULTS`.
const DEFAULTS: &[(&str, Option<&str>)] = &[
    ("ssl_verify_mode", Some(":verify_none")),
    ("log_level", Some(":info")),
    ("log_location", Some("/var/log/chef/client.log")),
    ("validation_key", Some("/etc/chef/validation.pem")),
    ("validation_cert", None),
    ("client_key", Some("/etc/chef/client.pem")),
    ("json_attribs", Some("/etc/chef/firstboot.json")),
    ("file_cache_path", Some("/var/cache/chef")),
    ("file_backup_path", Some("/var/backups/chef")),
    ("pid_file", Some("/var/run/chef/client.pid")),
    ("show_time", None),
    ("encrypted_data_bag_secret", None),
];

/// The template keys that are paths: their parent directories are made before rendering.
pub const PATH_KEYS: &[&str] = &[
    "log_location",
    "validation_key",
    "client_key",
    "file_cache_path",
    "json_attribs",
    "pid_file",
    "encrypted_data_bag_secret",
];

/// The other keys the template takes from the config.
const OTHER_KEYS: &[&str] = &[
    "server_url",
    "node_name",
    "environment",
    "validation_name",
    "chef_license",
];

pub struct Params(Vec<(&'static str, Param)>);

impl Params {
    pub fn get(&self, key: &str) -> &Param {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(&Param::Unset, |(_, v)| v)
    }

    fn put(&mut self, key: &'static str, v: Param) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = v,
            None => self.0.push((key, v)),
        }
    }
}

/// cloud-init's `translate_bool`.
fn truth(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        other => {
            let s = py_str(other).trim().to_ascii_lowercase();
            ["true", "1", "on", "yes", "y", "t"].contains(&s.as_str())
        }
    }
}

/// cloud-init's `get_template_params`. `Err` names the mandatory key that is missing
/// (`server_url` or `validation_name`).
pub fn params(instance_id: &str, chef: &Map<String, Value>) -> Result<Params, &'static str> {
    let mut p = Params(Vec::new());
    for (k, v) in DEFAULTS {
        let v = match (k, v) {
            (&"show_time", _) => Param::Bool(true),
            (_, Some(s)) => Param::Str(s.to_string()),
            (_, None) => Param::Unset,
        };
        p.put(k, v);
    }
    let known = DEFAULTS
        .iter()
        .map(|(k, _)| *k)
        .chain(PATH_KEYS.iter().copied())
        .chain(OTHER_KEYS.iter().copied());
    for key in known.collect::<Vec<_>>() {
        let Some(v) = chef.get(key) else {
            continue;
        };
        let param = match v {
            Value::Null => Param::Unset,
            v if key == "show_time" => Param::Bool(truth(v)),
            v => Param::Str(py_str(v)),
        };
        p.put(key, param);
    }
    let or = |key: &str, default: &str| chef.get(key).map_or_else(|| default.to_string(), py_str);
    p.put("node_name", Param::Str(or("node_name", instance_id)));
    p.put("environment", Param::Str(or("environment", "_default")));
    for key in ["server_url", "validation_name"] {
        let v = chef.get(key).ok_or(key)?;
        p.put(key, Param::Str(py_str(v)));
    }
    Ok(p)
}

/// The settings written bare (Ruby code) that are not a symbol, constant or integer: `render`
/// leaves them out, and the caller names them.
pub fn refused(p: &Params) -> Vec<(&'static str, Refused)> {
    BARE.iter()
        .filter(|k| p.get(k).set())
        .filter_map(|k| Some((*k, ruby::bare(p.get(k).text()).err()?)))
        .collect()
}

/// The settings the template writes bare.
const BARE: [&str; 2] = ["log_level", "ssl_verify_mode"];

/// The rendered file; `header` is its first line (`# Created by ...`).
pub fn render(header: &str, p: &Params) -> String {
    // (condition, line): the template's `{% if x %}` blocks in order.
    let quoted = |name: &str, key: &str| -> Option<String> {
        let v = p.get(key);
        v.set()
            .then(|| format!("{name:<22} {}", ruby::string(v.text())))
    };
    let bare = |name: &str, key: &str| -> Option<String> {
        let v = p.get(key);
        let v = ruby::bare(v.text()).ok().filter(|_| v.set())?;
        Some(format!("{name:<22} {v}"))
    };
    let validation_key = p.get("validation_cert").set().then(|| {
        format!(
            "{:<22} {}",
            "validation_key",
            ruby::string(p.get("validation_key").text())
        )
    });
    let lines = [
        quoted("chef_license", "chef_license"),
        bare("log_level", "log_level"),
        bare("ssl_verify_mode", "ssl_verify_mode"),
        quoted("log_location", "log_location"),
        quoted("validation_client_name", "validation_name"),
        validation_key,
        quoted("client_key", "client_key"),
        quoted("chef_server_url", "server_url"),
        quoted("environment", "environment"),
        quoted("node_name", "node_name"),
        quoted("json_attribs", "json_attribs"),
        quoted("file_cache_path", "file_cache_path"),
        quoted("file_backup_path", "file_backup_path"),
        quoted("pid_file", "pid_file"),
        p.get("show_time")
            .set()
            .then(|| "Chef::Log::Formatter.show_time = true".to_string()),
        p.get("encrypted_data_bag_secret").set().then(|| {
            format!(
                "encrypted_data_bag_secret {}",
                ruby::string(p.get("encrypted_data_bag_secret").text())
            )
        }),
    ];
    let mut out = format!("{header}\n");
    for line in lines.into_iter().flatten() {
        out.push_str(&line);
        out.push('\n');
    }
    // cloud-init's renderer adds the template's final newline back after Jinja drops it.
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Both expected texts are what cloud-init 22.4's templater renders from its
    /// chef_client.rb.tmpl for the same config (the header given as `# HEADER`).
    #[test]
    fn renders_as_cloud_init() {
        let chef = json!({"server_url": "https://c.example:4000", "validation_name": "org-validator",
                          "validation_cert": "system", "chef_license": "accept"});
        let p = params("iid-123", chef.as_object().unwrap()).unwrap();
        assert_eq!(
            render("# HEADER", &p),
            "# HEADER\nchef_license           \"accept\"\nlog_level              :info\n\
             ssl_verify_mode        :verify_none\nlog_location           \"/var/log/chef/client.log\"\n\
             validation_client_name \"org-validator\"\nvalidation_key         \"/etc/chef/validation.pem\"\n\
             client_key             \"/etc/chef/client.pem\"\nchef_server_url        \"https://c.example:4000\"\n\
             environment            \"_default\"\nnode_name              \"iid-123\"\n\
             json_attribs           \"/etc/chef/firstboot.json\"\nfile_cache_path        \"/var/cache/chef\"\n\
             file_backup_path       \"/var/backups/chef\"\npid_file               \"/var/run/chef/client.pid\"\n\
             Chef::Log::Formatter.show_time = true\n\n"
        );
        let chef = json!({"server_url": "u", "validation_name": "v", "json_attribs": null,
                          "log_level": null, "encrypted_data_bag_secret": "/e/s", "show_time": "no"});
        let p = params("iid-123", chef.as_object().unwrap()).unwrap();
        assert_eq!(
            render("# HEADER", &p),
            "# HEADER\nssl_verify_mode        :verify_none\nlog_location           \"/var/log/chef/client.log\"\n\
             validation_client_name \"v\"\nclient_key             \"/etc/chef/client.pem\"\n\
             chef_server_url        \"u\"\nenvironment            \"_default\"\n\
             node_name              \"iid-123\"\nfile_cache_path        \"/var/cache/chef\"\n\
             file_backup_path       \"/var/backups/chef\"\npid_file               \"/var/run/chef/client.pid\"\n\
             encrypted_data_bag_secret \"/e/s\"\n\n"
        );
    }

    /// client.rb is Ruby that chef runs as root: a quote, `#{…}` or a line break in a quoted
    /// value stays inside its string literal, and a bare value that is not a symbol, constant
    /// or integer is left out and named by `refused`.
    #[test]
    fn quotes_interpolations_and_code_in_values_stay_values() {
        let chef = json!({"server_url": "https://c/\"; system(\"id\"); \"",
                          "validation_name": "#{`id`}", "node_name": "n\nsystem('id')",
                          "log_level": ":info\nsystem('id')", "ssl_verify_mode": ":verify_peer"});
        let p = params("i", chef.as_object().unwrap()).unwrap();
        let text = render("# HEADER", &p);
        let lines: Vec<&str> = text.lines().collect();
        let want = [
            r#"chef_server_url        "https://c/\"; system(\"id\"); \"""#,
            r#"validation_client_name "\#{`id`}""#,
            r#"node_name              "n\u{a}system('id')""#,
            "ssl_verify_mode        :verify_peer",
        ];
        for w in want {
            assert!(lines.contains(&w), "{w} in {text}");
        }
        assert!(!text.contains("log_level"), "{text}");
        assert!(lines.iter().all(|l| !l.starts_with("system")), "{text}");
        let refused: Vec<_> = refused(&p).into_iter().map(|(k, _)| k).collect();
        assert_eq!(refused, ["log_level"]);
    }

    #[test]
    fn server_url_and_validation_name_are_mandatory() {
        let only = json!({"server_url": "u"});
        assert_eq!(
            params("i", only.as_object().unwrap()).err(),
            Some("validation_name")
        );
        let none = json!({});
        assert_eq!(
            params("i", none.as_object().unwrap()).err(),
            Some("server_url")
        );
    }
}

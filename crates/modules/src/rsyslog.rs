//! `rsyslog`: `configs` (strings, or `{filename, content}`) written into `config_dir`
//! (default /etc/rsyslog.d) under `config_filename` (default 20-cloud-config.conf), the first
//! entry for a file replacing it and later ones appended; `remotes` (`name: "[filter]
//! [@|@@]host[:port]"`) added to the default file between `# begin remotes` and `# end
//! remotes`; then the service reloaded (`service_reload_command`: `auto` is the init
//! system's `reload-or-try-restart rsyslog`, a list is run as given). With `install_rsyslog`
//! the `packages` are installed when `check_exe` is not on the PATH. A file name is one name
//! in `config_dir`, or an absolute path as cloud-init takes it (resolved inside the target);
//! `..`, a `/` in a relative name or a control character is refused by key. The old list form
//! (`rsyslog: [...]`, with top-level `rsyslog_filename` and `rsyslog_dir`) is read with a
//! deprecation. It runs in the early unit, as cloud-init's init stage runs it; the BSD
//! syslogd handling is not ember's (Linux only).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#rsyslog>

use super::{ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::system_tools::{self as tools, Action, Distro};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

mod remotes;
mod settings;
pub use settings::{read, Entry, Reload, Settings};

pub struct Rsyslog;

/// Its key's shape (cloud-init's schema, which no longer takes the list form) and typed
/// reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("rsyslog", settings::RSYSLOG)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The remotes block cloud-init appends to the configs: one rule per usable line.
fn remotes_block(remotes: &[(String, Option<String>)], diags: &mut Vec<Diag>) -> String {
    let mut lines = vec!["# begin remotes".to_string()];
    for (name, line) in remotes {
        let Some(line) = line.as_deref().filter(|l| !l.is_empty()) else {
            continue;
        };
        match remotes::parse(line, name) {
            Ok(r) => lines.push(r.to_string()),
            Err(why) => {
                let msg = format!("remote not loaded: {why}");
                let key = format!("rsyslog.remotes.{name}");
                diags.push(Diag::warning(Reason::BadValue, msg).key(key));
            }
        }
    }
    lines.push("# end remotes".to_string());
    lines.join("\n") + "\n"
}

/// The files to write, in order, each with its whole content: a file's first entry starts
/// it, later ones append (cloud-init opens it `wb`, then `ab`).
pub fn plan(s: &Settings, diags: &mut Vec<Diag>) -> Vec<(String, String)> {
    let mut entries = s.configs.clone();
    if !s.remotes.is_empty() {
        entries.push(Entry::Write {
            content: remotes_block(&s.remotes, diags),
            filename: None,
        });
    }
    let mut files: Vec<(String, String)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let (content, filename) = match e {
            Entry::Write { content, filename } => (content, filename),
            Entry::Skip(why) => {
                let key = format!("{}.{i}", s.configs_key);
                diags.push(Diag::warning(Reason::BadValue, *why).key(key));
                continue;
            }
        };
        let name = filename.as_deref().unwrap_or(s.config_filename.trim());
        if name.is_empty() {
            let key = format!("{}.{i}", s.configs_key);
            diags.push(Diag::warning(Reason::BadValue, "empty filename: skipped").key(key));
            continue;
        }
        // One name in config_dir, or the absolute path cloud-init takes too (rule 14).
        if let Err(e) = crate::root::name_or_path(name, "") {
            let key = match filename {
                Some(_) => format!("{}.{i}.filename", s.configs_key),
                None => s.config_filename_key().to_string(),
            };
            if !diags.iter().any(|d| d.key.as_deref() == Some(key.as_str())) {
                diags.push(Diag::from(e).key(key));
            }
            continue;
        }
        let path = if name.starts_with('/') {
            name.to_string()
        } else {
            format!("{}/{name}", s.config_dir.trim_end_matches('/'))
        };
        let mut text = content.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some((_, all)) => all.push_str(&text),
            None => files.push((path, text)),
        }
    }
    files
}

impl RunnerModule for Rsyslog {
    fn name(&self) -> &'static str {
        "rsyslog"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if s.install && which(ctx.root, &s.check_exe).is_none() {
            let pkgs: Vec<&str> = s.packages.iter().map(String::as_str).collect();
            let key = "rsyslog.install_rsyslog";
            if !tools::install(ctx, "rsyslog", &pkgs, key, diags) {
                return;
            }
        }
        let files = plan(&s, diags);
        let mut written = 0;
        for (path, text) in &files {
            ctx.exec.say(&format!("rsyslog: writing {path}"));
            match ctx
                .root
                .write_file(path, text.as_bytes(), &FileSpec::mode(0o644))
            {
                Ok(()) => written += 1,
                // cloud-init logs the failure and goes on with the next file.
                Err(e) => diags.push(Diag::warning(e.code(), e.to_string()).key(s.configs_key)),
            }
        }
        if written == 0 {
            return;
        }
        let outcome = match &s.reload {
            Reload::Auto => {
                let service = cfg
                    .pointer("/system_info/rsyslog_svcname")
                    .and_then(Value::as_str)
                    .unwrap_or("rsyslog");
                let distro = Distro::of(ctx, cfg);
                tools::service(ctx, "rsyslog", distro, Action::TryReload, service)
            }
            Reload::Argv(argv) => {
                let args: Vec<&str> = argv.iter().map(String::as_str).collect();
                tools::run(ctx, "rsyslog", &args, &[])
            }
        };
        if !outcome.ok() {
            let msg = format!("reloading rsyslog {}", outcome.describe());
            let d = Diag::warning(Reason::CommandFailed, msg).key("rsyslog.service_reload_command");
            diags.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The documented example with configs, remotes and a command of its own.
    #[test]
    fn plans_files_like_cloud_init() {
        let cfg = json!({"rsyslog": {
            "config_dir": "/opt/etc/rsyslog.d",
            "config_filename": "99-late-cloud-config.conf",
            "configs": ["*.* @@192.158.1.1",
                        {"content": "*.*   @@192.0.2.1:10514", "filename": "01-example.conf"},
                        {"content": "*.*   @@syslogd.example.com\n"}],
            "remotes": {"maas": "192.168.1.1", "juju": "10.0.4.1"},
            "service_reload_command": ["your", "syslog", "restart", "command"]}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(
            s.reload,
            Reload::Argv(vec![
                "your".into(),
                "syslog".into(),
                "restart".into(),
                "command".into()
            ])
        );
        let files = plan(&s, &mut d);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            files,
            [
                (
                    "/opt/etc/rsyslog.d/99-late-cloud-config.conf".to_string(),
                    "*.* @@192.158.1.1\n*.*   @@syslogd.example.com\n# begin remotes\n\
                     *.* @10.0.4.1 # juju\n*.* @192.168.1.1 # maas\n# end remotes\n"
                        .to_string()
                ),
                (
                    "/opt/etc/rsyslog.d/01-example.conf".to_string(),
                    "*.*   @@192.0.2.1:10514\n".to_string()
                ),
            ]
        );
    }

    #[test]
    fn old_list_form_and_mistakes() {
        let mut d = Vec::new();
        let cfg = json!({"rsyslog": ["*.* @log"], "rsyslog_dir": "/etc/rs.d",
                         "rsyslog_filename": "x.conf"});
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(
            (s.config_dir.as_str(), s.config_filename.as_str()),
            ("/etc/rs.d", "x.conf")
        );
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["rsyslog", "rsyslog_filename", "rsyslog_dir"]);
        assert!(d.iter().all(|d| d.code == "deprecated"));
        d.clear();
        let bad = json!({"rsyslog": {"install_rsyslog": "yes", "remotes": {"a": 5}}});
        assert_eq!(read(&bad, &mut d), None);
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["rsyslog.remotes.a", "rsyslog.install_rsyslog"]);
        d.clear();
        let skip = json!({"rsyslog": {"configs": [{"filename": "a"}, {"content": "x", "filename": " "}],
                                      "remotes": {"bad": "a b c", "none": null}}});
        let s = read(&skip, &mut d).unwrap();
        assert_eq!(plan(&s, &mut d).len(), 1, "only the remotes block");
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "rsyslog.remotes.bad",
                "rsyslog.configs.0",
                "rsyslog.configs.1"
            ]
        );
    }
}

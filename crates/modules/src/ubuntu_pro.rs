//! `ubuntu_pro` (and the deprecated `ubuntu_advantage`/`ubuntu-advantage`): attaches the
//! machine to an Ubuntu Pro contract with the target's own `pro`, as cloud-init does:
//! `ubuntu-advantage-tools` installed when `pro` is missing, `config` proxies set or unset with
//! `pro config`, then on an Ubuntu Pro cloud image (unless `features.disable_auto_attach`)
//! Pro's full auto-attach through `pro api`, else `pro attach` with the token and `pro enable`
//! for the `enable` list. Unlike cloud-init, the token is never on a command line: it goes in
//! a 0600 file given to `pro attach --attach-config`, and a `config` value (a proxy URL may
//! hold a password) is handed to `pro config set` inside its Python interpreter.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ubuntu-pro>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::exec::Outcome;
use crate::common::private_io::{capture, install, private_file, run_in_process};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{json, Value};

mod settings;
pub use settings::{read, Settings, SHAPES};

pub struct UbuntuPro;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for UbuntuPro {
    fn name(&self) -> &'static str {
        "ubuntu_pro"
    }
    /// It attaches the machine to a contract: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let mut found = Vec::new();
        let settings = read(cfg, &mut found);
        let invalid = found.iter().any(Diag::is_error);
        diags.extend(found);
        let Some(s) = settings.filter(|_| !invalid) else {
            return;
        };
        if which(ctx.root, "pro").is_none()
            && !install(ctx, &["ubuntu-advantage-tools"], s.key, diags)
        {
            return;
        }
        if !set_config(ctx, &s, diags) {
            return;
        }
        ctx.exec
            .say("ubuntu_pro: Pro's own log is /var/log/ubuntu-advantage.log");
        if should_auto_attach(ctx, &s, diags) {
            auto_attach(ctx, &s, diags);
        } else if s.attach {
            attach(ctx, &s, diags);
        }
    }
}

/// `config`: each property set (`pro config set NAME=VALUE`) or unset, in name order; a value
/// with white space escaped as cloud-init's `re.escape` does. Returns false after an error.
fn set_config(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> bool {
    let mut failed = Vec::new();
    for (name, value) in &s.config {
        let key = format!("{}.config.{name}", s.key);
        let outcome = match value {
            None => {
                ctx.exec
                    .say(&format!("ubuntu_pro: pro config unset {name}"));
                Ok(ctx.exec.run(&["pro", "config", "unset", name], &[]))
            }
            Some(v) => {
                ctx.exec
                    .say(&format!("ubuntu_pro: pro config set {name}=REDACTED"));
                let v = if v.contains(char::is_whitespace) {
                    re_escape(v)
                } else {
                    v.clone()
                };
                let args = ["config".into(), "set".into(), format!("{name}={v}")];
                run_in_process(ctx, "pro", &args).map_err(|e| e.diag("pro", &key))
            }
        };
        match outcome {
            Ok(o) if o.ok() => {}
            Ok(o) => {
                let msg = format!("pro config {}", o.describe());
                diags.push(Diag::warning(Reason::CommandFailed, msg).key(&key));
                failed.push(name.as_str());
            }
            Err(d) => {
                diags.push(d);
                failed.push(name.as_str());
            }
        }
    }
    if failed.is_empty() {
        return true;
    }
    let msg = format!(
        "failure setting or unsetting Ubuntu Pro config: {}",
        failed.join(", ")
    );
    diags.push(Diag::error(Reason::CommandFailed, msg).key(format!("{}.config", s.key)));
    false
}

/// Python's `re.escape`: a backslash before each character a regular expression treats
/// specially, white space included.
fn re_escape(v: &str) -> String {
    let mut out = String::new();
    for c in v.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether Pro says this is an Ubuntu Pro cloud instance to auto-attach
/// (`u.pro.attach.auto.should_auto_attach.v1`); never with `disable_auto_attach`. When Pro
/// cannot tell, a warning, and the token is used.
fn should_auto_attach(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> bool {
    if s.disable_auto_attach {
        return false;
    }
    let endpoint = "u.pro.attach.auto.should_auto_attach.v1";
    let (outcome, out) = capture(ctx, "pro-api", &["pro", "api", endpoint]);
    let answer = serde_json::from_slice::<Value>(out.as_bytes())
        .ok()
        .filter(|v| outcome.ok() && v["result"] == "success");
    match answer.and_then(|v| v["data"]["attributes"]["should_auto_attach"].as_bool()) {
        Some(yes) => yes,
        None => {
            let msg =
                "unable to determine if this is an Ubuntu Pro instance: attaching with the token";
            diags.push(Diag::warning(Reason::CommandFailed, msg).key(s.key));
            false
        }
    }
}

/// Pro's full auto-attach with the `enable` and `enable_beta` lists given (only those).
/// Already attached is a warning when services were asked for; any other failure an error.
fn auto_attach(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) {
    let mut data = serde_json::Map::new();
    if let Some(e) = &s.enable {
        data.insert("enable".into(), json!(e));
    }
    if let Some(e) = &s.enable_beta {
        data.insert("enable_beta".into(), json!(e));
    }
    let data = Value::Object(data).to_string();
    let endpoint = "u.pro.attach.auto.full_auto_attach.v1";
    ctx.exec
        .say("ubuntu_pro: attaching to Ubuntu Pro (auto-attach)");
    let (outcome, out) = capture(ctx, "pro-api", &["pro", "api", endpoint, "--data", &data]);
    let answer: Option<Value> = serde_json::from_slice(out.as_bytes()).ok();
    if outcome.ok() && answer.as_ref().is_some_and(|v| v["result"] == "success") {
        return;
    }
    let errors = answer
        .as_ref()
        .and_then(|v| v["errors"].as_array().cloned())
        .unwrap_or_default();
    if errors.iter().any(|e| e["code"] == "already-attached") {
        if s.enable.is_some() || s.enable_beta.is_some() {
            let msg = "the instance is already attached to Pro: enable and enable_beta ignored, enabled services left as they are";
            diags.push(Diag::warning(Reason::CommandFailed, msg).key(s.key));
        }
        return;
    }
    let why = errors
        .first()
        .and_then(|e| e["title"].as_str())
        .map_or_else(|| outcome.describe(), str::to_string);
    let msg = format!("error during full_auto_attach: {why}");
    diags.push(Diag::error(Reason::CommandFailed, msg).key(s.key));
}

/// `pro attach` with the token in a 0600 attach config (an already attached machine is
/// fine), then `pro enable` for the `enable` list, whose JSON answer names the failures.
fn attach(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) {
    let Some(token) = &s.token else {
        let msg = "a token is required on an instance that is not Ubuntu Pro";
        diags.push(Diag::error(Reason::MissingKey, msg).key(format!("{}.token", s.key)));
        return;
    };
    if s.enable_beta.as_ref().is_some_and(|b| !b.is_empty()) {
        ctx.exec
            .say("ubuntu_pro: enable_beta is ignored when attaching with a token");
    }
    let enable = s.enable.clone().unwrap_or_default();
    // JSON's string is a YAML double-quoted scalar: any token reads back as it was.
    let yaml = format!("token: {}\n", Value::from(token.expose().as_str()));
    let file = match private_file(ctx.root, "pro-attach.yaml", yaml.as_bytes()) {
        Ok(f) => f,
        Err(e) => {
            diags.push(Diag::error(e.code(), e.to_string()).key(s.key));
            return;
        }
    };
    let mut argv = vec!["pro", "attach"];
    if !enable.is_empty() {
        argv.push("--no-auto-enable");
    }
    argv.extend(["--attach-config", &file.path]);
    ctx.exec.say(&format!("ubuntu_pro: {}", argv.join(" ")));
    let outcome = ctx.exec.run(&argv, &[]);
    drop(file);
    // 2: already attached.
    if !matches!(outcome, Outcome::Exited(0 | 2)) {
        let msg = format!(
            "failure attaching Ubuntu Pro: pro attach {}",
            outcome.describe()
        );
        diags.push(Diag::error(Reason::CommandFailed, msg).key(s.key));
        return;
    }
    if !enable.is_empty() {
        enable_services(ctx, s, &enable, diags);
    }
}

/// `pro enable --assume-yes --format json SERVICES`: a service already enabled is fine; the
/// others' failures are one error naming them.
fn enable_services(ctx: &ModCtx, s: &Settings, enable: &[String], diags: &mut Vec<Diag>) {
    let key = format!("{}.enable", s.key);
    let mut argv = vec!["pro", "enable", "--assume-yes", "--format", "json"];
    argv.extend(enable.iter().map(String::as_str));
    ctx.exec.say(&format!("ubuntu_pro: {}", argv.join(" ")));
    let (outcome, out) = capture(ctx, "pro-enable", &argv);
    if !matches!(outcome, Outcome::Exited(0 | 1)) {
        let msg = format!("error while enabling service(s): {}", enable.join(", "));
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
        return;
    }
    let Ok(answer) = serde_json::from_slice::<Value>(out.as_bytes()) else {
        let msg = "Pro's answer to pro enable was not JSON";
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
        return;
    };
    let mut services = Vec::new();
    let mut failed = false;
    for err in answer["errors"].as_array().into_iter().flatten() {
        if err["message_code"] == "service-already-enabled" {
            continue;
        }
        failed = true;
        let text = crate::redact::printable(err["message"].as_str().unwrap_or(""));
        match err["service"].as_str() {
            Some(svc) => {
                ctx.exec
                    .say(&format!("ubuntu_pro: failure enabling {svc}: {text}"));
                services.push(crate::redact::printable(svc));
            }
            None => {
                let kind = err["type"].as_str().unwrap_or("system");
                ctx.exec
                    .say(&format!("ubuntu_pro: failure of type {kind}: {text}"));
            }
        }
    }
    if failed {
        let msg = format!(
            "failure enabling Ubuntu Pro service(s): {}",
            services.join(", ")
        );
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_python_does() {
        assert_eq!(re_escape("http://a b"), "http://a\\ b");
        assert_eq!(re_escape("x.y-z"), "x\\.y\\-z");
        assert_eq!(re_escape("plain"), "plain");
    }
}

//! `spacewalk`: registers the machine with a Spacewalk server, as cloud-init does: with a
//! `server` given, `rhn-setup` installed, and unless `rhn-profile-sync --verbose` succeeds
//! (already registered), `rhnreg_ks --serverUrl https://SERVER/XMLRPC --profilename NAME
//! [--proxy PROXY] --sslCACert /usr/share/rhn/RHN-ORG-TRUSTED-SSL-CERT [--activationkey KEY]`.
//! The profile name is the machine's name (/etc/hostname; cloud-init asks the datasource for
//! its fully qualified name). Unlike cloud-init, the activation key is never on a command
//! line: `rhnreg_ks` is a Python script whose interpreter is handed the arguments in-process
//! (see `private_io`). Spacewalk is end-of-life and cloud-init has proposed deprecating this
//! module (canonical/cloud-init#6934, open); ember runs it as cloud-init 26 does.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#spacewalk>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::exec::Outcome;
use crate::common::private_io::{install, run_in_process};
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;

pub struct Spacewalk;

const CA_CERT: &str = "/usr/share/rhn/RHN-ORG-TRUSTED-SSL-CERT";
const SHAPES: &[(&str, Shape)] = &[(
    "spacewalk",
    Shape::Map(&Fields {
        fields: &[
            ("server", Shape::Str),
            ("proxy", Shape::Str),
            ("activation_key", Shape::Str),
        ],
        required: &[],
        open: false,
    }),
)];

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

#[derive(Debug)]
pub struct Settings {
    pub server: String,
    pub proxy: Option<String>,
    pub activation_key: Option<Secret<String>>,
}

/// `spacewalk`: `None` when absent, without a `server` (nothing to do, as in cloud-init) or
/// unusable (an error says why).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let map = match cfg.get("spacewalk")? {
        Value::Object(m) => m,
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("spacewalk"));
            return None;
        }
    };
    let mut bad = false;
    let mut field = |name: &str| -> Option<String> {
        let at = format!("spacewalk.{name}");
        match map.get(name)? {
            Value::Null => None,
            Value::String(s) if s.is_empty() => None,
            Value::String(s) if s.contains(['\n', '\r', '\0']) => {
                diags.push(Diag::error(Reason::BadValue, "holds a line break").key(at));
                bad = true;
                None
            }
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => {
                diags.push(Diag::error(Reason::WrongType, "expected a string").key(at));
                bad = true;
                None
            }
        }
    };
    let server = field("server");
    let proxy = field("proxy");
    let activation_key = field("activation_key").map(Secret::new);
    if bad {
        return None;
    }
    Some(Settings {
        server: server?,
        proxy,
        activation_key,
    })
}

impl RunnerModule for Spacewalk {
    fn name(&self) -> &'static str {
        "spacewalk"
    }
    /// It registers the machine: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            if cfg.get("spacewalk").is_some_and(Value::is_object) {
                ctx.exec.say("spacewalk: no server given: nothing to do");
            }
            return;
        };
        if !install(ctx, &["rhn-setup"], "spacewalk", diags) {
            return;
        }
        // rhn-profile-sync succeeds on a registered machine and exits 1 on another.
        match ctx.exec.run(&["rhn-profile-sync", "--verbose"], &[]) {
            Outcome::Exited(0) => {
                ctx.exec.say("spacewalk: already registered");
                return;
            }
            Outcome::Exited(1) => {}
            o => {
                let msg = format!("rhn-profile-sync {}", o.describe());
                diags.push(Diag::error(Reason::CommandFailed, msg).key("spacewalk"));
                return;
            }
        }
        let profile = profile_name(ctx);
        ctx.exec.say(&format!(
            "spacewalk: registering with rhnreg_ks, profile {profile}, server {}",
            crate::redact::printable(&s.server)
        ));
        let mut args = vec![
            "--serverUrl".to_string(),
            format!("https://{}/XMLRPC", s.server),
            "--profilename".to_string(),
            profile,
        ];
        if let Some(p) = &s.proxy {
            args.extend(["--proxy".to_string(), p.clone()]);
        }
        args.extend(["--sslCACert".to_string(), CA_CERT.to_string()]);
        if let Some(k) = &s.activation_key {
            args.extend(["--activationkey".to_string(), k.expose().clone()]);
        }
        match run_in_process(ctx, "rhnreg_ks", &args) {
            Ok(o) if o.ok() => {}
            Ok(o) => {
                let msg = format!("rhnreg_ks {}", o.describe());
                diags.push(Diag::error(Reason::CommandFailed, msg).key("spacewalk"));
            }
            Err(e) => diags.push(e.diag("rhnreg_ks", "spacewalk")),
        }
    }
}

/// The machine's name as the booted system has it, else cloud-init's fallback.
fn profile_name(ctx: &ModCtx) -> String {
    let name = ctx.root.read_file("/etc/hostname", 4096).ok().flatten();
    let name = name.map(|d| String::from_utf8_lossy(&d).trim().to_string());
    name.filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
        .unwrap_or_else(|| "localhost.localdomain".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_server_proxy_and_key() {
        let mut d = Vec::new();
        let cfg = json!({"spacewalk": {"server": "sw.example.com", "activation_key": "k1"}});
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(s.server, "sw.example.com");
        assert_eq!(s.activation_key.unwrap().expose(), "k1");
        assert!(s.proxy.is_none() && d.is_empty());
        assert!(read(&json!({"spacewalk": {"proxy": "p"}}), &mut d).is_none());
        assert!(d.is_empty(), "no server: nothing to do, no error");
        assert!(read(&json!({"spacewalk": {"server": ["x"]}}), &mut d).is_none());
        assert!(read(&json!({"spacewalk": "x"}), &mut d).is_none());
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["spacewalk.server", "spacewalk"]);
    }
}

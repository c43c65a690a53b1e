//! `power_state_change`: reads `power_state` (mode, delay, message, timeout, condition) and,
//! when the condition holds, leaves the `shutdown` command for the final stage to run once it
//! has recorded its end. On a `--target` that is not `/` the command is only reported.
//! `timeout` is checked but not needed: ember runs shutdown after its own work is done.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#power-state-change>

use super::{shell, Guard, ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct PowerState;

const CONDITION_SCRIPT: &str = "/var/lib/ember/power-state-condition.sh";

/// `shutdown`'s arguments for the config, or errors keyed under `power_state`.
pub fn command(ps: &Value, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let bad = |key: &str, msg: &str| {
        Diag::error(Reason::WrongType, msg).key(format!("power_state.{key}"))
    };
    let before = diags.len();
    let flag = match ps.get("mode").and_then(Value::as_str) {
        Some("poweroff") => "-P",
        Some("reboot") => "-r",
        Some("halt") => "-H",
        _ => {
            diags.push(bad("mode", "expected poweroff, reboot or halt"));
            ""
        }
    };
    // Minutes as a u32 (8000 years): shutdown's own parser, and cloud-init's int(), refuse
    // a delay of thousands of digits.
    let delay = match ps.get("delay") {
        None => Some("now".to_string()),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(|n| format!("+{n}")),
        Some(Value::String(s)) if s == "now" => Some(s.clone()),
        Some(Value::String(s)) => {
            let digits = s.strip_prefix('+').unwrap_or(s);
            let ok = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            digits
                .parse::<u32>()
                .ok()
                .filter(|_| ok)
                .map(|n| format!("+{n}"))
        }
        Some(_) => None,
    };
    if delay.is_none() {
        let msg = "expected now, +MINUTES or MINUTES (at most 4294967295)";
        diags.push(bad("delay", msg));
    }
    let message = match ps.get("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            diags.push(bad("message", "expected a string"));
            None
        }
    };
    if let Some(t) = ps.get("timeout") {
        if t.as_f64().is_none_or(|t| t < 0.0) {
            diags.push(bad("timeout", "expected a number of seconds"));
        }
    }
    if diags.len() > before {
        return None;
    }
    let mut argv = vec!["shutdown".to_string(), flag.to_string(), delay?];
    argv.extend(message);
    Some(argv)
}

/// The declarative shape of `power_state`, after cloud-init's schema.
mod shape {
    use crate::config::shape::{list, Fields, Lit, Shape};
    use Shape::*;

    pub const POWER_STATE: Shape = Map(&Fields {
        fields: &[
            (
                "delay",
                OneOf(&[
                    Int,
                    Lit(&[Lit::S("now")]),
                    Deprecated(
                        &Pattern(
                            |s| {
                                let d = s.strip_prefix('+').unwrap_or(s);
                                !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
                            },
                            "a number of minutes",
                        ),
                        "use an integer number of minutes",
                    ),
                ]),
            ),
            (
                "mode",
                Lit(&[Lit::S("poweroff"), Lit::S("reboot"), Lit::S("halt")]),
            ),
            ("message", Str),
            ("timeout", Int),
            ("condition", OneOf(&[Str, Bool, list(&Any, 0)])),
        ],
        required: &["mode"],
        open: false,
    });
}

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("power_state", shape::POWER_STATE)],
    read: |cfg, d| {
        if let Some(ps) = cfg.get("power_state") {
            command(ps, d);
        }
    },
};

impl RunnerModule for PowerState {
    fn name(&self) -> &'static str {
        "power_state_change"
    }
    /// Never twice for one instance, even when interrupted: a reboot loop is worse than none.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    /// At boot every problem is a warning: cloud-init reads the whole of `power_state` in one
    /// `try` that warns ("Not performing power state change!") and returns, and its condition
    /// runs where a failure is a warning too. `ember schema` keeps the errors.
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let mut own = Vec::new();
        if let Some(argv) = self.settle(ctx, cfg, &mut own) {
            *ctx.power.borrow_mut() = Some(argv);
        }
        diags.extend(own.into_iter().map(Diag::recoverable));
    }
}

impl PowerState {
    /// The shutdown command to run, when the config is usable and its condition holds.
    fn settle(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
        let ps = cfg.get("power_state")?;
        if !ps.is_object() {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("power_state"));
            return None;
        }
        let argv = command(ps, diags)?;
        if !condition(ctx, ps.get("condition"), diags) {
            ctx.exec
                .say("power_state: condition not met; no power change");
            return None;
        }
        Some(argv)
    }
}

/// cloud-init's `condition`: a boolean, or a command (string for the shell, list for argv)
/// whose exit status 0 means go. Run from a 0700 file, so it never shows in a process list.
fn condition(ctx: &ModCtx, cond: Option<&Value>, diags: &mut Vec<Diag>) -> bool {
    let cmd = match cond {
        None | Some(Value::Bool(true)) => return true,
        Some(Value::Bool(false)) => return false,
        Some(c @ Value::String(_)) => c.clone(),
        Some(c @ Value::Array(_)) => Value::Array(vec![c.clone()]),
        Some(_) => {
            let msg = "expected true, false or a command";
            diags.push(Diag::error(Reason::WrongType, msg).key("power_state.condition"));
            return false;
        }
    };
    let Some(text) = shell::script("power_state.condition", &cmd, diags) else {
        return false;
    };
    let spec = FileSpec::mode(0o700);
    if let Err(e) = ctx
        .root
        .write_file(CONDITION_SCRIPT, text.as_bytes(), &spec)
    {
        diags.push(Diag::error(e.code(), e.to_string()).key("power_state.condition"));
        return false;
    }
    ctx.exec.run(&["/bin/sh", CONDITION_SCRIPT], &[]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands() {
        let cases = [
            (
                json!({"mode": "reboot"}),
                Some(vec!["shutdown", "-r", "now"]),
            ),
            (
                json!({"mode": "poweroff", "delay": 5, "message": "bye"}),
                Some(vec!["shutdown", "-P", "+5", "bye"]),
            ),
            (
                json!({"mode": "halt", "delay": "+2"}),
                Some(vec!["shutdown", "-H", "+2"]),
            ),
            (
                json!({"mode": "halt", "delay": "30"}),
                Some(vec!["shutdown", "-H", "+30"]),
            ),
            (json!({"mode": "explode"}), None),
            (json!({"mode": "reboot", "delay": "soon"}), None),
            (json!({"mode": "reboot", "delay": "+4294967296"}), None),
            (json!({"mode": "reboot", "delay": "9".repeat(5000)}), None),
            (json!({"mode": "reboot", "delay": 4294967296u64}), None),
            (
                json!({"mode": "reboot", "delay": "4294967295"}),
                Some(vec!["shutdown", "-r", "+4294967295"]),
            ),
            (json!({"mode": "reboot", "timeout": "x"}), None),
        ];
        for (cfg, want) in cases {
            let mut d = Vec::new();
            let got = command(&cfg, &mut d);
            let want: Option<Vec<String>> = want.map(|w| w.iter().map(|s| s.to_string()).collect());
            assert_eq!(got, want, "{cfg}");
            assert_eq!(d.is_empty(), got.is_some());
        }
    }
}

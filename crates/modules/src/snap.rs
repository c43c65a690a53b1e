//! `snap`: once snapd has seeded (`snap wait system seed.loaded`, once per machine, as
//! cloud-init's `snap-seeded` semaphore), acknowledges `snap.assertions` (joined into a 0600
//! file in the instance directory, then `snap ack FILE`), then runs `snap.commands` in order:
//! a mapping's values sorted by key, a list as given. A list command not starting with `snap`
//! gets it put in front (a first item of null is dropped instead); a string runs through
//! `sh -c`, with a warning when it is not a `snap …` command. Every command is tried; any
//! failure fails the module at the end, as in cloud-init. A mapping of assertions is taken in
//! key order (cloud-init keeps the order written; ember's config keeps mappings sorted).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#snap>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::pyvalue::truthy;
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::state::Frequency;
use serde_json::{Map, Value};

pub struct Snap;

/// A command as cloud-init runs it: a string through a shell, a list as the program's words.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Shell(String),
    Argv(Vec<String>),
}

#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    /// The assertions to acknowledge; Err when cloud-init fails on them (nothing runs).
    pub assertions: Result<Vec<String>, ()>,
    /// The commands with their key paths; Err when cloud-init fails on one of them before
    /// running any (the assertions are still acknowledged first).
    pub commands: Result<Vec<(String, Command)>, ()>,
}

/// `snap`: None when there is nothing to do or it is not a mapping (with its diagnostic).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let snap = cfg.get("snap").filter(|v| truthy(v))?;
    let Some(snap) = snap.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("snap"));
        return None;
    };
    Some(Settings {
        assertions: assertions(snap.get("assertions"), diags),
        commands: commands(snap.get("commands"), diags),
    })
}

fn assertions(v: Option<&Value>, diags: &mut Vec<Diag>) -> Result<Vec<String>, ()> {
    let items: Vec<(String, &Value)> = match v.filter(|v| truthy(v)) {
        None => return Ok(Vec::new()),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        Some(_) => {
            let msg = "expected a list or mapping of assertions";
            diags.push(Diag::error(Reason::WrongType, msg).key("snap.assertions"));
            return Err(());
        }
    };
    let mut out = Vec::new();
    for (k, v) in items {
        let Some(s) = v.as_str() else {
            let msg = "an assertion must be text";
            let key = format!("snap.assertions.{k}");
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
            return Err(());
        };
        out.push(s.to_string());
    }
    Ok(out)
}

/// A mapping's entries sorted by key as Python sorts them: as numbers when every key is an
/// integer (YAML's `00:`, `01:`), else as text.
fn sorted(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut v: Vec<_> = m.iter().collect();
    if v.iter().all(|(k, _)| k.parse::<i64>().is_ok()) {
        ember_core::sort::sort_by_key(&mut v, |(k, _)| k.parse::<i64>().unwrap_or_default());
    }
    v
}

fn commands(v: Option<&Value>, diags: &mut Vec<Diag>) -> Result<Vec<(String, Command)>, ()> {
    let items: Vec<(String, &Value)> = match v.filter(|v| truthy(v)) {
        None => return Ok(Vec::new()),
        Some(Value::Object(m)) => sorted(m).into_iter().map(|(k, v)| (k.clone(), v)).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        Some(_) => {
            let msg = "expected a list or mapping of commands";
            diags.push(Diag::error(Reason::WrongType, msg).key("snap.commands"));
            return Err(());
        }
    };
    let mut out = Vec::new();
    let mut bad = false;
    for (k, v) in items {
        let key = format!("snap.commands.{k}");
        match command(v) {
            Some(Command::Shell(s)) => {
                if !s.starts_with("snap ") {
                    let msg = "not a snap command (run anyway)";
                    diags.push(Diag::warning(Reason::BadValue, msg).key(&key));
                }
                out.push((key, Command::Shell(s)));
            }
            Some(argv) => out.push((key, argv)),
            None => {
                let msg = "expected a command string or a list of words";
                diags.push(Diag::error(Reason::WrongType, msg).key(key));
                bad = true;
            }
        }
    }
    if bad {
        return Err(());
    }
    Ok(out)
}

/// cloud-init's `prepend_base_command("snap", …)` on one item.
fn command(v: &Value) -> Option<Command> {
    match v {
        Value::String(s) => Some(Command::Shell(s.clone())),
        Value::Array(words) => {
            let (first, rest) = words.split_first()?;
            let mut argv: Vec<String> = Vec::new();
            match first {
                Value::Null => {}
                Value::String(s) if s == "snap" => argv.push(s.clone()),
                Value::String(s) => argv.extend(["snap".to_string(), s.clone()]),
                _ => return None,
            }
            for w in rest {
                argv.push(w.as_str()?.to_string());
            }
            (!argv.is_empty()).then_some(Command::Argv(argv))
        }
        _ => None,
    }
}

/// cloud-init's `wait_for_snap_seeded`: once per machine, when the target has `snap`, waits
/// for snapd to finish seeding. False (with an error keyed `key`) when that failed.
pub fn wait_for_seed(ctx: &ModCtx, key: &str, diags: &mut Vec<Diag>) -> bool {
    const SEM: &str = "snap_seeded";
    match ctx.sems.done(SEM, Frequency::PerOnce) {
        Ok(true) => return true,
        Ok(false) => {}
        Err(d) => {
            diags.push(d);
            return false;
        }
    }
    // As cloud-init: the semaphore is taken before the wait runs.
    if let Err(e) = ctx.sems.mark_done(SEM, Frequency::PerOnce) {
        diags.push(Diag::error(e.code(), e.to_string()).key(key));
        return false;
    }
    if which(ctx.root, "snap").is_none() {
        return true;
    }
    ctx.exec.say("snap: waiting for snapd to finish seeding");
    let outcome = ctx
        .exec
        .run(&["snap", "wait", "system", "seed.loaded"], &[]);
    if !outcome.ok() {
        let msg = format!("snap wait system seed.loaded {}", outcome.describe());
        diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
        return false;
    }
    true
}

const SCRIPT: Shape = Shape::OneOf(&[Shape::Str, list(&Shape::Str, 0)]);
const SNAP_FIELDS: Fields = Fields {
    fields: &[
        (
            "assertions",
            Shape::OneOf(&[Shape::Dict(&Shape::Str), list(&Shape::Str, 1)]),
        ),
        (
            "commands",
            Shape::OneOf(&[Shape::Dict(&SCRIPT), list(&SCRIPT, 1)]),
        ),
    ],
    required: &[],
    open: false,
};
const SHAPES: &[(&str, Shape)] = &[("snap", Shape::Map(&SNAP_FIELDS))];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for Snap {
    fn name(&self) -> &'static str {
        "snap"
    }
    /// It runs the user's commands: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        if !wait_for_seed(ctx, "snap", diags) {
            return;
        }
        let Ok(assertions) = settings.assertions else {
            return;
        };
        if !assertions.is_empty() && !ack(ctx, &assertions, diags) {
            return;
        }
        let Ok(commands) = settings.commands else {
            return;
        };
        let mut failed = Vec::new();
        for (key, cmd) in &commands {
            // The words are not shown: a command may carry a token (livepatch's, say).
            ctx.exec.say(&format!("snap: running {key}"));
            let outcome = match cmd {
                Command::Shell(s) => ctx.exec.run(&["sh", "-c", s], &[]),
                Command::Argv(argv) => {
                    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
                    ctx.exec.run(&args, &[])
                }
            };
            if !outcome.ok() {
                failed.push(key.as_str());
            }
        }
        if !failed.is_empty() {
            let msg = format!(
                "{} of {} snap commands failed: {}",
                failed.len(),
                commands.len(),
                failed.join(", ")
            );
            diags.push(Diag::error(Reason::CommandFailed, msg).key("snap.commands"));
        }
    }
}

/// Writes the assertions, one after another, to the instance's `snapd.assertions` and runs
/// `snap ack` on it. False (with an error) when that failed: the commands do not run.
fn ack(ctx: &ModCtx, assertions: &[String], diags: &mut Vec<Diag>) -> bool {
    let path = format!("{}/snapd.assertions", ctx.ci_instance);
    let text = assertions.join("\n");
    if let Err(e) = ctx
        .root
        .write_file(&path, text.as_bytes(), &FileSpec::mode(0o600))
    {
        diags.push(Diag::error(e.code(), e.to_string()).key("snap.assertions"));
        return false;
    }
    ctx.exec.say("snap: acknowledging the assertions");
    let outcome = ctx.exec.run(&["snap", "ack", &path], &[]);
    if !outcome.ok() {
        let msg = format!("snap ack {}", outcome.describe());
        diags.push(Diag::error(Reason::CommandFailed, msg).key("snap.assertions"));
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(d: &[Diag]) -> Vec<(&str, &str)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    #[test]
    fn commands_as_cloud_init_fixes_them() {
        let cfg = json!({"snap": {"commands": {
            "10": "echo ten", "2": ["install", "vlc"], "0": ["snap", "install", "hello"],
            "1": [null, "canonical-livepatch", "enable", "TOKEN"], "3": "snap install x"}}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        let cmds = s.commands.unwrap();
        let want = [
            (
                "0",
                Command::Argv(vec!["snap".into(), "install".into(), "hello".into()]),
            ),
            (
                "1",
                Command::Argv(vec![
                    "canonical-livepatch".into(),
                    "enable".into(),
                    "TOKEN".into(),
                ]),
            ),
            (
                "2",
                Command::Argv(vec!["snap".into(), "install".into(), "vlc".into()]),
            ),
            ("3", Command::Shell("snap install x".into())),
            ("10", Command::Shell("echo ten".into())),
        ];
        let got: Vec<(&str, &Command)> = cmds
            .iter()
            .map(|(k, c)| (k.strip_prefix("snap.commands.").unwrap(), c))
            .collect();
        let want: Vec<(&str, &Command)> = want.iter().map(|(k, c)| (*k, c)).collect();
        assert_eq!(got, want);
        assert_eq!(keys(&d), [("bad-value", "snap.commands.10")]);
        assert!(!d[0].is_error());
        assert_eq!(s.assertions, Ok(Vec::new()));
    }

    #[test]
    fn wrong_shapes_stop_it_as_cloud_init_stops() {
        let mut d = Vec::new();
        let cfg = json!({"snap": {"assertions": ["a", "b"], "commands": [["install"], 5, []]}});
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(s.assertions, Ok(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(s.commands, Err(()));
        assert_eq!(
            keys(&d),
            [
                ("wrong-type", "snap.commands.1"),
                ("wrong-type", "snap.commands.2")
            ]
        );
        let mut d = Vec::new();
        let s = read(&json!({"snap": {"assertions": "one"}}), &mut d).unwrap();
        assert_eq!(s.assertions, Err(()));
        assert_eq!(read(&json!({"snap": {}}), &mut d), None);
        assert_eq!(read(&json!({"snap": "x"}), &mut d), None);
        assert_eq!(
            keys(&d),
            [("wrong-type", "snap.assertions"), ("wrong-type", "snap")]
        );
    }
}

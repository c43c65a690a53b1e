//! Where the runner finds ember-initrd, the binary with the parsers and renderers: the runner
//! links none of them, so `net-convert`, `schema`, `devel render` and the modules' templates
//! (ntp, apt) are handed to it.

use crate::root::{FileSpec, Root};
use crate::state::EMBER_LIB;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where `initramfs/install-into-root` puts ember-initrd.
pub const INSTALLED: &str = "/usr/lib/ember/ember-initrd";

/// Where ember-initrd may be, best first: `$EMBER_INITRD`; beside this binary (a build
/// directory, an unpacked release, `/usr/bin` when both are installed there); `../lib/ember/`
/// from it (a `/usr/local` install); the path the initramfs integrations install it at.
pub fn candidates() -> Vec<PathBuf> {
    if let Some(path) = std::env::var_os("EMBER_INITRD") {
        return vec![PathBuf::from(path)];
    }
    let mut v = Vec::new();
    // /proc/self/exe: the binary itself, whatever name (cloud-init, cloud-id) called it.
    if let Some(dir) = std::env::current_exe()
        .ok()
        .as_deref()
        .and_then(Path::parent)
    {
        v.push(dir.join("ember-initrd"));
        if let Some(prefix) = dir.parent() {
            v.push(prefix.join("lib/ember/ember-initrd"));
        }
    }
    v.push(PathBuf::from(INSTALLED));
    v.dedup();
    v
}

/// `ember-initrd COMMAND` as a command to run, or the places tried when it is at none.
pub fn command(command: &str) -> Result<Command, Vec<PathBuf>> {
    let tried = candidates();
    match tried.iter().find(|p| p.is_file()) {
        Some(binary) => {
            let mut cmd = Command::new(binary);
            cmd.arg(command);
            Ok(cmd)
        }
        None => Err(tried),
    }
}

/// How `ember-initrd render` prints a variable the data lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Empty, with a warning (user-data templates, ntp's).
    Empty,
    /// cloud-init's `CI_MISSING_JINJA_VAR/name` (`--mark-missing`; apt's templates).
    Marked,
}

/// A Jinja template's text from ember-initrd and the warnings it gave (undefined variables).
pub struct Rendered {
    pub text: String,
    pub warnings: Vec<String>,
}

/// Renders a Jinja `body` (its `## template: jinja` line already removed) over `vars` with
/// `ember-initrd render`, for modules of the runner, which has no Jinja: the template waits
/// in `/var/lib/ember/<name>.tmpl` of the target, 0600, while it renders; the variables go
/// on its standard input. The last newline, which Jinja drops, is put back as cloud-init's
/// templater does. Errors name the file's line and the kind of error, never template text.
pub fn render_jinja(
    root: &Root,
    name: &str,
    body: &str,
    vars: &Value,
    missing: Missing,
) -> Result<Rendered, String> {
    let tmp = format!("{EMBER_LIB}/{name}.tmpl");
    let file = format!("## template: jinja\n{body}");
    if let Err(e) = root.write_file(&tmp, file.as_bytes(), &FileSpec::mode(0o600)) {
        // The file may be in place with only its directory's sync failed.
        let _ = root.remove_file(&tmp);
        return Err(e.to_string());
    }
    let path = root.path().join(tmp.trim_start_matches('/'));
    let result = run_render(&path, vars, missing);
    let _ = root.remove_file(&tmp);
    let (mut text, stderr) = result?;
    if body.ends_with('\n') {
        text.push('\n');
    }
    let warnings = stderr
        .lines()
        .filter_map(|l| l.split_once("undefined template variable"))
        .map(|(_, rest)| format!("undefined template variable{rest}"))
        .collect();
    Ok(Rendered { text, warnings })
}

fn run_render(path: &Path, vars: &Value, missing: Missing) -> Result<(String, String), String> {
    let mut cmd = command("render").map_err(|tried| {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        format!(
            "ember render needs ember-initrd (the binary with the parsers), found at none of {}; install it or set EMBER_INITRD",
            list.join(", ")
        )
    })?;
    cmd.arg(path).args(["--instance-data", "-"]);
    if missing == Missing::Marked {
        cmd.arg("--mark-missing");
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("ember-initrd render could not be started: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&serde_json::to_vec(vars).unwrap_or_default());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("ember-initrd render: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        // Its message names the file, the line and the kind of error, never template text.
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("failed")
            .chars()
            .take(200)
            .collect::<String>();
        let why = why.replace(&path.display().to_string(), "template");
        let why = why.trim_start_matches("ember: ");
        return Err(format!("the template did not render: {why}"));
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), stderr))
}

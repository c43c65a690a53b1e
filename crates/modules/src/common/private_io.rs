//! What the subscription modules (`ubuntu_pro`, `landscape`, `rh_subscription`, `spacewalk`,
//! `ubuntu_autoinstall`) need beyond `exec.rs`: a secret handed to a tool in a 0600 file of a
//! 0700 directory under the target's /run (RAM on a live system), never on its command line
//! (the process list shows that to every user); a tool's output read back from such a file
//! rather than the shared output log; a Python tool run with its arguments handed over
//! in-process, for tools that take a password only as an option; and the packages a module
//! needs, through the packages module's manager. It decides nothing about what to run.

use crate::common::distro::which;
use crate::common::exec::Outcome;
use crate::common::package_manager::{Manager, Op};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Root, RootError};
use crate::ModCtx;

/// Where the files live while a command runs; removed right after.
pub const DIR: &str = "/run/ember-private";
/// The most of a command's output a module reads back.
const OUTPUT_MAX: u64 = 1 << 20;

/// A 0600 file under [`DIR`], removed when dropped.
pub struct PrivateFile<'a> {
    root: &'a Root,
    pub path: String,
}

impl Drop for PrivateFile<'_> {
    fn drop(&mut self) {
        let _ = self.root.remove_file(&self.path);
    }
}

/// Writes `data` to [`DIR`]`/name`, born 0600 in a 0700 directory.
pub fn private_file<'a>(
    root: &'a Root,
    name: &str,
    data: &[u8],
) -> Result<PrivateFile<'a>, RootError> {
    root.create_dir_all(DIR, &FileSpec::mode(0o700))?;
    let path = format!("{DIR}/{name}");
    root.write_file(&path, data, &FileSpec::mode(0o600))?;
    Ok(PrivateFile { root, path })
}

/// Runs `argv` with its standard output going to a private file instead of the output log
/// (its standard error still goes there), and returns how it ended and what it printed.
pub fn capture(ctx: &ModCtx, name: &str, argv: &[&str]) -> (Outcome, String) {
    let out = match private_file(ctx.root, &format!("{name}.out"), b"") {
        Ok(f) => f,
        Err(e) => return (Outcome::NotStarted(e.to_string()), String::new()),
    };
    let mut full = vec![
        "sh",
        "-c",
        "f=$1; shift; exec \"$@\" >\"$f\"",
        "sh",
        &out.path,
    ];
    full.extend_from_slice(argv);
    let outcome = ctx.exec.run(&full, &[]);
    let text = match ctx.root.read_file(&out.path, OUTPUT_MAX) {
        Ok(Some(data)) => String::from_utf8_lossy(&data).into_owned(),
        _ => String::new(),
    };
    (outcome, text)
}

/// Why [`run_in_process`] did not run the tool.
#[derive(Debug, PartialEq, Eq)]
pub enum InProcess {
    /// The tool is not on the target's PATH.
    NoTool,
    /// The tool is not a Python script whose interpreter the target has, so its arguments
    /// could only be given on its command line.
    NotPython,
    /// An argument holds a newline or NUL byte.
    BadArgument,
    /// The arguments file could not be written.
    Write(String),
}

impl InProcess {
    /// The diagnostic for `tool`, keyed `key`; never the arguments.
    pub fn diag(&self, tool: &str, key: &str) -> Diag {
        let (code, msg) = match self {
            InProcess::NoTool => (Reason::ToolMissing, format!("{tool} is not installed")),
            InProcess::NotPython => (
                Reason::SecretRefused,
                format!("{tool} is not a Python script ember can hand the secret to without its command line; not run"),
            ),
            InProcess::BadArgument => (
                Reason::BadValue,
                "a value holds a line break or NUL byte; not run".to_string(),
            ),
            InProcess::Write(e) => (Reason::WriteFailed, e.clone()),
        };
        Diag::error(code, msg).key(key)
    }
}

/// Hands the arguments over inside the interpreter: the file is read and removed at once,
/// the script's directory put first on `sys.path` as running the script would, and the
/// script run as `__main__` with the arguments as its `sys.argv`.
const PY: &str = "import os,runpy,sys;f,t=sys.argv[1:3];a=open(f,encoding='utf-8').read().split(chr(10))[:-1];os.unlink(f);sys.argv=[t]+a;sys.path[0]==''and sys.path.__setitem__(0,os.path.dirname(t));runpy.run_path(t,run_name='__main__')";

/// Runs the Python tool `tool` with `args` read from a private file by its own interpreter,
/// so no argument (a password, an activation key) is on any command line: the process list
/// shows the interpreter, this script, the file's name and the tool's path.
pub fn run_in_process(ctx: &ModCtx, tool: &str, args: &[String]) -> Result<Outcome, InProcess> {
    let path = which(ctx.root, tool).ok_or(InProcess::NoTool)?;
    let (interp, flag) = interpreter(ctx.root, &path).ok_or(InProcess::NotPython)?;
    if args.iter().any(|a| a.contains(['\n', '\0'])) {
        return Err(InProcess::BadArgument);
    }
    let mut data = String::new();
    for a in args {
        data.push_str(a);
        data.push('\n');
    }
    let file = private_file(ctx.root, &format!("{tool}.args"), data.as_bytes())
        .map_err(|e| InProcess::Write(e.to_string()))?;
    let mut argv: Vec<&str> = vec![&interp];
    argv.extend(flag.as_deref());
    argv.extend(["-c", PY, &file.path, &path]);
    Ok(ctx.exec.run(&argv, &[]))
}

/// The Python interpreter (and its one option word) named by the `#!` line of the script at
/// `path`, when the target has it; `#!/usr/bin/env python3` is looked up on PATH.
fn interpreter(root: &Root, path: &str) -> Option<(String, Option<String>)> {
    let data = root.read_file(path, 4 << 20).ok()??;
    let first = data.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(first).ok()?.strip_prefix("#!")?.trim();
    let (interp, rest) = match line.split_once([' ', '\t']) {
        Some((i, r)) => (i, Some(r.trim()).filter(|r| !r.is_empty())),
        None => (line, None),
    };
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let python = |name: &str| name.starts_with("python") || name == "platform-python";
    if base(interp) == "env" {
        let name = rest?;
        if !python(name) || name.contains(char::is_whitespace) {
            return None;
        }
        return Some((which(root, name)?, None));
    }
    if !python(&base(interp)) || !interp.starts_with('/') || !root.exists(interp) {
        return None;
    }
    Some((interp.to_string(), rest.map(str::to_string)))
}

/// Installs `pkgs` with the target's package manager, as cloud-init's distro classes do:
/// apt-get refreshes its sources first. A failure is an error keyed `key`.
pub fn install(ctx: &ModCtx, pkgs: &[&str], key: &str, diags: &mut Vec<Diag>) -> bool {
    let Some(m) = Manager::detect(ctx) else {
        let msg = "no package manager (apt-get, dnf, yum, apk, zypper) in the target";
        diags.push(Diag::error(Reason::PackageManagerMissing, msg).key(key));
        return false;
    };
    let env: &[(&str, &str)] = match m {
        Manager::Apt => &[("DEBIAN_FRONTEND", "noninteractive")],
        _ => &[],
    };
    let names: Vec<String> = pkgs.iter().map(|p| p.to_string()).collect();
    let mut ops = vec![Op::Install];
    if m == Manager::Apt {
        ops.insert(0, Op::Update);
    }
    for op in ops {
        let argv = m.argv(op, if op == Op::Install { &names } else { &[] });
        ctx.exec.say(&format!("installing: {}", argv.join(" ")));
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = ctx.exec.run(&args, env);
        if !outcome.ok() {
            let msg = format!("{} {}", args[0], outcome.describe());
            diags.push(Diag::error(Reason::PackageCommandFailed, msg).key(key));
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch root holding `files`, removed when the guard drops.
    struct Scratch(std::path::PathBuf);
    impl Scratch {
        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn root_with(tag: &str, files: &[(&str, &str)]) -> (Scratch, Root) {
        let dir = std::env::temp_dir().join(format!("ember-pio-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (path, text) in files {
            let p = dir.join(path.trim_start_matches('/'));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let root = Root::open(&dir).unwrap();
        (Scratch(dir), root)
    }

    #[test]
    fn python_interpreters_from_the_first_line() {
        let (_d, root) = root_with(
            "py",
            &[
                ("/usr/bin/python3", ""),
                ("/usr/libexec/platform-python", ""),
                ("/usr/sbin/a", "#!/usr/bin/python3\nimport x\n"),
                ("/usr/sbin/b", "#!/usr/libexec/platform-python -s\n"),
                ("/usr/sbin/c", "#!/usr/bin/env python3\n"),
                ("/usr/sbin/d", "#!/bin/sh\n"),
                ("/usr/sbin/e", "#!/usr/bin/python2\n"),
                ("/usr/sbin/f", "\x7fELF"),
            ],
        );
        let got = |p: &str| interpreter(&root, p);
        assert_eq!(got("/usr/sbin/a"), Some(("/usr/bin/python3".into(), None)));
        assert_eq!(
            got("/usr/sbin/b"),
            Some(("/usr/libexec/platform-python".into(), Some("-s".into())))
        );
        assert_eq!(got("/usr/sbin/c"), Some(("/usr/bin/python3".into(), None)));
        assert_eq!(got("/usr/sbin/d"), None, "not Python");
        assert_eq!(
            got("/usr/sbin/e"),
            None,
            "no such interpreter in the target"
        );
        assert_eq!(got("/usr/sbin/f"), None);
        assert_eq!(got("/usr/sbin/none"), None);
    }

    #[test]
    fn private_files_are_0600_and_go_away() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, root) = root_with("file", &[]);
        let f = private_file(&root, "x", b"secret").unwrap();
        let p = dir.path().join(f.path.trim_start_matches('/'));
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o600);
        assert_eq!(mode(p.parent().unwrap()), 0o700);
        drop(f);
        assert!(!p.exists());
    }
}

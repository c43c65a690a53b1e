//! `ansible`: installs ansible with the target's package manager (`install_method: distro`)
//! or `python3 -m pip` (`pip`, as `run_user` when given), runs the `galaxy.actions`, then
//! `ansible-pull` for each `pull` entry with cloud-init's flags (one run per playbook where
//! ansible-pull is older than 2.12, which ran only the first of several), then clones the
//! `setup_controller.repositories` and runs its `run_ansible` playbooks. Commands run as
//! `run_user` through `su - USER -c`, as cloud-init's `distro.do_as` does.
//! `ansible_config` is exported as `ANSIBLE_CONFIG`, and as cloud-init's lowercase
//! `ansible_config`. Flags come in key order (the handoff keeps mappings sorted), not in the
//! order user-data wrote them; ansible-pull does not mind.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ansible>

mod settings;
mod shape;

use super::{Guard, ModCtx, RunnerModule};
use crate::common::cfgmgmt::{self, capture, in_dir, Pkg};
use crate::common::distro::{which, Family, OsRelease};
use crate::common::exec::Outcome;
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;
pub use settings::{read, Pull, Settings};

pub struct Ansible;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The runner's PATH (exec.rs), to which a pip install's user bin directory is added.
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

impl RunnerModule for Ansible {
    fn name(&self) -> &'static str {
        "ansible"
    }
    /// It installs software and runs playbooks: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if let Err(d) = apply(ctx, &s, diags) {
            diags.push(d);
        }
    }
}

/// cloud-init's `validate_config`: what must be there before anything runs. `Err(None)` for
/// what the reader already reported (a bad install_method, a pull without playbooks).
fn validate(s: &Settings) -> Result<bool, Option<Diag>> {
    let missing = |key: &str, what: &str| Some(Diag::error(Reason::MissingKey, what).key(key));
    let pip = match s.install_method.as_deref() {
        None => return Err(missing("ansible", "needs install_method (distro or pip)")),
        Some("pip") => true,
        Some("distro") => false,
        Some(_) => return Err(None),
    };
    if s.package_name.as_deref().is_none_or(str::is_empty) {
        return Err(missing("ansible", "needs package_name"));
    }
    for p in &s.pulls {
        if p.url.as_deref().is_none_or(str::is_empty) {
            return Err(missing(&p.key, "needs url"));
        }
        if p.playbooks.is_empty() {
            return Err(None);
        }
    }
    if let Some(c) = &s.controller {
        if c.repositories.is_empty() && c.run_ansible.is_empty() {
            return Err(missing(&c.key, "needs repositories or run_ansible"));
        }
    }
    Ok(pip)
}

fn apply(ctx: &ModCtx, s: &Settings, diags: &mut Vec<Diag>) -> Result<(), Diag> {
    let pip = match validate(s) {
        Ok(pip) => pip,
        Err(Some(d)) => return Err(d),
        Err(None) => return Ok(()),
    };
    let package = s.package_name.as_deref().unwrap_or_default();
    let home = match std::env::var("HOME") {
        Ok(h) if ctx.exec.is_live() => h,
        _ => "/root".into(),
    };
    let mut a = As {
        ctx,
        user: s.run_user.as_deref(),
        env: vec![("HOME".into(), home)],
    };
    if pip {
        pip_install(&mut a, package)?;
    } else {
        if which(ctx.root, "ansible").is_none() {
            cfgmgmt::install(ctx, &[Pkg::new(package)]).map_err(|d| d.key("ansible"))?;
        }
        if which(ctx.root, "ansible").is_none() {
            let msg = "ansible is not installed in the target";
            return Err(Diag::error(Reason::ToolMissing, msg).key("ansible"));
        }
    }
    if let Some(config) = &s.ansible_config {
        a.env.push(("ANSIBLE_CONFIG".into(), config.clone()));
        a.env.push(("ansible_config".into(), config.clone()));
    }
    if let Some(actions) = &s.galaxy {
        if actions.is_empty() {
            let msg = "no actions: nothing run";
            diags.push(Diag::warning(Reason::BadValue, msg).key("ansible.galaxy"));
        }
        for action in actions {
            let words: Vec<&str> = action.iter().map(String::as_str).collect();
            a.run(&words, None, "ansible.galaxy")?;
        }
    }
    for p in &s.pulls {
        pull(&a, p, diags)?;
    }
    if let Some(c) = &s.controller {
        for (source, path) in &c.repositories {
            a.run(&["git", "clone", source, path], None, &c.key)?;
        }
        for r in &c.run_ansible {
            let missing =
                |f: &str| Diag::error(Reason::MissingKey, format!("needs {f}")).key(r.key.clone());
            let dir = r
                .playbook_dir
                .as_deref()
                .ok_or_else(|| missing("playbook_dir"))?;
            let name = r
                .playbook_name
                .as_deref()
                .ok_or_else(|| missing("playbook_name"))?;
            let mut cmd = vec!["ansible-playbook", name];
            cmd.extend(r.flags.iter().map(String::as_str));
            a.run(&cmd, Some(dir), &r.key)?;
        }
    }
    Ok(())
}

/// Runs commands as cloud-init's `AnsiblePull.do_as` does: as `user` through `su`, else
/// directly with `env` added.
struct As<'a> {
    ctx: &'a ModCtx<'a>,
    user: Option<&'a str>,
    env: Vec<(String, String)>,
}

impl As<'_> {
    fn argv(&self, cmd: &[&str], cwd: Option<&str>) -> Vec<String> {
        match self.user {
            Some(user) => {
                let cd = cwd.map(|d| format!("cd {d} && ")).unwrap_or_default();
                let line = format!("{cd}env PATH=$PATH {}", cmd.join(" "));
                ["su", "-", user, "-c", &line].map(str::to_string).to_vec()
            }
            None => match cwd {
                Some(d) => in_dir(d, cmd).into_iter().map(str::to_string).collect(),
                None => cmd.iter().map(|w| w.to_string()).collect(),
            },
        }
    }

    fn env(&self) -> Vec<(&str, &str)> {
        match self.user {
            Some(_) => Vec::new(),
            None => self
                .env
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
        }
    }

    fn exec(&self, cmd: &[&str], cwd: Option<&str>) -> Outcome {
        self.ctx.exec.say(&format!("ansible: running {}", cmd[0]));
        let argv = self.argv(cmd, cwd);
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        self.ctx.exec.run(&args, &self.env())
    }

    /// Runs `cmd`; a failure is an error at `key` naming only its program.
    fn run(&self, cmd: &[&str], cwd: Option<&str>, key: &str) -> Result<(), Diag> {
        let outcome = self.exec(cmd, cwd);
        match outcome.ok() {
            true => Ok(()),
            false => Err(cfgmgmt::failed(cmd[0], &outcome).key(key)),
        }
    }

    fn output(&self, cmd: &[&str]) -> (Outcome, String) {
        let argv = self.argv(cmd, None);
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        capture(self.ctx, &args, &self.env())
    }
}

/// cloud-init's `AnsiblePullPip`: ansible from PyPI with the target's python3, as `run_user`
/// (`--user`) when given, its user bin directory added to PATH.
fn pip_install(a: &mut As, package: &str) -> Result<(), Diag> {
    let ctx = a.ctx;
    let Some(python) = which(ctx.root, "python3") else {
        let msg = "python3 not found in the target: ansible not installed with pip";
        return Err(Diag::error(Reason::ToolMissing, msg).key("ansible.install_method"));
    };
    let python = python.as_str();
    // cloud-init's very words, quotes included: as run_user the shell takes them off.
    let probe = [python, "-c", "'import site; print(site.getuserbase())'"];
    let base = a.output(&probe).1.trim().to_string();
    a.env.push(("PATH".into(), format!("{PATH}:{base}/bin/")));
    let installed = |a: &As| {
        a.output(&[python, "-m", "pip", "list"])
            .1
            .contains("ansible")
    };
    if !installed(a) {
        if !ctx.exec.run(&[python, "-c", "import pip"], &[]).ok() {
            let name = match OsRelease::read(ctx.root).family() {
                Family::Alpine => "py3-pip",
                _ => "python3-pip",
            };
            cfgmgmt::install(ctx, &[Pkg::new(name)]).map_err(|d| d.key("ansible"))?;
        }
        let mut cmd = vec![python, "-m", "pip", "install"];
        if externally_managed(ctx) {
            cmd.push("--break-system-packages");
        }
        if a.user.is_some() {
            cmd.push("--user");
        }
        for tail in [&["--upgrade", "pip"][..], &[package]] {
            let all: Vec<&str> = cmd.iter().chain(tail).copied().collect();
            a.run(&all, None, "ansible.package_name")?;
        }
    }
    if !installed(a) {
        let msg = "ansible is not installed in the target (pip does not list it)";
        return Err(Diag::error(Reason::ToolMissing, msg).key("ansible"));
    }
    Ok(())
}

/// Whether the target's Python is marked externally managed (PEP 668), so pip needs
/// `--break-system-packages` to install outside a virtual environment.
fn externally_managed(ctx: &ModCtx) -> bool {
    let dirs = ctx.root.list_dir("/usr/lib").unwrap_or_default();
    dirs.iter()
        .filter(|d| d.starts_with("python3"))
        .any(|d| ctx.root.exists(&format!("/usr/lib/{d}/EXTERNALLY-MANAGED")))
}

/// `ansible-pull --version`'s first number: `ansible-pull [core 2.16.3]` is (2, 16, 3);
/// parts not given are -1, as cloud-init's `Version`.
fn version(text: &str) -> Option<(i64, i64, i64)> {
    let first = text.lines().next()?;
    let start = first.find(|c: char| c.is_ascii_digit() || c == '.')?;
    let run: String = first[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = run.split('.').map(|p| p.parse::<i64>());
    let mut next = || parts.next().map_or(Some(-1), |p| p.ok());
    Some((next()?, next()?, next()?))
}

/// One `pull` entry: `ansible-pull FLAGS PLAYBOOK...`.
fn pull(a: &As, p: &Pull, diags: &mut Vec<Diag>) -> Result<(), Diag> {
    let v = version(&a.output(&["ansible-pull", "--version"]).1);
    match v {
        None => {
            let msg = "cannot read ansible-pull's version";
            diags.push(Diag::warning(Reason::BadValue, msg).key(&p.key));
        }
        Some(v) if v < (2, 7, 0) && p.diff => {
            let msg = "this ansible-pull is older than 2.7 and has no --diff";
            return Err(Diag::error(Reason::BadValue, msg).key(format!("{}.diff", p.key)));
        }
        Some(_) => {}
    }
    let flags = p.flags.iter().map(String::as_str);
    let runs: Vec<Vec<&str>> = if v.is_some_and(|v| v < (2, 12, 0)) && p.playbooks.len() > 1 {
        p.playbooks.iter().map(|pb| vec![pb.as_str()]).collect()
    } else {
        vec![p.playbooks.iter().map(String::as_str).collect()]
    };
    for books in runs {
        let mut cmd = vec!["ansible-pull"];
        cmd.extend(flags.clone());
        cmd.extend(books);
        a.run(&cmd, None, &p.key)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_cloud_init_reads_them() {
        assert_eq!(
            version("ansible-pull [core 2.16.3]\n  config"),
            Some((2, 16, 3))
        );
        assert_eq!(version("ansible 2.10.8"), Some((2, 10, 8)));
        assert_eq!(version("ansible-pull 2.7"), Some((2, 7, -1)));
        assert_eq!(version("no number here"), None);
        assert_eq!(version(""), None);
        assert!(version("ansible 2.11.12").unwrap() < (2, 12, 0));
    }
}

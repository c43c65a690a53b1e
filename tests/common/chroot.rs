//! The runner's machine: a target directory holding a static busybox (Debian's
//! busybox-static), so `chroot <target> /bin/sh` works, and a run directory where each boot
//! starts with what ember-initrd left there; boots are told apart by the boot id under
//! `--host`.

use serde_json::{json, Value};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);
pub const BUSYBOX: &str = "/bin/busybox";

/// chroot needs root, and the target a static busybox: prints SKIP and says so when one is
/// missing; under CI a missing one fails instead.
pub fn cannot_chroot() -> bool {
    let why = if !rustix::process::geteuid().is_root() {
        "the runner's tests chroot into a target: run them as root"
    } else if !Path::new(BUSYBOX).exists() {
        "no /bin/busybox: apt-get install busybox-static"
    } else {
        return false;
    };
    assert!(std::env::var_os("CI").is_none(), "under CI: {why}");
    super::skip(why);
    true
}

pub struct Machine {
    pub dir: PathBuf,
    pub target: PathBuf,
    pub run: PathBuf,
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Machine {
    /// A target with /bin, /usr/bin, /usr/sbin, /tmp, a Debian 12 /etc/os-release, and the
    /// busybox `applets` linked in /bin (where /bin/busybox exists).
    pub fn new(name: &str, applets: &[&str]) -> Machine {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("ember-runner-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let m = Machine {
            target: dir.join("target"),
            run: dir.join("run"),
            dir,
        };
        for d in ["bin", "usr/bin", "usr/sbin", "tmp", "etc"] {
            std::fs::create_dir_all(m.target.join(d)).unwrap();
        }
        if Path::new(BUSYBOX).exists() {
            std::fs::copy(BUSYBOX, m.target.join("bin/busybox")).unwrap();
            for a in applets {
                symlink("busybox", m.target.join("bin").join(a)).unwrap();
            }
        }
        m.write("/etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n", 0o644);
        m
    }

    pub fn write(&self, rel: &str, data: &str, mode: u32) {
        let p = self.target.join(rel.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, data).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A program at `rel` that appends its name and arguments to /tools.log, then runs `tail`.
    pub fn fake(&self, rel: &str, tail: &str) {
        let name = rel.rsplit('/').next().unwrap();
        let body = format!("#!/bin/sh\necho \"{name} $*\" >> /tools.log\n{tail}\n");
        self.write(rel, &body, 0o755);
    }

    /// A file of the target; empty when missing.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.target.join(rel.trim_start_matches('/'))).unwrap_or_default()
    }

    pub fn lines(&self, rel: &str) -> Vec<String> {
        self.read(rel).lines().map(str::to_string).collect()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.target.join(rel.trim_start_matches('/')).exists()
    }

    pub fn mode(&self, rel: &str) -> u32 {
        let p = self.target.join(rel.trim_start_matches('/'));
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    /// A new boot: /run is empty again, then ember-initrd's stages and `handoff` appear.
    pub fn boot(&self, handoff: &Value) {
        let _ = std::fs::remove_dir_all(&self.run);
        std::fs::create_dir_all(self.run.join("ember")).unwrap();
        let done =
            json!({"state": "done", "start": 1.0, "finished": 1.5, "start_wall": 1.0, "pid": 1});
        let status = json!({
            "version": 1, "datasource": "nocloud",
            "datasource_detail": "DataSourceNoCloud [seed=/dev/sr0]",
            "stages": {"detect": done, "fetch": done, "local": done},
        });
        let ember = self.run.join("ember");
        std::fs::write(ember.join("status.json"), status.to_string()).unwrap();
        std::fs::write(ember.join("handoff.json"), handoff.to_string()).unwrap();
    }

    /// A new boot whose handoff, of instance i-1 on its first boot, lists `modules`.
    pub fn boot_modules(&self, modules: Value) {
        self.boot(&json!({
            "version": 1, "instance_id": "i-1", "instance_dir": "i-1", "datasource": "nocloud",
            "first_boot": true, "modules": modules,
        }));
    }

    /// `ember ARGS` on this target and run directory, in the boot `boot_id`.
    pub fn ember(&self, boot_id: &str, args: &[&str]) -> Output {
        super::run(
            Command::new(super::EMBER)
                .arg("--target")
                .arg(&self.target)
                .arg("--run")
                .arg(&self.run)
                .arg("--host")
                .arg(super::boot_host(&self.dir, boot_id))
                .args(args),
        )
    }

    /// `init`, `modules --mode config`, `modules --mode final`; returns final's output.
    pub fn all(&self, boot_id: &str) -> Output {
        for args in [&["init"][..], &["modules", "--mode", "config"]] {
            let out = self.ember(boot_id, args);
            assert!(out.status.success(), "{args:?}: {}", super::text(&out));
        }
        self.ember(boot_id, &["modules", "--mode=final"])
    }

    pub fn status(&self) -> Value {
        let data = std::fs::read(self.run.join("ember/status.json")).unwrap();
        serde_json::from_slice(&data).unwrap()
    }

    /// Runs the config stage of boot `boot-1` over `modules` (name, config, once per
    /// instance) and returns its diagnostics as `(severity, code, key)`.
    pub fn config_stage(&self, modules: &[(&str, Value)]) -> Vec<(String, String, String)> {
        let calls: Vec<Value> = modules
            .iter()
            .map(|(name, cfg)| {
                json!({"name": name, "stage": "config", "frequency": "once-per-instance",
                       "config": cfg})
            })
            .collect();
        self.boot_modules(Value::Array(calls));
        let out = self.ember("boot-1", &["modules", "--mode", "config"]);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            super::text(&out)
        );
        super::assert_no_panic(&out);
        self.diags("config")
    }

    /// `(severity, code, key)` of every diagnostic `stage` recorded.
    pub fn diags(&self, stage: &str) -> Vec<(String, String, String)> {
        let st = self.status();
        let mut out = Vec::new();
        for (list, sev) in [("errors", "error"), ("recoverable_errors", "")] {
            for d in st["stages"][stage][list].as_array().unwrap() {
                let sev = if sev.is_empty() {
                    d["severity"].as_str().unwrap_or("warning")
                } else {
                    sev
                };
                out.push((
                    sev.to_string(),
                    d["code"].as_str().unwrap().to_string(),
                    d["key"].as_str().unwrap_or("").to_string(),
                ));
            }
        }
        out
    }
}

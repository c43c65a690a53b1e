//! The shared harness of the initramfs tests (initramfs_boot_hooks, initramfs_build_hooks,
//! initramfs_lint): a sandbox with a fake ember-initrd and mount first on PATH, a fake `proc/`
//! and the log every fake appends to; the generators' boot sides (how to stage their hooks, what
//! their paths and exit paths look like); the shells an initramfs runs hooks with.
//!
//! The scripts run as copies in which the few absolute paths they read on the initramfs or the
//! build host (`/proc/`, `/new_root`, `/etc/cmdline.d/`, the build host's `/usr/lib/ember/` and
//! `/usr/bin/ember-initrd`, initramfs-tools' hook-functions) point into the sandbox. Each mapped
//! path must occur in its script, so a renamed path fails here instead of going untested.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

const REPO: &str = env!("CARGO_MANIFEST_DIR");
pub const CMDLINE: &str = "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet";
/// Log events whose text is a message: only their first word (which function) is compared.
const MESSAGES: &[&str] = &[
    "info",
    "warn",
    "err",
    "error",
    "die",
    "panic",
    "log_failure_msg",
    "log_warning_msg",
];

/// Variables a generator's init sets for its hooks that the tests set too.
const GEN_VARS: &[&str] = &["IP"];

static COUNTER: AtomicU32 = AtomicU32::new(0);

pub fn repo(rel: &str) -> PathBuf {
    Path::new(REPO).join(rel)
}

pub fn text(p: &Path) -> String {
    p.display().to_string()
}

/// A temp dir with `bin/` (fake ember-initrd and mount, the staged ember-initrd-local) first on
/// the scripts' PATH, a fake `proc/`, and the log every fake and stub appends to.
pub struct Sandbox {
    pub dir: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let pid = std::process::id();
        let dir = std::env::temp_dir().join(format!("ember-hooks-{name}-{pid}-{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        for d in ["bin", "proc", "etc/cmdline.d", "sysroot", "root", "image"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        // The mount table names canonical paths, as the kernel's does.
        let dir = std::fs::canonicalize(&dir).unwrap();
        let sb = Sandbox { dir };
        sb.copy("tests/initramfs/fake-ember-initrd", "bin/ember-initrd", &[]);
        sb.copy("tests/initramfs/fake-mount", "bin/mount", &[]);
        let proc = sb.mapped("/proc/");
        let helper = "initramfs/systemd/ember-initrd-local";
        sb.copy(helper, "bin/ember-initrd-local", &[("/proc/", &proc)]);
        sb.cmdline(CMDLINE);
        std::fs::write(sb.path("log"), "").unwrap();
        sb
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// `abs` (an absolute path) inside the sandbox, as text for a mapping.
    pub fn mapped(&self, abs: &str) -> String {
        format!("{}{abs}", self.dir.display())
    }

    /// Copies `src` (in the repository, or absolute) to `dst` in the sandbox, applying the path
    /// mappings (each must occur) and keeping the mode. Returns the copy's path as text.
    pub fn copy(&self, src: &str, dst: &str, maps: &[(&str, &str)]) -> String {
        let from = if src.starts_with('/') {
            PathBuf::from(src)
        } else {
            repo(src)
        };
        let mut body = std::fs::read_to_string(&from).unwrap_or_else(|e| panic!("{src}: {e}"));
        for (old, new) in maps {
            assert!(body.contains(old), "{src} lacks {old:?}: update the test");
            body = body.replace(old, new);
        }
        let to = self.path(dst);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, body).unwrap();
        let mode = std::fs::metadata(&from).unwrap().permissions();
        std::fs::set_permissions(&to, mode).unwrap();
        text(&to)
    }

    fn cmdline(&self, line: &str) {
        std::fs::write(self.path("proc/cmdline"), format!("{line}\n")).unwrap();
    }

    /// The mount table: `root` mounted with `opts` ("-": not mounted).
    fn mounts(&self, root: &Path, opts: &str) {
        let mut table = "rootfs / rootfs rw 0 0\n".to_string();
        if opts != "-" {
            table += &format!("/dev/vda1 {} ext4 {opts},relatime 0 0\n", root.display());
        }
        std::fs::write(self.path("proc/mounts"), table).unwrap();
    }

    /// Runs `argv` with a clean environment plus `env`, the sandbox's bin first on PATH.
    pub fn run(&self, argv: &[&str], env: &[(&str, String)]) -> Output {
        let path = format!(
            "{}:/usr/sbin:/usr/bin:/sbin:/bin",
            self.path("bin").display()
        );
        let mut cmd = Command::new(argv[0]);
        cmd.args(&argv[1..]).env_clear().current_dir(&self.dir);
        cmd.env("PATH", path)
            .env("EMBER_TEST_LOG", self.path("log"))
            .env("EMBER_TEST_MOUNTS", self.path("proc/mounts"))
            .env("EMBER_TEST_CMDLINE", self.path("proc/cmdline"))
            .env("EMBER_TEST_DIR", &self.dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// The log with the sandbox's path as `$SB` and messages cut to their function's name.
    pub fn events(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.path("log")).unwrap();
        let sb = self.dir.display().to_string();
        let cut = |l: &str| {
            let l = l.replace(&sb, "$SB");
            let first = l.split(' ').next().unwrap_or("").to_string();
            if MESSAGES.contains(&first.as_str()) {
                first
            } else {
                l
            }
        };
        log.lines().map(cut).filter(|l| l != "info").collect()
    }
}

pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// One generator's boot side: how to stage its hooks and what its paths look like.
pub struct Gen {
    pub name: &'static str,
    /// Target of detect and fetch, and the (canonical) mounted root of the local stage.
    early: &'static str,
    root: &'static str,
    /// The log events of the go-on path for exit 1 and for other statuses, and of the halt.
    fail1: &'static [&'static str],
    fail2: &'static [&'static str],
    halt: &'static [&'static str],
}

pub const DRACUT: Gen = Gen {
    name: "dracut",
    early: "$SB/sysroot",
    root: "$SB/sysroot",
    fail1: &["warn"],
    fail2: &["warn"],
    halt: &["die"],
};
pub const ITOOLS: Gen = Gen {
    name: "initramfs-tools",
    early: "$SB/root",
    root: "$SB/root",
    fail1: &["log_failure_msg"],
    fail2: &["log_warning_msg"],
    halt: &["panic"],
};
pub const MKINITCPIO: Gen = Gen {
    name: "mkinitcpio",
    early: "$SB/new_root",
    root: "$SB/sysroot",
    fail1: &["err"],
    fail2: &["err"],
    halt: &["err", "launch_interactive_shell"],
};

impl Gen {
    /// Stages the hooks into `sb`; returns the harness's arguments and environment.
    fn stage(&self, sb: &Sandbox) -> (Vec<String>, Vec<(&'static str, String)>) {
        let proc = sb.mapped("/proc/");
        let hooks = text(&sb.path("hooks"));
        match self.name {
            "dracut" => {
                let d = "initramfs/dracut/90ember";
                let cmdline_d = sb.mapped("/etc/cmdline.d/");
                let map = [("/etc/cmdline.d/", cmdline_d.as_str())];
                sb.copy(
                    &format!("{d}/ember-cmdline.sh"),
                    "hooks/ember-cmdline.sh",
                    &map,
                );
                sb.copy(
                    &format!("{d}/ember-pre-mount.sh"),
                    "hooks/ember-pre-mount.sh",
                    &[],
                );
                sb.copy(
                    &format!("{d}/ember-pre-pivot.sh"),
                    "hooks/ember-pre-pivot.sh",
                    &[],
                );
                let harness = text(&repo("tests/initramfs/dracut-boot.sh"));
                let env = vec![("NEWROOT", text(&sb.path("sysroot")))];
                (vec![harness, hooks], env)
            }
            "initramfs-tools" => {
                let d = "initramfs/initramfs-tools/scripts";
                let map = [("/proc/", proc.as_str())];
                sb.copy(
                    &format!("{d}/local-premount/ember"),
                    "hooks/local-premount",
                    &map,
                );
                sb.copy(
                    &format!("{d}/local-bottom/ember"),
                    "hooks/local-bottom",
                    &map,
                );
                let harness = text(&repo("tests/initramfs/itools-boot.sh"));
                let env = vec![("rootmnt", text(&sb.path("root")))];
                (vec![harness, hooks], env)
            }
            _ => {
                // Newer mkinitcpio mounts the root at /sysroot, /new_root linking to it.
                std::os::unix::fs::symlink("sysroot", sb.path("new_root")).unwrap();
                let new_root = sb.mapped("/new_root");
                let map = [("/proc/", proc.as_str()), ("/new_root", new_root.as_str())];
                let hook = sb.copy("initramfs/mkinitcpio/hooks/ember", "hooks/ember", &map);
                let harness = text(&repo("tests/initramfs/mkinitcpio-boot.sh"));
                (vec![harness, hook], vec![])
            }
        }
    }

    /// Expected events from words: detect, fetch, local (ember-initrd's stages), rw and ro (the
    /// root's remounts), mounted and switch (the harness's marks), fail1, fail2, halt (this
    /// generator's paths), anything else literal.
    pub fn expect(&self, words: &str) -> Vec<String> {
        let mut out = Vec::new();
        for w in words.split_whitespace() {
            match w {
                "detect" | "fetch" => out.push(format!("ember-initrd --target {} {w}", self.early)),
                "local" => out.push(format!("ember-initrd --target {} local", self.root)),
                "rw" | "ro" => out.push(format!("mount -o remount,{w} /dev/vda1 {}", self.root)),
                "mounted" => out.push("root mounted".into()),
                "switch" => out.push("switch_root".into()),
                "fail1" => out.extend(strings(self.fail1)),
                "fail2" => out.extend(strings(self.fail2)),
                "halt" => out.extend(strings(self.halt)),
                other => out.push(other.into()),
            }
        }
        out
    }

    /// One boot under `shell`: the command line, the root's mount options ("-": not mounted)
    /// and `KEY=VALUE` settings, for the fakes (EMBER_TEST_ prefixed) or, for [`GEN_VARS`],
    /// the generator's own variables. Status and events.
    pub fn boot(
        &self,
        shell: &[&str],
        cmdline: &str,
        root: &str,
        env: &str,
    ) -> (Sandbox, i32, Vec<String>) {
        let sb = Sandbox::new(self.name);
        let (args, mut vars) = self.stage(&sb);
        sb.cmdline(cmdline);
        sb.mounts(&sb.path(self.root.trim_start_matches("$SB/")), root);
        for kv in env.split(',').filter(|kv| !kv.is_empty() && *kv != "-") {
            let (k, v) = kv.split_once('=').unwrap();
            let k = match GEN_VARS.contains(&k) {
                true => k.to_string(),
                false => format!("EMBER_TEST_{k}"),
            };
            vars.push((Box::leak(k.into_boxed_str()), v.to_string()));
        }
        let mut argv = shell.to_vec();
        argv.extend(args.iter().map(String::as_str));
        let out = sb.run(&argv, &vars);
        let (code, events) = (out.status.code().unwrap_or(-1), sb.events());
        (sb, code, events)
    }
}

/// The shells an initramfs runs hooks with that are on this machine.
pub fn shells() -> Vec<Vec<&'static str>> {
    let mut out = Vec::new();
    if common::have("busybox") {
        out.push(vec!["busybox", "sh"]);
    }
    if common::have("dash") {
        out.push(vec!["dash"]);
    }
    out
}

pub const UNITS: [&str; 2] = ["ember-initrd-early.service", "ember-initrd-local.service"];

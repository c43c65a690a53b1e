//! A machine stand-in for integration tests: a host tree (proc, sys, dev), an empty target
//! root and a run directory in a fresh temp dir, plus helpers to run the real binaries.
#![allow(dead_code)] // each test binary uses its own subset

pub mod chroot;
pub mod emulator;
pub mod faults;
pub mod loopdev;
pub mod netns;
pub mod target;
pub mod tpm;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

pub struct Machine {
    pub dir: PathBuf,
    pub host: PathBuf,
    pub target: PathBuf,
    pub run: PathBuf,
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// True when `tool` is on PATH. Otherwise the test is skipped, and says so on the real
/// stderr (libtest captures `eprintln!`, not writes to the stream); under CI, which installs
/// every tool, a missing one fails instead.
pub fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} missing under CI: scripts/setup installs it"
        );
        skip(&format!("{tool} not installed (scripts/setup installs it)"));
    }
    found
}

/// Prints `SKIP: why` where the person running the tests sees it.
pub fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP: {why}");
}

impl Machine {
    pub fn new(name: &str) -> Machine {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("ember-test-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let m = Machine {
            host: dir.join("host"),
            target: dir.join("target"),
            run: dir.join("run"),
            dir,
        };
        for d in ["proc", "sys/class/dmi/id", "sys/class/block", "dev"] {
            std::fs::create_dir_all(m.host.join(d)).unwrap();
        }
        std::fs::create_dir_all(m.target.join("etc")).unwrap();
        std::fs::write(
            m.target.join("etc/os-release"),
            "ID=debian\nVERSION_ID=\"12\"\n",
        )
        .unwrap();
        m.cmdline("BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro");
        m
    }

    /// Sets the kernel command line. Unless it names a metadata URL (and Azure wireserver)
    /// itself, one on a closed loopback port is added: a test that selects a cloud must never
    /// reach the real 169.254.169.254 or 168.63.129.16 through this machine's own routes.
    pub fn cmdline(&self, line: &str) {
        let mut full = line.to_string();
        for key in ["ember.metadata-url=", "ember.azure.wireserver="] {
            if !line.contains(key) {
                full.push_str(&format!(" {key}http://127.0.0.1:9"));
            }
        }
        std::fs::write(self.host.join("proc/cmdline"), format!("{full}\n")).unwrap();
    }

    pub fn dmi(&self, field: &str, value: &str) {
        std::fs::write(
            self.host.join("sys/class/dmi/id").join(field),
            format!("{value}\n"),
        )
        .unwrap();
    }

    pub fn write(&self, base: &Path, rel: &str, data: &[u8]) {
        let path = base.join(rel.trim_start_matches('/'));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, data).unwrap();
    }

    /// Files in a seed directory `dir` (inside the host tree for `file://` seeds, or the target).
    pub fn seed_files(&self, base: &Path, dir: &str, files: &[(&str, &str)]) {
        for (name, content) in files {
            self.write(base, &format!("{dir}/{name}"), content.as_bytes());
        }
    }

    fn block_device(&self, dev: &str, removable: bool) -> PathBuf {
        let sys = self.host.join("sys/class/block").join(dev);
        std::fs::create_dir_all(&sys).unwrap();
        std::fs::write(sys.join("removable"), if removable { "1\n" } else { "0\n" }).unwrap();
        std::fs::write(sys.join("size"), "2048\n").unwrap();
        self.host.join("dev").join(dev)
    }

    /// A real ISO9660 image (Rock Ridge + Joliet) standing for `/dev/<dev>`.
    pub fn iso_seed(&self, dev: &str, label: &str, files: &[(&str, &str)]) {
        let src = self.dir.join(format!("src-{dev}"));
        self.seed_files(&src, "", files);
        let node = self.block_device(dev, true);
        let out = Command::new("xorriso")
            .args(["-as", "mkisofs", "-quiet", "-V", label, "-J", "-R", "-o"])
            .arg(&node)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "xorriso: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A real VFAT image with long file names standing for `/dev/<dev>`.
    pub fn vfat_seed(&self, dev: &str, label: &str, files: &[(&str, &str)]) {
        let node = self.block_device(dev, false);
        let run = |cmd: &mut Command| {
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "{cmd:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        run(Command::new("truncate").args(["-s", "4M"]).arg(&node));
        run(Command::new("mkfs.vfat").args(["-n", label]).arg(&node));
        for (name, content) in files {
            let src = self.dir.join(format!("vfat-{name}"));
            std::fs::write(&src, content).unwrap();
            run(Command::new("mcopy")
                .arg("-i")
                .arg(&node)
                .arg(&src)
                .arg(format!("::{name}")));
        }
    }

    pub fn initrd(&self, stage: &str) -> Output {
        self.initrd_args(&[stage])
    }

    pub fn initrd_args(&self, args: &[&str]) -> Output {
        run(Command::new(EMBER_INITRD)
            .arg("--host")
            .arg(&self.host)
            .arg("--target")
            .arg(&self.target)
            .arg("--run")
            .arg(&self.run)
            .args(args)
            .env_remove("KERNEL_CMDLINE"))
    }

    /// `initrd_args` with variables added to its environment (`PATH` for a stand-in tool,
    /// VMware's `VMX_GUESTINFO*`).
    pub fn initrd_env(&self, args: &[&str], vars: &[(&str, &str)]) -> Output {
        run(Command::new(EMBER_INITRD)
            .arg("--host")
            .arg(&self.host)
            .arg("--target")
            .arg(&self.target)
            .arg("--run")
            .arg(&self.run)
            .args(args)
            .env_remove("KERNEL_CMDLINE")
            .envs(vars.iter().copied()))
    }

    pub fn ember(&self, args: &[&str]) -> Output {
        run(Command::new(EMBER).arg("--run").arg(&self.run).args(args))
    }

    pub fn run_file(&self, rel: &str) -> String {
        std::fs::read_to_string(self.run.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn target_file(&self, rel: &str) -> String {
        let path = self.target.join(rel.trim_start_matches('/'));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    pub fn json(&self, rel: &str) -> Value {
        serde_json::from_str(&self.run_file(rel)).unwrap()
    }

    pub fn status(&self) -> Value {
        self.json("ember/status.json")
    }

    /// Every diagnostic of every stage, errors and recoverable, as JSON objects.
    pub fn diags(&self) -> Vec<Value> {
        let status = self.status();
        let mut out = Vec::new();
        for stage in status["stages"].as_object().unwrap().values() {
            for key in ["errors", "recoverable_errors"] {
                out.extend(stage[key].as_array().unwrap().iter().cloned());
            }
        }
        out
    }

    /// The diagnostics of severity error, of every stage.
    pub fn errors(&self) -> Vec<Value> {
        let diags = self.diags().into_iter();
        diags.filter(|d| d["severity"] == "error").collect()
    }

    pub fn diag_with_code(&self, code: &str) -> Option<Value> {
        self.diags().into_iter().find(|d| d["code"] == code)
    }

    /// The run `out` ended with the datasource's fetch failed and None standing in, as in
    /// cloud-init (ds-identify ends every list with None): exit 0, no error, the instance
    /// `iid-datasource-none`, and None's warning. The failure itself is a warning the caller
    /// looks for by its code.
    pub fn fell_back(&self, out: &Output) {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
        assert_eq!(self.errors(), Vec::<Value>::new(), "{}", stderr(out));
        assert_eq!(
            self.status()["instance_id"],
            "iid-datasource-none",
            "{}",
            stderr(out)
        );
        assert!(
            self.diag_with_code("no-datasource").is_some(),
            "{}",
            stderr(out)
        );
    }

    /// Every file under `dir` with its mode, as `(path relative to dir, mode)`.
    pub fn tree(dir: &Path) -> Vec<(String, u32)> {
        let mut out: Vec<(String, u32)> = walk(dir)
            .into_iter()
            .map(|(path, meta)| {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                (rel, meta.permissions().mode() & 0o7777)
            })
            .collect();
        out.sort();
        out
    }

    /// The handoff's call of runner module `name`.
    pub fn handoff_module(&self, name: &str) -> Value {
        let handoff = self.json("ember/handoff.json");
        let calls = handoff["modules"].as_array().cloned().unwrap_or_default();
        calls
            .into_iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in the handoff"))
    }

    /// No world-readable file ember wrote (the run directory, the target outside its seed
    /// directories) contains `secret`.
    pub fn assert_secret_not_world_readable(&self, secret: &str) {
        for (rel, mode) in Machine::tree(&self.dir) {
            let path = self.dir.join(&rel);
            let written =
                rel.starts_with("run/") || (rel.starts_with("target/") && !rel.contains("/seed/"));
            if written && mode & 0o004 != 0 && path.is_file() {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                assert!(!text.contains(secret), "secret in world-readable {rel}");
            }
        }
    }

    pub fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }
}

/// The built binaries. Tests run them through [`run`] (as `Machine::initrd_args` and
/// `Machine::ember` do), or pass what they spawned themselves to [`assert_no_panic`]: a panic
/// fails the test even where it expects a failure exit.
pub const EMBER_INITRD: &str = env!("CARGO_BIN_EXE_ember-initrd");
/// The runner, beside ember-initrd: cargo names only a package's own binaries to its tests, and
/// the runner is the `ember-runner` crate's. `cargo test` at the top builds both (that crate
/// has tests of its own); after changing only the runner, a single test target needs
/// `cargo build -p ember-runner` first.
pub const EMBER: &str = without_suffix(EMBER_INITRD, "-initrd");

const fn without_suffix(path: &'static str, suffix: &str) -> &'static str {
    let (head, tail) = path.as_bytes().split_at(path.len() - suffix.len());
    assert!(
        tail.len() == suffix.len() && tail[0] == b'-',
        "not ember-initrd's path"
    );
    match std::str::from_utf8(head) {
        Ok(head) => head,
        Err(_) => panic!("not UTF-8"),
    }
}

/// `cmd`'s output once it exited; a panic in it fails the test.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| {
        let hint = match cmd.get_program() == EMBER {
            true => " (the runner is ember-runner's binary: `cargo build -p ember-runner`)",
            false => "",
        };
        panic!("{:?}: {e}{hint}", cmd.get_program())
    });
    assert_no_panic(&out);
    out
}

/// A run fails on any panic, whatever it printed otherwise.
pub fn assert_no_panic(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert_ne!(out.status.code(), Some(101), "panic exit: {stderr}");
}

/// An output's exit status, stdout and stderr, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every entry under `dir` (files, directories, links, not followed) with its metadata.
pub fn walk(dir: &Path) -> Vec<(PathBuf, std::fs::Metadata)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            }
            out.push((e.path(), meta));
        }
    }
    out
}

/// A host tree under `dir` whose /proc names the boot `boot_id`, for the runner's `--host`:
/// how tests simulate several boots of one machine.
/// The lines of an `strace -f -o FILE` trace, without the pid each starts with.
pub fn strace_lines(trace: &Path) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .map(|l| l.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' '))
        .map(String::from)
        .collect()
}

pub fn boot_host(dir: &Path, boot_id: &str) -> PathBuf {
    let host = dir.join("host");
    let file = host.join("proc/sys/kernel/random/boot_id");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, format!("{boot_id}\n")).unwrap();
    host
}

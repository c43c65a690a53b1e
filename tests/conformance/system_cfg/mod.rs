//! The system config and cloud-init's runtime files: `## template: jinja` in /etc/cloud
//! (`tests/integration_tests/modules/test_jinja_templating.py`), `system_info.paths`
//! (`tests/integration_tests/test_paths.py`, `cloudinit/helpers.py`), the files of the run
//! directory (`test_combined.py`, `tests/unittests/sources/test_init.py`), and what the runner
//! leaves (`test_keys_to_console.py`, `test_write_files.py`, `test_defaults.py`). Each scenario
//! is one machine, built as the upstream test builds its instance (image files, a NoCloud
//! seed), booted with `ember-initrd all` and, where the fact is the booted system's, the
//! runner's stages chrooted into a target holding a static busybox. Each row is one fact
//! of one upstream test, checked on what ember left (target root, run directory, output).

mod paths;
mod runner;
mod runtime_files;
mod templating;

use crate::common::target::Accounts;
use crate::common::{self, stderr, stdout, Machine};
use crate::differences;
use serde_json::Value;
use std::os::unix::fs::symlink;
use std::process::{Command, Output};

/// One fact of one upstream test, and whether ember's boot shows it.
pub struct Row {
    /// `test_paths.py::TestHonorCloudDir::test_honor_cloud_dir (no /var/lib/cloud)`.
    pub upstream: &'static str,
    pub holds: fn(&Boot) -> Result<(), String>,
    /// Where ember deliberately differs: a phrase of the manual's entry (docs/src/differences.md); `holds` then checks
    /// ember's outcome.
    pub differs: Option<&'static str>,
}

/// A booted machine: what `ember-initrd all` said, and the runner's final stage, when run.
pub struct Boot {
    pub m: Machine,
    pub initrd: Output,
    /// stdout of `ember modules --mode final` (the console), when the runner ran.
    pub console: String,
}

/// A NoCloud instance `i-1` called `h1`: its seed in the target, with `user_data`.
pub fn machine(name: &str, user_data: &str) -> Machine {
    let m = Machine::new(name);
    let meta = "instance-id: i-1\nlocal-hostname: h1\n";
    let files = [("meta-data", meta), ("user-data", user_data)];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    m
}

/// `ember-initrd all` on `m`.
pub fn boot(m: Machine) -> Boot {
    let initrd = m.initrd("all");
    common::assert_no_panic(&initrd);
    Boot {
        m,
        initrd,
        console: String::new(),
    }
}

/// A target the runner can chroot into: busybox, root's accounts, the `adm` group.
pub fn runnable(m: &Machine) {
    let t = &m.target;
    for d in ["bin", "var/tmp", "tmp", "home", "root", "etc/ssh"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    std::fs::copy(common::chroot::BUSYBOX, t.join("bin/busybox")).unwrap();
    for applet in ["sh", "echo", "cat", "id"] {
        symlink("busybox", t.join("bin").join(applet)).unwrap();
    }
    Accounts::root()
        .shell("/bin/sh")
        .group("adm", 4)
        .shadow()
        .write(t);
    m.write(t, "etc/default/locale", b"LANG=C.UTF-8\n");
}

/// [`boot`], then the runner's `init`, config and final stages; `None` (the scenario is
/// skipped, and says so) where this machine cannot chroot.
pub fn boot_to_final(m: Machine) -> Option<Boot> {
    if common::chroot::cannot_chroot() {
        return None;
    }
    runnable(&m);
    let mut b = boot(m);
    assert_eq!(b.initrd.status.code(), Some(0), "{}", stderr(&b.initrd));
    b.m.write(&b.m.host, "proc/sys/kernel/random/boot_id", b"boot-1\n");
    for args in [
        &["init"][..],
        &["modules", "--mode", "config"],
        &["modules", "--mode", "final"],
    ] {
        let out = common::run(
            Command::new(common::EMBER)
                .arg("--target")
                .arg(&b.m.target)
                .arg("--run")
                .arg(&b.m.run)
                .arg("--host")
                .arg(&b.m.host)
                .args(args),
        );
        assert!(
            out.status.code().is_some_and(|c| c <= 2),
            "{args:?}: {}",
            common::text(&out)
        );
        b.console = stdout(&out);
    }
    Some(b)
}

impl Boot {
    /// A JSON file of the run directory.
    pub fn run_json(&self, rel: &str) -> Result<Value, String> {
        let text =
            std::fs::read_to_string(self.m.run.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{rel}: {e}"))
    }

    pub fn combined(&self) -> Result<Value, String> {
        self.run_json("cloud-init/combined-cloud-config.json")
    }

    /// A file of the target, or why not.
    pub fn target_file(&self, rel: &str) -> Result<String, String> {
        let path = self.m.target.join(rel.trim_start_matches('/'));
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Every diagnostic of every stage, as JSON.
    pub fn diags(&self) -> Vec<Value> {
        self.m.diags()
    }
}

/// `Ok` when `got == want`, else both, named.
pub fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

/// Runs every row on `boot` and fails once, listing every row that does not hold.
pub fn check(boot: &Boot, table: &[Row]) {
    let mut wrong = Vec::new();
    for row in table {
        assert!(!row.upstream.is_empty(), "a row without its upstream case");
        if let Some(phrase) = row.differs {
            differences::assert_listed(row.upstream, phrase);
        }
        if let Err(why) = (row.holds)(boot) {
            wrong.push(format!("{}: {why}", row.upstream));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rows disagree:\n\n{}\n\nember-initrd: {}",
        wrong.len(),
        table.len(),
        wrong.join("\n\n"),
        stderr(&boot.initrd)
    );
}

#[test]
fn the_tables_cover_the_system_config_items() {
    let rows = templating::rows() + paths::rows() + runtime_files::rows() + runner::rows();
    assert!(rows >= 30, "only {rows} system config rows");
}

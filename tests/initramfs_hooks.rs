//! The initramfs integrations (`initramfs/`): each generator's boot hooks run under a harness
//! standing for that generator's hook interface (tests/initramfs/*-boot.sh), with a fake
//! ember-initrd and mount, under busybox sh and dash; each build hook runs against recorders
//! of its generator's build functions. Checked: the stages' order and targets, the disable
//! toggles, the halt path (exit 3) and the go-on paths (1, 2), the read-only root's remount,
//! the network bring-up, what the build hooks put into the image; shell lint, the systemd units,
//! a real read-only remount in a private mount namespace, and `install-into-root`.
//!
//! The scripts run as copies in which the few absolute paths they read on the initramfs or the
//! build host (`/proc/`, `/new_root`, `/etc/cmdline.d/`, the build host's `/usr/lib/ember/` and
//! `/usr/bin/ember-initrd`, initramfs-tools' hook-functions) point into the sandbox. Each mapped
//! path must occur in its script, so a renamed path fails here instead of going untested.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

const REPO: &str = env!("CARGO_MANIFEST_DIR");
const CA_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";
const MODULES: &str =
    "virtio_blk virtio_pci virtio_net virtio_scsi sr_mod cdrom ata_piix ahci e1000";
const CMDLINE: &str = "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet";
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

fn repo(rel: &str) -> PathBuf {
    Path::new(REPO).join(rel)
}

fn text(p: &Path) -> String {
    p.display().to_string()
}

/// A temp dir with `bin/` (fake ember-initrd and mount, the staged ember-initrd-local) first on
/// the scripts' PATH, a fake `proc/`, and the log every fake and stub appends to.
struct Sandbox {
    dir: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Sandbox {
    fn new(name: &str) -> Sandbox {
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

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// `abs` (an absolute path) inside the sandbox, as text for a mapping.
    fn mapped(&self, abs: &str) -> String {
        format!("{}{abs}", self.dir.display())
    }

    /// Copies `src` (in the repository, or absolute) to `dst` in the sandbox, applying the path
    /// mappings (each must occur) and keeping the mode. Returns the copy's path as text.
    fn copy(&self, src: &str, dst: &str, maps: &[(&str, &str)]) -> String {
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
    fn run(&self, argv: &[&str], env: &[(&str, String)]) -> Output {
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
    fn events(&self) -> Vec<String> {
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

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// One generator's boot side: how to stage its hooks and what its paths look like.
struct Gen {
    name: &'static str,
    /// Target of detect and fetch, and the (canonical) mounted root of the local stage.
    early: &'static str,
    root: &'static str,
    /// The log events of the go-on path for exit 1 and for other statuses, and of the halt.
    fail1: &'static [&'static str],
    fail2: &'static [&'static str],
    halt: &'static [&'static str],
}

const DRACUT: Gen = Gen {
    name: "dracut",
    early: "$SB/sysroot",
    root: "$SB/sysroot",
    fail1: &["warn"],
    fail2: &["warn"],
    halt: &["die"],
};
const ITOOLS: Gen = Gen {
    name: "initramfs-tools",
    early: "$SB/root",
    root: "$SB/root",
    fail1: &["log_failure_msg"],
    fail2: &["log_warning_msg"],
    halt: &["panic"],
};
const MKINITCPIO: Gen = Gen {
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
    fn expect(&self, words: &str) -> Vec<String> {
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
    fn boot(
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
fn shells() -> Vec<Vec<&'static str>> {
    let mut out = Vec::new();
    if common::have("busybox") {
        out.push(vec!["busybox", "sh"]);
    }
    if common::have("dash") {
        out.push(vec!["dash"]);
    }
    out
}

/// name | command line ("-": the default) | root mount | fakes' settings | status | events.
const BOOTS: &str = "
read-only root    | -                      | ro | -                            | 0  | detect fetch mounted rw local ro switch
read-write root   | -                      | rw | -                            | 0  | detect fetch mounted local switch
ember=disabled    | root=/dev/vda1 ember=disabled ro | ro | -                  | 0  | mounted switch
cloud-init off    | cloud-init=disabled root=/dev/vda1 | ro | -                | 0  | mounted switch
near misses       | xember=disabled ember=disabledx cloud-init=enabled | ro | - | 0 | detect fetch mounted rw local ro switch
detect halts      | -                      | ro | RC_detect=3                  | 99 | detect halt
fetch halts       | -                      | ro | RC_fetch=3                   | 99 | detect fetch halt
local halts       | -                      | ro | RC_local=3                   | 99 | detect fetch mounted rw local ro halt
errors boot on    | -                      | ro | RC_detect=1,RC_fetch=1,RC_local=1 | 0 | detect fail1 fetch fail1 mounted rw local ro fail1 switch
usage error       | -                      | ro | RC_fetch=2                   | 0  | detect fetch fail2 mounted rw local ro switch
root not mounted  | -                      | -  | -                            | 0  | detect fetch mounted fail1 switch
remount fails     | -                      | ro | MOUNT_RC=32                  | 0  | detect fetch mounted rw fail1 switch
";

#[test]
fn boot_hooks_run_the_stages_in_order_and_take_each_exit_path() {
    for g in [&DRACUT, &ITOOLS, &MKINITCPIO] {
        for shell in shells() {
            for row in BOOTS.lines().filter(|l| !l.trim().is_empty()) {
                let f: Vec<&str> = row.split('|').map(str::trim).collect();
                let cmdline = if f[1] == "-" { CMDLINE } else { f[1] };
                let (_sb, code, events) = g.boot(&shell, cmdline, f[2], f[3]);
                let ctx = format!("{} under {shell:?}: {}", g.name, f[0]);
                assert_eq!(events, g.expect(f[5]), "{ctx}");
                assert_eq!(code.to_string(), f[4], "{ctx}: harness status");
            }
        }
    }
}

#[test]
fn leaving_the_halt_shell_boots_on_without_the_rest_of_the_early_stages() {
    // dracut's die never returns; initramfs-tools' panic and mkinitcpio's shell do.
    for g in [&ITOOLS, &MKINITCPIO] {
        for shell in shells() {
            let env = "RC_detect=3,HALT_RETURNS=1";
            let (_sb, code, events) = g.boot(&shell, CMDLINE, "ro", env);
            let want = g.expect("detect halt mounted rw local ro switch");
            assert_eq!(events, want, "{} under {shell:?}", g.name);
            assert_eq!(code, 0);
        }
    }
}

#[test]
fn dracut_cmdline_hook_asks_the_initqueue_to_wait_for_the_network_of_ip() {
    for shell in shells() {
        let conf = |cmdline: &str| {
            let (sb, code, events) = DRACUT.boot(&shell, cmdline, "ro", "-");
            assert_eq!(code, 0, "{cmdline}: {events:?}");
            std::fs::read_to_string(sb.path("etc/cmdline.d/90ember-neednet.conf")).ok()
        };
        assert_eq!(
            conf("root=/dev/vda1 ip=dhcp").as_deref(),
            Some("rd.neednet=1\n")
        );
        assert_eq!(
            conf("ip=dhcp rd.neednet=0"),
            None,
            "an explicit rd.neednet wins"
        );
        assert_eq!(conf("ip=dhcp ember=disabled"), None);
        assert_eq!(conf("root=/dev/vda1"), None);
    }
}

#[test]
fn initramfs_tools_brings_the_network_of_ip_up_before_detect() {
    let normal = ITOOLS.expect("detect fetch mounted rw local ro switch");
    let mut networked = vec!["configure_networking IP=dhcp".to_string()];
    networked.extend(normal.iter().cloned());
    for shell in shells() {
        let run = |cmdline: &str, env: &str| ITOOLS.boot(&shell, cmdline, "ro", env).2;
        assert_eq!(
            run("root=/dev/vda1 ip=dhcp", "IP=dhcp"),
            networked,
            "{shell:?}"
        );
        assert_eq!(run("root=/dev/vda1 ip=off", "IP=off"), normal, "{shell:?}");
        assert_eq!(run("root=/dev/vda1", "-"), normal, "{shell:?}");
        let disabled = run("ip=dhcp ember=disabled", "IP=dhcp");
        assert_eq!(
            disabled,
            ITOOLS.expect("mounted switch"),
            "{shell:?}: disabled"
        );
    }
}

#[test]
fn initramfs_tools_scripts_answer_prereqs_and_do_nothing_else() {
    let sb = Sandbox::new("prereqs");
    for script in [
        "initramfs/initramfs-tools/hooks/ember",
        "initramfs/initramfs-tools/scripts/local-premount/ember",
        "initramfs/initramfs-tools/scripts/local-bottom/ember",
    ] {
        let out = sb.run(&["sh", &text(&repo(script)), "prereqs"], &[]);
        assert!(out.status.success(), "{script}: {}", common::stderr(&out));
        assert_eq!(common::stdout(&out), "\n", "{script}");
        assert!(sb.events().is_empty(), "{script} ran more than prereqs");
    }
}

/// A fake build host for the build hooks: `install-into-root` into `host/`, with the binary
/// (a stand-in) at `binary_at` in the sandbox, or nowhere.
fn build_host(sb: &Sandbox, binary_at: Option<&str>) {
    let fake = text(&repo("tests/initramfs/fake-ember-initrd"));
    let host = text(&sb.path("host"));
    std::fs::create_dir_all(&host).unwrap();
    let tool = text(&repo("initramfs/install-into-root"));
    let out = sb.run(&[&tool, &host, &fake], &[]);
    assert!(
        out.status.success(),
        "install-into-root: {}",
        common::stderr(&out)
    );
    std::fs::remove_file(sb.path("host/usr/lib/ember/ember-initrd")).unwrap();
    if let Some(rel) = binary_at {
        std::fs::create_dir_all(sb.path(rel).parent().unwrap()).unwrap();
        std::fs::copy(&fake, sb.path(rel)).unwrap();
    }
}

/// The build hook `rel` (as installed in the fake host) staged with the build host's paths
/// mapped into the sandbox.
fn stage_build_hook(sb: &Sandbox, rel: &str, dst: &str, extra: &[(&str, &str)]) -> String {
    let lib = sb.mapped("/host/usr/lib/ember/");
    let candidates = format!("ember-initrd {}", sb.mapped("/host/usr/bin/ember-initrd"));
    let mut maps = vec![
        ("/usr/lib/ember/", lib.as_str()),
        ("ember-initrd /usr/bin/ember-initrd", candidates.as_str()),
    ];
    maps.extend_from_slice(extra);
    sb.copy(&text(&sb.path("host").join(rel)), dst, &maps)
}

/// The CA bundle line a build hook adds when this build host has the bundle.
fn ca_line(prefix: &str) -> Vec<String> {
    match Path::new(CA_BUNDLE).exists() {
        true => vec![format!("{prefix}{CA_BUNDLE}")],
        false => vec![],
    }
}

const LIB_BINARY: &str = "host/usr/lib/ember/ember-initrd";
const BIN_BINARY: &str = "host/usr/bin/ember-initrd";
const SHARE: &str = "$SB/host/usr/lib/ember/initrd";
const UNITS: [&str; 2] = ["ember-initrd-early.service", "ember-initrd-local.service"];

fn mkinitcpio_build(sb: &Sandbox, hook: &str) -> (String, Output) {
    let staged = stage_build_hook(
        sb,
        &format!("etc/initcpio/install/{hook}"),
        "install/x",
        &[],
    );
    let harness = text(&repo("tests/initramfs/mkinitcpio-build.bash"));
    let env = [("BUILDROOT", text(&sb.path("image")))];
    let out = sb.run(&["bash", &harness, &staged], &env);
    (staged, out)
}

#[test]
fn mkinitcpio_build_hooks_request_the_binary_modules_and_runtime_pieces() {
    for (hook, systemd) in [("ember", false), ("sd-ember", true)] {
        for binary_at in [LIB_BINARY, BIN_BINARY] {
            let sb = Sandbox::new("mkinitcpio-build");
            build_host(&sb, Some(binary_at));
            let (_, out) = mkinitcpio_build(&sb, hook);
            assert!(out.status.success(), "{hook}: {}", common::stderr(&out));
            let mut want = vec![
                format!("add_binary $SB/{binary_at} /usr/bin/ember-initrd"),
                format!("add_binary {SHARE}/ember-initrd-local /usr/bin/ember-initrd-local"),
            ];
            if systemd {
                want.push("add_binary sh".into());
                for u in UNITS {
                    let wants = "/usr/lib/systemd/system/initrd.target.wants";
                    want.push(format!(
                        "add_file {SHARE}/{u} /usr/lib/systemd/system/{u} 644"
                    ));
                    want.push(format!("add_symlink {wants}/{u} ../{u}"));
                }
            }
            want.extend(ca_line("add_file "));
            want.extend(MODULES.split(' ').map(|m| format!("add_module {m}?")));
            if !systemd {
                want.push("add_runscript".into());
            }
            want.extend(strings(&["build returned 0", "build errors 0"]));
            assert_eq!(sb.events(), want, "{hook} with the binary at {binary_at}");
        }

        // Neither binary: a message naming both places, and a counted build error.
        let sb = Sandbox::new("mkinitcpio-missing");
        build_host(&sb, None);
        let (staged, out) = mkinitcpio_build(&sb, hook);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let failed = format!("add_binary $SB/{LIB_BINARY}");
        let want = ["error", &failed, "build returned 1", "build errors 1"];
        assert_eq!(sb.events(), want, "{hook} without a binary");
        let log = std::fs::read_to_string(sb.path("log")).unwrap();
        assert!(
            log.contains("neither") && log.contains(" nor /usr/bin/"),
            "{log}"
        );

        let help = sb.run(&["bash", "-c", &format!(". {staged}; help")], &[]);
        assert!(
            common::stdout(&help).contains("ember=disabled"),
            "{hook} help"
        );
    }

    // sd-ember keeps the shell the image has.
    let sb = Sandbox::new("mkinitcpio-sh");
    build_host(&sb, Some(LIB_BINARY));
    std::fs::create_dir_all(sb.path("image/usr/bin")).unwrap();
    std::fs::write(sb.path("image/usr/bin/sh"), "").unwrap();
    mkinitcpio_build(&sb, "sd-ember");
    assert!(!sb.events().contains(&"add_binary sh".to_string()));
}

fn itools_build(sb: &Sandbox) -> Output {
    let functions = sb.copy(
        "tests/initramfs/itools-hook-functions",
        "hook-functions",
        &[],
    );
    let hf = [(
        "/usr/share/initramfs-tools/hook-functions",
        functions.as_str(),
    )];
    let staged = stage_build_hook(sb, "etc/initramfs-tools/hooks/ember", "build/ember", &hf);
    let env = [
        ("DESTDIR", text(&sb.path("image"))),
        ("verbose", "n".to_string()),
        ("version", "6.1.0-test".to_string()),
    ];
    sb.run(&["sh", &staged], &env)
}

#[test]
fn initramfs_tools_build_hook_copies_the_binary_and_adds_the_modules() {
    for binary_at in [LIB_BINARY, BIN_BINARY] {
        let sb = Sandbox::new("itools-build");
        build_host(&sb, Some(binary_at));
        let out = itools_build(&sb);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let mut want = vec![
            format!("copy_exec $SB/{binary_at} /usr/bin/ember-initrd"),
            format!("copy_exec {SHARE}/ember-initrd-local /usr/bin/ember-initrd-local"),
        ];
        want.extend(ca_line("copy_file config "));
        want.push(format!("manual_add_modules {MODULES}"));
        assert_eq!(sb.events(), want, "binary at {binary_at}");
    }

    let sb = Sandbox::new("itools-missing");
    build_host(&sb, None);
    let out = itools_build(&sb);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a missing binary fails mkinitramfs"
    );
    let stderr = common::stderr(&out);
    assert!(
        stderr.starts_with("E: ember: ember-initrd is in neither"),
        "{stderr}"
    );
    assert!(sb.events().is_empty());
}

fn dracut_build(sb: &Sandbox, modules: &str) -> (Output, Vec<String>) {
    let dir = "usr/lib/dracut/modules.d/90ember";
    stage_build_hook(
        sb,
        &format!("{dir}/module-setup.sh"),
        "90ember/module-setup.sh",
        &[],
    );
    for hook in [
        "ember-cmdline.sh",
        "ember-pre-mount.sh",
        "ember-pre-pivot.sh",
    ] {
        let src = text(&sb.path("host").join(dir).join(hook));
        sb.copy(&src, &format!("90ember/{hook}"), &[]);
    }
    let harness = text(&repo("tests/initramfs/dracut-build.bash"));
    let env = [("EMBER_TEST_DRACUT_MODULES", modules.to_string())];
    let out = sb.run(&["bash", &harness, &text(&sb.path("90ember"))], &env);
    (out, sb.events())
}

#[test]
fn dracut_module_installs_hooks_or_units_by_the_image_kind() {
    let head = |binary_at: &str| {
        let mut want = strings(&["check returned 0", "depends returned 0"]);
        want.push(format!("instmods hostonly=<> {MODULES}"));
        want.push("installkernel returned 0".into());
        want.push(format!("inst_binary $SB/{binary_at} /usr/bin/ember-initrd"));
        want.push(format!(
            "inst_script {SHARE}/ember-initrd-local /usr/bin/ember-initrd-local"
        ));
        want.extend(ca_line("inst_simple "));
        want.push("inst_hook cmdline 90 ember-cmdline.sh".into());
        want
    };

    for binary_at in [LIB_BINARY, BIN_BINARY] {
        let sb = Sandbox::new("dracut-build");
        build_host(&sb, Some(binary_at));
        let (out, events) = dracut_build(&sb, "base udev-rules rootfs-block");
        assert!(out.status.success(), "{}", common::stderr(&out));
        let mut want = head(binary_at);
        want.push("inst_hook pre-mount 50 ember-pre-mount.sh".into());
        want.push("inst_hook pre-pivot 40 ember-pre-pivot.sh".into());
        want.push("install returned 0".into());
        assert_eq!(events, want, "shell initrd, binary at {binary_at}");
    }

    let sb = Sandbox::new("dracut-systemd");
    build_host(&sb, Some(LIB_BINARY));
    let (out, events) = dracut_build(&sb, "base systemd systemd-initrd udev-rules");
    assert!(out.status.success(), "{}", common::stderr(&out));
    let mut want = head(LIB_BINARY);
    for u in UNITS {
        want.push(format!(
            "inst_simple {SHARE}/{u} /usr/lib/systemd/system/{u}"
        ));
    }
    let enable = "enable ember-initrd-early.service ember-initrd-local.service";
    want.push(format!("systemctl -q --root $SB/initdir {enable}"));
    want.push("install returned 0".into());
    assert_eq!(events, want, "systemd initrd");

    let sb = Sandbox::new("dracut-missing");
    build_host(&sb, None);
    let (out, events) = dracut_build(&sb, "base");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a missing binary fails the dracut build"
    );
    let last = events.last().map(String::as_str).unwrap_or("");
    assert!(
        last.starts_with("dfatal ember: ember-initrd is in neither"),
        "{events:?}"
    );
}

/// Scripts that run inside an initramfs or under initramfs-tools: POSIX sh.
const POSIX: &[&str] = &[
    "initramfs/systemd/ember-initrd-local",
    "initramfs/dracut/90ember/ember-cmdline.sh",
    "initramfs/dracut/90ember/ember-pre-mount.sh",
    "initramfs/dracut/90ember/ember-pre-pivot.sh",
    "initramfs/initramfs-tools/hooks/ember",
    "initramfs/initramfs-tools/scripts/local-premount/ember",
    "initramfs/initramfs-tools/scripts/local-bottom/ember",
    "initramfs/mkinitcpio/hooks/ember",
    "tests/initramfs/fake-ember-initrd",
    "tests/initramfs/fake-mount",
    "tests/initramfs/dracut-boot.sh",
    "tests/initramfs/itools-boot.sh",
    "tests/initramfs/mkinitcpio-boot.sh",
    "tests/initramfs/itools-hook-functions",
    "tests/initramfs/real-remount.sh",
];
/// Scripts that the generators run with bash on the build host.
const BASH: &[&str] = &[
    "initramfs/install-into-root",
    "initramfs/dracut/90ember/module-setup.sh",
    "initramfs/mkinitcpio/install/ember",
    "initramfs/mkinitcpio/install/sd-ember",
    "tests/initramfs/dracut-build.bash",
    "tests/initramfs/mkinitcpio-build.bash",
];

fn on_path(tool: &str) -> bool {
    let probe = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output();
    probe.is_ok_and(|o| o.status.success())
}

#[test]
fn shell_parts_parse_and_pass_shellcheck() {
    let check = |argv: &[&str], file: &str| {
        let out = Command::new(argv[0])
            .args(&argv[1..])
            .arg(repo(file))
            .output()
            .unwrap();
        let said = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(out.status.success(), "{argv:?} {file}: {said}");
    };
    for file in POSIX {
        for shell in shells() {
            check(&[shell.as_slice(), &["-n"]].concat(), file);
        }
    }
    for file in BASH {
        check(&["bash", "-n"], file);
    }
    // Not installed by scripts/setup: a lint where it is present, not a gate where it is not.
    if !on_path("shellcheck") {
        common::skip("shellcheck not installed: shell parts only parsed with sh -n and bash -n");
        return;
    }
    for file in POSIX {
        check(
            &["shellcheck", "-s", "sh", "-e", "SC1090,SC1091,SC3043"],
            file,
        );
    }
    for file in BASH {
        check(
            &[
                "shellcheck",
                "-s",
                "bash",
                "-e",
                "SC1090,SC1091,SC2034,SC2154",
            ],
            file,
        );
    }
}

#[test]
fn systemd_units_order_the_stages_and_verify() {
    let read = |name: &str| std::fs::read_to_string(repo(&format!("initramfs/systemd/{name}")));
    let (early, local) = (read(UNITS[0]).unwrap(), read(UNITS[1]).unwrap());
    let common_lines = [
        "ConditionPathExists=/etc/initrd-release",
        "ConditionKernelCommandLine=!ember=disabled",
        "ConditionKernelCommandLine=!cloud-init=disabled",
        "DefaultDependencies=no",
        "SuccessExitStatus=1 2",
        "OnFailure=emergency.target",
        "WantedBy=initrd.target",
    ];
    for (name, unit) in [("early", &early), ("local", &local)] {
        for line in common_lines {
            assert!(unit.lines().any(|l| l == line), "{name} lacks {line}");
        }
    }
    let values = |unit: &str, key: &str| -> Vec<String> {
        let lines = unit.lines().filter_map(|l| l.strip_prefix(key));
        lines.flat_map(|v| v.split(' ')).map(String::from).collect()
    };
    let execs = |unit: &str| -> Vec<String> {
        let lines = unit.lines().filter(|l| l.starts_with("ExecStart="));
        lines.map(String::from).collect()
    };
    let stage = |s: &str| format!("ExecStart=/usr/bin/ember-initrd --target /sysroot {s}");
    assert_eq!(execs(&early), [stage("detect"), stage("fetch")]);
    assert_eq!(
        execs(&local),
        ["ExecStart=/usr/bin/ember-initrd-local /sysroot"]
    );
    let has = |unit: &str, key: &str, words: &[&str]| {
        let got = values(unit, key);
        for w in words {
            assert!(got.contains(&w.to_string()), "{key}{w} missing");
        }
    };
    has(
        &early,
        "Before=",
        &["initrd-root-fs.target", "sysroot.mount"],
    );
    let after = [
        "ember-initrd-early.service",
        "initrd-root-fs.target",
        "sysroot.mount",
    ];
    has(&local, "After=", &after);
    has(
        &local,
        "Before=",
        &["initrd-switch-root.target", "initrd-cleanup.service"],
    );

    // systemd's own check, in a root that has the two executables.
    if !on_path("systemd-analyze") {
        common::skip("systemd-analyze not installed: units checked as text only");
        return;
    }
    let sb = Sandbox::new("units");
    sb.copy(
        "tests/initramfs/fake-ember-initrd",
        "vroot/usr/bin/ember-initrd",
        &[],
    );
    sb.copy(
        "initramfs/systemd/ember-initrd-local",
        "vroot/usr/bin/ember-initrd-local",
        &[],
    );
    for u in UNITS {
        sb.copy(
            &format!("initramfs/systemd/{u}"),
            &format!("vroot/etc/systemd/system/{u}"),
            &[],
        );
    }
    let root = format!("--root={}", sb.path("vroot").display());
    let args = ["verify", "--man=no", &root, UNITS[0], UNITS[1]];
    let out = Command::new("systemd-analyze").args(args).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(common::stderr(&out), "", "systemd-analyze warnings");
}

#[test]
fn ember_initrd_local_remounts_a_real_read_only_root_and_puts_it_back() {
    // A private mount namespace, where this test may mount: as root, or in a user namespace.
    let works = |ns: &Vec<&str>| {
        let out = Command::new(ns[0]).args(&ns[1..]).arg("true").output();
        out.is_ok_and(|o| o.status.success())
    };
    let Some(ns) = [vec!["unshare", "-m"], vec!["unshare", "-rm"]]
        .into_iter()
        .find(works)
    else {
        common::skip("no private mount namespace here (unshare -m): real remount not tried");
        return;
    };
    let mut mounts = vec![("util-linux mount", false)];
    if common::have("busybox") {
        mounts.push(("busybox mount", true));
    }
    for (what, busybox) in mounts {
        let sb = Sandbox::new("real-remount");
        std::fs::remove_file(sb.path("bin/mount")).unwrap();
        if busybox {
            let out = Command::new("sh")
                .args(["-c", "command -v busybox"])
                .output()
                .unwrap();
            let bb = common::stdout(&out);
            std::os::unix::fs::symlink(bb.trim(), sb.path("bin/mount")).unwrap();
        }
        // The helper as installed, reading the kernel's own /proc/mounts.
        let helper = text(&repo("initramfs/systemd/ember-initrd-local"));
        let script = text(&repo("tests/initramfs/real-remount.sh"));
        let dir = text(&sb.dir);
        let argv = [ns.as_slice(), &["sh", &script, &dir, &helper]].concat();
        let out = sb.run(&argv, &[("EMBER_TEST_WRITE", "1".into())]);
        assert!(out.status.success(), "{what}: {}", common::stderr(&out));
        let want = [
            "ember-initrd --target $SB/sysroot local",
            "target writable",
            "read-only root: exit 0 now ro",
            "ember-initrd --target $SB/rwroot local",
            "target writable",
            "read-write root: exit 0 now rw",
        ];
        assert_eq!(sb.events(), want, "{what}");
    }
}

/// Files `install-into-root` writes, with their modes.
const INSTALLED: &[(&str, u32)] = &[
    ("etc/initcpio/hooks/ember", 0o644),
    ("etc/initcpio/install/ember", 0o644),
    ("etc/initcpio/install/sd-ember", 0o644),
    ("etc/initramfs-tools/hooks/ember", 0o755),
    ("etc/initramfs-tools/scripts/local-bottom/ember", 0o755),
    ("etc/initramfs-tools/scripts/local-premount/ember", 0o755),
    ("usr/lib/dracut/modules.d/90ember/ember-cmdline.sh", 0o755),
    ("usr/lib/dracut/modules.d/90ember/ember-pre-mount.sh", 0o755),
    ("usr/lib/dracut/modules.d/90ember/ember-pre-pivot.sh", 0o755),
    ("usr/lib/dracut/modules.d/90ember/module-setup.sh", 0o755),
    ("usr/lib/ember/ember-initrd", 0o755),
    ("usr/lib/ember/initrd/ember-initrd-early.service", 0o644),
    ("usr/lib/ember/initrd/ember-initrd-local", 0o755),
    ("usr/lib/ember/initrd/ember-initrd-local.service", 0o644),
];

#[test]
fn install_into_root_puts_every_file_where_its_generator_reads_it() {
    let sb = Sandbox::new("install");
    let tool = text(&repo("initramfs/install-into-root"));
    let root = sb.path("target-root");
    std::fs::create_dir_all(&root).unwrap();
    let root_s = text(&root);
    let binary = env!("CARGO_BIN_EXE_ember-initrd");
    let out = sb.run(&[&tool, &root_s, binary], &[]);
    assert!(out.status.success(), "{}", common::stderr(&out));

    let tree = common::Machine::tree(&root);
    let (dirs, files): (Vec<_>, Vec<_>) = tree.iter().partition(|(rel, _)| root.join(rel).is_dir());
    let want: Vec<(String, u32)> = INSTALLED.iter().map(|(p, m)| (p.to_string(), *m)).collect();
    assert_eq!(files.into_iter().cloned().collect::<Vec<_>>(), want);
    assert!(dirs.iter().all(|(_, mode)| *mode == 0o755), "{dirs:?}");
    let same = |installed: &str, original: &Path| {
        let a = std::fs::read(root.join(installed)).unwrap();
        assert!(a == std::fs::read(original).unwrap(), "{installed}");
    };
    same("usr/lib/ember/ember-initrd", Path::new(binary));
    let bottom = "initramfs-tools/scripts/local-bottom/ember";
    same(
        &format!("etc/{bottom}"),
        &repo(&format!("initramfs/{bottom}")),
    );
    // Every file module-setup.sh installs from its own directory is there.
    let dracut = root.join("usr/lib/dracut/modules.d/90ember");
    let setup = std::fs::read_to_string(dracut.join("module-setup.sh")).unwrap();
    for hook in setup.split("\"$moddir/").skip(1) {
        let hook = hook.split('"').next().unwrap();
        assert!(dracut.join(hook).is_file(), "{hook}");
    }
    // mkinitcpio pairs a build hook with the runtime hook of the same name.
    assert!(root.join("etc/initcpio/hooks/ember").is_file());

    // Again over the same root: the same tree.
    assert!(sb.run(&[&tool, &root_s, binary], &[]).status.success());
    assert_eq!(common::Machine::tree(&root), tree);

    let usage = sb.run(&[&tool, &root_s], &[]);
    assert_eq!(usage.status.code(), Some(2), "usage");
    let no_binary = sb.run(&[&tool, &root_s, "/nonexistent/ember-initrd"], &[]);
    assert_eq!(no_binary.status.code(), Some(1));
    assert!(common::stderr(&no_binary).contains("not an executable file"));
    let no_root = sb.run(&[&tool, "/nonexistent-root", binary], &[]);
    assert_eq!(no_root.status.code(), Some(1));
}

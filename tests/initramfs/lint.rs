//! Static and real checks of the initramfs parts (`initramfs/`): every shell part parses with
//! sh -n (busybox sh, dash) or bash -n and passes shellcheck where installed; the systemd units
//! order the stages and pass `systemd-analyze verify`; ember-initrd-local remounts a real
//! read-only root in a private mount namespace and puts it back.

use crate::common;
use crate::support;

use std::process::Command;
use support::{repo, shells, text, Sandbox, UNITS};

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
    "initramfs/mkinitfs/install",
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

/// ember-local.service (dist/, installed by install-into-root): the three stages on the running
/// root, before the network and sshd, never in an initrd nor after an initramfs stage ran.
#[test]
fn ember_local_unit_runs_the_stages_on_the_booted_root_before_the_network() {
    let unit = text(&repo("dist/systemd/ember-local.service"));
    let unit = std::fs::read_to_string(unit).unwrap();
    for line in [
        "ExecStart=/usr/lib/ember/ember-initrd --host / --target / all",
        "ConditionPathExists=!/run/ember/status.json",
        "ConditionPathExists=!/etc/initrd-release",
        "DefaultDependencies=no",
        "SuccessExitStatus=1 2",
    ] {
        assert!(unit.lines().any(|l| l == line), "ember-local lacks {line}");
    }
    let words = |key: &str| -> Vec<&str> {
        let lines = unit.lines().filter_map(|l| l.strip_prefix(key));
        lines.flat_map(|v| v.split(' ')).collect()
    };
    for w in ["local-fs.target", "systemd-remount-fs.service"] {
        assert!(words("After=").contains(&w), "After={w}");
    }
    for w in [
        "network-pre.target",
        "systemd-networkd.service",
        "NetworkManager.service",
        "ssh.service",
        "sshd.service",
        "ember-init.service",
        "cloud-init-local.service",
    ] {
        assert!(words("Before=").contains(&w), "Before={w}");
    }
    if !on_path("systemd-analyze") {
        common::skip("systemd-analyze not installed: ember-local.service checked as text only");
        return;
    }
    let sb = Sandbox::new("local-unit");
    sb.copy(
        "tests/initramfs/fake-ember-initrd",
        "vroot/usr/lib/ember/ember-initrd",
        &[],
    );
    sb.copy(
        "dist/systemd/ember-local.service",
        "vroot/etc/systemd/system/ember-local.service",
        &[],
    );
    let root = format!("--root={}", sb.path("vroot").display());
    let args = ["verify", "--man=no", &root, "ember-local.service"];
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

/// ember-hostkeys.service (dist/): the RSA key after sshd started, waited for by nothing. With
/// default dependencies multi-user.target would be ordered after it (a target is after what it
/// wants), and ember-final, after multi-user.target, would wait for the key.
#[test]
fn ember_hostkeys_unit_runs_after_sshd_and_nothing_waits_for_it() {
    let unit = std::fs::read_to_string(repo("dist/systemd/ember-hostkeys.service")).unwrap();
    for line in [
        "ExecStart=/usr/bin/ember init --deferred-hostkeys",
        "ConditionPathExists=/var/lib/ember/deferred-hostkeys",
        "DefaultDependencies=no",
        "Type=oneshot",
        "WantedBy=multi-user.target",
    ] {
        assert!(
            unit.lines().any(|l| l == line),
            "ember-hostkeys lacks {line}"
        );
    }
    let words = |key: &str| -> Vec<&str> {
        let lines = unit.lines().filter_map(|l| l.strip_prefix(key));
        lines.flat_map(|v| v.split(' ')).collect()
    };
    for w in ["ember-init.service", "ssh.service", "sshd.service"] {
        assert!(words("After=").contains(&w), "After={w}");
    }
    assert_eq!(words("Before="), ["shutdown.target"]);
    if !on_path("systemd-analyze") {
        common::skip("systemd-analyze not installed: ember-hostkeys.service checked as text only");
        return;
    }
    // Against the host's units (sysinit.target, shutdown.target), with a command that exists.
    let sb = Sandbox::new("hostkeys-unit");
    let path = sb.path("ember-hostkeys.service");
    let text = unit.replace("/usr/bin/ember init --deferred-hostkeys", "/bin/true");
    std::fs::write(&path, text).unwrap();
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(common::stderr(&out), "", "systemd-analyze warnings");
}

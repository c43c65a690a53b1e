//! The initramfs build hooks (`initramfs/`): mkinitcpio's `ember` and `sd-ember`,
//! initramfs-tools' hook and dracut's module-setup.sh, each run against recorders of its
//! generator's build functions on a fake build host, checking what they put into the image (and
//! how they fail without the binary); and `install-into-root`, which lays them out in a root.

use crate::common;
use crate::support;

use std::path::Path;
use std::process::Output;
use support::{repo, strings, text, Sandbox, UNITS};

const CA_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";
const MODULES: &str =
    "virtio_blk virtio_pci virtio_net virtio_scsi sr_mod cdrom ata_piix ahci e1000";

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

/// The lines a build hook adds for this build host's files: the CA bundle when it has one,
/// then the image config `image-config-files` lists (none on a host without cloud-init).
fn ca_line(prefix: &str) -> Vec<String> {
    let mut lines = match Path::new(CA_BUNDLE).exists() {
        true => vec![format!("{prefix}{CA_BUNDLE}")],
        false => vec![],
    };
    let listed = std::process::Command::new(repo("initramfs/common/image-config-files"))
        .output()
        .unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    lines.extend(listed.lines().map(|f| format!("{prefix}{f}")));
    lines
}

const LIB_BINARY: &str = "host/usr/lib/ember/ember-initrd";
const BIN_BINARY: &str = "host/usr/bin/ember-initrd";
const SHARE: &str = "$SB/host/usr/lib/ember/initrd";

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
            }
            want.push("add_binary chroot".into());
            if systemd {
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
            "copy_exec /usr/sbin/chroot /usr/sbin/chroot".into(),
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
        want.push("inst_multiple chroot".into());
        // VMware's guestinfo reader, when the image has open-vm-tools.
        want.push("inst_multiple -o vmware-rpctool".into());
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

/// Files `install-into-root` writes, with their modes.
const INSTALLED: &[(&str, u32)] = &[
    ("etc/initcpio/hooks/ember", 0o644),
    ("etc/initcpio/install/ember", 0o644),
    ("etc/initcpio/install/sd-ember", 0o644),
    ("etc/initramfs-tools/hooks/ember", 0o755),
    ("etc/initramfs-tools/scripts/local-bottom/ember", 0o755),
    ("etc/initramfs-tools/scripts/local-premount/ember", 0o755),
    ("etc/mkinitfs/features.d/ember.files", 0o644),
    ("etc/mkinitfs/features.d/ember.modules", 0o644),
    ("usr/lib/dracut/modules.d/90ember/ember-cmdline.sh", 0o755),
    ("usr/lib/dracut/modules.d/90ember/ember-pre-mount.sh", 0o755),
    ("usr/lib/dracut/modules.d/90ember/ember-pre-pivot.sh", 0o755),
    ("usr/lib/dracut/modules.d/90ember/module-setup.sh", 0o755),
    ("usr/lib/ember/ember-initrd", 0o755),
    ("usr/lib/ember/initrd/ember-initrd-early.service", 0o644),
    ("usr/lib/ember/initrd/ember-initrd-local", 0o755),
    ("usr/lib/ember/initrd/ember-initrd-local.service", 0o644),
    ("usr/lib/ember/initrd/image-config-files", 0o755),
    ("usr/lib/systemd/system-generators/ember-generator", 0o755),
    ("usr/lib/systemd/system/ember-local.service", 0o644),
];

#[test]
fn install_into_root_puts_every_file_where_its_generator_reads_it() {
    let sb = Sandbox::new("install");
    let tool = text(&repo("initramfs/install-into-root"));
    let root = sb.path("target-root");
    std::fs::create_dir_all(&root).unwrap();
    let root_s = text(&root);
    let binary = common::EMBER_INITRD; // copied, not run
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

    // A root with OpenRC gets the early unit's script as well.
    std::fs::create_dir_all(root.join("sbin")).unwrap();
    std::fs::write(root.join("sbin/openrc-run"), b"").unwrap();
    assert!(sb.run(&[&tool, &root_s, binary], &[]).status.success());
    same("etc/init.d/ember-local", &repo("dist/openrc/ember-local"));

    let usage = sb.run(&[&tool, &root_s], &[]);
    assert_eq!(usage.status.code(), Some(2), "usage");
    let no_binary = sb.run(&[&tool, &root_s, "/nonexistent/ember-initrd"], &[]);
    assert_eq!(no_binary.status.code(), Some(1));
    assert!(common::stderr(&no_binary).contains("not an executable file"));
    let no_root = sb.run(&[&tool, "/nonexistent-root", binary], &[]);
    assert_eq!(no_root.status.code(), Some(1));
}

/// The image config every build hook copies into the initramfs (detect and fetch read the
/// image's datasource_list before the root is mounted): world-readable files only, a secret
/// one (MAAS's OAuth tokens) left out and named, links and other files ignored.
#[test]
fn image_config_files_lists_the_world_readable_config_only() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new("image-config");
    let root = sb.path("root");
    let put = |rel: &str, mode: u32| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "datasource_list: [Ec2]\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    put("etc/cloud/cloud.cfg", 0o644);
    put("etc/cloud/cloud.cfg.d/90_dpkg.cfg", 0o644);
    put("etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg", 0o600);
    put("etc/cloud/cloud.cfg.d/README", 0o644);
    put("etc/cloud/ds-identify.cfg", 0o644);
    put("etc/ember/ember.cfg", 0o644);
    std::os::unix::fs::symlink("/etc/shadow", root.join("etc/cloud/cloud.cfg.d/99.cfg")).unwrap();
    let tool = text(&repo("initramfs/common/image-config-files"));
    let out = sb.run(&[&tool, &text(&root)], &[]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let r = text(&root);
    let want: Vec<String> = [
        "etc/cloud/cloud.cfg",
        "etc/cloud/cloud.cfg.d/90_dpkg.cfg",
        "etc/cloud/ds-identify.cfg",
        "etc/ember/ember.cfg",
    ]
    .iter()
    .map(|f| format!("{r}/{f}"))
    .collect();
    let got: Vec<String> = common::stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(got, want);
    let err = common::stderr(&out);
    assert!(
        err.contains("90_dpkg_maas.cfg left out") && !err.contains("99.cfg"),
        "{err}"
    );
}

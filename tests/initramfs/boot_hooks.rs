//! The initramfs boot hooks (`initramfs/`) of dracut, initramfs-tools and mkinitcpio, each run
//! under a harness standing for that generator's hook interface (tests/initramfs/*-boot.sh), with
//! a fake ember-initrd and mount, under busybox sh and dash. Checked: the stages' order and
//! targets, the disable toggles, the halt path (exit 3) and the go-on paths (1, 2), the read-only
//! root's remount, leaving the halt shell, the network bring-up, initramfs-tools' `prereqs`.

use crate::common;
use crate::support;

use support::{repo, shells, text, Sandbox, CMDLINE, DRACUT, ITOOLS, MKINITCPIO};

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

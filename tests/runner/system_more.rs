//! The runner's grub_dpkg, byobu, disable_ec2_metadata, fan, install_hotplug, reset_rmc and
//! raspberry_pi modules against a busybox target: fake `grub-probe`, `udevadm`,
//! `debconf-set-selections`, `sudo`, `dpkg-reconfigure`, `ip`, `systemctl`, `rmcctrl`,
//! `recfgct`, `raspi-config` and `rpi-usb-gadget` record how they were called.

use super::system::{d, machine, module, run, step, systemd};
use crate::common;
use common::chroot::cannot_chroot;
use common::text;
use serde_json::json;

/// A debconf-set-selections that keeps what it was given.
const DEBCONF_TAIL: &str = "cat \"$1\" >> /selections";

#[test]
fn grub_dpkg_sets_the_probed_device_when_enabled() {
    if cannot_chroot() {
        return;
    }
    let m = machine("grub", "ID=debian\n");
    m.fake("/usr/sbin/grub-probe", "echo /dev/vda");
    m.fake(
        "/usr/bin/udevadm",
        "echo /dev/disk/by-path/pci-0 /dev/disk/by-id/virtio-b /dev/disk/by-id/virtio-a",
    );
    m.fake("/usr/bin/debconf-set-selections", DEBCONF_TAIL);
    m.write("/dev/vda", "", 0o644);
    let out = run(
        &m,
        "config",
        json!([module(
            "grub_dpkg",
            "config",
            json!({"grub_dpkg": {"enabled": true}})
        )]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.read("/selections"),
        "grub-pc grub-pc/install_devices string /dev/disk/by-id/virtio-a\n\
         grub-pc grub-pc/install_devices_empty boolean false\n"
    );
    assert_eq!(
        m.lines("/tools.log"),
        [
            "grub-probe -t disk /boot",
            "udevadm info --root --query=symlink /dev/vda",
            "debconf-set-selections /var/lib/ember/grub-dpkg.debconf"
        ]
    );
    assert_eq!(m.diags("config"), []);

    // Given devices are used as they are; off (the default since cloud-init 24.4) runs nothing.
    let given = machine("grub-given", "ID=ubuntu\nID_LIKE=debian\n");
    given.fake("/usr/bin/debconf-set-selections", DEBCONF_TAIL);
    let cfg = json!({"grub-dpkg": {"enabled": true, "grub-pc/install_devices": "/dev/sda",
                                   "grub-pc/install_devices_empty": "true"}});
    let out = run(
        &given,
        "config",
        json!([module("grub_dpkg", "config", cfg)]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        given.read("/selections"),
        "grub-pc grub-pc/install_devices string /dev/sda\n\
         grub-pc grub-pc/install_devices_empty boolean true\n"
    );
    assert_eq!(
        given.diags("config"),
        [d("deprecated", "deprecated", "grub-dpkg")]
    );
    let off = machine("grub-off", "ID=debian\n");
    off.fake("/usr/bin/debconf-set-selections", DEBCONF_TAIL);
    let cfg = json!({"grub_dpkg": {"grub-pc/install_devices": "/dev/sda"}});
    let out = run(&off, "config", json!([module("grub_dpkg", "config", cfg)]));
    assert!(out.status.success(), "{}", text(&out));
    assert!(!off.exists("/tools.log"));
}

#[test]
fn grub_dpkg_without_grub_and_when_grub_probe_fails() {
    if cannot_chroot() {
        return;
    }
    let on = json!([module(
        "grub_dpkg",
        "config",
        json!({"grub_dpkg": {"enabled": true}})
    )]);
    // No GRUB in the target: empty values, as cloud-init seeds them in a container.
    let none = machine("grub-none", "ID=debian\n");
    none.fake("/usr/bin/debconf-set-selections", DEBCONF_TAIL);
    let out = run(&none, "config", on.clone());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        none.read("/selections"),
        "grub-pc grub-pc/install_devices string \n\
         grub-pc grub-pc/install_devices_empty boolean true\n"
    );
    // grub-probe that cannot resolve /boot (a container): the same, quietly.
    let container = machine("grub-container", "ID=debian\n");
    container.fake(
        "/usr/sbin/grub-probe",
        "echo 'grub-probe: error: failed to get canonical path of overlay.' >&2; exit 1",
    );
    container.fake("/usr/bin/debconf-set-selections", DEBCONF_TAIL);
    let out = run(&container, "config", on.clone());
    assert!(out.status.success(), "{}", text(&out));
    assert!(container.read("/selections").ends_with("boolean true\n"));
    assert_eq!(container.diags("config"), []);
    // Any other grub-probe failure fails the module (cloud-init re-raises it).
    let broken = machine("grub-broken", "ID=debian\n");
    broken.fake(
        "/usr/sbin/grub-probe",
        "echo 'error: disk not found' >&2; exit 1",
    );
    broken.fake("/usr/bin/debconf-set-selections", DEBCONF_TAIL);
    let out = run(&broken, "config", on.clone());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        broken.diags("config"),
        [d("error", "command-failed", "grub_dpkg")]
    );
    assert!(!broken.exists("/selections"));
    // No debconf-set-selections: a warning (cloud-init logs it and goes on).
    let nodebconf = machine("grub-nodebconf", "ID=debian\n");
    let out = run(&nodebconf, "config", on);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        nodebconf.diags("config"),
        [d("warning", "command-failed", "grub_dpkg")]
    );
}

#[test]
fn byobu_for_the_system_and_the_default_user() {
    if cannot_chroot() {
        return;
    }
    let m = machine("byobu", "ID=debian\n");
    m.fake("/usr/bin/sudo", "");
    m.fake("/usr/bin/debconf-set-selections", "cat >> /selections");
    m.fake("/usr/sbin/dpkg-reconfigure", "");
    let cfg = json!({"byobu_by_default": "enable-user", "users": ["default"],
                     "system_info": {"default_user": {"name": "debian"}}});
    let out = run(&m, "config", json!([module("byobu", "config", cfg)]));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "sudo -Hu debian byobu-launcher-install",
            "debconf-set-selections ",
            "dpkg-reconfigure byobu --frontend=noninteractive"
        ]
    );
    assert_eq!(
        m.read("/selections"),
        "byobu byobu/launch-by-default boolean true\n"
    );
    // A part that fails fails the module; no default user is a warning.
    let fail = machine("byobu-fail", "ID=debian\n");
    fail.fake("/usr/bin/debconf-set-selections", "exit 1");
    let cfg = json!({"byobu_by_default": "disable", "users": []});
    let out = run(&fail, "config", json!([module("byobu", "config", cfg)]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        fail.diags("config"),
        [
            d("error", "command-failed", "byobu_by_default"),
            d("warning", "no-default-user", "byobu_by_default")
        ]
    );
}

#[test]
fn disable_ec2_metadata_is_shown_not_run_on_a_target_directory() {
    if cannot_chroot() {
        return;
    }
    let m = machine("ec2md", "ID=debian\n");
    m.fake("/usr/sbin/ip", "");
    let cfg = json!({"disable_ec2_metadata": true});
    let out = run(
        &m,
        "config",
        json!([module("disable_ec2_metadata", "config", cfg)]),
    );
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "disable_ec2_metadata: would run: ip route add prohibit 169.254.169.254 \
             (not run: --target is not /)"
        ),
        "{stdout}"
    );
    assert!(
        !m.exists("/tools.log"),
        "the host's routes are not the target's"
    );
    // Neither ip nor route: cloud-init logs it at ERROR level and returns, which its status
    // counts among the recoverable errors (degraded), not as a failed module: a warning.
    let bare = machine("ec2md-bare", "ID=debian\n");
    let cfg = json!({"disable_ec2_metadata": true});
    let out = run(
        &bare,
        "config",
        json!([module("disable_ec2_metadata", "config", cfg)]),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        bare.diags("config"),
        [d("warning", "tool-missing", "disable_ec2_metadata")]
    );
}

#[test]
fn fan_installs_writes_and_restarts() {
    if cannot_chroot() {
        return;
    }
    let m = machine("fan", "ID=ubuntu\nID_LIKE=debian\n");
    systemd(&m);
    m.fake("/usr/bin/apt-get", "");
    m.fake("/usr/bin/systemctl", "[ \"$1\" != stop ]");
    let config = "# fan 240\n10.0.0.0/8 eth0/16 dhcp\n10.0.0.0/8 eth1/16 dhcp off";
    let out = run(
        &m,
        "final",
        json!([module("fan", "final", json!({"fan": {"config": config}}))]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.read("/etc/network/fan"), format!("{config}\n"));
    let log = m.lines("/tools.log");
    assert!(log[1].ends_with(" install ubuntu-fan"), "{log:?}");
    assert_eq!(
        log[2..],
        [
            "systemctl stop ubuntu-fan",
            "systemctl start ubuntu-fan",
            "systemctl enable ubuntu-fan"
        ]
    );
    assert_eq!(m.diags("final"), [d("warning", "command-failed", "fan")]);
    // Not Ubuntu: cloud-init's metadata lists only Ubuntu.
    let deb = machine("fan-deb", "ID=debian\n");
    let out = run(
        &deb,
        "final",
        json!([module("fan", "final", json!({"fan": {"config": config}}))]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(step(&deb, "final", "module fan").starts_with("skipped (not verified"));
}

#[test]
fn install_hotplug_removes_a_stale_rule_and_installs_one_when_asked() {
    if cannot_chroot() {
        return;
    }
    let rule = "/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules";
    let m = machine("hotplug", "ID=debian\n");
    m.fake("/usr/bin/udevadm", "");
    m.write(
        rule,
        "# Installed by cloud-init due to network hotplug userdata\n",
        0o644,
    );
    let out = run(
        &m,
        "final",
        json!([module("install_hotplug", "final", json!({}))]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(!m.exists(rule));
    assert_eq!(m.lines("/tools.log"), ["udevadm control --reload-rules"]);

    let asked = machine("hotplug-asked", "ID=debian\n");
    asked.fake("/usr/bin/udevadm", "");
    let cfg = json!({"updates": {"network": {"when": ["boot", "hotplug"]}}});
    let out = run(
        &asked,
        "final",
        json!([module("install_hotplug", "final", cfg)]),
    );
    assert!(out.status.success(), "{}", text(&out));
    // The rule hands add and remove of network devices to the runner's hook.
    let installed = asked.read(rule);
    assert!(installed.contains("SUBSYSTEM!=\"net\""), "{installed}");
    assert!(
        installed.contains(
            "RUN+=\"/usr/bin/ember devel hotplug-hook -s net handle -d $devpath -u $env{ACTION}\""
        ),
        "{installed}"
    );
    assert_eq!(
        asked.lines("/tools.log"),
        ["udevadm control --reload-rules"]
    );
    assert!(
        asked.diags("final").is_empty(),
        "{:?}",
        asked.diags("final")
    );
    // Installed already: left as it is, udev not bothered again.
    std::fs::remove_file(asked.target.join("tools.log")).unwrap();
    let cfg = json!({"updates": {"network": {"when": ["boot", "hotplug"]}}});
    run(
        &asked,
        "final",
        json!([module("install_hotplug", "final", cfg)]),
    );
    assert!(!asked.exists("/tools.log"));
}

#[test]
fn reset_rmc_makes_a_new_node_id_where_rsct_is_installed() {
    if cannot_chroot() {
        return;
    }
    let m = machine("rmc", "ID=rhel\n");
    m.write("/etc/ct_node_id", "1111\nrest\n", 0o644);
    m.fake("/opt/rsct/bin/rmcctrl", "");
    m.fake(
        "/opt/rsct/install/bin/recfgct",
        "echo 2222 > /etc/ct_node_id",
    );
    let out = run(
        &m,
        "final",
        json!([module("reset_rmc", "final", json!({}))]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log"), ["rmcctrl -z", "recfgct "]);
    assert_eq!(m.read("/etc/ct_node_id"), "2222\n");
    // The same node id afterwards is an error.
    let same = machine("rmc-same", "ID=rhel\n");
    same.write("/etc/ct_node_id", "1111\n", 0o644);
    same.fake("/opt/rsct/bin/rmcctrl", "");
    same.fake("/opt/rsct/install/bin/recfgct", "");
    let out = run(
        &same,
        "final",
        json!([module("reset_rmc", "final", json!({}))]),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(same.diags("final"), [d("error", "command-failed", "")]);
    // No RSCT: nothing at all.
    let none = machine("rmc-none", "ID=rhel\n");
    let out = run(
        &none,
        "final",
        json!([module("reset_rmc", "final", json!({}))]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(none.diags("final"), []);
}

#[test]
fn raspberry_pi_interfaces_gadget_and_the_reboot() {
    if cannot_chroot() {
        return;
    }
    let m = machine("rpi", "ID=debian\n");
    // Not a Pi 5: the serial console takes the UART hardware too.
    m.fake("/usr/bin/raspi-config", "[ \"$2\" != is_pifive ]");
    m.fake("/usr/bin/rpi-usb-gadget", "");
    let cfg = json!({"rpi": {"interfaces": {"spi": true, "i2c": false, "serial": true},
                             "enable_usb_gadget": true}});
    // The module is verified on raspberry-pi-os only; unverified_modules runs it here.
    let mut call = module("raspberry_pi", "config", cfg);
    call["unverified"] = json!(true);
    let out = run(&m, "config", json!([call]));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "rpi-usb-gadget on",
            "raspi-config nonint do_i2c 1",
            "raspi-config nonint is_pifive",
            "raspi-config nonint do_serial_cons 0",
            "raspi-config nonint do_serial_hw 0",
            "raspi-config nonint do_spi 0",
        ]
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "power_state: would run: shutdown -r now Rebooting to apply config.txt changes..."
        ),
        "{stdout}"
    );
    assert_eq!(m.diags("config"), []);
    // Run at most once per instance: a second config stage reboots nothing.
    let again = m.ember("boot-2", &["modules", "--mode", "config"]);
    assert!(again.status.success(), "{}", text(&again));
    assert!(!String::from_utf8_lossy(&again.stdout).contains("would run: shutdown"));
}

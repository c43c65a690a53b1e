//! The lxd module on an Ubuntu target with recording fakes for `snap`, `lxd`, `lxc` and
//! `apt-get`: the commands in order, and the trust password and the preseed given on standard
//! input only, never on a command line, in the logs or in status.json.

use super::repos::{d, machine, module};
use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};

const APT: &str = "apt-get --option=Dpkg::Options::=--force-confold \
                   --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";
const UBUNTU: &str = "NAME=Ubuntu\nID=ubuntu\nID_LIKE=debian\n";
const PASSWORD: &str = "pa$$ \"word\" 42";

/// An Ubuntu target whose `snap list lxd` finds nothing; `lxd init --preseed` records its
/// standard input between markers; `lxc` records its environment; `lxd_tail` runs last in
/// the lxd fake.
fn lxd_machine(name: &str, lxd_tail: &str) -> Machine {
    let m = machine(name, UBUNTU);
    m.fake("/usr/bin/snap", "[ \"$1\" = list ] && exit 1\nexit 0");
    m.fake("/usr/bin/apt-get", "");
    m.fake(
        "/usr/bin/lxd",
        &format!(
            "if [ \"$2\" = --preseed ]; then echo '<stdin>' >> /tools.log; cat >> /tools.log; \
             echo '</stdin>' >> /tools.log; fi\n{lxd_tail}\nexit 0"
        ),
    );
    m.fake(
        "/usr/bin/lxc",
        "echo \"env $LC_ALL $HOME $USER\" >> /tools.log\n[ \"$2\" = detach-profile ] && exit 1\n\
         exit 0",
    );
    m
}

fn run(m: &Machine, cfg: Value) -> std::process::Output {
    m.boot_modules(json!([module("lxd", "final", "once-per-instance", cfg)]));
    m.ember("boot-1", &["modules", "--mode", "final"])
}

/// The password is in the preseed given on stdin and nowhere else ember or its tools wrote.
fn password_only_on_stdin(m: &Machine) {
    let log = m.read("/tools.log");
    let (before, rest) = log.split_once("<stdin>").unwrap();
    let (stdin, after) = rest.split_once("</stdin>").unwrap();
    assert!(stdin.contains("core.trust_password"), "{stdin}");
    assert!(!before.contains("42") && !after.contains("42"), "{log}");
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    assert!(!status.contains("pa$$"), "status.json");
    let output = m.read("/var/log/cloud-init-output.log");
    assert!(output.contains("lxd init --preseed") && !output.contains("pa$$"));
    assert!(!m.exists("/var/lib/ember/lxd.stdin"));
}

#[test]
fn init_and_new_bridge_with_the_password_on_stdin() {
    if cannot_chroot() {
        return;
    }
    let m = lxd_machine("lxd", "");
    let cfg = json!({"lxd": {
        "init": {"network_address": "0.0.0.0", "network_port": 8443, "storage_backend": "zfs",
                 "storage_pool": "datapool", "storage_create_loop": 10,
                 "trust_password": PASSWORD},
        "bridge": {"mode": "new", "mtu": 1500, "ipv4_address": "10.0.8.1", "ipv4_netmask": 24,
                   "ipv4_dhcp_first": "10.0.8.2", "ipv4_dhcp_last": "10.0.8.3",
                   "ipv6_address": "fd98:9e0:3744::1", "ipv6_netmask": 64, "ipv6_nat": "true",
                   "domain": "lxd"}}});
    let out = run(&m, cfg);
    assert!(out.status.success(), "{}", text(&out));
    let env = "env C /root root";
    assert_eq!(
        m.lines("/tools.log"),
        [
            "snap wait system seed.loaded",
            "snap list lxd",
            "snap install lxd",
            &format!("{APT} update"),
            &format!("{APT} install zfsutils-linux"),
            "lxd waitready --timeout=300",
            "lxd init --auto --network-address=0.0.0.0 --network-port=8443 \
             --storage-backend=zfs --storage-create-loop=10 --storage-pool=datapool",
            "lxd init --preseed",
            "<stdin>",
            "config:",
            "  core.trust_password: \"pa$$ \\\"word\\\" 42\"",
            "</stdin>",
            "lxc network detach-profile lxdbr0 default --force-local",
            env,
            "lxc profile device remove default eth0 --force-local",
            env,
            "lxc network create lxdbr0 ipv4.address=10.0.8.1/24 ipv4.nat=true \
             ipv4.dhcp.ranges=10.0.8.2-10.0.8.3 ipv6.address=fd98:9e0:3744::1/64 ipv6.nat=true \
             dns.domain=lxd bridge.mtu=1500 --force-local",
            env,
            "lxc network attach-profile lxdbr0 default eth0 --force-local",
            env,
        ]
    );
    password_only_on_stdin(&m);
    assert_eq!(m.diags("final"), []);
}

#[test]
fn preseed_on_stdin_and_the_lvm_fallback() {
    if cannot_chroot() {
        return;
    }
    let m = lxd_machine("lxd-preseed", "");
    // lxd already installed; the preseed's pool driver needs lvm2.
    m.fake("/usr/bin/snap", "exit 0");
    let preseed = format!(
        "config:\n  core.trust_password: {PASSWORD}\nstorage_pools:\n- name: default\n  driver: lvm\n"
    );
    let out = run(&m, json!({"lxd": {"preseed": preseed}}));
    assert!(out.status.success(), "{}", text(&out));
    let mut want = vec![
        "snap wait system seed.loaded".to_string(),
        "snap list lxd".into(),
        format!("{APT} update"),
        format!("{APT} install lvm2"),
        "lxd waitready --timeout=300".into(),
        "lxd init --preseed".into(),
        "<stdin>".into(),
    ];
    want.extend(preseed.lines().map(str::to_string));
    want.push("</stdin>".into());
    assert_eq!(m.lines("/tools.log"), want);
    password_only_on_stdin(&m);

    // LVM: when `lxd init` fails, a pool without a thin pool, then init without the backend.
    let m = lxd_machine(
        "lxd-lvm",
        "case \"$*\" in *--storage-backend=lvm*) exit 1;; esac",
    );
    m.write("/usr/sbin/lvcreate", "", 0o755);
    let out = run(
        &m,
        json!({"lxd": {"init": {"storage_backend": "lvm", "storage_pool": "p"},
                        "bridge": {"mode": "existing", "name": "br9"}}}),
    );
    assert!(out.status.success(), "{}", text(&out));
    // (`lxc storage create` runs without `_lxc`'s environment, as in cloud-init.)
    let log: Vec<String> = m.lines("/tools.log");
    let log: Vec<&str> = log[3..]
        .iter()
        .map(String::as_str)
        .filter(|l| !l.starts_with("env"))
        .collect();
    assert_eq!(
        log,
        [
            "lxd waitready --timeout=300",
            "lxd init --auto --storage-backend=lvm --storage-pool=p",
            "lxc storage create default lvm lvm.use_thinpool=false",
            "lxd init --auto --storage-pool=p",
            "lxc network attach-profile br9 default eth0 --force-local",
        ]
    );
    assert_eq!(
        m.diags("final"),
        [d("warning", "bad-value", "lxd.init.storage_backend")]
    );
}

#[test]
fn refusals_and_failures() {
    if cannot_chroot() {
        return;
    }
    // preseed with init: cloud-init's error, and nothing is run.
    let m = lxd_machine("lxd-both", "");
    let out = run(
        &m,
        json!({"lxd": {"preseed": "config: {}", "init": {"storage_pool": "x"}}}),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(m.diags("final"), [d("error", "bad-value", "lxd.preseed")]);
    assert!(!m.exists("/tools.log"));

    // The snap cannot be installed: an error, nothing more.
    let m = lxd_machine("lxd-nosnap", "");
    m.fake("/usr/bin/snap", "[ \"$1\" = wait ] || exit 1");
    let out = run(&m, json!({"lxd": {"init": {"storage_backend": "dir"}}}));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "snap wait system seed.loaded",
            "snap list lxd",
            "snap install lxd"
        ]
    );
    assert_eq!(m.diags("final"), [d("error", "command-failed", "lxd")]);

    // A bridge mode cloud-init does not know fails after init.
    let m = lxd_machine("lxd-mode", "");
    m.fake("/usr/bin/snap", "exit 0");
    let out = run(
        &m,
        json!({"lxd": {"init": {"storage_backend": "dir"}, "bridge": {"mode": "bogus"}}}),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log").last().unwrap(),
        "lxd init --auto --storage-backend=dir"
    );
    assert_eq!(
        m.diags("final"),
        [d("error", "bad-value", "lxd.bridge.mode")]
    );
}

//! The runner's `ntp` module against a target directory holding a static busybox: the files
//! cloud-init 26's templates make (chrony, ntpd, systemd-timesyncd, Alpine's busybox ntpd), a
//! missing client installed with the target's (fake, recording) package manager, and a
//! client of the user's own with its template rendered by ember-initrd's Jinja.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};

const APPLETS: &[&str] = &["sh", "echo", "cat", "test", "["];
const HEADER: &str = "# Written by ember from the cloud-config key ntp (cloud-init's cc_ntp).\n";
const APT: &str = "apt-get --option=Dpkg::Options::=--force-confold \
                   --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";

fn machine(name: &str, os_release: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    m.write("/etc/os-release", os_release, 0o644);
    m
}

/// Runs the config stage with `ntp` as its one module; returns its stdout.
fn run_ntp(m: &Machine, ntp: Value, exit: i32) -> String {
    m.boot_modules(json!([{"name": "ntp", "stage": "config",
                           "frequency": "once-per-instance", "config": ntp}]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert_eq!(out.status.code(), Some(exit), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

#[test]
fn chrony_on_debian_as_cloud_inits_template() {
    if cannot_chroot() {
        return;
    }
    let m = machine("chrony", "ID=debian\n");
    m.write("/usr/sbin/chronyd", "", 0o755);
    m.fake("/usr/bin/systemctl", "");
    m.write(
        "/etc/chrony/chrony.conf",
        "pool 2.debian.pool.ntp.org iburst\n",
        0o644,
    );
    let ntp = json!({"ntp": {"servers": ["ntp1.example.com", "bad host"],
                             "pools": ["pool.example.com"], "allow": ["10.0.0.0/8"],
                             "peers": ["peer.example.com"]}});
    // The bad server is an error (exit 1); the rest is still written.
    let stdout = run_ntp(&m, ntp, 1);
    let want = format!(
        "{HEADER}# chrony's settings: see chrony.conf(5).\n\
         # pools\npool pool.example.com iburst\n# servers\nserver ntp1.example.com iburst\n\
         peer peer.example.com\nallow 10.0.0.0/8\n\n\
         keyfile /etc/chrony/chrony.keys\ndriftfile /var/lib/chrony/chrony.drift\n\
         logdir /var/log/chrony\nmaxupdateskew 100.0\nrtcsync\nmakestep 1 3\n"
    );
    assert_eq!(m.read("/etc/chrony/chrony.conf"), want);
    assert_eq!(
        m.read("/etc/chrony/chrony.conf.dist"),
        "pool 2.debian.pool.ntp.org iburst\n"
    );
    assert_eq!(
        m.diags("config"),
        [d("error", "wrong-type", "ntp.servers.1")]
    );
    // Installed already: no package manager runs; the service only on the live system.
    assert!(
        m.lines("/tools.log").is_empty(),
        "{:?}",
        m.lines("/tools.log")
    );
    assert!(
        stdout.contains(
            "ntp: would run: systemctl reload-or-restart chrony (not run: --target is not /)"
        ),
        "{stdout}"
    );
}

#[test]
fn auto_picks_the_installed_timesyncd() {
    if cannot_chroot() {
        return;
    }
    let m = machine("timesyncd", "ID=debian\n");
    m.write("/lib/systemd/systemd-timesyncd", "", 0o755);
    m.fake("/usr/bin/systemctl", "");
    run_ntp(&m, json!({"ntp": {"enabled": true}}), 0);
    // Servers first, then pools, each followed by a space, as cloud-init's template does.
    assert_eq!(
        m.read("/etc/systemd/timesyncd.conf.d/cloud-init.conf"),
        format!(
            "{HEADER}# See timesyncd.conf(5).\n\n[Time]\nNTP=0.debian.pool.ntp.org \
             1.debian.pool.ntp.org 2.debian.pool.ntp.org 3.debian.pool.ntp.org \n"
        )
    );
    assert!(!m.exists("/etc/chrony/chrony.conf"));
    assert_eq!(m.diags("config"), []);
}

#[test]
fn a_missing_client_is_installed_first() {
    if cannot_chroot() {
        return;
    }
    // Rocky: chrony (the first preferred) with RHEL's service name, installed with dnf.
    let m = machine("rocky", "ID=rocky\nID_LIKE=\"rhel centos fedora\"\n");
    m.fake("/usr/bin/dnf", "");
    m.fake("/usr/bin/systemctl", "");
    let stdout = run_ntp(&m, json!({"ntp": {"servers": ["10.1.1.1"]}}), 0);
    assert_eq!(m.lines("/tools.log"), ["dnf -y install chrony"]);
    let conf = m.read("/etc/chrony.conf");
    assert!(
        conf.contains("\n# servers\nserver 10.1.1.1 iburst\n\ndriftfile /var/lib/chrony/drift\n"),
        "{conf}"
    );
    assert!(stdout.contains("would run: systemctl reload-or-restart chronyd"));
    assert_eq!(m.diags("config"), []);

    // Debian without apt-get: the file is written, then the client cannot be installed.
    let m = machine("nopm", "ID=debian\n");
    run_ntp(&m, json!({"ntp": {"ntp_client": "ntp"}}), 1);
    assert!(m
        .read("/etc/ntp.conf")
        .contains("\n# pools\npool 0.debian.pool.ntp.org iburst\n"));
    assert_eq!(m.diags("config"), [d("error", "ntp-client-missing", "ntp")]);
}

#[test]
fn alpine_busybox_ntpd_gets_servers_only() {
    if cannot_chroot() {
        return;
    }
    let m = machine("alpine", "ID=alpine\n");
    let stdout = run_ntp(
        &m,
        json!({"ntp": {"ntp_client": "ntp", "pools": ["pool.example.com"]}}),
        0,
    );
    // cloud-init: no servers on Alpine's ntpd means the default ones, and pools are dropped.
    assert_eq!(
        m.read("/etc/ntp.conf"),
        format!(
            "{HEADER}# busybox ntpd: server lines only.\n\n# Servers\nserver 0.pool.ntp.org\n\
             server 1.pool.ntp.org\nserver 2.pool.ntp.org\nserver 3.pool.ntp.org\n"
        )
    );
    assert_eq!(
        m.diags("config"),
        [d("warning", "ntp-key-ignored", "ntp.pools")]
    );
    // Busybox's ntpd has no package to install; OpenRC restarts the service.
    assert!(m.lines("/tools.log").is_empty());
    assert!(
        stdout.contains("would run: rc-service --nocolor ntpd restart"),
        "{stdout}"
    );
}

/// cloud-init's documented example of a client of one's own, as its docs give it.
fn custom_client() -> Value {
    let template = "## template:jinja\n# My NTP Client config\n\
                    {% if pools -%}# pools{% endif %}\n{% for pool in pools -%}\n\
                    pool {{pool}} iburst\n{% endfor %}\n{%- if servers %}# servers\n\
                    {% endif %}\n{% for server in servers -%}\nserver {{server}} iburst\n\
                    {% endfor %}\n{% if peers -%}# peers{% endif %}\n\
                    {% for peer in peers -%}\npeer {{peer}}\n{% endfor %}\n\
                    {% if allow -%}# allow{% endif %}\n{% for cidr in allow -%}\n\
                    allow {{cidr}}\n{% endfor %}\n";
    json!({"ntp": {
        "enabled": true,
        "ntp_client": "myntpclient",
        "config": {"confpath": "/etc/myntpclient/myntpclient.conf", "check_exe": "myntpclientd",
                   "packages": ["myntpclient"], "service_name": "myntpclient",
                   "template": template},
        "pools": ["0.int.pool.ntp.org", "1.int.pool.ntp.org", "ntp.myorg.org"],
        "servers": ["ntp.server.local", "ntp.ubuntu.com", "192.168.23.2"],
        "allow": ["192.168.23.0/32"],
        "peers": ["km001", "km002"],
    }})
}

#[test]
fn a_client_of_ones_own_is_installed_rendered_and_restarted() {
    if cannot_chroot() {
        return;
    }
    let m = machine("custom", "ID=ubuntu\nID_LIKE=debian\n");
    m.fake(
        "/usr/bin/apt-get",
        "echo \"frontend=$DEBIAN_FRONTEND\" >> /tools.log",
    );
    m.fake("/usr/bin/systemctl", "");
    let stdout = run_ntp(&m, custom_client(), 0);
    // What Jinja2 makes of the documented template with cloud-init's settings (trim_blocks,
    // the last newline kept), checked against Jinja2 3.1: its missing newlines included.
    assert_eq!(
        m.read("/etc/myntpclient/myntpclient.conf"),
        "# My NTP Client config\n# poolspool 0.int.pool.ntp.org iburst\n\
         pool 1.int.pool.ntp.org iburst\npool ntp.myorg.org iburst\n# servers\n\
         server ntp.server.local iburst\nserver ntp.ubuntu.com iburst\n\
         server 192.168.23.2 iburst\n# peerspeer km001\npeer km002\n\
         # allowallow 192.168.23.0/32\n\n"
    );
    let fe = "frontend=noninteractive".to_string();
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            fe.clone(),
            format!("{APT} install myntpclient"),
            fe
        ]
    );
    assert!(
        stdout.contains("would run: systemctl reload-or-restart myntpclient"),
        "{stdout}"
    );
    assert!(!m.exists("/var/lib/ember/ntp-template.tmpl"));
    assert_eq!(m.diags("config"), []);
}

#[test]
fn a_client_of_ones_own_needs_its_config_and_a_template() {
    if cannot_chroot() {
        return;
    }
    // Without its whole config the module fails and writes nothing.
    let m = machine("partial", "ID=debian\n");
    let ntp = json!({"ntp": {"ntp_client": "mine", "config": {"confpath": "/etc/mine.conf"}}});
    run_ntp(&m, ntp, 1);
    assert!(!m.exists("/etc/mine.conf"));
    let keys: Vec<String> = m.diags("config").into_iter().map(|d| d.2).collect();
    assert_eq!(
        keys,
        [
            "ntp.config.check_exe",
            "ntp.config.packages",
            "ntp.config.service_name",
            "ntp.config.template"
        ]
    );

    // A template_name the image has under /etc/cloud/templates, in cloud-init's basic form.
    let m = machine("named", "ID=debian\n");
    m.write("/usr/sbin/mined", "", 0o755);
    m.fake("/usr/bin/systemctl", "");
    m.write(
        "/etc/cloud/templates/mine.debian.tmpl",
        "## template: basic\nservers=$servers pools=${pools}\n",
        0o644,
    );
    let ntp = json!({"ntp": {"ntp_client": "mine", "servers": ["a.example"],
        "config": {"confpath": "/etc/mine.conf", "check_exe": "mined", "packages": [],
                   "service_name": "mine", "template_name": "mine.{distro}"}}});
    run_ntp(&m, ntp, 0);
    assert_eq!(m.read("/etc/mine.conf"), "servers=['a.example'] pools=[]\n");
    assert_eq!(
        m.diags("config"),
        [d("warning", "unknown-key", "ntp.config.template_name")]
    );

    // A template that does not render: an error naming it, and nothing written.
    let m = machine("broken", "ID=debian\n");
    m.write("/usr/sbin/chronyd", "", 0o755);
    let ntp = json!({"ntp": {"ntp_client": "chrony",
        "config": {"template": "## template: jinja\n{% for x in servers %}\n"}}});
    run_ntp(&m, ntp, 1);
    assert!(!m.exists("/etc/chrony/chrony.conf"));
    assert_eq!(
        m.diags("config"),
        [d("error", "ntp-template-failed", "ntp.config.template")]
    );
}

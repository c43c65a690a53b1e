//! The configuration-management modules (ansible, puppet, chef, salt_minion, mcollective) in
//! the runner's final stage, against a target directory holding a static busybox: the
//! package managers, service managers, installers and the tools themselves are small sh
//! scripts in the target that record how they were called in /tools.log. Checked: the files
//! written (text, mode, owner), the commands' words in order, and that no secret reaches a
//! command line, an environment, a log or status.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};
use std::os::unix::fs::MetadataExt;

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "printf", "test", "[", "env", "rm", "mkdir", "touch", "chmod", "true",
];

const APT: &str = "apt-get --option=Dpkg::Options::=--force-confold \
                   --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";

/// A Debian target; `systemd` makes /run/systemd/system, so services go through systemctl.
fn machine(name: &str, systemd: bool) -> Machine {
    let m = Machine::new(name, APPLETS);
    for d in ["sbin", "run", "var/lib"] {
        std::fs::create_dir_all(m.target.join(d)).unwrap();
    }
    if systemd {
        std::fs::create_dir_all(m.target.join("run/systemd/system")).unwrap();
    }
    m.write(
        "/etc/passwd",
        "root:x:0:0:root:/root:/bin/sh\npuppet:x:110:117::/var/lib/puppet:/usr/sbin/nologin\n",
        0o644,
    );
    m.write("/etc/group", "root:x:0:\npuppet:x:117:\n", 0o644);
    m
}

/// apt-get that "installs" by running `on_install` for the package named last.
fn apt(m: &Machine, on_install: &str) {
    m.fake(
        "/usr/bin/apt-get",
        &format!("if [ \"$5\" = install ]; then {on_install}; fi"),
    );
}

/// A program `rel` that records its calls (and does `tail`).
fn tool_script(rel: &str, tail: &str) -> String {
    let name = rel.rsplit('/').next().unwrap();
    format!("printf '#!/bin/sh\\necho \"{name} $*\" >> /tools.log\\n{tail}\\n' > {rel}; chmod 755 {rel}")
}

fn final_stage(m: &Machine, name: &str, config: Value) -> std::process::Output {
    m.boot_modules(
        json!([{"name": name, "stage": "final", "frequency": "once-per-instance",
                           "config": config}]),
    );
    m.ember("boot-1", &["modules", "--mode", "final"])
}

fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

fn owner(m: &Machine, rel: &str) -> (u32, u32) {
    let meta = std::fs::metadata(m.target.join(rel.trim_start_matches('/'))).unwrap();
    (meta.uid(), meta.gid())
}

#[test]
fn ansible_from_distro_packages_then_galaxy_and_pulls() {
    if cannot_chroot() {
        return;
    }
    let m = machine("ansible", false);
    apt(&m, &tool_script("/usr/bin/ansible", ""));
    m.fake(
        "/usr/bin/ansible-galaxy",
        "echo \"env HOME=$HOME ANSIBLE_CONFIG=$ANSIBLE_CONFIG ansible_config=$ansible_config\" \
         >> /tools.log",
    );
    m.fake(
        "/usr/bin/ansible-pull",
        "[ \"$1\" != --version ] || echo 'ansible-pull [core 2.16.3]'",
    );
    let cfg = json!({"ansible": {
    "install_method": "distro", "package_name": "ansible-core",
    "ansible_config": "/etc/ansible/ansible.cfg",
    "galaxy": {"actions": [["ansible-galaxy", "collection", "install", "community.general"]]},
    "pull": [
        {"url": "https://example.com/a.git", "playbook_names": ["site.yml", "extra.yml"],
         "accept_host_key": true, "clean": false, "checkout": "main"},
        {"url": "https://example.com/b.git", "playbook_name": "b.yml", "diff": true},
    ]}});
    let out = final_stage(&m, "ansible", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            format!("{APT} install ansible-core"),
            "ansible-galaxy collection install community.general".into(),
            "env HOME=/root ANSIBLE_CONFIG=/etc/ansible/ansible.cfg \
             ansible_config=/etc/ansible/ansible.cfg"
                .into(),
            "ansible-pull --version".into(),
            "ansible-pull --accept-host-key --checkout=main --url=https://example.com/a.git \
             site.yml extra.yml"
                .into(),
            "ansible-pull --version".into(),
            "ansible-pull --diff --url=https://example.com/b.git b.yml".to_string(),
        ]
    );
}

#[test]
fn ansible_with_pip_as_run_user_and_a_controller() {
    if cannot_chroot() {
        return;
    }
    let m = machine("ansiblepip", false);
    m.write(
        "/usr/lib/python3.11/EXTERNALLY-MANAGED",
        "[externally-managed]\n",
        0o644,
    );
    m.fake("/bin/su", "exec sh -c \"$4\"");
    m.fake(
        "/usr/bin/python3",
        "case \"$*\" in\n\
         \"-m pip list\") [ ! -e /pip-done ] || echo 'ansible 9.1.0' ;;\n\
         \"-m pip install\"*\" ansible\") touch /pip-done ;;\n\
         \"-c import site; print(site.getuserbase())\") echo /home/ansible/.local ;;\n\
         esac",
    );
    // ansible-pull before 2.12 ran only the first of several playbooks: one run each.
    m.fake(
        "/usr/bin/ansible-pull",
        "[ \"$1\" != --version ] || echo 'ansible-pull [core 2.11.12]'",
    );
    m.fake("/usr/bin/git", "mkdir -p \"$3\"");
    m.fake("/usr/bin/ansible-playbook", "");
    let cfg = json!({"ansible": {
        "install_method": "pip", "package_name": "ansible", "run_user": "ansible",
        "pull": {"url": "https://example.com/p.git", "playbook_name": "one.yml two.yml"},
        "setup_controller": {
            "repositories": [{"source": "https://example.com/r.git", "path": "/home/ansible/r"}],
            "run_ansible": [{"playbook_dir": "/home/ansible/r", "playbook_name": "site.yml",
                             "forks": 2, "check": true, "diff": false}]}}});
    let out = final_stage(&m, "ansible", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    let su = "su - ansible -c env PATH=$PATH";
    let pip = "/usr/bin/python3 -m pip install --break-system-packages --user";
    let want: Vec<String> = [
        format!("{su} /usr/bin/python3 -c 'import site; print(site.getuserbase())'"),
        "python3 -c import site; print(site.getuserbase())".into(),
        format!("{su} /usr/bin/python3 -m pip list"),
        "python3 -m pip list".into(),
        "python3 -c import pip".into(),
        format!("{su} {pip} --upgrade pip"),
        "python3 -m pip install --break-system-packages --user --upgrade pip".into(),
        format!("{su} {pip} ansible"),
        "python3 -m pip install --break-system-packages --user ansible".into(),
        format!("{su} /usr/bin/python3 -m pip list"),
        "python3 -m pip list".into(),
        format!("{su} ansible-pull --version"),
        "ansible-pull --version".into(),
        format!("{su} ansible-pull --url=https://example.com/p.git one.yml"),
        "ansible-pull --url=https://example.com/p.git one.yml".into(),
        format!("{su} ansible-pull --url=https://example.com/p.git two.yml"),
        "ansible-pull --url=https://example.com/p.git two.yml".into(),
        format!("{su} git clone https://example.com/r.git /home/ansible/r"),
        "git clone https://example.com/r.git /home/ansible/r".into(),
        "su - ansible -c cd /home/ansible/r && env PATH=$PATH ansible-playbook site.yml \
         --check=True --forks=2"
            .into(),
        "ansible-playbook site.yml --check=True --forks=2".into(),
    ]
    .into_iter()
    .collect();
    assert_eq!(m.lines("/tools.log"), want);
}

#[test]
fn ansible_refuses_what_cloud_init_refuses() {
    if cannot_chroot() {
        return;
    }
    let m = machine("ansiblebad", false);
    m.fake("/usr/bin/apt-get", "");
    let cfg = json!({"ansible": {"install_method": "distro",
                                 "pull": {"url": "u", "playbook_name": "p.yml"}}});
    let out = final_stage(&m, "ansible", cfg);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(m.diags("final"), [d("error", "missing-key", "ansible")]);
    assert!(!m.exists("/tools.log"), "nothing may run");
}

#[test]
fn puppet_from_packages_configures_and_runs_the_agent() {
    if cannot_chroot() {
        return;
    }
    let m = machine("puppet", true);
    // No puppet-agent package here: cloud-init falls back to the puppet package.
    m.fake(
        "/usr/bin/apt-get",
        "case \"$*\" in *\" install puppet-agent=\"*) exit 100 ;; esac",
    );
    m.fake(
        "/usr/bin/puppet",
        "case \"$1 $2 $3\" in\n\
         \"config print config\") echo /etc/puppet/puppet.conf ;;\n\
         \"config print ssldir\") echo /var/lib/puppet/ssl ;;\n\
         \"config print csr_attributes\") echo /etc/puppet/csr_attributes.yaml ;;\n\
         esac",
    );
    m.fake(
        "/usr/bin/systemctl",
        "if [ \"$2\" = puppet-agent.service ]; then exit 5; fi",
    );
    m.write(
        "/etc/puppet/puppet.conf",
        "[main]\nlogdir=/var/log/puppet\n",
        0o644,
    );
    m.write("/etc/hostname", "node1\n", 0o644);
    m.write(
        "/etc/hosts",
        "127.0.0.1 localhost\n127.0.1.1 node1.example.com node1\n",
        0o644,
    );
    let ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    let cfg = json!({"puppet": {
        "version": "7.23.0-1", "exec": true, "exec_args": ["--test", "--waitforcert", "60"],
        "conf": {"agent": {"server": "puppet.example.org", "certname": "%i.%f",
                           "runinterval": 3600},
                 "ca_cert": ca},
        "csr_attributes": {"custom_attributes": {"1.2.840.113549.1.9.7": "challenge-pass"},
                           "extension_requests": {"pp_uuid": "ED803750"}}}});
    let out = final_stage(&m, "puppet", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            format!("{APT} install puppet-agent=7.23.0-1"),
            format!("{APT} install puppet=7.23.0-1"),
            "puppet config print config".into(),
            "puppet config print ssldir".into(),
            "puppet config print csr_attributes".into(),
            "systemctl enable puppet-agent.service".into(),
            "systemctl enable puppet.service".into(),
            "puppet agent --test --waitforcert 60".into(),
            "systemctl start puppet-agent.service".into(),
            "systemctl start puppet.service".to_string(),
        ]
    );
    let conf = "[main]\nlogdir = /var/log/puppet\n\n[agent]\ncertname = i-1.node1.example.com\n\
                runinterval = 3600\nserver = puppet.example.org\n\n";
    assert_eq!(m.read("/etc/puppet/puppet.conf"), conf);
    // Rewritten after each section, as cloud-init: .old holds the text before the last one.
    assert_eq!(m.read("/etc/puppet/puppet.conf.old"), conf);
    assert_eq!(m.read("/var/lib/puppet/ssl/certs/ca.pem"), ca);
    assert_eq!(m.mode("/var/lib/puppet/ssl"), 0o771);
    for p in [
        "/var/lib/puppet/ssl",
        "/var/lib/puppet/ssl/certs",
        "/var/lib/puppet/ssl/certs/ca.pem",
    ] {
        assert_eq!(owner(&m, p), (110, 0), "{p}");
    }
    assert_eq!(
        m.read("/etc/puppet/csr_attributes.yaml"),
        "custom_attributes:\n  1.2.840.113549.1.9.7: challenge-pass\n\
         extension_requests:\n  pp_uuid: ED803750\n"
    );
    assert_eq!(m.mode("/etc/puppet/csr_attributes.yaml"), 0o600);
}

#[test]
fn puppet_aio_fetches_the_installer_with_curl() {
    if cannot_chroot() {
        return;
    }
    let m = machine("puppetaio", false);
    let script = "'#!/bin/sh\\necho \"puppet-install $*\" >> /tools.log\\n'";
    m.fake("/usr/bin/curl", &format!("printf {script} > \"$5\""));
    m.fake(
        "/opt/puppetlabs/bin/puppet",
        "echo /etc/puppetlabs/puppet/x",
    );
    m.fake("/usr/sbin/service", "");
    let cfg = json!({"puppet": {"install_type": "aio", "version": "7.7.0", "collection": "puppet7",
                                "aio_install_url": "https://example.com/install.sh"}});
    let out = final_stage(&m, "puppet", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    assert_eq!(
        m.lines("/tools.log"),
        [
            "curl -fsSL --retry 5 -o /var/tmp/ember/puppet-install https://example.com/install.sh",
            "puppet-install -v 7.7.0 -c puppet7 --cleanup",
            "puppet config print config",
            "puppet config print ssldir",
            "puppet config print csr_attributes",
            // SysV `service`: cloud-init enables by starting.
            "service puppet-agent.service start",
            "service puppet-agent.service start",
        ]
    );
    assert!(!m.exists("/var/tmp/ember/puppet-install"));
}

#[test]
fn chef_writes_its_files_installs_and_runs_every_boot() {
    if cannot_chroot() {
        return;
    }
    let m = machine("chef", false);
    apt(&m, &tool_script("/usr/bin/chef-client", ""));
    let pem =
        "-----BEGIN RSA PRIVATE KEY-----\nvalidator-key-material\n-----END RSA PRIVATE KEY-----\n";
    let cfg = json!({"chef": {
        "server_url": "https://chef.example:4000", "validation_name": "org-validator",
        "validation_key": "/etc/chef/vkey.pem", "validation_cert": pem,
        "run_list": ["recipe[apache2]", "role[db]"],
        "initial_attributes": {"apache": {"keepalive": false, "prefork": {"maxclients": 100}}},
        "exec": true, "chef_license": "accept", "environment": "production"}});
    let out = final_stage(&m, "chef", cfg.clone());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            format!("{APT} install chef"),
            "chef-client -d -i 1800 -s 20".into(),
        ]
    );
    for dir in [
        "/etc/chef",
        "/var/log/chef",
        "/var/lib/chef",
        "/var/cache/chef",
        "/var/backups/chef",
        "/var/run/chef",
    ] {
        assert!(m.target.join(&dir[1..]).is_dir(), "{dir}");
    }
    assert_eq!(m.read("/etc/chef/vkey.pem"), pem);
    assert_eq!(m.mode("/etc/chef/vkey.pem"), 0o600);
    let rb = m.lines("/etc/chef/client.rb");
    assert!(rb[0].starts_with("# Created by ember v. "), "{rb:?}");
    assert_eq!(
        rb[1..],
        [
            "chef_license           \"accept\"",
            "log_level              :info",
            "ssl_verify_mode        :verify_none",
            "log_location           \"/var/log/chef/client.log\"",
            "validation_client_name \"org-validator\"",
            "validation_key         \"/etc/chef/vkey.pem\"",
            "client_key             \"/etc/chef/client.pem\"",
            "chef_server_url        \"https://chef.example:4000\"",
            "environment            \"production\"",
            "node_name              \"i-1\"",
            "json_attribs           \"/etc/chef/firstboot.json\"",
            "file_cache_path        \"/var/cache/chef\"",
            "file_backup_path       \"/var/backups/chef\"",
            "pid_file               \"/var/run/chef/client.pid\"",
            "Chef::Log::Formatter.show_time = true",
            "",
        ]
    );
    assert_eq!(
        m.read("/etc/chef/firstboot.json"),
        r#"{"run_list": ["recipe[apache2]", "role[db]"], "apache": {"keepalive": false, "prefork": {"maxclients": 100}}}"#
    );
    // Every boot: the next one runs chef-client again, without installing.
    m.boot_modules(
        json!([{"name": "chef", "stage": "final", "frequency": "always",
                           "config": cfg}]),
    );
    let out = m.ember("boot-2", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log")[3..], ["chef-client -d -i 1800 -s 20"]);
}

#[test]
fn chef_omnibus_with_wget_and_the_mandatory_keys() {
    if cannot_chroot() {
        return;
    }
    let m = machine("chefomni", false);
    let script = "'#!/bin/sh\\necho \"chef-omnibus-install $*\" >> /tools.log\\n'";
    m.fake("/usr/bin/wget", &format!("printf {script} > \"$5\""));
    m.fake("/usr/bin/chef-client", "");
    let cfg = json!({"chef": {"server_url": "u", "validation_name": "v",
        "install_type": "omnibus", "omnibus_url": "https://example.com/chef.sh",
        "omnibus_version": "17.10.0", "force_install": true, "exec": true,
        "exec_arguments": ["-o", "role[base]"], "firstboot_path": ""}});
    let out = final_stage(&m, "chef", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "wget -q -t 6 -O /var/tmp/ember/chef-omnibus-install https://example.com/chef.sh",
            "chef-omnibus-install -v 17.10.0",
            "chef-client -o role[base]",
        ]
    );
    assert!(!m.exists("/etc/chef/firstboot.json"));
    // exec_arguments is read by cloud-init's module though its schema lacks it.
    assert_eq!(m.diags("final"), []);

    // Without server_url cloud-init's module fails after making the directories.
    let m = machine("chefbad", false);
    let out = final_stage(&m, "chef", json!({"chef": {"validation_name": "v"}}));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(m.diags("final"), [d("error", "missing-key", "chef")]);
    assert!(m.target.join("var/log/chef").is_dir());
    assert!(!m.exists("/etc/chef/client.rb"));
}

#[test]
fn salt_minion_daemon_and_masterless() {
    if cannot_chroot() {
        return;
    }
    let m = machine("salt", true);
    m.fake("/usr/bin/apt-get", "");
    m.fake("/usr/bin/systemctl", "");
    let cfg = json!({"salt_minion": {
        "conf": {"master": "salt.example.com", "grains_refresh_every": 5},
        "grains": {"role": ["web"]},
        "public_key": "-----BEGIN PUBLIC KEY-----\npub\n-----END PUBLIC KEY-----\n",
        "private_key": "-----BEGIN PRIVATE KEY-----\nminion-secret\n-----END PRIVATE KEY-----\n"}});
    let out = final_stage(&m, "salt_minion", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            format!("{APT} install salt-minion"),
            "systemctl enable salt-minion".into(),
            "systemctl restart salt-minion".to_string(),
        ]
    );
    assert_eq!(
        m.read("/etc/salt/minion"),
        "---\ngrains_refresh_every: 5\nmaster: salt.example.com\n...\n"
    );
    assert_eq!(m.read("/etc/salt/grains"), "---\nrole:\n- web\n...\n");
    assert_eq!(m.mode("/etc/salt/minion"), 0o644);
    // No /etc/salt/pki/minion yet: the keys go to /etc/salt/pki, as cloud-init's default.
    assert_eq!(m.mode("/etc/salt/pki"), 0o700);
    assert_eq!(m.mode("/etc/salt/pki/minion.pub"), 0o644);
    assert_eq!(m.mode("/etc/salt/pki/minion.pem"), 0o600);
    assert!(m.read("/etc/salt/pki/minion.pem").contains("minion-secret"));

    let m = machine("saltlocal", true);
    m.fake("/usr/bin/apt-get", "");
    m.fake("/usr/bin/systemctl", "");
    m.fake("/usr/bin/salt-call", "");
    let cfg = json!({"salt_minion": {"pkg_name": "salt-common", "service_name": "salt-minion",
        "config_dir": "/srv/salt-etc", "conf": {"file_client": "local"},
        "public_key": "pub"}});
    let out = final_stage(&m, "salt_minion", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log")[1..],
        [
            format!("{APT} install salt-common"),
            "systemctl disable salt-minion".into(),
            "systemctl stop salt-minion".into(),
            "salt-call --local state.apply".to_string(),
        ]
    );
    assert_eq!(
        m.read("/srv/salt-etc/minion"),
        "---\nfile_client: local\n...\n"
    );
    // One half of the key pair is not written, and ember says so.
    assert!(!m.exists("/srv/salt-etc/pki"));
    assert_eq!(
        m.diags("final"),
        [d("warning", "unsupported-key", "salt_minion.public_key")]
    );
}

#[test]
fn mcollective_merges_server_cfg_and_writes_the_certificates() {
    if cannot_chroot() {
        return;
    }
    let m = machine("mco", false);
    m.fake("/usr/bin/apt-get", "");
    m.fake("/usr/sbin/service", "");
    let old = "# /etc/mcollective/server.cfg\nmain_collective = mcollective\n\
               collectives = mcollective\nlibdir = /usr/share/mcollective/plugins\n\
               logfile = /var/log/mcollective.log\nloglevel = info\ndaemonize = 1\n\n\
               # Plugins\nsecurityprovider = psk\nplugin.psk = unset\n";
    m.write("/etc/mcollective/server.cfg", old, 0o640);
    let ca = "-----BEGIN CERTIFICATE-----\nMIICA\n-----END CERTIFICATE-----\n";
    let cfg = json!({"mcollective": {"conf": {
        "ca-cert": ca, "daemonize": 0, "loglevel": "debug", "plugin.stomp.host": "dbhost",
        "private-cert": "PRIVATE", "public-cert": "PUBLIC",
        "registration": {"interval": 300, "tags": ["a", "b"]}}}});
    let out = final_stage(&m, "mcollective", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            format!("{APT} install mcollective"),
            "service mcollective restart".to_string(),
        ]
    );
    // What cloud-init's ConfigObj writes from the same file and keys.
    assert_eq!(
        m.read("/etc/mcollective/server.cfg"),
        "# /etc/mcollective/server.cfg\nmain_collective = mcollective\ncollectives = mcollective\n\
         libdir = /usr/share/mcollective/plugins\nlogfile = /var/log/mcollective.log\n\
         loglevel = debug\ndaemonize = 0\n\n# Plugins\nsecurityprovider = ssl\nplugin.psk = unset\n\
         ca-cert = '''-----BEGIN CERTIFICATE-----\nMIICA\n-----END CERTIFICATE-----\n'''\n\
         plugin.stomp.host = dbhost\n\
         plugin.ssl_server_private = /etc/mcollective/ssl/server-private.pem\n\
         plugin.ssl_server_public = /etc/mcollective/ssl/server-public.pem\n\
         [registration]\ninterval = 300\ntags = a, b\n"
    );
    assert_eq!(m.read("/etc/mcollective/server.cfg.old"), old);
    assert_eq!(m.mode("/etc/mcollective/server.cfg"), 0o640);
    assert_eq!(m.read("/etc/mcollective/ssl/server-private.pem"), "PRIVATE");
    assert_eq!(m.mode("/etc/mcollective/ssl/server-private.pem"), 0o600);
    assert_eq!(m.read("/etc/mcollective/ssl/server-public.pem"), "PUBLIC");
    assert_eq!(m.mode("/etc/mcollective/ssl/server-public.pem"), 0o644);
    // cloud-init 26 does not deprecate the module (yet): no warning.
    assert_eq!(m.diags("final"), []);
}

/// RELIABILITY rule 1: the chef validation key, the salt minion key and mcollective's private
/// certificate reach only their 0600 files: no command line, environment, log or status.
#[test]
fn secrets_stay_in_their_files() {
    if cannot_chroot() {
        return;
    }
    let m = machine("cmsecret", true);
    let secret = "S3CRET-7f9c2a";
    // Every tool records its environment too.
    let tail = "env >> /tools.log";
    apt(&m, &tool_script("/usr/bin/chef-client", tail));
    for tool in ["/usr/bin/systemctl", "/usr/sbin/service"] {
        m.fake(tool, tail);
    }
    let modules = json!([
        {"name": "chef", "stage": "final", "frequency": "always", "config": {"chef": {
            "server_url": "u", "validation_name": "v", "exec": true,
            "validation_cert": format!("-----BEGIN KEY-----\n{secret}\n-----END KEY-----\n")}}},
        {"name": "salt_minion", "stage": "final", "frequency": "once-per-instance",
         "config": {"salt_minion": {"public_key": "pub", "private_key": secret}}},
        {"name": "mcollective", "stage": "final", "frequency": "once-per-instance",
         "config": {"mcollective": {"conf": {"private-cert": secret}}}},
    ]);
    m.boot_modules(modules);
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.diags("final"), []);
    let tools = m.read("/tools.log");
    assert!(tools.contains("chef-client -d -i 1800 -s 20"), "{tools}");
    assert!(
        tools.contains("PATH="),
        "the environment was recorded: {tools}"
    );
    for (what, haystack) in [
        ("tools.log", tools),
        ("output log", m.read("/var/log/cloud-init-output.log")),
        (
            "status.json",
            std::fs::read_to_string(m.run.join("ember/status.json")).unwrap(),
        ),
        ("ember's output", text(&out)),
    ] {
        assert!(!haystack.contains(secret), "the secret is in {what}");
    }
    for (file, mode) in [
        ("/etc/chef/validation.pem", 0o600),
        ("/etc/salt/pki/minion.pem", 0o600),
        ("/etc/mcollective/ssl/server-private.pem", 0o600),
    ] {
        assert!(m.read(file).contains(secret), "{file}");
        assert_eq!(m.mode(file), mode, "{file}");
    }
}

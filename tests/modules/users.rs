//! `users_groups` and `set_passwords` through the real `ember-initrd all` against a small
//! Debian-like target (passwd, shadow, group, gshadow, subuid, subgid, login.defs, skel).

use crate::common;
use common::{skip, stderr, stdout, Machine};
use ember::password::verifies;
use ember::secret::Secret;
use std::os::unix::fs::MetadataExt;

const META: &str = "instance-id: iid-users\nlocal-hostname: box\n";
const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n# kept comment\nexisting:x:1000:1000:Existing,,,:/home/existing:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
const SHADOW: &str = "root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nexisting:$6$old$oldhash:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n";
const GROUP: &str = "root:x:0:\nadm:x:4:\nsudo:x:27:\nshadow:x:42:\nusers:x:100:\nexisting:x:1000:\nnogroup:x:65534:\n";
const GSHADOW: &str =
    "root:*::\nadm:*::\nsudo:*::\nshadow:*::\nusers:*::\nexisting:!::\nnogroup:*::\n";
const LOGIN_DEFS: &str = "# login.defs\nUID_MIN 1000\nUID_MAX 60000\nSYS_UID_MIN 100\nSYS_UID_MAX 999\nGID_MIN 1000\nGID_MAX 60000\nSYS_GID_MIN 100\nSYS_GID_MAX 999\nHOME_MODE 0700\nPASS_MAX_DAYS 99999\nPASS_MIN_DAYS 0\nPASS_WARN_AGE 7\n";
const CLOUD_CFG: &str = "users: [default]\nsystem_info:\n  default_user:\n    name: debian\n    gecos: Debian\n    groups: [adm, sudo]\n    sudo: ALL=(ALL) NOPASSWD:ALL\n    shell: /bin/bash\n    lock_passwd: true\n";

fn is_root() -> bool {
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        skip("users tests chown files to other users: they need root");
    }
    root
}

fn today() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 86400
}

fn machine(name: &str, user_data: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    let files = [
        ("etc/passwd", PASSWD),
        ("etc/shadow", SHADOW),
        ("etc/group", GROUP),
        ("etc/gshadow", GSHADOW),
        ("etc/subuid", "existing:100000:65536\n"),
        ("etc/subgid", "existing:100000:65536\n"),
        ("etc/login.defs", LOGIN_DEFS),
        ("etc/cloud/cloud.cfg", CLOUD_CFG),
        ("etc/skel/.bashrc", "# bashrc\n"),
        ("etc/skel/.config/app/settings", "x=1\n"),
    ];
    for (rel, text) in files {
        m.write(t, rel, text.as_bytes());
    }
    use std::os::unix::fs::PermissionsExt;
    let chmod = |rel: &str, mode| {
        std::fs::set_permissions(t.join(rel), std::fs::Permissions::from_mode(mode)).unwrap()
    };
    chmod("etc/shadow", 0o640);
    chmod("etc/gshadow", 0o640);
    chmod("etc/skel/.config", 0o700);
    chmod("etc/skel/.config/app/settings", 0o600);
    std::os::unix::fs::chown(t.join("etc/shadow"), Some(0), Some(42)).unwrap();
    std::os::unix::fs::symlink(".bashrc", t.join("etc/skel/.bash_profile")).unwrap();
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", META), ("user-data", user_data)],
    );
    m
}

fn owner(m: &Machine, rel: &str) -> (u32, u32) {
    let meta = std::fs::symlink_metadata(m.target.join(rel)).unwrap();
    (meta.uid(), meta.gid())
}

fn shadow_field(m: &Machine, user: &str, i: usize) -> String {
    let shadow = m.target_file("etc/shadow");
    let line = shadow.lines().find(|l| l.starts_with(&format!("{user}:")));
    line.unwrap().split(':').nth(i).unwrap().to_string()
}

/// Every file under target/etc, target/home and the run dir with its mode and contents.
fn snapshot(m: &Machine) -> Vec<(String, u32, Vec<u8>)> {
    let mut out = Vec::new();
    for base in ["target/etc", "target/home"] {
        for (rel, mode) in Machine::tree(&m.dir.join(base)) {
            let p = m.dir.join(base).join(&rel);
            let data = if p.is_file() {
                std::fs::read(&p).unwrap()
            } else {
                Vec::new()
            };
            out.push((format!("{base}/{rel}"), mode, data));
        }
    }
    out
}

const TWO_USERS: &str = "#cloud-config
groups:
  - devs: [existing]
  - ops
users:
  - default
  - name: alice
    gecos: Alice A
    groups: [adm, devs]
    sudo: ALL=(ALL) NOPASSWD:ALL
    shell: /bin/bash
    ssh_authorized_keys: [ssh-ed25519 AAAAalice alice@x, ssh-ed25519 AAAAalice alice@x]
  - name: bob
    groups: adm, ops
    sudo: [\"ALL=(ALL) ALL\", \"ALL=(root) /usr/bin/ls\"]
    lock_passwd: false
    plain_text_passwd: PlainSecret-77
";

#[test]
fn two_users_with_groups_and_sudo_then_a_rerun_changes_nothing() {
    if !is_root() {
        return;
    }
    let m = machine("users-two", TWO_USERS);
    let out = m.initrd("all");
    assert_eq!(
        m.errors(),
        Vec::<serde_json::Value>::new(),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        m.target_file("etc/passwd"),
        format!(
            "{PASSWD}debian:x:1001:1003:Debian:/home/debian:/bin/bash\n\
             alice:x:1002:1004:Alice A:/home/alice:/bin/bash\n\
             bob:x:1003:1005::/home/bob:/bin/sh\n"
        )
    );
    assert_eq!(
        m.target_file("etc/group"),
        "root:x:0:\nadm:x:4:debian,alice,bob\nsudo:x:27:debian\nshadow:x:42:\nusers:x:100:\n\
         existing:x:1000:\nnogroup:x:65534:\ndevs:x:1001:alice,existing\nops:x:1002:bob\n\
         debian:x:1003:\nalice:x:1004:\nbob:x:1005:\n"
    );
    assert_eq!(
        m.target_file("etc/gshadow"),
        "root:*::\nadm:*::debian,alice,bob\nsudo:*::debian\nshadow:*::\nusers:*::\nexisting:!::\n\
         nogroup:*::\ndevs:!::alice,existing\nops:!::bob\ndebian:!::\nalice:!::\nbob:!::\n"
    );
    let d = today();
    let shadow = m.target_file("etc/shadow");
    assert!(shadow.starts_with(SHADOW), "{shadow}");
    assert!(shadow.contains(&format!(
        "\ndebian:!:{d}:0:99999:7:::\nalice:!:{d}:0:99999:7:::\nbob:$6$"
    )));
    let bob = shadow_field(&m, "bob", 1);
    assert!(
        verifies(&Secret::new("PlainSecret-77".into()), &bob),
        "unlocked, verifiable"
    );
    assert_eq!(
        m.target_file("etc/subuid"),
        "existing:100000:65536\ndebian:165536:65536\nalice:231072:65536\nbob:296608:65536\n"
    );
    assert_eq!(m.target_file("etc/passwd-"), PASSWD);
    // Modes and owners: the databases keep theirs, homes get HOME_MODE and the skel.
    for (rel, mode, own) in [
        ("etc/passwd", 0o644, (0, 0)),
        ("etc/shadow", 0o640, (0, 42)),
        ("etc/shadow-", 0o640, (0, 42)),
        ("etc/gshadow", 0o640, (0, 0)),
        ("home/alice", 0o700, (1002, 1004)),
        ("home/alice/.bashrc", 0o644, (1002, 1004)),
        ("home/alice/.config", 0o700, (1002, 1004)),
        ("home/alice/.config/app/settings", 0o600, (1002, 1004)),
        ("home/alice/.ssh", 0o700, (1002, 1004)),
        ("home/alice/.ssh/authorized_keys", 0o600, (1002, 1004)),
        ("home/bob", 0o700, (1003, 1005)),
        ("etc/sudoers.d/90-cloud-init-users", 0o440, (0, 0)),
    ] {
        assert_eq!(Machine::mode(&m.target.join(rel)), mode, "{rel}");
        assert_eq!(owner(&m, rel), own, "{rel}");
    }
    assert_eq!(
        std::fs::read_link(m.target.join("home/bob/.bash_profile")).unwrap(),
        std::path::Path::new(".bashrc")
    );
    assert_eq!(m.target_file("home/alice/.config/app/settings"), "x=1\n");
    assert_eq!(
        m.target_file("home/alice/.ssh/authorized_keys"),
        "ssh-ed25519 AAAAalice alice@x\n"
    );
    let sudoers = m.target_file("etc/sudoers.d/90-cloud-init-users");
    assert!(sudoers.starts_with("# "), "{sudoers}");
    assert!(sudoers.ends_with(
        "\n# User rules for debian\ndebian ALL=(ALL) NOPASSWD:ALL\n\n\
         # User rules for alice\nalice ALL=(ALL) NOPASSWD:ALL\n\n\
         # User rules for bob\nbob ALL=(ALL) ALL\nbob ALL=(root) /usr/bin/ls\n\n"
    ));
    assert!(m
        .target_file("etc/sudoers")
        .contains("\n#includedir /etc/sudoers.d\n"));

    // Run the module again (its semaphore removed): same files, byte for byte and mode.
    let before = snapshot(&m);
    let sem = m.target.join("var/lib/ember/instances/iid-users/sem");
    for module in ["users_groups", "set_passwords"] {
        let _ = std::fs::remove_file(sem.join(module));
    }
    m.initrd("all");
    assert_eq!(m.errors(), Vec::<serde_json::Value>::new());
    assert!(snapshot(&m) == before, "a rerun changed the target");
}

#[test]
fn existing_user_is_updated_not_duplicated() {
    if !is_root() {
        return;
    }
    let hash = "$6$newsalt$abcdefghijklmnopqrstuvwxyz";
    let ud = format!(
        "#cloud-config\nusers:\n  - name: existing\n    shell: /bin/zsh\n    groups: [adm]\n    hashed_passwd: {hash}\n    sudo: ALL=(ALL) ALL\n    ssh_authorized_keys: [ssh-rsa AAAAex ex@x]\n"
    );
    let m = machine("users-existing", &ud);
    m.initrd("all");
    assert_eq!(m.errors(), Vec::<serde_json::Value>::new());
    assert_eq!(
        m.target_file("etc/passwd"),
        PASSWD,
        "shell, home and ids kept"
    );
    assert!(m.target_file("etc/group").contains("\nadm:x:4:existing\n"));
    assert_eq!(
        shadow_field(&m, "existing", 1),
        format!("!{hash}"),
        "locked by default"
    );
    assert_eq!(shadow_field(&m, "existing", 2), today().to_string());
    assert_eq!(m.target_file("etc/subuid"), "existing:100000:65536\n");
    assert_eq!(
        owner(&m, "home/existing/.ssh/authorized_keys"),
        (1000, 1000)
    );
    assert!(m
        .target_file("etc/sudoers.d/90-cloud-init-users")
        .contains("\nexisting ALL=(ALL) ALL\n"));
}

/// The old hyphenated spellings cloud-init still reads act at boot (the user can log in), each
/// with a deprecation naming it as written.
#[test]
fn hyphenated_user_keys_act_with_a_deprecation() {
    if !is_root() {
        return;
    }
    let ud = "#cloud-config\nusers:\n  - name: carol\n    ssh-authorized-keys: [ssh-ed25519 AAAAcarol carol@x]\n    lock-passwd: false\n    no-user-group: true\n    sudo: [\"ALL=(ALL) ALL\"]\n";
    let m = machine("users-hyphen", ud);
    m.initrd("all");
    assert_eq!(m.errors(), Vec::<serde_json::Value>::new());
    assert_eq!(
        m.target_file("home/carol/.ssh/authorized_keys"),
        "ssh-ed25519 AAAAcarol carol@x\n"
    );
    let passwd = m.target_file("etc/passwd");
    assert!(
        passwd.contains("\ncarol:x:1001:100:"),
        "no user group: {passwd}"
    );
    assert!(m
        .target_file("etc/sudoers.d/90-cloud-init-users")
        .contains("\ncarol ALL=(ALL) ALL\n"));
    let mut deprecated: Vec<String> = m
        .diags()
        .iter()
        .filter(|d| d["severity"] == "deprecated")
        .filter_map(|d| Some(d["key"].as_str()?.to_string()))
        .collect();
    deprecated.sort();
    assert_eq!(
        deprecated,
        [
            "users.0.lock-passwd",
            "users.0.no-user-group",
            "users.0.ssh-authorized-keys"
        ]
    );
}

#[test]
fn system_users_and_no_create_home() {
    if !is_root() {
        return;
    }
    let ud = "#cloud-config\nusers:\n  - {name: svc, system: true}\n  - {name: svc2, system: true, homedir: /var/lib/svc2}\n  - {name: nohome, no_create_home: true, uid: 2000}\n";
    let m = machine("users-system", ud);
    m.initrd("all");
    assert_eq!(m.errors(), Vec::<serde_json::Value>::new());
    let passwd = m.target_file("etc/passwd");
    assert!(passwd.ends_with(
        "svc:x:999:999::/home/svc:/bin/sh\nsvc2:x:998:998::/var/lib/svc2:/bin/sh\nnohome:x:2000:2000::/home/nohome:/bin/sh\n"
    ), "{passwd}");
    assert!(!m.target.join("home/svc").exists());
    assert!(!m.target.join("home/nohome").exists());
    assert_eq!(owner(&m, "var/lib/svc2"), (998, 998));
    assert_eq!(
        m.target_file("etc/subuid"),
        "existing:100000:65536\nnohome:165536:65536\n",
        "system users get no subordinate ids"
    );
}

#[test]
fn chpasswd_users_list_and_random() {
    if !is_root() {
        return;
    }
    let ud = "#cloud-config\nusers: [default]\nchpasswd:\n  users:\n    - {name: existing, password: Text-pw-31337, type: text}\n    - {name: root, type: RANDOM}\n    - {name: ghost, password: x}\n  list: |\n    daemon:$6$listsalt$listhash\n";
    let m = machine("users-chpasswd", ud);
    let out = m.initrd("all");
    assert!(verifies(
        &Secret::new("Text-pw-31337".into()),
        &shadow_field(&m, "existing", 1)
    ));
    assert_eq!(shadow_field(&m, "daemon", 1), "$6$listsalt$listhash");
    for user in ["existing", "root", "daemon"] {
        assert_eq!(
            shadow_field(&m, user, 2),
            "0",
            "expire defaults to true: {user}"
        );
    }
    // RANDOM: printed on the console (ember-initrd's stdout) under cloud-init's header.
    let console = stdout(&out);
    let line = console
        .lines()
        .skip_while(|l| *l != "Set the following 'random' passwords")
        .nth(1)
        .unwrap_or_else(|| panic!("no random password shown: {console}"));
    let pw = line.strip_prefix("root:").unwrap();
    assert!(pw.len() >= 20 && pw.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert!(verifies(
        &Secret::new(pw.to_string()),
        &shadow_field(&m, "root", 1)
    ));
    let ghost = m.diag_with_code("user-missing").unwrap();
    assert_eq!(ghost["key"], "chpasswd.users.2");
    assert_eq!(
        m.diag_with_code("deprecated").unwrap()["key"],
        "chpasswd.list"
    );
    // The clear passwords are nowhere else: stderr, status, world-readable files.
    for secret in [pw, "Text-pw-31337"] {
        assert!(!stderr(&out).contains(secret));
        assert_no_secret(&m, secret);
    }
    assert!(!console.contains("Text-pw-31337"));
}

#[test]
fn plain_text_passwords_reach_no_log_and_no_readable_file() {
    if !is_root() {
        return;
    }
    let ud = "#cloud-config\nusers:\n  - {name: carol, plain_text_passwd: Carol-Clear-555, lock_passwd: false}\nchpasswd: {expire: false, users: [{name: existing, password: Exist-Clear-666, type: text}]}\npassword: Default-Clear-777\n";
    let m = machine("users-secrets", ud);
    let out = m.initrd("all");
    assert_eq!(m.errors(), Vec::<serde_json::Value>::new());
    assert_eq!(shadow_field(&m, "existing", 2), today().to_string());
    for secret in ["Carol-Clear-555", "Exist-Clear-666", "Default-Clear-777"] {
        assert!(!stdout(&out).contains(secret) && !stderr(&out).contains(secret));
        assert_no_secret(&m, secret);
    }
    // `password` needs a default user; this config has none (users replaces cloud.cfg's).
    assert_eq!(
        m.diag_with_code("no-default-user").unwrap()["key"],
        "password"
    );
    let hash = shadow_field(&m, "carol", 1);
    assert_no_secret(&m, &hash);
}

fn assert_no_secret(m: &Machine, secret: &str) {
    for (rel, mode) in Machine::tree(&m.dir) {
        let path = m.dir.join(&rel);
        if rel.contains("/seed/") || !path.is_file() {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        if mode & 0o004 != 0 || rel.ends_with("status.json") {
            assert!(!text.contains(secret), "secret in {rel} ({mode:o})");
        }
    }
}

#[test]
fn bad_types_name_the_key_and_spare_the_rest() {
    if !is_root() {
        return;
    }
    let m = machine("users-bad", "#cloud-config\nusers: 5\n");
    m.initrd("all");
    let d = m.diag_with_code("wrong-type").unwrap();
    assert_eq!(
        (d["severity"].as_str(), d["key"].as_str()),
        (Some("error"), Some("users"))
    );
    assert_eq!(m.target_file("etc/passwd"), PASSWD);

    let ud = "#cloud-config\nusers:\n  - {name: bad, groups: 3}\n  - {name: good, sudo: false, ssh_import_id: [gh:x]}\n  - {name: 'no:pe'}\n";
    let m = machine("users-bad2", ud);
    m.initrd("all");
    let keys: Vec<_> = m
        .errors()
        .iter()
        .map(|d| d["key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(keys, ["users.0.groups", "users.2.name"]);
    let passwd = m.target_file("etc/passwd");
    assert!(passwd.ends_with("good:x:1001:1001::/home/good:/bin/sh\n") && !passwd.contains("bad"));
    assert_eq!(
        m.diag_with_code("deprecated").unwrap()["key"],
        "users.1.sudo"
    );
    // ssh_import_id is the runner's ssh_import_id module's: handed over, not warned about.
    assert!(m.diag_with_code("unsupported-key").is_none());
    let call = m.handoff_module("ssh_import_id");
    assert_eq!(call["config"]["users"][1]["ssh_import_id"][0], "gh:x");
}

/// cloud-init's distro: a user's `doas` rules go to /etc/doas.conf (0440) once, only when
/// every one names the user; `ssh_redirect_user` puts the cloud's keys in the user's
/// authorized_keys, each redirecting to the default user (issue 34).
#[test]
fn doas_rules_and_ssh_redirect_user() {
    if !is_root() {
        return;
    }
    let ud = "#cloud-config\nusers:\n  - default\n  - name: alice\n    doas: [permit nopass alice, permit alice as root cmd /bin/ls]\n  - name: bob\n    doas: [permit nopass alice]\n  - name: carl\n    ssh_redirect_user: true\n";
    let m = machine("users-doas-redirect", ud);
    m.write(
        &m.target,
        "var/lib/cloud/seed/nocloud/meta-data",
        b"instance-id: iid-users\nlocal-hostname: box\npublic-keys: [ssh-ed25519 AAAAcloud cloud@x]\n",
    );
    m.initrd("all");
    let doas = m.target_file("etc/doas.conf");
    assert!(
        doas.contains(
            "\n# User rules for alice\npermit nopass alice\npermit alice as root cmd /bin/ls\n"
        ),
        "{doas}"
    );
    assert!(!doas.contains("bob"), "{doas}");
    assert_eq!(Machine::mode(&m.target.join("etc/doas.conf")), 0o440);
    let keys: Vec<String> = m
        .errors()
        .iter()
        .filter_map(|d| d["key"].as_str().map(str::to_string))
        .collect();
    assert_eq!(keys, ["users.2.doas.0"]);
    let carl = m.target_file("home/carl/.ssh/authorized_keys");
    assert!(
        carl.starts_with("no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command=\"echo 'Please login as the user \\\"debian\\\" rather than the user \\\"carl\\\".';echo;sleep 10;exit 142\" ssh-ed25519 AAAAcloud"),
        "{carl}"
    );
    // A rerun adds nothing.
    m.initrd("all");
    assert_eq!(m.target_file("etc/doas.conf"), doas);
}

#[test]
fn keys_for_a_missing_home_leave_what_lies_above_it_to_root() {
    if !is_root() {
        return;
    }
    // The home's parent is missing too: it may serve many users, so it is made root's.
    let ud = "#cloud-config\nusers:\n  - name: bob\n    uid: 2100\n    no_create_home: true\n    homedir: /srv/people/bob\n    ssh_authorized_keys: [ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBob bob]\n";
    let m = machine("users-keys-above-home", ud);
    m.initrd("all");
    assert_eq!(m.errors(), Vec::<serde_json::Value>::new());
    let mode = |rel: &str| Machine::mode(&m.target.join(rel));
    assert_eq!(owner(&m, "srv/people"), (0, 0));
    assert_eq!(mode("srv/people"), 0o755);
    for dir in ["srv/people/bob", "srv/people/bob/.ssh"] {
        assert_eq!(owner(&m, dir), (2100, 2100), "{dir}");
        assert_eq!(mode(dir), 0o700, "{dir}");
    }
    assert!(m
        .target_file("srv/people/bob/.ssh/authorized_keys")
        .contains("AAAAC3NzaC1lZDI1NTE5AAAAIBob"));
}

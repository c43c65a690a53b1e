//! The ssh module end to end: the real `ember-initrd all` against a target root with a
//! passwd, an sshd_config and image host keys; checks files, modes, the console, and that
//! no private key leaks into stdout, stderr or a world-readable file. Also seed_random, which
//! runs before the host keys are made, and what is left for the runner to publish on GCE.

use crate::common;
use crate::common::target::Accounts;

use common::{have, stdout, Machine};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

const KEY_A: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm a@b";
const KEY_B: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDJxM0yX3PnM4r5Eig6nGh5N1bJdI26gTgSuxTpUQ+nQ b@c";
const ROOT_OPTS: &str = "no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command=\"echo 'Please login as the user \\\"debian\\\" rather than the user \\\"root\\\".';echo;sleep 10;exit 142\"";

/// A Debian-like target: root and the default user `debian`, an image cloud.cfg naming it,
/// sshd_config as given, and the image's own host keys.
fn machine(name: &str, sshd_config: &str, user_data: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    Accounts::root().user("debian").write(t);
    m.write(
        t,
        "etc/cloud/cloud.cfg",
        b"users: [default]\nsystem_info:\n  default_user:\n    name: debian\n",
    );
    std::fs::create_dir_all(t.join("root")).unwrap();
    m.write(t, "etc/ssh/sshd_config", sshd_config.as_bytes());
    for f in [
        "ssh_host_ed25519_key",
        "ssh_host_ed25519_key.pub",
        "ssh_host_rsa_key",
    ] {
        m.write(t, &format!("etc/ssh/{f}"), b"image key\n");
    }
    let meta = format!(
        "instance-id: i-ssh1\nlocal-hostname: web1.example.org\npublic-keys:\n  - {KEY_A}\n"
    );
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", &meta), ("user-data", user_data)],
    );
    m
}

fn mode(m: &Machine, rel: &str) -> u32 {
    Machine::mode(&m.target.join(rel))
}

fn owner(m: &Machine, rel: &str) -> (u32, u32) {
    let meta = std::fs::metadata(m.target.join(rel)).unwrap();
    (meta.uid(), meta.gid())
}

/// No private key material in the run's output or in any file others can read.
fn assert_no_private_leak(m: &Machine, out: &std::process::Output) {
    let marker = "PRIVATE KEY";
    assert!(!stdout(out).contains(marker));
    assert!(!common::stderr(out).contains(marker));
    for base in [&m.target, &m.run] {
        for (rel, mode) in Machine::tree(base) {
            let path = base.join(&rel);
            // The seed is the test's own input, not something ember wrote.
            let seed = rel.starts_with("var/lib/cloud/seed");
            if path.is_file() && mode & 0o004 != 0 && !seed {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                assert!(
                    !text.contains(marker),
                    "{rel} is {mode:o} and holds a private key"
                );
            }
        }
    }
}

fn keygen(args: &[&str], file: &Path) -> String {
    let out = Command::new("ssh-keygen")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ssh-keygen {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn meta_data_keys_for_the_default_user_and_root() {
    let user_data = format!("#cloud-config\nssh_authorized_keys:\n  - {KEY_B}\n  - {KEY_A}\n");
    let m = machine("ssh-keys", "Port 22\n", &user_data);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let user = "home/debian/.ssh/authorized_keys";
    assert_eq!(m.target_file(user), format!("{KEY_A}\n{KEY_B}\n"));
    assert_eq!(
        (mode(&m, user), mode(&m, "home/debian/.ssh")),
        (0o600, 0o700)
    );
    assert_eq!(owner(&m, user), (1000, 1000));
    assert_eq!(owner(&m, "home/debian/.ssh"), (1000, 1000));
    let root = "root/.ssh/authorized_keys";
    assert_eq!(
        m.target_file(root),
        format!("{ROOT_OPTS} {KEY_A}\n{ROOT_OPTS} {KEY_B}\n")
    );
    assert_eq!(mode(&m, root), 0o600);
    assert!(m.diags().is_empty(), "{:?}", m.diags());
}

#[test]
fn disable_root_false_and_no_public_keys() {
    let ud = format!(
        "#cloud-config\ndisable_root: false\nallow_public_ssh_keys: false\nssh_authorized_keys: [\"{KEY_B}\"]\n"
    );
    let m = machine("ssh-root", "Port 22\n", &ud);
    m.initrd("all");
    assert_eq!(
        m.target_file("root/.ssh/authorized_keys"),
        format!("{KEY_B}\n")
    );
    assert_eq!(
        m.target_file("home/debian/.ssh/authorized_keys"),
        format!("{KEY_B}\n")
    );
}

#[test]
fn missing_default_user_is_a_warning() {
    let m = machine("ssh-nouser", "Port 22\n", "#cloud-config\n");
    m.write(
        &m.target,
        "etc/passwd",
        b"root:x:0:0:root:/root:/bin/bash\n",
    );
    // users_groups (which would create the default user) is recorded as done already: the
    // user was removed from the image since, and ssh must cope.
    m.write(
        &m.target,
        "var/lib/ember/instances/i-ssh1/sem/users_groups",
        b"",
    );
    m.initrd("all");
    assert!(m.diag_with_code("ssh-user-missing").is_some());
    assert!(!m.target.join("home/debian/.ssh").exists());
    // Root still gets the keys, pointing at the configured name.
    assert!(m
        .target_file("root/.ssh/authorized_keys")
        .contains("\\\"debian\\\""));
}

#[test]
fn ssh_pwauth_false_with_and_without_the_include() {
    let with_include =
        "Include /etc/ssh/sshd_config.d/*.conf\nPort 22\nPasswordAuthentication yes\n";
    let m = machine(
        "ssh-pw1",
        with_include,
        "#cloud-config\nssh_pwauth: false\n",
    );
    m.initrd("all");
    assert_eq!(m.target_file("etc/ssh/sshd_config"), with_include);
    let drop_in = "etc/ssh/sshd_config.d/50-cloud-init.conf";
    assert_eq!(m.target_file(drop_in), "PasswordAuthentication no\n");
    assert_eq!(mode(&m, drop_in), 0o600);

    let plain = "# top\nPort 22\n#PasswordAuthentication yes\nPasswordAuthentication yes\nMatch User x\n  PasswordAuthentication yes\n";
    let m = machine("ssh-pw2", plain, "#cloud-config\nssh_pwauth: no\n");
    m.initrd("all");
    assert_eq!(
        m.target_file("etc/ssh/sshd_config"),
        plain.replacen(
            "\nPasswordAuthentication yes",
            "\nPasswordAuthentication no",
            1
        )
    );
    assert_eq!(mode(&m, "etc/ssh/sshd_config"), 0o644);
    assert!(!m.target.join("etc/ssh/sshd_config.d").exists());
}

#[test]
fn generated_host_keys_replace_the_image_keys() {
    let m = machine("ssh-gen", "Port 22\n", "#cloud-config\n");
    let out = m.initrd("all");
    let ssh = m.target.join("etc/ssh");
    let mut names: Vec<String> = std::fs::read_dir(&ssh)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ssh_host_ecdsa_key",
            "ssh_host_ecdsa_key.pub",
            "ssh_host_ed25519_key",
            "ssh_host_ed25519_key.pub",
            "sshd_config"
        ]
    );
    // RSA is the background unit's, after sshd started; nothing is left for before it.
    assert_eq!(m.target_file("var/lib/ember/deferred-hostkeys"), "rsa\n");
    assert!(!m.target.join("var/lib/ember/pending-hostkeys").exists());
    let console = stdout(&out);
    // The fingerprints are keys_to_console's, printed by the runner.
    assert!(!console.contains("HOST KEY FINGERPRINTS"), "{console}");
    for t in ["ecdsa", "ed25519"] {
        let key = format!("etc/ssh/ssh_host_{t}_key");
        assert_eq!(
            (mode(&m, &key), mode(&m, &format!("{key}.pub"))),
            (0o600, 0o644)
        );
        let public = m.target_file(&format!("{key}.pub"));
        assert!(public.ends_with(" root@web1\n"), "{public}");
        if have("ssh-keygen") {
            // ssh-keygen accepts the private key and derives the same public key from it.
            let derived = keygen(&["-y", "-f"], &m.target.join(&key));
            let fields = |s: &str| s.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
            assert_eq!(fields(&derived), fields(&public));
        }
    }
    assert_no_private_leak(&m, &out);
    // Not GCE: nothing left to publish.
    assert!(!m
        .target
        .join("var/lib/ember/publish-hostkeys.json")
        .exists());
    assert!(m.diags().is_empty(), "{:?}", m.diags());

    // The module is per instance: a second boot keeps the keys. Even when the module runs
    // again (its semaphore gone, as after a failure), the host keys stay and nothing doubles.
    let before = Machine::tree(&m.target.join("etc")).len();
    let pubkey = m.target_file("etc/ssh/ssh_host_ed25519_key.pub");
    let keys = m.target_file("root/.ssh/authorized_keys");
    m.initrd("all");
    let instances = m.target.join("var/lib/ember/instances");
    for inst in std::fs::read_dir(instances).unwrap() {
        let _ = std::fs::remove_file(inst.unwrap().path().join("sem/ssh"));
    }
    m.initrd("all");
    assert_eq!(m.target_file("etc/ssh/ssh_host_ed25519_key.pub"), pubkey);
    assert_eq!(m.target_file("root/.ssh/authorized_keys"), keys);
    assert_eq!(Machine::tree(&m.target.join("etc")).len(), before);
}

/// The image's `ember: {rsa_host_key: before-sshd}`: RSA left for `ember init`, before sshd,
/// as before ember made it in the background.
#[test]
fn the_image_may_keep_rsa_before_sshd() {
    let m = machine("ssh-rsa-first", "Port 22\n", "#cloud-config\n");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-rsa.cfg",
        b"ember:\n  rsa_host_key: before-sshd\n",
    );
    m.initrd("all");
    assert_eq!(m.target_file("var/lib/ember/pending-hostkeys"), "rsa\n");
    assert!(!m.target.join("var/lib/ember/deferred-hostkeys").exists());
    assert!(m.diags().is_empty(), "{:?}", m.diags());
}

#[test]
fn given_host_keys_with_the_ssh_keys_group() {
    if !have("ssh-keygen") {
        return;
    }
    // A real key made by ssh-keygen, given in user-data without its public half.
    let m0 = Machine::new("ssh-given-src");
    let src = m0.dir.join("k");
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "given", "-f"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(out.status.success());
    let private = std::fs::read_to_string(&src).unwrap();
    let indented: String = private.lines().map(|l| format!("    {l}\n")).collect();
    let ud = format!(
        "#cloud-config\nssh_keys:\n  ed25519_private: |\n{indented}  rsa_public: ssh-rsa AAAA x\n  rsa_certificate: ssh-rsa-cert-v01@openssh.com AAAA y\n  bogus_private: x\nssh_pwauth: true\n"
    );
    let m = machine("ssh-given", "Port 22\n", &ud);
    m.write(
        &m.target,
        "etc/group",
        b"root:x:0:\ndebian:x:1000:\nssh_keys:x:997:\n",
    );
    let out = m.initrd("all");
    let key = "etc/ssh/ssh_host_ed25519_key";
    assert_eq!(m.target_file(key), private);
    assert_eq!((mode(&m, key), owner(&m, key)), (0o640, (0, 997)));
    let public = m.target_file(&format!("{key}.pub"));
    // ssh-keygen refuses a group-readable key it owns (sshd does not): check a 0600 copy.
    let copy = m0.dir.join("copy");
    std::fs::write(&copy, m.target_file(key)).unwrap();
    std::fs::set_permissions(&copy, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let derived = keygen(&["-y", "-f"], &copy);
    assert_eq!(public.split(' ').nth(1), derived.split(' ').nth(1));
    assert_eq!(mode(&m, "etc/ssh/ssh_host_rsa_key.pub"), 0o644);
    assert_eq!(mode(&m, "etc/ssh/ssh_host_rsa_key-cert.pub"), 0o644);
    assert_eq!(
        m.target_file("etc/ssh/sshd_config"),
        "Port 22\nPasswordAuthentication yes\nHostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\n"
    );
    // Given keys: nothing generated, nothing left for the runner.
    assert!(!m.target.join("etc/ssh/ssh_host_ecdsa_key").exists());
    assert!(!m.target.join("var/lib/ember/pending-hostkeys").exists());
    assert!(!m.target.join("var/lib/ember/deferred-hostkeys").exists());
    let unknown = m.diag_with_code("unknown-key").unwrap();
    assert_eq!(unknown["key"], "ssh_keys.bogus_private");
    assert_no_private_leak(&m, &out);
}

#[test]
fn bad_types_name_the_key() {
    let ud = "#cloud-config\nssh_authorized_keys: [1, \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm a@b\"]\nssh_genkeytypes: [ed25519, 7]\nssh_keys: {ed25519_private: [secret-value]}\n";
    let m = machine("ssh-bad", "Port 22\n", ud);
    m.initrd("all");
    let keys: Vec<String> = m
        .diags()
        .iter()
        .filter(|d| d["code"] == "wrong-type")
        .map(|d| d["key"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        keys.contains(&"ssh_authorized_keys.0".to_string()),
        "{keys:?}"
    );
    assert!(
        keys.contains(&"ssh_keys.ed25519_private".to_string()),
        "{keys:?}"
    );
    assert!(!m.run_file("ember/status.json").contains("secret-value"));
    // The good key still went in.
    assert!(m
        .target_file("home/debian/.ssh/authorized_keys")
        .contains("a@b"));
}

/// The steps the local stage recorded, by name, with their start.
fn local_steps(m: &Machine) -> Vec<(String, f64)> {
    let status = m.status();
    let steps = status["stages"]["local"]["steps"]
        .as_array()
        .unwrap()
        .clone();
    steps
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap_or_default().to_string();
            (name, s["start"].as_f64().unwrap_or(f64::MAX))
        })
        .collect()
}

#[test]
fn seed_random_writes_the_seed_before_the_host_keys() {
    // The config's data (base64), then the meta-data's seed, into a file of the target.
    let ud = "#cloud-config\nrandom_seed:\n  file: /var/lib/ember-seed\n  data: Y29uZmlnLXNlZWQ=\n  encoding: b64\n  command: [pollinate, -q]\n";
    let m = machine("seed-file", "Port 22\n", ud);
    let meta = format!(
        "instance-id: i-seed\nlocal-hostname: web1\nrandom_seed: meta-seed\npublic-keys:\n  - {KEY_A}\n"
    );
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", &meta)],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(m.target_file("var/lib/ember-seed"), "config-seedmeta-seed");
    assert_eq!(mode(&m, "var/lib/ember-seed"), 0o600);
    // The command is left for the runner (0600: user-data), with the file it is told of.
    let pending: serde_json::Value =
        serde_json::from_str(&m.target_file("var/lib/ember/seed-random-command.json")).unwrap();
    assert_eq!(
        pending,
        serde_json::json!({"command": ["pollinate", "-q"], "required": false, "file": "/var/lib/ember-seed"})
    );
    assert_eq!(mode(&m, "var/lib/ember/seed-random-command.json"), 0o600);
    // seed_random ran, first, and before ssh made the host keys.
    let steps = local_steps(&m);
    let at = |name: &str| steps.iter().position(|(n, _)| n == name).unwrap();
    assert!(at("module seed_random") < at("module ssh"), "{steps:?}");
    assert!(steps[at("module seed_random")].1 <= steps[at("module ssh")].1);
    assert!(m.target.join("etc/ssh/ssh_host_ed25519_key").exists());
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert!(!stdout(&out).contains("config-seed") && !common::stderr(&out).contains("config-seed"));
}

#[test]
fn seed_random_feeds_the_running_kernel_by_default() {
    // /dev/urandom is the initramfs's own (the host tree here), never the target's.
    let ud = "#cloud-config\nrandom_seed:\n  data: raw-seed\n";
    let m = machine("seed-urandom", "Port 22\n", ud);
    m.write(&m.host, "dev/urandom", b"");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(m.host.join("dev/urandom")).unwrap(),
        "raw-seed"
    );
    assert!(!m.target.join("dev/urandom").exists());
    assert!(!m
        .target
        .join("var/lib/ember/seed-random-command.json")
        .exists());

    // An encoding cloud-init does not know fails the module, naming the key, not the data.
    let ud = "#cloud-config\nrandom_seed:\n  data: s3cret-seed\n  encoding: rot13\n";
    let m = machine("seed-bad", "Port 22\n", ud);
    m.write(&m.host, "dev/urandom", b"");
    m.initrd("all");
    let d = m.diag_with_code("encoding-unknown").unwrap();
    assert_eq!(
        (d["severity"].as_str(), d["key"].as_str()),
        (Some("error"), Some("random_seed.encoding"))
    );
    assert!(!m.run_file("ember/status.json").contains("s3cret"));
    assert_eq!(
        std::fs::read_to_string(m.host.join("dev/urandom")).unwrap(),
        ""
    );
}

#[test]
fn on_gce_the_host_keys_are_left_for_the_runner_to_publish() {
    use base64::Engine as _;
    use common::emulator::gce;
    let server = gce::start();
    let ud =
        "#cloud-config\nssh_genkeytypes: [ed25519, rsa, dsa]\nssh_publish_hostkeys: {blacklist: [rsa]}\n";
    let b64 = base64::engine::general_purpose::STANDARD.encode(ud);
    server.attribute("instance", "user-data", Some(&b64));
    let m = Machine::new("ssh-gce");
    for (f, v) in [
        ("sys_vendor", "Google"),
        ("product_name", "Google Compute Engine"),
        ("bios_vendor", "Google"),
        ("product_serial", "GoogleCloud-5A1B2C3D4E5F"),
    ] {
        m.dmi(f, v);
    }
    let t = &m.target;
    Accounts::root().write(t);
    m.write(
        t,
        "etc/cloud/cloud.cfg",
        b"ember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n",
    );
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let file = "var/lib/ember/publish-hostkeys.json";
    let pending: serde_json::Value = serde_json::from_str(&m.target_file(file)).unwrap();
    let url = format!(
        "{}/computeMetadata/v1/instance/guest-attributes/hostkeys/",
        server.url()
    );
    assert_eq!(
        pending,
        serde_json::json!({"url": url, "blacklist": ["rsa"]})
    );
    assert_eq!(mode(&m, file), 0o600);
    // ember-initrd itself publishes nothing: the RSA key and the network come later.
    assert!(server.guest_attributes().is_empty());
    // The published DSA key is made before sshd (the config stage publishes once); the
    // blacklisted RSA key after it, in the background.
    assert_eq!(m.target_file("var/lib/ember/pending-hostkeys"), "dsa\n");
    assert_eq!(m.target_file("var/lib/ember/deferred-hostkeys"), "rsa\n");
    assert!(server.requests().iter().all(|r| r.method == "GET"));
}

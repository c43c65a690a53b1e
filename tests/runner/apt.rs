//! `apt_configure` and `apt_pipelining` against a target directory holding a static busybox:
//! fake apt-get, gpg, getent, add-apt-repository, debconf-set-selections and dpkg-reconfigure
//! (small sh scripts in the target) record how they were called; the files apt reads are
//! checked as written. The real apt, gpg and a signed repository are the QEMU case
//! `debian-modules`.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use serde_json::json;

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "printf", "test", "[", "mkdir", "rm", "true", "false", "ls", "cp", "cut",
];

const BOOKWORM: &str = "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n";

const APT: &str = "apt-get --option=Dpkg::Options::=--force-confold \
                   --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";

/// A Debian target with a recording apt-get.
fn machine(name: &str, os_release: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    m.write("/etc/os-release", os_release, 0o644);
    m.fake("/usr/bin/apt-get", "");
    m
}

fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

/// A user ID packet standing for a key, and its armor (no checksum line: gpg takes that too).
const PACKET: &[u8] = b"\xb4\x05hello";
fn armored() -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(PACKET);
    format!("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body}\n-----END PGP PUBLIC KEY BLOCK-----\n")
}

fn bytes(m: &Machine, rel: &str) -> Vec<u8> {
    std::fs::read(m.target.join(rel.trim_start_matches('/'))).unwrap_or_default()
}

#[test]
fn sources_with_inline_keyid_and_ppa() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-sources", BOOKWORM);
    // gpg: records its home; `--export --output FILE` writes a packet there.
    m.fake(
        "/usr/bin/gpg",
        "echo \"home=$GNUPGHOME\" >> /tools.log\n\
         case \"$*\" in *--export*) printf '\\264\\003gpg' > \"$3\";; esac",
    );
    m.fake("/usr/bin/add-apt-repository", "");
    m.write(
        "/etc/apt/sources.list.d/over.list",
        "deb http://old x y\n",
        0o644,
    );
    m.write(
        "/etc/apt/sources.list.d/more.list",
        "deb http://kept x y\n",
        0o644,
    );
    let apt = json!({
        "preserve_sources_list": true,
        "sources": {
            "a-inline": {"source": "deb [signed-by=$KEY_FILE] http://r/ $RELEASE main",
                         "key": armored()},
            "b-keyid": {"source": "deb $MIRROR ${RELEASE}-backports contrib",
                        "keyid": "ABCD1234", "keyserver": "hkp://ks.example"},
            "c-ppa": {"source": "ppa:owner/name"},
            "d-over": {"source": "deb http://new $RELEASE main", "append": false,
                       "filename": "over"},
            "e-more": {"source": "deb $SECURITY $RELEASE-security main", "filename": "more.list"},
            "f-nokey": {"keyid": "0xFFFF"},
        }
    });
    let diags = m.config_stage(&[("apt_configure", json!({"apt": apt}))]);
    assert_eq!(diags, []);
    assert_eq!(
        m.read("/etc/apt/sources.list.d/a-inline.list"),
        "deb [signed-by=/etc/apt/cloud-init.gpg.d/a-inline.gpg] http://r/ bookworm main\n"
    );
    assert_eq!(bytes(&m, "/etc/apt/cloud-init.gpg.d/a-inline.gpg"), PACKET);
    assert_eq!(m.mode("/etc/apt/cloud-init.gpg.d/a-inline.gpg"), 0o644);
    assert_eq!(
        m.read("/etc/apt/sources.list.d/b-keyid.list"),
        "deb https://deb.debian.org/debian bookworm-backports contrib\n"
    );
    assert_eq!(
        bytes(&m, "/etc/apt/trusted.gpg.d/b-keyid.gpg"),
        b"\xb4\x03gpg"
    );
    assert_eq!(
        bytes(&m, "/etc/apt/trusted.gpg.d/f-nokey.gpg"),
        b"\xb4\x03gpg"
    );
    assert_eq!(
        m.read("/etc/apt/sources.list.d/over.list"),
        "deb http://new bookworm main\n"
    );
    assert_eq!(
        m.read("/etc/apt/sources.list.d/more.list"),
        "deb http://kept x y\ndeb https://deb.debian.org/debian-security bookworm-security main\n"
    );
    assert!(!m.exists("/etc/apt/sources.list.d/c-ppa.list"));
    assert!(!m.exists("/tmp/ember-apt-keys"), "gpg's home is removed");
    let home = "home=/tmp/ember-apt-keys";
    let export = "gpg --no-tty --output /tmp/ember-apt-keys/key.gpg --export";
    assert_eq!(
        m.lines("/tools.log"),
        [
            "gpg --no-tty --keyserver=hkp://ks.example --recv-keys ABCD1234".to_string(),
            home.into(),
            format!("{export} ABCD1234"),
            home.into(),
            "add-apt-repository --no-update ppa:owner/name".into(),
            "gpg --no-tty --keyserver=keyserver.ubuntu.com --recv-keys 0xFFFF".into(),
            home.into(),
            format!("{export} 0xFFFF"),
            home.into(),
            format!("{APT} update"),
        ]
    );
    // At most once per instance: a second config stage appends nothing.
    m.config_stage(&[(
        "apt_configure",
        json!({"apt": {"sources": {"x": {"source": "deb a b c"}}}}),
    )]);
    assert!(!m.exists("/etc/apt/sources.list.d/x.list"));
}

#[test]
fn key_and_source_failures_are_named() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-fail", BOOKWORM);
    // No gpg: gnupg is installed first (the fake apt-get installs nothing), then the keyid
    // fails; no add-apt-repository either.
    let apt = json!({
        "preserve_sources_list": true,
        "sources": {
            "bad": {"source": "deb http://b $RELEASE main", "key": "<key data>"},
            "id": {"source": "deb [signed-by=$KEY_FILE] http://i x y", "keyid": "ABCD"},
            "ppa": {"source": "ppa:a/b"},
            "undef": {"source": "deb $NOPE x y"},
        }
    });
    let diags = m.config_stage(&[("apt_configure", json!({"apt": apt}))]);
    assert_eq!(
        diags,
        [
            d("error", "command-failed", "apt.sources.id.keyid"),
            d("error", "missing-key", "apt.sources.id.source"),
            d("error", "tool-missing", "apt.sources.ppa.source"),
            d("error", "template-undefined", "apt.sources.undef.source"),
            d("warning", "bad-value", "apt.sources.bad"),
        ]
    );
    // cloud-init writes the line and its unusable key goes nowhere.
    assert_eq!(
        m.read("/etc/apt/sources.list.d/bad.list"),
        "deb http://b bookworm main\n"
    );
    assert!(!m.exists("/etc/apt/trusted.gpg.d/bad.gpg"));
    assert!(!m.exists("/etc/apt/sources.list.d/id.list"));
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            format!("{APT} install gnupg software-properties-common"),
            format!("{APT} update"),
        ]
    );
}

/// The image's cloud-init template (written for this test), a primary mirror, a disabled
/// suite, a proxy with a password and `conf`: deb822 on Debian 12, the one-line list removed.
#[test]
fn default_sources_from_the_image_template() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-template", BOOKWORM);
    m.write(
        "/etc/cloud/templates/sources.list.debian.deb822.tmpl",
        "## template:jinja\n## rendered for {{codename}}\nTypes: deb\nURIs: {{mirror}}\n\
         Suites: {{codename}} {{codename}}-updates {{codename}}-backports\nComponents: main\n\
         Signed-By: {{ primary_key | default('/usr/share/keyrings/debian-archive-keyring.gpg', true) }}\n\n\
         Types: deb\nURIs: {{security}}\n\
         Suites: {{codename}}{% if codename in ('buster', 'stretch') %}/updates{% else %}-security{% endif +%}\n\
         Components: main\n",
        0o644,
    );
    m.write(
        "/etc/apt/sources.list",
        "deb http://deb.debian.org/debian bookworm main\n",
        0o644,
    );
    let apt = json!({
        "primary": [{"arches": ["arm64"], "uri": "http://arm.example/debian"},
                    {"arches": ["default"], "uri": "http://mirror.example/debian",
                     "key": armored()}],
        "disable_suites": ["backports"],
        "proxy": "http://user:secret@proxy.example:3128/",
        "ftp_proxy": "ftp://proxy.example/",
        "conf": "APT::Get::Assume-Yes \"true\";\n",
    });
    m.write("/var/lib/dpkg/arch", "amd64\ni386\n", 0o644);
    let diags = m.config_stage(&[("apt_configure", json!({"apt": apt}))]);
    assert_eq!(diags, []);
    assert_eq!(
        m.read("/etc/apt/sources.list.d/debian.sources"),
        "## rendered for bookworm\nTypes: deb\nURIs: http://mirror.example/debian\n\
         # cloud-init disable_suites redacted: Suites: bookworm bookworm-updates bookworm-backports\n\
         Suites: bookworm bookworm-updates\nComponents: main\n\
         Signed-By: /etc/apt/trusted.gpg.d/primary.gpg\n\n\n\
         Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm-security\n\
         Components: main\n"
    );
    assert_eq!(bytes(&m, "/etc/apt/trusted.gpg.d/primary.gpg"), PACKET);
    assert!(
        !m.exists("/etc/apt/sources.list"),
        "the one-line list gives way to deb822"
    );
    let proxy = "/etc/apt/apt.conf.d/90cloud-init-aptproxy";
    assert_eq!(
        m.read(proxy),
        "Acquire::http::Proxy \"http://user:secret@proxy.example:3128/\";\n\
         Acquire::ftp::Proxy \"ftp://proxy.example/\";\n"
    );
    assert_eq!(
        m.mode(proxy),
        0o600,
        "a proxy password is not world-readable"
    );
    assert_eq!(
        m.read("/etc/apt/apt.conf.d/94cloud-init-config"),
        "APT::Get::Assume-Yes \"true\";\n"
    );
    // No `sources`: no apt-get run.
    assert_eq!(m.read("/tools.log"), "");
}

/// Debian 11 keeps the one-line list: `sources_list` over mirrors found by `search` and
/// `search_dns`, names looked up with the target's getent.
#[test]
fn one_line_sources_list_with_searched_mirrors() {
    if cannot_chroot() {
        return;
    }
    let os = "ID=debian\nVERSION_ID=\"11\"\nVERSION_CODENAME=bullseye\n";
    let m = machine("apt-search", os);
    m.fake(
        "/usr/bin/getent",
        "case \"$2\" in unknown.example|debian-security-mirror.corp.example) exit 2;; esac",
    );
    let apt = json!({
        "primary": [{"arches": ["default"],
                     "search": ["http://unknown.example/debian", "http://known.example/debian"]}],
        "security": [{"arches": ["default"], "search_dns": true}],
        "sources_list": "deb $MIRROR $RELEASE main\ndeb $SECURITY $RELEASE-security main\n\
                         deb $PRIMARY $RELEASE-updates main\n",
        "disable_suites": ["updates"],
    });
    let cfg = json!({"apt": apt, "fqdn": "host.corp.example"});
    let diags = m.config_stage(&[("apt_configure", cfg)]);
    assert_eq!(diags, []);
    assert_eq!(
        m.read("/etc/apt/sources.list"),
        "deb http://known.example/debian bullseye main\n\
         deb http://debian-security-mirror.localdomain/debian bullseye-security main\n\
         # suite disabled by cloud-init: deb http://known.example/debian bullseye-updates main\n"
    );
    assert!(!m.exists("/etc/apt/sources.list.d/debian.sources"));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "getent hosts unknown.example",
            "getent hosts known.example",
            "getent hosts debian-security-mirror.corp.example",
            "getent hosts debian-security-mirror.localdomain",
        ]
    );
}

/// Jinja in `sources_list` and in a `sources` line goes to ember-initrd, which prints a
/// missing variable as cloud-init's marker; the temporary template does not stay.
#[test]
fn jinja_sources_list_marks_missing_variables() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-jinja", BOOKWORM);
    m.write(
        "/etc/apt/sources.list",
        "deb http://deb.debian.org/debian bookworm main\n",
        0o644,
    );
    let apt = json!({
        "primary": [{"arches": ["default"], "uri": "http://mirror.example/debian"}],
        "sources_list": "## template: jinja\ndeb {{ mirror }} {{ codename }} main {{ nope }}\n",
    });
    let diags = m.config_stage(&[("apt_configure", json!({"apt": apt}))]);
    assert_eq!(diags, []);
    assert_eq!(
        m.read("/etc/apt/sources.list"),
        "deb http://mirror.example/debian bookworm main CI_MISSING_JINJA_VAR/nope\n"
    );
    assert!(!m.exists("/var/lib/ember/apt-template.tmpl"));
}

/// With no config and no templates (ember without cloud-init), the image's sources stay and
/// an earlier instance's proxy and config files go; a mirror asked for without a template is
/// a warning. Without apt in the target there is nothing to do.
#[test]
fn no_config_leaves_the_image_sources() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-none", BOOKWORM);
    let list = "deb http://local.example/debian bookworm main\n";
    m.write("/etc/apt/sources.list", list, 0o644);
    m.write("/etc/apt/apt.conf.d/90cloud-init-aptproxy", "old\n", 0o644);
    m.write("/etc/apt/apt.conf.d/94cloud-init-config", "old\n", 0o644);
    let diags = m.config_stage(&[("apt_configure", json!({}))]);
    assert_eq!(diags, []);
    assert_eq!(m.read("/etc/apt/sources.list"), list);
    assert!(!m.exists("/etc/apt/sources.list.d/debian.sources"));
    assert!(!m.exists("/etc/apt/apt.conf.d/90cloud-init-aptproxy"));
    assert!(!m.exists("/etc/apt/apt.conf.d/94cloud-init-config"));
    assert!(m
        .read("/var/log/cloud-init-output.log")
        .contains("the image's sources stay"));

    let m = machine("apt-none-primary", BOOKWORM);
    let cfg = json!({"apt": {"primary": [{"arches": ["default"], "uri": "http://m/debian"}]}});
    let diags = m.config_stage(&[("apt_configure", cfg)]);
    assert_eq!(diags, [d("warning", "path-missing", "apt.primary")]);

    let m = Machine::new("apt-none-noapt", APPLETS);
    m.write("/etc/os-release", BOOKWORM, 0o644);
    m.write("/etc/apt/apt.conf.d/90cloud-init-aptproxy", "old\n", 0o644);
    assert_eq!(m.config_stage(&[("apt_configure", json!({}))]), []);
    assert!(m.exists("/etc/apt/apt.conf.d/90cloud-init-aptproxy"));
}

#[test]
fn debconf_selections_then_reconfigure() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-debconf", BOOKWORM);
    // It keeps what it was given and its mode (`ls -l` shows `-rw-------`).
    m.fake(
        "/usr/bin/debconf-set-selections",
        "cat \"$1\" > /debconf.got; ls -l \"$1\" | cut -c1-10 >> /tools.log",
    );
    m.fake("/usr/sbin/dpkg-reconfigure", "");
    m.write(
        "/var/lib/dpkg/status",
        "Package: cloud-init\nStatus: install ok installed\nVersion: 1\n\n\
         Package: tzdata\nStatus: install ok installed\n\n\
         Package: mysql-server\nStatus: deinstall ok config-files\n",
        0o644,
    );
    m.write(
        "/etc/cloud/cloud.cfg.d/90_dpkg.cfg",
        "datasource_list: [x]\n",
        0o644,
    );
    m.write("/etc/cloud/cloud.cfg.d/50-mine.cfg", "x: 1\n", 0o644);
    let sets = json!({
        "set2": "mysql-server mysql-server/root_password password s3cr3t-marker",
        "set1": "cloud-init cloud-init/datasources multiselect NoCloud\ntzdata tzdata/Areas select Etc\n",
    });
    let cfg = json!({"apt": {"preserve_sources_list": true, "debconf_selections": sets}});
    let diags = m.config_stage(&[("apt_configure", cfg)]);
    assert_eq!(
        diags,
        [d("warning", "unsupported-key", "apt.debconf_selections")]
    );
    assert_eq!(
        m.read("/debconf.got"),
        "cloud-init cloud-init/datasources multiselect NoCloud\ntzdata tzdata/Areas select Etc\n\n\
         mysql-server mysql-server/root_password password s3cr3t-marker\n"
    );
    assert!(!m.exists("/var/lib/ember/apt-debconf-selections"));
    assert!(!m.exists("/etc/cloud/cloud.cfg.d/90_dpkg.cfg"));
    assert!(m.exists("/etc/cloud/cloud.cfg.d/50-mine.cfg"));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "debconf-set-selections /var/lib/ember/apt-debconf-selections",
            "-rw-------",
            "dpkg-reconfigure --frontend=noninteractive cloud-init",
        ]
    );
    // The secret is in no log or status.
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    assert!(!status.contains("s3cr3t-marker"));
    assert!(!m
        .read("/var/log/cloud-init-output.log")
        .contains("s3cr3t-marker"));
}

#[test]
fn deprecated_top_level_keys() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-old", BOOKWORM);
    let cfg = json!({
        "apt_preserve_sources_list": true,
        "apt_proxy": "http://proxy.example:3128",
        "apt_https_proxy": "https://proxy.example:3129",
        "apt_sources": [{"source": "deb http://a/ $RELEASE main"},
                        {"source": "deb http://b/ $RELEASE main"}],
        "apt_mirror": "",
    });
    let diags = m.config_stage(&[("apt_configure", cfg)]);
    assert_eq!(
        diags,
        [
            d("deprecated", "deprecated", "apt_sources"),
            d("deprecated", "deprecated", "apt_proxy"),
            d("deprecated", "deprecated", "apt_https_proxy"),
            d("deprecated", "deprecated", "apt_preserve_sources_list"),
        ]
    );
    assert_eq!(
        m.read("/etc/apt/sources.list.d/cloud_config_sources.list"),
        "deb http://a/ bookworm main\ndeb http://b/ bookworm main\n"
    );
    assert_eq!(
        m.read("/etc/apt/apt.conf.d/90cloud-init-aptproxy"),
        "Acquire::http::Proxy \"http://proxy.example:3128\";\n\
         Acquire::https::Proxy \"https://proxy.example:3129\";\n"
    );
    // Old and new keys disagreeing: cloud-init raises, nothing is done.
    let m = machine("apt-old-conflict", BOOKWORM);
    let cfg = json!({"apt": {"proxy": "http://a"}, "apt_proxy": "http://b"});
    let diags = m.config_stage(&[("apt_configure", cfg)]);
    assert!(
        diags.contains(&d("error", "bad-value", "apt_proxy")),
        "{diags:?}"
    );
    assert!(!m.exists("/etc/apt/apt.conf.d/90cloud-init-aptproxy"));
}

#[test]
fn pipelining_values() {
    if cannot_chroot() {
        return;
    }
    let file = "/etc/apt/apt.conf.d/90cloud-init-pipelining";
    for (value, want, diags) in [
        (json!(false), Some("0"), vec![]),
        (json!(3), Some("3"), vec![]),
        (json!("os"), None, vec![]),
        (
            json!(true),
            None,
            vec![d("warning", "bad-value", "apt_pipelining")],
        ),
    ] {
        let m = machine("apt-pipe", BOOKWORM);
        let got = m.config_stage(&[("apt_pipelining", json!({"apt_pipelining": value}))]);
        assert_eq!(got, diags, "{value}");
        match want {
            Some(depth) => assert_eq!(
                m.read(file),
                format!(
                    "//Written by cloud-init per 'apt_pipelining'\n\
                     Acquire::http::Pipeline-Depth \"{depth}\";\n"
                ),
                "{value}"
            ),
            None => assert!(!m.exists(file), "{value}"),
        }
    }
}

/// No codename in os-release nor lsb-release: `$RELEASE` is cloud-init's `UNAVAILABLE`, with a
/// warning when the config asks for anything; /etc/lsb-release's codename is taken otherwise.
#[test]
fn release_codename_sources() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt-nocodename", "ID=debian\n");
    assert_eq!(m.config_stage(&[("apt_configure", json!({}))]), []);
    let m = machine("apt-nocodename-2", "ID=debian\n");
    let cfg = json!({"apt": {"sources": {"r": {"source": "deb http://r $RELEASE main"}}}});
    assert_eq!(
        m.config_stage(&[("apt_configure", cfg.clone())]),
        [d("warning", "bad-value", "apt")]
    );
    assert_eq!(
        m.read("/etc/apt/sources.list.d/r.list"),
        "deb http://r UNAVAILABLE main\n"
    );
    let m = machine("apt-lsb", "ID=ubuntu\nVERSION_ID=\"24.04\"\n");
    m.write(
        "/etc/lsb-release",
        "DISTRIB_ID=Ubuntu\nDISTRIB_CODENAME=noble\n",
        0o644,
    );
    assert_eq!(m.config_stage(&[("apt_configure", cfg)]), []);
    assert_eq!(
        m.read("/etc/apt/sources.list.d/r.list"),
        "deb http://r noble main\n"
    );
}

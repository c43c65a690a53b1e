//! `schema`: every fixture under tests/fixtures/schema/{valid,invalid} checked against the
//! expectations written in it (`# expect: valid`, `# expect: error KEY line N`, `# expect:
//! warning|deprecated KEY line N`); scripts/compare-schema checks the same files against
//! cloud-init. Then the binaries: output, exit codes, --system, --annotate hiding secrets.

use crate::common;

use ember::error::Severity;
use ember::limits::Limits;
use ember::schema::{check, Kind, Report};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schema")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "too few fixtures in {}", root.display());
    files
}

/// `(severity, key, line)` from each `# expect:` line other than `valid`.
fn expectations(text: &str) -> (bool, Vec<(Severity, String, u32)>) {
    let mut valid = false;
    let mut found = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# expect:") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            ["valid"] => valid = true,
            [sev, key, "line", n] => {
                let sev = match *sev {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    "deprecated" => Severity::Deprecated,
                    other => panic!("unknown severity {other}"),
                };
                found.push((sev, key.to_string(), n.parse().unwrap()));
            }
            _ => panic!("bad expectation line: {line}"),
        }
    }
    (valid, found)
}

fn has(report: &Report, (sev, key, line): &(Severity, String, u32)) -> bool {
    report.problems.iter().any(|p| {
        p.severity == *sev && p.key.as_deref() == Some(key.as_str()) && p.line == Some(*line)
    })
}

fn check_fixture(path: &Path, want_valid: bool) {
    let text = std::fs::read_to_string(path).unwrap();
    let (valid, expected) = expectations(&text);
    assert_eq!(valid, want_valid, "{}: expect line", path.display());
    assert!(
        valid || !expected.is_empty(),
        "{}: no expectation",
        path.display()
    );
    let report = check(&text, Kind::UserData, &Limits::default());
    assert_eq!(
        report.is_valid(),
        want_valid,
        "{}: {report:#?}",
        path.display()
    );
    for e in &expected {
        assert!(
            has(&report, e),
            "{}: missing {e:?} in {report:#?}",
            path.display()
        );
    }
    // Every problem of a fixture is one it expects: nothing reported by accident.
    for p in &report.problems {
        let e = (
            p.severity,
            p.key.clone().unwrap_or_default(),
            p.line.unwrap_or(0),
        );
        assert!(
            expected.contains(&e),
            "{}: unexpected {p:?}",
            path.display()
        );
    }
}

#[test]
fn valid_fixtures_are_valid() {
    for path in fixtures("valid") {
        check_fixture(&path, true);
    }
}

#[test]
fn invalid_fixtures_name_key_and_line() {
    for path in fixtures("invalid") {
        check_fixture(&path, false);
    }
}

#[test]
fn every_problem_is_reported_not_only_the_first() {
    let text = "#cloud-config\nruncmd: 1\nbootcmd: 2\nwrite_files:\n  - path: /a\n    defer: 3\n";
    let report = check(text, Kind::UserData, &Limits::default());
    let keys: Vec<&str> = report
        .problems
        .iter()
        .map(|p| p.key.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(keys, ["runcmd", "bootcmd", "write_files.0.defer"]);
}

#[test]
fn image_config_needs_no_header() {
    let report = check(
        "datasource_list: [NoCloud]\n",
        Kind::ImageConfig,
        &Limits::default(),
    );
    assert!(report.is_valid(), "{report:?}");
    let report = check(
        "datasource_list: [NoCloud]\n",
        Kind::UserData,
        &Limits::default(),
    );
    assert!(!report.is_valid());
}

#[test]
fn messages_never_quote_values() {
    let text = "#cloud-config\nhostname: [s3cr3t-value]\nusers:\n  - name: x\n    passwd: 7\n";
    let report = check(text, Kind::UserData, &Limits::default());
    assert!(!report.is_valid());
    for p in &report.problems {
        assert!(
            !p.message.contains("s3cr3t") && !p.message.contains('7'),
            "{p:?}"
        );
    }
}

/// A fresh directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ember-schema-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn initrd() -> &'static str {
    common::EMBER_INITRD
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = common::run(cmd);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn runner_hands_over_and_prints_key_line_message() {
    let dir = scratch("runner");
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "#cloud-config\nwrite_files:\n  - path: /a\n    permissions: 0644\n",
    )
    .unwrap();
    let (code, _, err) = run(Command::new(common::EMBER)
        .env("EMBER_INITRD", initrd())
        .args(["schema", "--config-file"])
        .arg(&bad));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with(&format!("Error: Invalid schema: {}\n", bad.display())),
        "{err}"
    );
    assert!(
        err.contains("write_files.0.permissions: line 4: must be"),
        "{err}"
    );

    let good = dir.join("good.yaml");
    std::fs::write(&good, "#cloud-config\nruncmd: [ls]\n").unwrap();
    for args in [&["schema", "-c"][..], &["devel", "schema", "-c"][..]] {
        let (code, out, err) = run(Command::new(common::EMBER)
            .env("EMBER_INITRD", initrd())
            .args(args)
            .arg(&good));
        assert_eq!(
            (code, out),
            (0, format!("Valid schema {}\n", good.display())),
            "{err}"
        );
    }
    // Neither source: cloud-init's message and exit status; an unknown option stays a usage error.
    let (code, _, err) = run(Command::new(initrd()).args(["schema"]));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "Error:\nExpected one of --config-file or --system arguments\n"
    );
    let (code, _, _) = run(Command::new(initrd()).args(["schema", "--bogus"]));
    assert_eq!(code, 2);

    // Called as cloud-init, the runner answers the same.
    let alias = dir.join("cloud-init");
    std::os::unix::fs::symlink(common::EMBER, &alias).unwrap();
    let (code, out, _) = run(Command::new(&alias)
        .env("EMBER_INITRD", initrd())
        .args(["schema", "--config-file"])
        .arg(&good));
    assert_eq!(
        (code, out),
        (0, format!("Valid schema {}\n", good.display()))
    );
}

#[test]
fn annotate_hides_secrets_of_a_document_that_does_not_parse() {
    let f = scratch("annotate-broken").join("u.yaml");
    std::fs::write(
        &f,
        "#cloud-config\nusers:\n  - name: bob\n    passwd: TOPSECRET4\n  [\n",
    )
    .unwrap();
    let (code, out, _) = run(Command::new(initrd())
        .args(["schema", "--annotate", "-c"])
        .arg(&f));
    assert_eq!(code, 1);
    assert!(!out.contains("TOPSECRET"), "{out}");
    assert!(out.contains("# E1: format-l"), "{out}");
}

#[test]
fn annotate_marks_lines_and_hides_secrets() {
    let f = scratch("annotate").join("u.yaml");
    let text = "#cloud-config\nusers:\n  - name: bob\n    passwd: TOPSECRET1\n    bogus: 1\n\
                chpasswd:\n  list: |\n    root:TOPSECRET2\nssh_keys:\n  rsa_private: |\n    TOPSECRET3\n\
                salt_minion:\n  private_key: |\n    TOPSECRET4\n\
                chef:\n  validation_cert: TOPSECRET5\n\
                mcollective:\n  conf:\n    private-cert: TOPSECRET6\n\
                ubuntu_pro:\n  token: TOPSECRET7\n\
                landscape:\n  client:\n    registration_key: TOPSECRET8\n\
                rh_subscription:\n  activation_key: TOPSECRET9\n\
                lxd:\n  init:\n    trust_password: TOPSECRETA\n";
    std::fs::write(&f, text).unwrap();
    let (code, out, _) = run(Command::new(initrd())
        .args(["schema", "--annotate", "-c"])
        .arg(&f));
    assert_eq!(code, 1);
    assert!(!out.contains("TOPSECRET"), "{out}");
    assert!(out.contains("    bogus: 1\t\t# E1\n"), "{out}");
    assert!(
        out.contains("# Errors: -------------\n# E1: users.0.bogus: "),
        "{out}"
    );
    assert!(out.contains("# D1: chpasswd.list: "), "{out}");
}

#[test]
fn system_checks_image_config_and_user_data() {
    let root = scratch("system");
    let p = root.as_path();
    std::fs::create_dir_all(p.join("etc/cloud/cloud.cfg.d")).unwrap();
    std::fs::create_dir_all(p.join("var/lib/cloud/instances/i-1")).unwrap();
    std::os::unix::fs::symlink("instances/i-1", p.join("var/lib/cloud/instance")).unwrap();
    std::fs::write(p.join("etc/cloud/cloud.cfg"), "users: [default]\n").unwrap();
    std::fs::write(
        p.join("etc/cloud/cloud.cfg.d/90.cfg"),
        "growpart: {mode: on}\n",
    )
    .unwrap();
    let ud = p.join("var/lib/cloud/instance/user-data.txt");
    std::fs::write(&ud, "#cloud-config\nruncmd: [ls]\n").unwrap();
    let (code, out, err) = run(Command::new(initrd())
        .args(["schema", "--system", "--target"])
        .arg(p));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("Valid schema /etc/cloud/cloud.cfg\n"), "{out}");
    assert!(
        out.contains(
            "user-data at /var/lib/cloud/instance/user-data.txt:\nValid schema user-data\n"
        ),
        "{out}"
    );
    assert!(
        err.contains(
            "Error: Invalid schema: /etc/cloud/cloud.cfg.d/90.cfg\ngrowpart.mode: line 1: "
        ),
        "{err}"
    );

    std::fs::write(
        p.join("etc/cloud/cloud.cfg.d/90.cfg"),
        "growpart: {mode: auto}\n",
    )
    .unwrap();
    std::fs::write(&ud, "#!/bin/sh\necho hi\n").unwrap();
    let (code, out, err) = run(Command::new(initrd())
        .args(["schema", "--system", "--target"])
        .arg(p));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("is a script: no cloud-config to check"),
        "{out}"
    );
}

/// `ember-initrd all` on `m` from a NoCloud seed of instance i-1 with `user_data`.
fn boot_nocloud(m: &common::Machine, user_data: &str) -> std::process::Output {
    m.write(&m.host, "seed/meta-data", b"instance-id: i-1\n");
    m.write(&m.host, "seed/user-data", user_data.as_bytes());
    m.cmdline("ro ds=nocloud;s=/seed/");
    m.initrd("all")
}

/// Expected: the boot and `schema` name the same growpart key paths, since both call its one
/// reader. The severities differ where cloud-init's do (issue 21 item 8): its schema calls a
/// device that is not a string an error, its module skips that device and goes on, so at
/// boot it is a warning.
#[test]
fn boot_and_schema_name_the_same_growpart_keys() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schema/invalid/growpart_devices.yaml");
    let text = std::fs::read_to_string(fixture).unwrap();
    let said = |sev: &str, key: &str| format!("{}@{key}", sev.to_lowercase());
    let report = check(&text, Kind::UserData, &Limits::default());
    let mut by_schema: Vec<String> = report
        .problems
        .iter()
        .map(|p| {
            said(
                &format!("{:?}", p.severity),
                p.key.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    let m = common::Machine::new("schema-boot-growpart");
    boot_nocloud(&m, &text);
    let mut at_boot: Vec<String> = m
        .diags()
        .iter()
        .filter(|d| d["key"].as_str().is_some_and(|k| k.starts_with("growpart")))
        .map(|d| said(d["severity"].as_str().unwrap(), d["key"].as_str().unwrap()))
        .collect();
    by_schema.sort();
    at_boot.sort();
    assert_eq!(
        by_schema,
        ["error@growpart.devices.1", "warning@growpart.mystery"]
    );
    assert_eq!(
        at_boot,
        ["warning@growpart.devices.1", "warning@growpart.mystery"]
    );
}

/// Issue 21 item 5: user-data of another part type is not evaluated and is no error, as
/// cloud-init's schema command says; a Jinja template is rendered over the instance data under
/// `--target` and the result checked; an unknown first line is still an error.
#[test]
fn other_user_data_types_are_skipped_and_templates_rendered() {
    let dir = scratch("types");
    let file = dir.join("user-data");
    let check_file = |text: &str| {
        std::fs::write(&file, text).unwrap();
        run(Command::new(initrd())
            .args(["schema", "--target"])
            .arg(&dir)
            .arg("--config-file")
            .arg(&file))
    };
    for (text, kind) in [
        ("#!/bin/sh\necho hi\n", "text/x-shellscript"),
        ("#cloud-boothook\necho hi\n", "text/cloud-boothook"),
        (
            "#include\nhttp://example.invalid/ud\n",
            "text/x-include-url",
        ),
        (
            "#part-handler\ndef list_types(): return []\n",
            "text/part-handler",
        ),
        (
            "#cloud-config-archive\n- content: x\n",
            "text/cloud-config-archive",
        ),
    ] {
        let (code, out, err) = check_file(text);
        assert_eq!(code, 0, "{kind}: {err}");
        let want = format!("User-data type '{kind}' not currently evaluated by cloud-init schema");
        assert!(out.contains(&want), "{kind}: {out}");
    }
    let (code, _, err) = check_file("hello: world\n");
    assert_eq!(code, 1);
    assert!(err.contains("needs to begin with"), "{err}");

    // Without instance data there is nothing to render with: an error, as cloud-init's.
    let template = "## template: jinja\n#cloud-config\nhostname: {{ v1.local_hostname }}\nwrite_files: {{ v1.region }}\n";
    let (code, _, err) = check_file(template);
    assert_eq!(code, 1);
    assert!(
        err.contains("no instance data to render it with (not yet present at"),
        "{err}"
    );
    std::fs::create_dir_all(dir.join("run/ember")).unwrap();
    std::fs::write(
        dir.join("run/ember/instance-data.json"),
        r#"{"v1": {"local_hostname": "box", "region": "[{path: /etc/x, content: y}]"}}"#,
    )
    .unwrap();
    let (code, out, err) = check_file(template);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Valid schema") && out.contains("rendered from its Jinja"),
        "{out}"
    );
    // What the template makes is checked: here write_files that is no list.
    std::fs::write(
        dir.join("run/ember/instance-data.json"),
        r#"{"v1": {"local_hostname": "box", "region": "7"}}"#,
    )
    .unwrap();
    let (code, _, err) = check_file(template);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("write_files: line 3:"), "{err}");
}

/// ember's own image settings: a misspelt key or value is named, with its file, by the boot
/// (status) and by `schema --system`, with the same severities (one reader, config::ember).
#[test]
fn boot_and_schema_name_the_same_ember_settings() {
    let m = common::Machine::new("schema-boot-ember");
    let cfg = "ember:\n  rsa_hostkey: before-sshd\n  removable_seeds: firstboot\n  limits: {file_bytes: 65536}\n";
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-ember.cfg",
        cfg.as_bytes(),
    );
    boot_nocloud(&m, "#cloud-config\nruncmd: [ls]\n");
    let mut at_boot: Vec<String> = m
        .diags()
        .iter()
        .filter(|d| d["key"].as_str().is_some_and(|k| k.starts_with("ember")))
        .map(|d| format!("{}@{} in {}", d["severity"], d["key"], d["file"]))
        .collect();
    at_boot.sort();
    let file = "\"/etc/cloud/cloud.cfg.d/90-ember.cfg\"";
    assert_eq!(
        at_boot,
        [
            format!("\"warning\"@\"ember.removable_seeds\" in {file}"),
            format!("\"warning\"@\"ember.rsa_hostkey\" in {file}"),
        ]
    );
    let (code, out, err) = run(Command::new(initrd())
        .args(["schema", "--system", "--target"])
        .arg(&m.target));
    assert_eq!(code, 0, "warnings only: {out}{err}");
    for key in ["ember.rsa_hostkey: line 2", "ember.removable_seeds: line 3"] {
        assert!(out.contains(key) || err.contains(key), "{key}: {out}{err}");
    }
}

/// Budgets and the removable-seed gate are the image's: user-data that sets them is told so,
/// at boot and by `schema`, and its budget is not applied (this user-data is over 8 bytes).
#[test]
fn user_data_cannot_set_the_images_ember_settings() {
    let text = "#cloud-config\nember:\n  limits: {file_bytes: 8}\n  rsa_host_key: before-sshd\nruncmd: [ls]\n";
    let report = check(text, Kind::UserData, &Limits::default());
    let by_schema: Vec<_> = report.problems.iter().map(|p| p.key.clone()).collect();
    assert_eq!(by_schema, [Some("ember.limits".to_string())]);

    let m = common::Machine::new("schema-boot-ember-ud");
    assert_eq!(boot_nocloud(&m, text).status.code(), Some(0));
    let at_boot: Vec<String> = m
        .diags()
        .iter()
        .filter_map(|d| {
            Some(format!(
                "{}@{}",
                d["severity"].as_str()?,
                d["key"].as_str()?
            ))
        })
        .collect();
    assert_eq!(at_boot, ["warning@ember.limits"]);
}

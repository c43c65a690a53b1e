//! cloud-init's commands beyond status and query, through the built binaries: `cloud-id`
//! (also by that name), `features`, `query --format` with Jinja, `devel render`,
//! `devel make-mime` (its output booted through `ember-initrd all`), `--help` on every
//! command, `net-convert -D`, and ember-initrd found beside the runner without `EMBER_INITRD`.

use crate::common;
use common::{stderr, stdout, Machine};
use ember::status::{StageState, StageStatus, Status, STAGES};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("ember-cli-tools-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["run/ember", "run/cloud-init", "bin"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        Dir(dir)
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
    fn write(&self, rel: &str, data: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::write(&path, data).unwrap();
        path
    }
    /// Every stage done, as the runner leaves status.json after final.
    fn done(&self) {
        let mut st = Status::new();
        for (i, name) in STAGES.iter().enumerate() {
            let mut s = StageStatus::started(1.0 + i as f64, 1_708_550_000.0, 1);
            s.state = StageState::Done;
            s.finished = Some(1.5 + i as f64);
            st.stages.insert(name.to_string(), s);
        }
        self.write(
            "run/ember/status.json",
            &serde_json::to_string(&st).unwrap(),
        );
    }
    fn instance_data(&self, v: &serde_json::Value) {
        for f in ["instance-data.json", "instance-data-sensitive.json"] {
            self.write(&format!("run/cloud-init/{f}"), &v.to_string());
        }
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ember(d: &Dir, args: &[&str]) -> Output {
    common::run(
        Command::new(common::EMBER)
            .arg("--run")
            .arg(d.path("run"))
            .args(args),
    )
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

fn ec2() -> serde_json::Value {
    json!({
        "v1": {"cloud_name": "aws", "region": "cn-north-1", "platform": "ec2",
               "instance_id": "i-0abc"},
        "ds": {"meta_data": {"local-hostname": "web-1.internal", "tags": ["a", "b"]}},
    })
}

#[test]
fn cloud_id_words_and_exit_codes() {
    let d = Dir::new("cloud-id");
    // Not started: the word and 3; disabled: the word and 2.
    let out = ember(&d, &["cloud-id"]);
    assert_eq!((stdout(&out).as_str(), code(&out)), ("not started\n", 3));
    d.write("run/cloud-init/disabled", "");
    let out = ember(&d, &["cloud-id"]);
    assert_eq!((stdout(&out).as_str(), code(&out)), ("disabled\n", 2));
    std::fs::remove_file(d.path("run/cloud-init/disabled")).unwrap();

    d.done();
    let out = ember(&d, &["cloud-id"]);
    assert_eq!(code(&out), 1, "no instance data is an error");
    assert!(stderr(&out).contains("instance-data"), "{}", stderr(&out));

    d.instance_data(&ec2());
    let out = ember(&d, &["cloud-id"]);
    assert_eq!((stdout(&out).as_str(), code(&out)), ("aws-china\n", 0));
    let out = ember(&d, &["cloud-id", "--long"]);
    assert_eq!(stdout(&out), "aws-china\tcn-north-1\n");
    let out = ember(&d, &["cloud-id", "-j"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["cloud_id"], "aws-china");
    assert_eq!(v["instance_id"], "i-0abc");
    assert!(
        stdout(&out).starts_with("{\n \"cloud_id\""),
        "indent 1, sorted"
    );

    // -i names another file; no region gives the cloud name, and --long says unknown.
    let other = d.write("other.json", r#"{"v1": {"cloud_name": "nocloud"}}"#);
    let out = ember(&d, &["cloud-id", "-l", "-i", other.to_str().unwrap()]);
    assert_eq!(stdout(&out), "nocloud\tunknown\n");

    // Installed as `cloud-id` (a symlink to ember), the whole command line is cloud-id's.
    let link = d.path("bin/cloud-id");
    std::os::unix::fs::symlink(common::EMBER, &link).unwrap();
    let out = common::run(Command::new(&link).arg("--run").arg(d.path("run")));
    assert_eq!((stdout(&out).as_str(), code(&out)), ("aws-china\n", 0));
    let out = common::run(Command::new(&link).arg("--bogus"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("usage: cloud-id "),
        "{}",
        stderr(&out)
    );
    let out = common::run(Command::new(&link).arg("--help"));
    assert_eq!(code(&out), 0);
    assert!(
        stdout(&out).starts_with("usage: cloud-id [-j|--json]"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn features_lists_cloud_inits_flags() {
    let d = Dir::new("features");
    let out = ember(&d, &["features"]);
    assert_eq!(
        (stdout(&out).as_str(), code(&out)),
        ("NETWORK_CONFIG_V1\nNETWORK_CONFIG_V2\n", 0)
    );
}

#[test]
fn query_format_is_jinja() {
    let d = Dir::new("query-format");
    d.instance_data(&ec2());
    let q = |t: &str| ember(&d, &["query", "--format", t]);
    let out = q("{{ ds.meta_data.local_hostname }} {{ v1.instance_id | upper }}\
                 {% for t in ds.meta_data.tags %} {{ t }}{% endfor %}{% if region %} {{ region }}{% endif %}");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "web-1.internal I-0ABC a b cn-north-1\n");
    // An undefined variable renders empty (with a warning naming it); nothing at all is 1,
    // as cloud-init's query exits on an empty render.
    let out = q("{{ nope }}");
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("nope"), "{}", stderr(&out));
    let out = q("{% if %}");
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("--format: line 1"),
        "{}",
        stderr(&out)
    );
    // --user-data replaces the instance's user-data.txt for `userdata` (root only).
    if rustix::process::geteuid().is_root() {
        let ud = d.write("ud.txt", "#cloud-config\nmarker: 7\n");
        let out = ember(&d, &["query", "-u", ud.to_str().unwrap(), "userdata"]);
        assert_eq!(stdout(&out), "#cloud-config\nmarker: 7\n\n");
        let out = ember(
            &d,
            &["query", "-u", ud.to_str().unwrap(), "-f", "{{ userdata }}"],
        );
        assert_eq!(stdout(&out), "#cloud-config\nmarker: 7\n\n");
    }
}

#[test]
fn devel_render_renders_as_the_boot_does() {
    let d = Dir::new("render");
    d.instance_data(&ec2());
    let ud = d.write(
        "user-data",
        "## template: jinja\n#cloud-config\nhostname: {{ ds.meta_data.local_hostname }}\n",
    );
    let out = ember(&d, &["devel", "render", ud.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "#cloud-config\nhostname: web-1.internal");
    // -i picks the instance data; a file without the header is refused with its name.
    let other = d.write(
        "other.json",
        r#"{"ds": {"meta_data": {"local-hostname": "db"}}}"#,
    );
    let out = ember(
        &d,
        &[
            "devel",
            "render",
            ud.to_str().unwrap(),
            "-i",
            other.to_str().unwrap(),
        ],
    );
    assert_eq!(stdout(&out), "#cloud-config\nhostname: db");
    let plain = d.write("plain", "#cloud-config\n{}\n");
    let out = ember(&d, &["devel", "render", plain.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("plain: not a template"),
        "{}",
        stderr(&out)
    );
    let broken = d.write("broken", "## template: jinja\n#cloud-config\n{% for %}\n");
    let out = ember(&d, &["devel", "render", broken.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("broken: line 3"), "{}", stderr(&out));
}

/// `--mark-missing`, as the runner's apt module renders the image's sources templates:
/// cloud-init's marker for a missing variable, and its trim_blocks.
#[test]
fn initrd_render_marks_missing_variables_on_request() {
    let d = Dir::new("render-marked");
    let data = d.write(
        "vars.json",
        r#"{"mirror": "http://m/debian", "codename": "bookworm", "primary_key": ""}"#,
    );
    let t = d.write(
        "sources.tmpl",
        "## template: jinja\nURIs: {{ mirror }}\n\
         Suites: {{codename}}{% if codename in ('buster', 'stretch') %}/updates{% else %}-security{% endif %} main\n\
         Signed-By: {{ primary_key | default('/usr/share/keyrings/k.gpg', true) }}\n\
         X: {{ security_key | default(primary_key, true) | default('d', true) }} {{ nope }}\n\
         A{% if mirror %}b{% endif %}\nC{% if mirror %}d{% endif +%}\nE\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["render", t.to_str().unwrap(), "-i", data.to_str().unwrap()];
        args.extend(extra);
        common::run(Command::new(common::EMBER_INITRD).args(&args))
    };
    let out = run(&["--mark-missing"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // (Jinja drops the last newline; the modules put it back.)
    assert_eq!(
        stdout(&out),
        "URIs: http://m/debian\nSuites: bookworm-security main\n\
         Signed-By: /usr/share/keyrings/k.gpg\nX: d CI_MISSING_JINJA_VAR/nope\nAbCd\nE"
    );
    assert!(
        stderr(&out).contains("rendered as CI_MISSING_JINJA_VAR/NAME: nope"),
        "{}",
        stderr(&out)
    );
    let out = run(&[]);
    assert!(stdout(&out).contains("X: d \nAbCd"), "{}", stdout(&out));
}

#[test]
fn make_mime_output_boots() {
    let d = Dir::new("make-mime");
    let out = ember(&d, &["devel", "make-mime", "--list-types"]);
    let types = stdout(&out);
    assert!(
        types.starts_with("cloud-boothook\ncloud-config\n"),
        "{types}"
    );
    assert!(types.contains("\njinja2\n") && types.ends_with("x-shellscript-per-once\n"));

    let cfg = d.write("config.yaml", "#cloud-config\nhostname: mime-host\n");
    let sh = d.write("script.sh", "#!/bin/sh\necho ran\n");
    let attach = |f: &Path, t: &str| format!("{}:{t}", f.display());
    let (a, b) = (attach(&cfg, "cloud-config"), attach(&sh, "x-shellscript"));
    let out = ember(&d, &["devel", "make-mime", "-a", &a, "-a", &b]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mime = stdout(&out);
    assert!(mime.starts_with("Content-Type: multipart/mixed; boundary=\"==============="));

    // An unknown type is an error, or with --force a warning and the message anyway.
    let bad = attach(&cfg, "bogus");
    let out = ember(&d, &["devel", "make-mime", "-a", &bad]);
    assert_eq!((stdout(&out).as_str(), code(&out)), ("", 1));
    assert!(stderr(&out).contains("ERROR: content type 'text/bogus' for attachment 1"));
    let out = ember(&d, &["devel", "make-mime", "-a", &bad, "--force"]);
    assert_eq!(code(&out), 0);
    assert!(stderr(&out).contains("WARNING: content type 'text/bogus'"));
    let out = ember(&d, &["devel", "make-mime", "-a", "no-colon"]);
    assert_eq!(code(&out), 2);

    // The boot reads both parts: the config's hostname and the script.
    let m = Machine::new("make-mime");
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", "instance-id: i-mime\n"), ("user-data", &mime)],
    );
    let out = m.initrd("all");
    assert_eq!(code(&out), 0, "{}", common::text(&out));
    assert_eq!(m.target_file("etc/hostname"), "mime-host\n");
    // Named after the part's file name, as the handler cleans it.
    let scripts = m.target.join("var/lib/cloud/instances/i-mime/scripts");
    let found: Vec<String> = std::fs::read_dir(&scripts)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect();
    assert_eq!(found, ["#!/bin/sh\necho ran\n"], "{}", scripts.display());
}

/// The commands `ember --help` lists.
fn listed_commands() -> Vec<String> {
    let out = common::run(Command::new(common::EMBER).arg("--help"));
    let text = stdout(&out);
    let section = text
        .split("commands:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    section
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn help_on_every_command_exits_0() {
    let commands = listed_commands();
    assert!(commands.len() > 10 && commands.contains(&"cloud-id".to_string()));
    let mut lines: Vec<Vec<&str>> = commands.iter().map(|c| vec![c.as_str()]).collect();
    for sub in ["net-convert", "schema", "render", "make-mime"] {
        lines.push(vec!["devel", sub]);
    }
    for line in lines {
        for flag in ["--help", "-h"] {
            let mut args = line.clone();
            args.push(flag);
            let out = common::run(Command::new(common::EMBER).args(&args));
            assert_eq!(code(&out), 0, "ember {args:?}: {}", common::text(&out));
            let want = format!("usage: ember {}", line.join(" "));
            assert!(
                stdout(&out).starts_with(&want),
                "ember {args:?}: {}",
                stdout(&out)
            );
        }
    }
    let initrd_lines: &[&[&str]] = &[
        &["net-convert", "--help"],
        &["net-convert", "-k", "yaml", "-h"],
        &["schema", "--help"],
        &["render", "--help"],
        &["dhcp", "--help"],
        &["--host=/", "dhcp", "-h"],
        &["detect", "--help"],
    ];
    for cmd in initrd_lines {
        let out = common::run(Command::new(common::EMBER_INITRD).args(*cmd));
        assert_eq!(
            code(&out),
            0,
            "ember-initrd {cmd:?}: {}",
            common::text(&out)
        );
        // schema's help names the command as `ember schema`, the way users call it.
        assert!(
            stdout(&out).starts_with("usage: ember"),
            "{cmd:?}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn net_convert_takes_cloud_inits_distro_flag() {
    let d = Dir::new("net-convert");
    let cfg = d.write(
        "net.yaml",
        "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
    );
    let cfg = cfg.to_str().unwrap();
    for (i, distro) in [
        "-D debian",
        "--distro ubuntu",
        "--distro=rhel",
        "-Dfedora",
        "--debug -D sles",
    ]
    .iter()
    .enumerate()
    {
        let out_dir = d.path(&format!("out{i}"));
        let mut args = vec![
            "devel",
            "net-convert",
            "-p",
            cfg,
            "-k",
            "yaml",
            "-O",
            "networkd",
        ];
        args.extend(["-d", out_dir.to_str().unwrap()]);
        args.extend(distro.split(' '));
        let out = ember(&d, &args);
        assert_eq!(code(&out), 0, "{distro}: {}", common::text(&out));
        assert!(
            out_dir.join("etc/systemd/network").is_dir(),
            "{distro}: nothing written"
        );
    }
}

#[test]
fn ember_initrd_is_found_beside_the_runner() {
    // A copy of ember with a stand-in ember-initrd beside it: no EMBER_INITRD, and
    // /usr/lib/ember/ember-initrd is not what answers.
    let d = Dir::new("beside");
    let runner = d.path("bin/ember");
    std::fs::copy(common::EMBER, &runner).unwrap();
    let fake = d.write("bin/ember-initrd", "#!/bin/sh\necho \"beside: $*\"\n");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let run = |bin: &Path, args: &[&str]| {
        common::run(Command::new(bin).args(args).env_remove("EMBER_INITRD"))
    };
    let out = run(&runner, &["net-convert", "-k", "yaml", "x"]);
    assert_eq!(
        stdout(&out),
        "beside: net-convert -k yaml x\n",
        "{}",
        stderr(&out)
    );
    let out = run(&runner, &["schema", "--system", "--target", "/t"]);
    assert_eq!(stdout(&out), "beside: schema --system --target /t\n");
    // Called through a `cloud-init` symlink elsewhere: beside the binary, not the link.
    let link_dir = d.path("links");
    std::fs::create_dir_all(&link_dir).unwrap();
    std::os::unix::fs::symlink(&runner, link_dir.join("cloud-init")).unwrap();
    let out = run(
        &link_dir.join("cloud-init"),
        &["devel", "schema", "-c", "f"],
    );
    assert_eq!(stdout(&out), "beside: schema -c f\n");

    // Without one beside it (and none installed), the error names where it looked.
    let installed = "/usr/lib/ember/ember-initrd";
    if Path::new(installed).exists() {
        common::skip(&format!(
            "the not-found half of ember_initrd_is_found_beside_the_runner: {installed} is installed and would answer"
        ));
    } else {
        std::fs::remove_file(&fake).unwrap();
        let out = run(&runner, &["net-convert", "-k", "yaml", "x"]);
        assert_eq!(code(&out), 1);
        let err = stderr(&out);
        assert!(
            err.contains(&fake.display().to_string()) && err.contains("EMBER_INITRD"),
            "{err}"
        );
    }
}

#[test]
fn generator_links_stand_ins_only_without_cloud_init() {
    let d = Dir::new("generator");
    let root = d.path("root");
    let compat = root.join("usr/lib/ember/systemd");
    std::fs::create_dir_all(&compat).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("dist/systemd");
    for e in std::fs::read_dir(src.join("cloud-init-compat")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), compat.join(e.file_name())).unwrap();
    }
    let normal = d.path("normal");
    let generate = |late: &Path| {
        let out = common::run(
            Command::new(src.join("ember-generator"))
                .arg(&normal)
                .arg(d.path("early"))
                .arg(late)
                .env("EMBER_GENERATOR_ROOT", &root),
        );
        assert_eq!(code(&out), 0, "{}", common::text(&out));
    };
    let late = d.path("late");
    generate(&late);
    // No cloud-init: the stand-ins get no condition (they mark the points ember reached).
    assert!(!normal.join("cloud-final.service.d").exists());
    for unit in [
        "cloud-final.service",
        "cloud-config.service",
        "cloud-init.target",
    ] {
        let link = std::fs::read_link(late.join(unit)).unwrap();
        assert_eq!(link, Path::new("/usr/lib/ember/systemd").join(unit));
    }
    let wants = std::fs::read_link(late.join("multi-user.target.wants/cloud-init.target"));
    assert_eq!(wants.unwrap(), Path::new("../cloud-init.target"));

    // cloud-init installed (or its final unit masked): nothing is linked.
    let system = root.join("usr/lib/systemd/system");
    std::fs::create_dir_all(&system).unwrap();
    std::os::unix::fs::symlink("/dev/null", system.join("cloud-final.service")).unwrap();
    let late = d.path("late2");
    generate(&late);
    assert!(!late.exists(), "stand-ins linked beside cloud-init's units");
    // ... and each of cloud-init's stages stands down on a boot ember-initrd provisioned.
    for unit in [
        "cloud-init-local.service",
        "cloud-init-main.service",
        "cloud-init-network.service",
        "cloud-init.service",
        "cloud-config.service",
        "cloud-final.service",
    ] {
        let dropin = std::fs::read_to_string(normal.join(format!("{unit}.d/50-ember.conf")));
        let dropin = dropin.unwrap_or_else(|e| panic!("{unit}: {e}"));
        assert!(
            dropin.contains(
                "[Unit]\nConditionPathExists=!/run/ember/handoff.json\n\
                 ConditionPathExists=!/run/ember/refused\n"
            ),
            "{unit}: {dropin}"
        );
    }
    // Skipped, they still end after ember's step in their place.
    for (unit, after) in [
        ("cloud-final.service", "\nAfter=ember-final.service\n"),
        ("cloud-config.service", "\nAfter=ember-config.service\n"),
        ("cloud-init.service", "\nAfter=ember-init.service\n"),
    ] {
        let dropin = std::fs::read_to_string(normal.join(format!("{unit}.d/50-ember.conf")));
        assert!(dropin.unwrap().contains(after), "{unit}");
    }
    let local = std::fs::read_to_string(normal.join("cloud-init-local.service.d/50-ember.conf"));
    assert!(!local.unwrap().contains("After="));
}

/// ember-local.service is enabled on a boot with no ember stage in the initramfs (no
/// /run/ember/status.json), and only when it is installed; never in an initrd; and the
/// stand-ins are linked as before either way.
#[test]
fn generator_enables_the_early_unit_only_without_an_initramfs_stage() {
    let d = Dir::new("generator-local");
    let root = d.path("root");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("dist/systemd");
    let generate = |name: &str| -> std::path::PathBuf {
        let normal = d.path(name);
        let out = common::run(
            Command::new(src.join("ember-generator"))
                .arg(&normal)
                .arg(d.path(&format!("{name}-early")))
                .arg(d.path(&format!("{name}-late")))
                .env("EMBER_GENERATOR_ROOT", &root),
        );
        assert_eq!(code(&out), 0, "{}", common::text(&out));
        normal.join("sysinit.target.wants/ember-local.service")
    };
    std::fs::create_dir_all(&root).unwrap();
    // Not installed: nothing to enable.
    assert!(!generate("none").exists());

    let system = root.join("usr/lib/systemd/system");
    std::fs::create_dir_all(&system).unwrap();
    std::fs::copy(
        src.join("ember-local.service"),
        system.join("ember-local.service"),
    )
    .unwrap();
    let link = generate("first");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("/usr/lib/systemd/system/ember-local.service")
    );

    // The initramfs ran ember-initrd this boot (provisioned, or found it disabled).
    let run = root.join("run/ember");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("status.json"), b"{}").unwrap();
    assert!(std::fs::symlink_metadata(generate("initramfs-ran")).is_err());
    std::fs::remove_file(run.join("status.json")).unwrap();

    // systemd's own initrd: the booted system's unit is not for it.
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/initrd-release"), b"").unwrap();
    assert!(std::fs::symlink_metadata(generate("initrd")).is_err());
}

//! `text/part-handler` user-data: the protocol for real (ember's driver run by the host's
//! /usr/bin/python3 against a temporary directory), the runner's init step against a chroot
//! target whose `python3` is a recording fake, and ember-initrd keeping the parts (0600, in
//! the handoff) only where the target has python3.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The driver the runner writes into the target: the same file, compiled into it.
const DRIVER: &str = include_str!("../../crates/runner/src/part_handlers/driver.py");
const PYTHON: &str = "/usr/bin/python3";

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(name: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("ember-ph-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Dir(d)
}

/// A handler that appends `<tag> <ctype> <filename> <payload type> <payload>` (and the
/// frequency for version 2) to `log`, listing `types`.
fn recorder(log: &Path, tag: &str, types: &str, extra: &str) -> String {
    format!(
        "#part-handler\n{extra}\n\
         def list_types():\n    return {types}\n\n\
         def handle_part(data, ctype, filename, payload, *rest):\n    \
         kind = type(payload).__name__\n    \
         with open({log:?}, 'a') as f:\n        \
         f.write(' '.join(str(x) for x in ({tag:?}, data, ctype, filename, kind, payload) + rest) + '\\n')\n",
        log = log.display().to_string(),
    )
}

struct Entries {
    dir: PathBuf,
    list: Vec<Value>,
}

impl Entries {
    fn add(&mut self, source: &str, ctype: &str, filename: &str, payload: &[u8]) {
        let n = self.list.len();
        let path = self.dir.join(format!("e{n}"));
        std::fs::write(&path, payload).unwrap();
        self.list.push(json!({
            "source": source, "name": format!("{source} part {n}"),
            "path": path, "content_type": ctype, "filename": filename,
        }));
    }
}

fn drive(dir: &Path, entries: &[Value], frequency: &str) -> Value {
    let driver = dir.join("driver.py");
    std::fs::write(&driver, DRIVER).unwrap();
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, json!({"entries": entries}).to_string()).unwrap();
    let results = dir.join("results.json");
    let _ = std::fs::remove_file(&results);
    let out = Command::new(PYTHON)
        .arg("-B")
        .args([&driver, &manifest, &results])
        .arg(frequency)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let mode = std::fs::metadata(&results).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap()
}

fn lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_driver_speaks_cloud_inits_protocol() {
    if !Path::new(PYTHON).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "scripts/setup installs python3"
        );
        return common::skip("no /usr/bin/python3");
    }
    let d = tempdir("protocol");
    let log = d.0.join("calls.log");
    let mut e = Entries {
        dir: d.0.clone(),
        list: Vec::new(),
    };
    let a = recorder(
        &log,
        "A",
        "['text/x-a', 'text/plain', 'application/x-bin']",
        "",
    );
    let b = recorder(
        &log,
        "B",
        "['text/x-a', 'text/x-b', 'text/x-shellscript']",
        "handler_version = 2\nfrequency = 'always'",
    );
    e.add(
        "user-data",
        "text/x-other",
        "early.txt",
        b"before any handler\n",
    ); // 0
    e.add("user-data", "text/part-handler", "a.py", a.as_bytes()); // 1
    e.add("user-data", "text/x-a", "one.txt", b"first"); // 2
    e.add("user-data", "application/x-bin", "blob", b"\xff\x00"); // 3
    e.add("user-data", "text/part-handler", "b.py", b.as_bytes()); // 4
    e.add("user-data", "text/x-a", "two.txt", b"second"); // 5
    e.add(
        "user-data",
        "text/plain",
        "three.txt",
        "caf\u{e9}".as_bytes(),
    ); // 6
    e.add("user-data", "text/x-none", "none.txt", b"nobody"); // 7
    e.add("user-data", "text/x-none", "empty.txt", b""); // 8
    let raising = "#part-handler\ndef list_types():\n    return ['text/x-c']\n\n\
                   def handle_part(data, ctype, filename, payload):\n    \
                   if ctype == 'text/x-c':\n        raise KeyError('SECRET')\n";
    e.add("user-data", "text/part-handler", "c.py", raising.as_bytes()); // 9
    e.add("user-data", "text/x-c", "c.txt", b"SECRET"); // 10
    e.add(
        "user-data",
        "text/part-handler",
        "bad.py",
        b"def list_types(:\n",
    ); // 11
    let no_types = "def list_types():\n    raise OSError()\ndef handle_part(*a):\n    pass\n";
    e.add(
        "user-data",
        "text/part-handler",
        "t.py",
        no_types.as_bytes(),
    ); // 12
       // Vendor-data is walked on its own: user-data's handlers do not see its parts.
    e.add("vendor-data", "text/x-b", "v.txt", b"vendor"); // 13
    let v = recorder(&log, "V", "['text/x-v']", "");
    e.add("vendor-data", "text/part-handler", "v.py", v.as_bytes()); // 14
    e.add("vendor-data", "text/x-v", "v2.txt", b"vendor two"); // 15

    let r = drive(&d.0, &e.list, "once-per-instance");
    assert_eq!(
        lines(&log),
        [
            "A None __begin__ None NoneType None",
            "A None text/x-a one.txt str first",
            "A None application/x-bin blob bytes b'\\xff\\x00'",
            "B None __begin__ None NoneType None once-per-instance",
            "B None text/x-a two.txt str second once-per-instance",
            "A None text/plain three.txt str caf\u{e9}",
            // __end__ once per handler, in the order of the types they hold (cloud-init's
            // dict of types): B took text/x-a, the first type registered, over from A.
            "B None __end__ None NoneType None once-per-instance",
            "A None __end__ None NoneType None",
            "V None __begin__ None NoneType None",
            "V None text/x-v v2.txt str vendor two",
            "V None __end__ None NoneType None",
        ]
    );
    assert_eq!(
        r["claimed"],
        json!([[2, 1], [3, 1], [5, 4], [6, 1], [10, 9], [15, 14]])
    );
    // An empty part nobody claims is not worth a word, as in cloud-init.
    assert_eq!(r["unclaimed"], json!([0, 7, 13]));
    assert_eq!(r["builtin"], json!([[4, "text/x-shellscript"]]));
    let failed = r["failed"].as_array().unwrap();
    let calls: Vec<(u64, &str, &str)> = failed
        .iter()
        .map(|f| {
            (
                f["index"].as_u64().unwrap(),
                f["call"].as_str().unwrap(),
                f["error"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (9, "handle_part", "KeyError"),
            (11, "load", "SyntaxError"),
            (12, "list_types", "OSError"),
        ]
    );
    assert_eq!(failed[0]["part"], 10);
    assert_eq!(failed[0]["line"], 7, "the raise's line in the handler");
    assert!(!r.to_string().contains("SECRET"), "{r}");

    // A later boot: only the handler whose frequency is `always` is called, and told so.
    std::fs::remove_file(&log).unwrap();
    let r = drive(&d.0, &e.list, "always");
    assert_eq!(
        lines(&log),
        [
            "B None __begin__ None NoneType None always",
            "B None text/x-a two.txt str second always",
            "B None __end__ None NoneType None always",
        ]
    );
    assert_eq!(
        r["failed"].as_array().unwrap().len(),
        2,
        "load and list_types"
    );
}

const APPLETS: &[&str] = &["sh", "echo", "cat", "test", "[", "stat"];

/// A chroot target with instance i-ph's handler and part files, and a handoff naming them.
fn handler_machine(name: &str) -> (Machine, Value) {
    let m = Machine::new(name, APPLETS);
    let dir = "/var/lib/cloud/instances/i-ph/handlers";
    m.write(
        &format!("{dir}/part-handler-000.py"),
        "#part-handler\n",
        0o600,
    );
    m.write(&format!("{dir}/parts/part-001"), "custom\n", 0o600);
    let entry = |name: &str, path: String, ctype: &str, filename: &str| {
        json!({"source": "user-data", "name": name, "path": path, "content_type": ctype,
               "filename": filename})
    };
    let handoff = json!({
        "version": 1, "instance_id": "i-ph", "instance_dir": "i-ph", "datasource": "nocloud",
        "first_boot": true, "modules": [],
        "part_handlers": [
            entry("user-data part 1 (h.py)", format!("{dir}/part-handler-000.py"),
                  "text/part-handler", "h.py"),
            entry("user-data part 2 (c.txt)", format!("{dir}/parts/part-001"),
                  "text/x-custom", "c.txt"),
        ],
    });
    (m, handoff)
}

fn config_diags(m: &Machine) -> Vec<(String, String, String)> {
    let st = m.status();
    let mut out = Vec::new();
    for d in st["stages"]["config"]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(
            st["stages"]["config"]["recoverable_errors"]
                .as_array()
                .into_iter()
                .flatten(),
        )
    {
        // The init steps keep the step in `file` and where it happened in the message.
        assert_eq!(d["file"], "init/part-handlers");
        let message = d["message"].as_str().unwrap();
        let (part, msg) = match message.split_once(": ") {
            Some((part, msg)) if part.contains(" part ") => (part, msg),
            _ => ("", message),
        };
        out.push((
            d["code"].as_str().unwrap().to_string(),
            part.to_string(),
            msg.to_string(),
        ));
    }
    out
}

#[test]
fn init_runs_the_driver_with_the_targets_python3() {
    if cannot_chroot() {
        return;
    }
    let (m, handoff) = handler_machine("fake");
    // The fake checks what it was given (driver and manifest 0600, the frequency), keeps a
    // copy of the manifest, and answers as the driver would: one failure, one unclaimed part.
    m.fake(
        "/usr/bin/python3",
        "[ \"$1\" = -B ] || exit 9\n\
         stat -c '%a %n' \"$2\" \"$3\" >> /tools.log\n\
         cat \"$3\" > /manifest.copy\n\
         echo '{\"failed\": [{\"index\": 0, \"call\": \"__begin__\", \"part\": null, \
         \"error\": \"RuntimeError\", \"line\": 3}], \"unclaimed\": [1], \"claimed\": []}' > \"$4\"",
    );
    m.boot(&handoff);
    let out = m.ember("b1", &["init"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let dir = "/var/lib/ember/instances/i-ph/part-handlers";
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("python3 -B {dir}/driver.py {dir}/manifest.json {dir}/results.json once-per-instance"),
            format!("600 {dir}/driver.py"),
            format!("600 {dir}/manifest.json"),
        ]
    );
    assert_eq!(m.read(&format!("{dir}/driver.py")), DRIVER);
    let manifest: Value = serde_json::from_str(&m.read("/manifest.copy")).unwrap();
    assert_eq!(manifest["entries"], handoff["part_handlers"]);
    assert!(
        !m.exists(&format!("{dir}/results.json")),
        "read and removed"
    );
    assert!(m
        .ember("b1", &["modules", "--mode", "config"])
        .status
        .success());
    assert_eq!(
        config_diags(&m),
        [
            (
                "part-handler-failed".into(),
                "user-data part 1 (h.py)".into(),
                "part-handler raised RuntimeError at line 3 on __begin__".into()
            ),
            (
                "unhandled-part".into(),
                "user-data part 2 (c.txt)".into(),
                "no part-handler claims this part's type; kept unused".into()
            ),
        ]
    );

    // The next boot of the instance calls only the handlers that run `always`.
    m.boot(&handoff);
    let out = m.ember("b2", &["init"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let log = m.lines("/tools.log");
    assert!(log[3].ends_with("results.json always"), "{log:?}");

    // A driver that leaves no results is an error too, never a silent success.
    m.fake("/usr/bin/python3", "");
    m.boot(&handoff);
    let out = m.ember("b3", &["init"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(m
        .ember("b3", &["modules", "--mode", "config"])
        .status
        .success());
    let d = config_diags(&m);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "part-handler-failed");
    assert!(d[0].2.contains("left no results"), "{d:?}");
}

#[test]
fn without_python3_each_handler_is_an_error_and_the_boot_goes_on() {
    if cannot_chroot() {
        return;
    }
    let (m, mut handoff) = handler_machine("nopy");
    handoff["modules"] = json!([{"name": "bootcmd", "stage": "init", "frequency": "always",
                                 "config": {"bootcmd": ["echo booted > /bootcmd.out"]}}]);
    m.boot(&handoff);
    let out = m.ember("b1", &["init"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.read("/bootcmd.out"),
        "booted\n",
        "the rest of init still ran"
    );
    assert!(m
        .ember("b1", &["modules", "--mode", "config"])
        .status
        .success());
    assert_eq!(
        config_diags(&m),
        [(
            "tool-missing".into(),
            "user-data part 1 (h.py)".into(),
            "part-handler not run: the target has no python3 to run it with".into()
        )]
    );
}

/// A MIME user-data with a part-handler and a part of its type, through `ember-initrd all`.
fn mime_user_data() -> String {
    "Content-Type: multipart/mixed; boundary=XX\nMIME-Version: 1.0\n\n--XX\n\
     Content-Type: text/cloud-config\n\n#cloud-config\nhostname: ph\n--XX\n\
     Content-Type: text/part-handler; charset=\"us-ascii\"\n\
     Content-Disposition: attachment; filename=\"handler.py\"\n\n\
     #part-handler\ndef list_types():\n    return ['text/x-mine']\n\
     def handle_part(data, ctype, filename, payload):\n    pass\n--XX\n\
     Content-Type: text/x-mine\nContent-Disposition: attachment; filename=\"mine.txt\"\n\n\
     MINE\n--XX--\n"
        .to_string()
}

fn initrd_all(with_python: bool) -> (common::Machine, std::process::Output) {
    let m = common::Machine::new("ph-initrd");
    let t = &m.target;
    std::fs::create_dir_all(t.join("usr/bin")).unwrap();
    if with_python {
        m.write(t, "usr/bin/python3", b"");
    }
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-ph\n"),
            ("user-data", &mime_user_data()),
        ],
    );
    let out = m.initrd("all");
    (m, out)
}

#[test]
fn ember_initrd_keeps_handlers_where_the_target_has_python3() {
    let (m, out) = initrd_all(true);
    assert!(out.status.success(), "{}", text(&out));
    let handoff = m.json("ember/handoff.json");
    let dir = "/var/lib/cloud/instances/i-ph/handlers";
    assert_eq!(
        handoff["part_handlers"],
        json!([
            {"source": "user-data", "name": "user-data part 2 (handler.py)",
             "path": format!("{dir}/part-handler-000.py"), "content_type": "text/part-handler",
             "filename": "handler.py"},
            {"source": "user-data", "name": "user-data part 3 (mine.txt)",
             "path": format!("{dir}/parts/part-001"), "content_type": "text/x-mine",
             "filename": "mine.txt"},
        ])
    );
    let handler = m.target.join(&format!("{dir}/part-handler-000.py")[1..]);
    let mode = std::fs::metadata(&handler).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(std::fs::read_to_string(&handler)
        .unwrap()
        .contains("def handle_part"));
    assert_eq!(m.target_file(&format!("{dir}/parts/part-001")[1..]), "MINE");
    // Nothing about the handler or its part is a problem at this stage.
    let codes: Vec<Value> = m.diags().iter().map(|d| d["code"].clone()).collect();
    assert!(
        !codes
            .iter()
            .any(|c| c == "unhandled-part" || c == "tool-missing"),
        "{codes:?}"
    );

    let (m, out) = initrd_all(false);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(m.json("ember/handoff.json")["part_handlers"], json!([]));
    assert!(!m.target.join(&dir[1..]).exists());
    let d = m
        .diag_with_code("tool-missing")
        .expect("an error names the handler");
    assert_eq!(d["file"], "user-data part 2 (handler.py)");
    let w = m
        .diag_with_code("unhandled-part")
        .expect("a warning names its part");
    assert_eq!(w["file"], "user-data part 3 (mine.txt)");
}

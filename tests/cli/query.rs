//! The built `ember` binary's `query` command against a temp run directory: dotted keys,
//! aliases, `--list-keys`, `--all`, missing keys, and which instance-data file it reads.

use crate::common;
use serde_json::json;
use std::path::PathBuf;
use std::process::Command;

struct RunDir(PathBuf);

impl RunDir {
    fn new(name: &str) -> RunDir {
        let dir =
            std::env::temp_dir().join(format!("ember-cli-query-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("ember")).unwrap();
        std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
        RunDir(dir)
    }
    fn write(&self, rel: &str, v: &serde_json::Value) {
        std::fs::write(self.0.join(rel), serde_json::to_vec(v).unwrap()).unwrap();
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn data(marker: &str) -> serde_json::Value {
    json!({
        "v1": {"instance_id": "iid-1", "local_hostname": "host", "cloud_name": "nocloud"},
        "ds": {"meta_data": {"local-hostname": "host", "instance-id": "iid-1"}},
        "merged_cfg": {"users": [{"name": "ubuntu"}]},
        "which": marker,
    })
}

fn query(run: &RunDir, args: &[&str]) -> (String, String, i32) {
    let out = common::run(
        Command::new(common::EMBER)
            .arg("--run")
            .arg(&run.0)
            .arg("query")
            .args(args),
    );
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap(),
    )
}

fn ok(run: &RunDir, args: &[&str]) -> String {
    let (out, err, code) = query(run, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

#[test]
fn dotted_keys_and_aliases() {
    let run = RunDir::new("keys");
    run.write("cloud-init/instance-data.json", &data("redacted"));
    run.write(
        "cloud-init/instance-data-sensitive.json",
        &data("sensitive"),
    );
    assert_eq!(ok(&run, &["v1.instance_id"]), "iid-1\n");
    assert_eq!(ok(&run, &["instance_id"]), "iid-1\n");
    assert_eq!(ok(&run, &["ds.meta_data.local-hostname"]), "host\n");
    assert_eq!(ok(&run, &["ds.meta_data.local_hostname"]), "host\n");
    assert_eq!(ok(&run, &["merged_cfg.users.0.name"]), "ubuntu\n");
    assert_eq!(
        ok(&run, &["merged_cfg.users"]),
        "[\n {\n  \"name\": \"ubuntu\"\n }\n]\n"
    );
    // Root reads the sensitive copy, others the redacted one, as cloud-init does.
    let want = if rustix::process::geteuid().is_root() {
        "sensitive\n"
    } else {
        "redacted\n"
    };
    assert_eq!(ok(&run, &["which"]), want);
}

#[test]
fn list_keys_and_all() {
    let run = RunDir::new("list");
    run.write("cloud-init/instance-data.json", &data("x"));
    run.write("cloud-init/instance-data-sensitive.json", &data("x"));
    let top = ok(&run, &["--list-keys"]);
    let keys: Vec<&str> = top.lines().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    for k in [
        "cloud_name",
        "ds",
        "instance_id",
        "merged_cfg",
        "v1",
        "which",
    ] {
        assert!(keys.contains(&k), "{k} missing from {top}");
    }
    assert_eq!(
        ok(&run, &["--list-keys", "ds.meta_data"]),
        "instance-id\nlocal-hostname\n"
    );
    let (_, err, code) = query(&run, &["--list-keys", "v1.instance_id"]);
    assert_eq!(code, 1);
    assert!(err.contains("'v1.instance_id' is not a dict"), "{err}");

    let all: serde_json::Value = serde_json::from_str(&ok(&run, &["--all"])).unwrap();
    assert_eq!(all["instance_id"], "iid-1");
    assert!(ok(&run, &["--all"]).starts_with("{\n \""));
    assert_eq!(
        ok(
            &run,
            &["--format", "{{ v1.cloud_name }}/{{ local_hostname }}"]
        ),
        "nocloud/host\n"
    );
}

#[test]
fn missing_key_names_it() {
    let run = RunDir::new("missing");
    run.write("cloud-init/instance-data.json", &data("x"));
    run.write("cloud-init/instance-data-sensitive.json", &data("x"));
    let (out, err, code) = query(&run, &["v1.nope"]);
    assert_eq!((out.as_str(), code), ("", 1));
    assert!(err.contains("instance-data 'v1' has no 'nope'"), "{err}");
    let (_, err, code) = query(&run, &["nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("'nope'"), "{err}");
    let (_, err, code) = query(&run, &[]);
    assert_eq!(code, 1);
    assert!(err.contains("--list-keys"), "{err}");
}

#[test]
fn falls_back_to_ember_copies() {
    let run = RunDir::new("fallback");
    run.write("ember/instance-data.json", &data("ember"));
    run.write("ember/instance-data-sensitive.json", &data("ember"));
    assert_eq!(ok(&run, &["which"]), "ember\n");

    let empty = RunDir::new("empty");
    let (_, err, code) = query(&empty, &["v1"]);
    assert_eq!(code, 1);
    assert!(err.contains("missing instance-data file"), "{err}");
}

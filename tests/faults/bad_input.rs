//! Bad input: each gets a clear error in status.json naming the file and line or key, the rest
//! of the data is still used, nothing secret is logged, and the exit code is the documented 1.

use crate::common;
use common::{stderr, Machine};
use std::io::Write;

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";
const SECRET: &str = "SECRET-do-not-log-77";

fn machine(name: &str, files: &[(&str, &[u8])]) -> Machine {
    let m = Machine::new(name);
    for (file, data) in files {
        m.write(&m.target, &format!("{SEED_DIR}/{file}"), data);
    }
    m
}

fn meta() -> &'static [u8] {
    b"instance-id: i-bad\nlocal-hostname: still-used\n"
}

/// Runs the pipeline: exit 1, the secret nowhere in output or status, and the diag found.
fn run_expecting(m: &Machine, code: &str) -> serde_json::Value {
    let out = m.initrd("all");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains(SECRET) && !String::from_utf8_lossy(&out.stdout).contains(SECRET));
    assert!(!m.run_file("ember/status.json").contains(SECRET));
    assert!(!m.run_file("cloud-init/instance-data.json").contains(SECRET));
    m.diag_with_code(code)
        .unwrap_or_else(|| panic!("no {code} in {:#?}", m.diags()))
}

/// The rest of the seed was used: the instance and its hostname are there.
fn assert_rest_used(m: &Machine) {
    assert_eq!(m.status()["instance_id"], "i-bad");
    let idata = m.json("cloud-init/instance-data.json");
    assert_eq!(idata["v1"]["local_hostname"], "still-used");
}

#[test]
fn broken_yaml_in_user_data_names_line_and_vendor_data_still_applies() {
    let ud = format!("#cloud-config\npassword: {SECRET}\nruncmd:\n  - [a, b\n  - c\n");
    let m = machine(
        "yaml",
        &[
            ("meta-data", meta()),
            ("user-data", ud.as_bytes()),
            ("vendor-data", b"#cloud-config\ntimezone: UTC\n"),
        ],
    );
    let d = run_expecting(&m, "yaml-syntax");
    assert_eq!(d["file"], "user-data");
    assert!(d["line"].as_u64().unwrap() >= 4, "{d}");
    assert_rest_used(&m);
    let merged = m.json("cloud-init/combined-cloud-config.json");
    assert_eq!(merged["timezone"], "UTC");
}

#[test]
fn broken_meta_data_names_the_file_and_line() {
    let m = machine(
        "badmeta",
        &[
            (
                "meta-data",
                b"instance-id: i-1\nlocal-hostname: [unclosed\n",
            ),
            ("user-data", b""),
        ],
    );
    let d = run_expecting(&m, "yaml-syntax");
    assert_eq!(d["file"], "/var/lib/cloud/seed/nocloud: meta-data");
    assert!(d["line"].as_u64().is_some());
}

#[test]
fn missing_meta_data_is_no_seed() {
    let m = machine("nometa", &[("user-data", b"#cloud-config\n{}\n")]);
    m.cmdline("ro ds=nocloud");
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(m.diag_with_code("no-seed").is_some(), "{:#?}", m.diags());
}

#[test]
fn non_utf8_cloud_config() {
    let mut ud = b"#cloud-config\nhostname: h\nbad: \xff\xfe\n".to_vec();
    ud.extend_from_slice(SECRET.as_bytes());
    let m = machine("utf8", &[("meta-data", meta()), ("user-data", &ud)]);
    let d = run_expecting(&m, "not-utf8");
    assert!(d["message"].as_str().unwrap().contains("byte"), "{d}");
    assert_rest_used(&m);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[test]
fn gzip_bomb_stops_at_the_inflate_budget() {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..100 {
        enc.write_all(&zeros).unwrap(); // 100 MiB inflated, ~100 KiB on disk
    }
    let bomb = enc.finish().unwrap();
    let m = machine("gzbomb", &[("meta-data", meta()), ("user-data", &bomb)]);
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg",
        b"ember:\n  limits:\n    inflated_bytes: 1048576\n",
    );
    let d = run_expecting(&m, "budget-exceeded");
    assert_eq!(d["budget"], "inflated_bytes");
    assert_rest_used(&m);
    // And a well-formed gzip user-data is read.
    let m = machine(
        "gzok",
        &[
            ("meta-data", meta()),
            (
                "user-data",
                &gzip(b"#cloud-config\ntimezone: Europe/Paris\n"),
            ),
        ],
    );
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(
        m.json("cloud-init/combined-cloud-config.json")["timezone"],
        "Europe/Paris"
    );
}

#[test]
fn yaml_alias_bomb_stops_at_the_node_budget() {
    let mut ud = String::from("#cloud-config\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
    {
        let refs = vec![format!("*{prev}"); 9].join(",");
        ud.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let m = machine(
        "aliasbomb",
        &[("meta-data", meta()), ("user-data", ud.as_bytes())],
    );
    let d = run_expecting(&m, "budget-exceeded");
    assert_eq!(d["budget"], "yaml_nodes");
    assert!(d["line"].as_u64().is_some());
    assert_rest_used(&m);
}

#[test]
fn oversized_user_data_is_refused_by_the_file_budget() {
    let m = machine("huge", &[("meta-data", meta())]);
    let path = m.target.join(SEED_DIR).join("user-data");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(100 * 1024 * 1024).unwrap(); // 100 MB, sparse
    let d = run_expecting(&m, "budget-exceeded");
    assert!(d.to_string().contains("user-data"), "{d}");
    assert_rest_used(&m);
}

#[test]
fn include_that_does_not_answer() {
    let ud = format!("#include\nfile:///nowhere/part?token={SECRET}\n");
    let m = machine(
        "include",
        &[("meta-data", meta()), ("user-data", ud.as_bytes())],
    );
    let d = run_expecting(&m, "fetch-failed");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("file:///nowhere/part"),
        "{d}"
    );
    assert_rest_used(&m);
}

#[test]
fn unknown_keys_are_warnings_with_lines_and_exit_2_from_status() {
    let ud = b"#cloud-config\nhostname: h\nwrite_file:\n  - path: /x\n";
    let m = machine("unknown", &[("meta-data", meta()), ("user-data", ud)]);
    assert_eq!(m.initrd("all").status.code(), Some(0));
    let d = m.diag_with_code("unknown-key").unwrap();
    assert_eq!(
        (d["key"].as_str(), d["line"].as_u64()),
        (Some("write_file"), Some(3))
    );
    assert_eq!(d["severity"], "warning");
    let st = m.ember(&["status"]);
    assert_eq!(
        st.status.code(),
        Some(2),
        "degraded: {}",
        common::stdout(&st)
    );
}

//! Measured provisioning against a real TPM (swtpm): what the boot extends into PCR 12 is what
//! `pcr-predict` computes from the seed and the image, read back by tpm2-tools; the event log
//! holds a record per input that checks against its word; and the machines without a TPM,
//! with a broken one or with one that never answers end as the manual says.

#[path = "../common/mod.rs"]
mod common;

use common::tpm::Swtpm;
use common::Machine;
use serde_json::Value;
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;

const SEED: &str = "var/lib/cloud/seed/nocloud";
const IMAGE: &str = "datasource_list: [NoCloud]\nsystem_info:\n  default_user: {name: debian}\n";

/// A machine booting a NoCloud seed from its seed directory, with `image` as its cloud.cfg.
fn machine(name: &str, user_data: &str, image: &str) -> Machine {
    let m = Machine::new(name);
    m.write(&m.target, "etc/cloud/cloud.cfg", image.as_bytes());
    // A network stack, for the seed's network-config.
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    let files = [
        (
            "meta-data",
            "instance-id: iid-measured\nlocal-hostname: measured\n",
        ),
        ("user-data", user_data),
        (
            "network-config",
            "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
        ),
    ];
    m.seed_files(&m.target, SEED, &files);
    m.cmdline("BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro ds=nocloud");
    m
}

/// `ember-initrd pcr-predict` for the machine's seed and image: bank name → value (lowercase).
fn predicted(m: &Machine) -> serde_json::Map<String, Value> {
    predicted_with(m, &[])
}

fn predicted_with(m: &Machine, args: &[&str]) -> serde_json::Map<String, Value> {
    let seed = m.target.join(SEED);
    let out = m.initrd_args(&["pcr-predict"]); // usage error: no SEED
    assert_eq!(out.status.code(), Some(2));
    let out = common::run(
        std::process::Command::new(common::EMBER_INITRD)
            .arg("pcr-predict")
            .arg(&seed)
            .arg("--root")
            .arg(&m.target)
            .args(["--format", "json"])
            .args(args),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["values"].as_object().unwrap().clone()
}

fn codes(m: &Machine) -> Vec<String> {
    m.diags()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn provisioned(m: &Machine) -> bool {
    m.target.join("etc/hostname").exists()
}

/// Expected: with every bank active, PCR 12 as tpm2_pcrread reads it equals the prediction
/// in each bank; status.json says the PCR, the banks and nine events; the log has nine
/// records whose digests are their words' hashes, private to root. A changed user-data
/// predicts another value.
#[test]
fn the_tpm_holds_what_the_seed_predicts_in_every_bank() {
    let m = machine("measure-all", "#cloud-config\nhostname: measured\n", IMAGE);
    let Some(tpm) = Swtpm::start(&m.dir, None) else {
        return;
    };
    tpm.plug_into(&m.host);
    let out = m.initrd("all");
    common::assert_no_panic(&out);
    assert!(codes(&m).is_empty(), "{:?}", m.diags());
    assert!(provisioned(&m));
    let want = predicted(&m);
    let measured = &m.status()["measured"];
    assert_eq!(measured["pcr"], 12);
    assert_eq!(
        measured["banks"],
        serde_json::json!(["sha1", "sha256", "sha384", "sha512"])
    );
    assert_eq!(measured["events"].as_array().unwrap().len(), 9);
    for bank in ["sha1", "sha256", "sha384", "sha512"] {
        let hex = want[bank].as_str().unwrap();
        assert_eq!(tpm.pcrread(bank, 12), hex.to_uppercase(), "{bank}");
        assert_eq!(measured["values"][bank], hex, "{bank}");
    }
    let log_path = m.run.join("log/systemd/tpm2-measure.log");
    let log = std::fs::read(&log_path).unwrap();
    let records: Vec<Value> = log
        .split(|b| *b == 0x1e)
        .filter(|r| !r.is_empty())
        .map(|r| serde_json::from_slice(r).unwrap())
        .collect();
    assert_eq!(records.len(), 9);
    for r in &records {
        let word = r["content"]["string"].as_str().unwrap();
        assert!(word.starts_with("ember-"), "{word}");
        let sha256 = r["digests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["hashAlg"] == "sha256");
        let digest = sha256.unwrap()["digest"].as_str().unwrap();
        assert_eq!(digest, sha256_hex(word.as_bytes()), "{word}");
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&log_path).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o600);
    // What `ember status` says: the PCR, the events, the value tpm2-tools read.
    let out = m.ember(&["status", "--long"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("measured: PCR 12, 9 events, banks sha1 sha256 sha384 sha512"),
        "{text}"
    );
    let vendor = text
        .lines()
        .find(|l| l.trim_start().starts_with("vendor-data "));
    assert!(vendor.is_some_and(|l| l.ends_with(" absent")), "{text}");
    let sha256 = want["sha256"].as_str().unwrap();
    assert!(text.contains(&format!("sha256:12 {sha256}")), "{text}");
    let out = m.ember(&["status", "--format", "json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["measured"]["values"]["sha256"], sha256);
    let other = machine("measure-other", "#cloud-config\nhostname: other\n", IMAGE);
    assert_ne!(predicted(&other)["sha256"], want["sha256"]);
}

fn sha256_hex(data: &[u8]) -> String {
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(data).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

/// Expected: a TPM with the sha256 bank alone gets sha256 alone, and still matches.
#[test]
fn a_tpm_with_one_bank_gets_that_bank() {
    let m = machine("measure-one", "#cloud-config\n", IMAGE);
    let Some(tpm) = Swtpm::start(&m.dir, Some("sha256")) else {
        return;
    };
    tpm.plug_into(&m.host);
    common::assert_no_panic(&m.initrd("all"));
    assert!(codes(&m).is_empty(), "{:?}", m.diags());
    assert_eq!(
        m.status()["measured"]["banks"],
        serde_json::json!(["sha256"])
    );
    let want = predicted(&m);
    assert_eq!(
        tpm.pcrread("sha256", 12),
        want["sha256"].as_str().unwrap().to_uppercase()
    );
}

/// Expected: where a stage before ember measured into PCR 12 (systemd-stub does), the value
/// is predicted from the one the PCR held before ember (`--from`).
#[test]
fn a_pcr_that_held_a_value_before_ember_is_predicted_from_it() {
    let m = machine("measure-from", "#cloud-config\n", IMAGE);
    let Some(tpm) = Swtpm::start(&m.dir, Some("sha256")) else {
        return;
    };
    tpm.plug_into(&m.host);
    tpm.pcrextend_sha256(12, &"ab".repeat(32));
    let before = tpm.pcrread("sha256", 12);
    assert_ne!(before, "0".repeat(64));
    common::assert_no_panic(&m.initrd("all"));
    assert!(codes(&m).is_empty(), "{:?}", m.diags());
    let want = predicted_with(&m, &["--bank", "sha256", "--from", &before]);
    assert_eq!(
        tpm.pcrread("sha256", 12),
        want["sha256"].as_str().unwrap().to_uppercase()
    );
    assert_ne!(want["sha256"], predicted(&m)["sha256"]);
}

/// Expected: no TPM boots as before, the step said skipped; unless the image requires a
/// measurement, when nothing is provisioned and the status says why.
#[test]
fn without_a_tpm_the_boot_is_as_before_unless_the_image_requires_one() {
    let m = machine("measure-none", "#cloud-config\n", IMAGE);
    common::assert_no_panic(&m.initrd("all"));
    assert!(codes(&m).is_empty(), "{:?}", m.diags());
    assert!(provisioned(&m));
    assert!(m.status().get("measured").is_none());
    let required = format!("{IMAGE}ember: {{measure: required}}\n");
    let m = machine("measure-required", "#cloud-config\n", &required);
    common::assert_no_panic(&m.initrd("all"));
    assert_eq!(codes(&m), ["tpm-missing"]);
    assert!(
        !provisioned(&m),
        "provisioned without the measurement it requires"
    );
    // cloud-init's stages, beside ember, stand down on the marker (dist/systemd/ember-generator).
    assert!(m.run.join("ember/refused").exists());
    assert!(!m.run.join("ember/handoff.json").exists());
}

/// Expected: `measure: off`, written unquoted (YAML 1.1's false, as PyYAML reads it), measures
/// nothing though a TPM is there: PCR 12 stays at reset.
#[test]
fn measure_off_leaves_the_tpm_alone() {
    let image = format!("{IMAGE}ember:\n  measure: off\n");
    let m = machine("measure-off", "#cloud-config\n", &image);
    let Some(tpm) = Swtpm::start(&m.dir, Some("sha256")) else {
        return;
    };
    tpm.plug_into(&m.host);
    common::assert_no_panic(&m.initrd("all"));
    assert!(codes(&m).is_empty(), "{:?}", m.diags());
    assert!(provisioned(&m));
    assert!(m.status().get("measured").is_none());
    assert_eq!(tpm.pcrread("sha256", 12), "0".repeat(64));
}

/// Expected: a seed whose meta-data sends the boot elsewhere (seedfrom) gets no prediction,
/// rather than a wrong one.
#[test]
fn a_seed_that_reads_elsewhere_is_not_predicted() {
    let m = machine("measure-seedfrom", "#cloud-config\n", IMAGE);
    let md = "instance-id: i\nseedfrom: http://127.0.0.1:9/seed/\n";
    m.seed_files(&m.target, SEED, &[("meta-data", md)]);
    let out = common::run(
        std::process::Command::new(common::EMBER_INITRD)
            .arg("pcr-predict")
            .arg(m.target.join(SEED)),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("seedfrom"));
    assert!(out.stdout.is_empty());
}

/// A TPM behind a socket that answers every command as QEMU does once its emulator died
/// (a TPM 1.2 tag and TPM_FAIL), or never answers.
fn fake_tpm(m: &Machine, answer: Option<&'static [u8]>) -> std::thread::JoinHandle<()> {
    let path = m.dir.join("fake-tpm.sock");
    let listener = UnixListener::bind(&path).unwrap();
    std::fs::create_dir_all(m.host.join("dev")).unwrap();
    std::os::unix::fs::symlink(&path, m.host.join("dev/tpmrm0")).unwrap();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        let mut buf = [0u8; 4096];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                return;
            }
            match answer {
                Some(a) => {
                    let _ = s.write_all(a);
                }
                None => std::thread::sleep(std::time::Duration::from_secs(30)),
            }
        }
    })
}

const DEAD: &[u8] = &[0x00, 0xC4, 0, 0, 0, 10, 0, 0, 0, 9];

/// Expected: a TPM that fails is an error naming the command, and (by default) the boot goes
/// on and provisions; an image that requires the measurement provisions nothing.
#[test]
fn a_broken_tpm_is_an_error_and_stops_only_an_image_that_requires_it() {
    for (name, image, goes_on) in [
        ("measure-broken", IMAGE.to_string(), true),
        (
            "measure-broken-req",
            format!("{IMAGE}ember: {{measure: required}}\n"),
            false,
        ),
    ] {
        let m = machine(name, "#cloud-config\n", &image);
        let _tpm = fake_tpm(&m, Some(DEAD));
        common::assert_no_panic(&m.initrd("all"));
        assert_eq!(codes(&m), ["tpm-failed"], "{name}");
        let msg = m.diags()[0]["message"].as_str().unwrap().to_string();
        assert!(msg.contains("not a TPM 2.0 response"), "{msg}");
        assert_eq!(provisioned(&m), goes_on, "{name}");
    }
}

/// Expected: a TPM that takes a command and never answers costs the command's bound (10 s),
/// then is an error, and the boot goes on.
#[test]
fn a_tpm_that_never_answers_is_given_up_on() {
    let m = machine("measure-silent", "#cloud-config\n", IMAGE);
    let _tpm = fake_tpm(&m, None);
    common::assert_no_panic(&m.initrd("all"));
    assert_eq!(codes(&m), ["tpm-failed"]);
    let msg = m.diags()[0]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("no answer within 10 s"), "{msg}");
    assert!(provisioned(&m));
}

/// Expected: a measurement log that cannot be written is a warning; the PCR is still extended
/// with every input, as predicted.
#[test]
fn an_unwritable_log_does_not_stop_the_measurement() {
    let m = machine("measure-nolog", "#cloud-config\n", IMAGE);
    let Some(tpm) = Swtpm::start(&m.dir, Some("sha256")) else {
        return;
    };
    tpm.plug_into(&m.host);
    std::fs::create_dir_all(m.run.join("log/systemd/tpm2-measure.log")).unwrap();
    common::assert_no_panic(&m.initrd("all"));
    assert_eq!(codes(&m), ["tpm-log"]);
    assert!(provisioned(&m));
    let want = predicted(&m);
    assert_eq!(
        tpm.pcrread("sha256", 12),
        want["sha256"].as_str().unwrap().to_uppercase()
    );
}

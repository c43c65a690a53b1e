#![cfg(feature = "ds-cloudsigma")]
//! The CloudSigma datasource end to end: `ember-initrd all` against the server-context
//! emulator on a pty standing for `/dev/ttyS1` (DMI `CloudSigma`): the context in one
//! request, the host name, key, base64 user-data and vendor-data; faults (silence, garbage, an
//! answer cut short, `cloudinit-dsmode: disabled`), no evidence no request, secrets kept.

use crate::common;
use crate::common::emulator::cloudsigma::{self as cs, Fault, Host};
use crate::common::target::Accounts;
use common::{stderr, Machine};
use std::time::{Duration, Instant};

fn server(name: &str, host: &Host) -> Machine {
    let m = Machine::new(name);
    m.dmi("product_name", "CloudSigma");
    m.dmi("sys_vendor", "CloudSigma");
    std::os::unix::fs::symlink(host.pty(), m.host.join("dev/ttyS1")).unwrap();
    let t = &m.target;
    Accounts::root().user("admin").write(t);
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 1500\n    datasource_timeout_ms: 4000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m
}

#[test]
fn provisions_a_server_from_its_context() {
    let host = Host::new();
    let m = server("sigma-full", &host);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["datasource"], "cloudsigma", "{status}");
    assert_eq!(status["instance_id"], cs::UUID, "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), cs::NAME);
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(cs::KEY));
    assert_eq!(
        m.target_file("etc/sigma-secret").trim(),
        "sigma-user-data-2f6a"
    );
    let inst = format!("var/lib/cloud/instances/{}", cs::UUID);
    assert_eq!(
        m.target_file(&format!("{inst}/vendor-data.txt")),
        cs::VENDOR_DATA
    );
    let idata = m.json("ember/instance-data.json");
    let v1 = &idata["v1"];
    assert_eq!(v1["platform"], "cloudsigma", "{v1}");
    assert_eq!(v1["subplatform"], "cepko (/dev/ttyS1)", "{v1}");
    assert_eq!(
        idata["ds"]["meta_data"]["nics"][0]["mac"],
        "22:3d:09:6b:90:f3"
    );
    assert_eq!(
        host.requests(),
        ["GET "],
        "the whole context in one request"
    );
    for s in ["sigma-user-data-2f6a", "sigma-vendor-77c3"] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
        assert!(!idata.to_string().contains(s), "secret in instance-data");
    }
}

#[test]
fn a_silent_garbled_or_cut_answer_fails_the_datasource() {
    for (name, fault, code) in [
        ("sigma-silent", Fault::Silence, "metadata-unreachable"),
        ("sigma-garbage", Fault::Garbage, "metadata-invalid"),
        ("sigma-cut", Fault::CutShort, "metadata-unreachable"),
    ] {
        let host = Host::new();
        host.fault(&[fault]);
        let m = server(name, &host);
        let started = Instant::now();
        let out = m.initrd("all");
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
        m.fell_back(&out);
        let d = m.diag_with_code(code);
        assert!(d.is_some(), "{name}: {:?}", m.diags());
        assert_eq!(d.unwrap()["file"], "/dev/ttyS1", "{name}");
        common::assert_no_panic(&out);
    }
}

#[test]
fn dsmode_disabled_and_bad_user_data() {
    let host = Host::new();
    host.context.lock().unwrap()["meta"]["cloudinit-dsmode"] = "disabled".into();
    let m = server("sigma-disabled", &host);
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("no-datasource").expect("diag");
    assert_eq!(d["key"], "meta.cloudinit-dsmode", "{d}");

    let host = Host::new();
    host.context.lock().unwrap()["meta"]["cloudinit-user-data"] = "not base64!".into();
    let m = server("sigma-bad-b64", &host);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("base64-invalid").expect("diag");
    assert_eq!(d["key"], "meta.cloudinit-user-data", "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), cs::NAME);
}

#[test]
fn no_cloudsigma_dmi_no_request() {
    let host = Host::new();
    let m = server("sigma-nodmi", &host);
    m.dmi("product_name", "KVM");
    m.initrd("all");
    assert_eq!(m.status()["datasource"], "none");
    assert!(host.requests().is_empty(), "no request without evidence");
}

//! RELIABILITY rule 12, no listening sockets: `ember-initrd all` on EC2 (IMDSv2) and on Azure
//! (IMDS, the wireserver's ready report), the stages that use the network most, traced with
//! strace: every `socket` and `connect` is seen (so the trace works), never a `listen` or an
//! `accept`. SKIP where strace is missing (scripts/setup installs it).

use crate::common;
use crate::common::emulator;
use common::faults::{aws_dmi, cloud_target, initrd_command};
use common::{have, skip, Machine};

fn traced(m: &Machine, name: &str) -> String {
    let trace = m.dir.join(format!("{name}.strace"));
    let inner = initrd_command(m, &["all"]);
    let mut cmd = std::process::Command::new("strace");
    cmd.args([
        "-f",
        "-qq",
        "-e",
        "trace=socket,connect,listen,accept,accept4",
        "-o",
    ])
    .arg(&trace)
    .arg(inner.get_program())
    .args(inner.get_args());
    let out = common::run(&mut cmd);
    assert!(out.status.code().is_some(), "{out:?}");
    std::fs::read_to_string(&trace).unwrap()
}

fn assert_no_listening(trace: &str) {
    assert!(
        trace.contains("connect("),
        "the trace saw no connect: {trace}"
    );
    for call in ["listen(", "accept(", "accept4("] {
        assert!(!trace.contains(call), "{call} in:\n{trace}");
    }
}

/// Whether strace can trace here (a container may forbid ptrace).
fn strace_works() -> Result<(), String> {
    if !have("strace") {
        return Err("strace is not installed".into());
    }
    let out = std::process::Command::new("strace")
        .args(["-qq", "-e", "trace=getpid", "-o", "/dev/null", "true"])
        .output()
        .map_err(|e| e.to_string())?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "strace cannot trace here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

#[test]
fn no_stage_listens_on_ec2_or_azure() {
    if let Err(why) = strace_works() {
        return skip(&why);
    }
    let server = emulator::ec2::start();
    let m = Machine::new("nolisten-ec2");
    aws_dmi(&m);
    cloud_target(&m, "");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    assert_no_listening(&traced(&m, "ec2"));
    assert_eq!(m.status()["datasource"], "ec2");

    let server = emulator::azure::start_with_wire();
    let m = Machine::new("nolisten-azure");
    m.dmi("chassis_asset_tag", "7783-7084-3265-9085-8269-3286-77");
    m.dmi("product_uuid", emulator::azure::SYSTEM_UUID);
    cloud_target(&m, "");
    let ovf = emulator::azure::ovf_env(None, None, true);
    m.iso_seed("sr0", "rd_rdfe", &[("ovf-env.xml", &ovf)]);
    m.cmdline(&format!(
        "ro ember.metadata-url={0} ember.azure.wireserver={0}",
        server.url()
    ));
    assert_no_listening(&traced(&m, "azure"));
    assert_eq!(m.status()["datasource"], "azure");
    assert_eq!(server.wire.as_ref().unwrap().reports().len(), 1);
}

//! Fault suite, the surfaces the first hardening round did not attack: the serial metadata
//! channels (SmartOS, CloudSigma) against an agent that never stops talking or never ends its
//! answer; platform tools (VMware's `vmware-rpctool`) that hang or flood; the hotplug handler
//! on planted state; the packages' purge scripts among planted links. The OVF document's
//! entity tricks and DHCPv6's hostile leases are unit tests beside their parsers. Each child
//! is killed after a bound, so a regression fails instead of hanging the suite.

use crate::common;
use crate::hangs::run_bounded;
use common::Machine;
use std::time::Duration;

/// Expected (RELIABILITY rule 15: a read loop checks its deadline on every pass): a SmartOS
/// agent that floods the serial line with well-formed lines that never answer the request
/// (frames for another request id after a `GET`; `invalid command` for ever after
/// `NEGOTIATE V2`) ends the datasource at its deadline with an error naming the port, like a
/// silent agent. Before, each line was read without a look at the clock while
/// more were waiting, and the boot never ended.
#[cfg(feature = "ds-smartos")]
#[test]
fn a_metadata_agent_that_never_stops_talking_ends_at_the_deadline() {
    use common::emulator::smartos::{Agent, Flood};
    for (name, flood) in [
        ("flood-ids", Flood::OtherIds),
        ("flood-invalid", Flood::InvalidCommand),
    ] {
        let agent = Agent::new();
        *agent.flood.lock().unwrap() = Some(flood);
        let m = Machine::new(&format!("surface-smartos-{name}"));
        m.dmi("product_name", "SmartDC HVM");
        m.dmi("sys_vendor", "Joyent");
        std::os::unix::fs::symlink(agent.pty(), m.host.join("dev/ttyS1")).unwrap();
        common::faults::cloud_target(&m, "");
        let mut cmd = common::faults::initrd_command(&m, &["all"]);
        let (out, ended) = run_bounded(&mut cmd, Duration::from_secs(20));
        assert!(
            ended,
            "{name}: still reading after 20 s: {}",
            common::text(&out)
        );
        // Unreachable (no answer by the deadline), or invalid when the next request met the
        // rest of a frame cut at the last one's deadline: either way the port is named.
        let d = m
            .diags()
            .into_iter()
            .find(|d| d["code"] == "metadata-unreachable" || d["code"] == "metadata-invalid");
        let d = d.unwrap_or_else(|| panic!("{name}: {:?}", m.diags()));
        assert_eq!(d["file"], "/dev/ttyS1", "{name}: {d}");
    }
}

/// Expected (rule 9): a CloudSigma host that never ends its answer (16 MiB with no EOT)
/// stops at the seed-file budget (or, on a slow line, at the per-request deadline), named by
/// the port, never read whole.
#[cfg(feature = "ds-cloudsigma")]
#[test]
fn a_serial_answer_that_never_ends_stops_at_the_file_budget() {
    use common::emulator::cloudsigma::{Fault, Host};
    let host = Host::new();
    host.fault(&[Fault::Endless]);
    let m = Machine::new("surface-cloudsigma-endless");
    m.dmi("product_name", "CloudSigma");
    m.dmi("sys_vendor", "CloudSigma");
    std::os::unix::fs::symlink(host.pty(), m.host.join("dev/ttyS1")).unwrap();
    common::faults::cloud_target(
        &m,
        "    file_bytes: 200000
",
    );
    let mut cmd = common::faults::initrd_command(&m, &["all"]);
    let (out, ended) = run_bounded(&mut cmd, Duration::from_secs(20));
    assert!(ended, "still reading after 20 s: {}", common::text(&out));
    let d = m.diags().into_iter().find(|d| d["file"] == "/dev/ttyS1");
    let d = d.unwrap_or_else(|| panic!("{:?}", m.diags()));
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("longer than 200000") || msg.contains("cut short"),
        "{d}"
    );
}

/// Expected (rule 15: every child is bounded): VMware's `vmware-rpctool` that never answers,
/// and one that prints without end, are killed at the per-request deadline and at the
/// seed-file budget; the boot goes on with the failure named by the tool and key. Before, a
/// hung tool held the initramfs for ever and a flooding one grew ember without bound.
#[cfg(feature = "ds-vmware")]
#[test]
fn a_platform_tool_that_hangs_or_floods_is_killed_at_its_bounds() {
    use std::os::unix::fs::PermissionsExt;
    for (name, body, says) in [
        ("hang", "exec sleep 600", "deadline"),
        ("flood", "exec head -c 64000000 /dev/zero", "output budget"),
    ] {
        let m = Machine::new(&format!("surface-rpctool-{name}"));
        m.dmi("sys_vendor", "VMware, Inc.");
        m.dmi("product_name", "VMware Virtual Platform");
        m.dmi("product_uuid", "4221E0C2-7B6F-4A55-9D1A-0F3E2B1C9D8E");
        common::faults::cloud_target(
            &m,
            "    request_timeout_ms: 1500\n    file_bytes: 1000000\n",
        );
        let bin = m.dir.join("tools");
        std::fs::create_dir_all(&bin).unwrap();
        let tool = bin.join("vmware-rpctool");
        std::fs::write(&tool, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:/usr/sbin:/usr/bin:/sbin:/bin", bin.display());
        let mut cmd = common::faults::initrd_command(&m, &["all"]);
        cmd.env("PATH", path);
        let (out, ended) = run_bounded(&mut cmd, Duration::from_secs(30));
        assert!(
            ended,
            "{name}: still running after 30 s: {}",
            common::text(&out)
        );
        let found = m.diags().into_iter().find(|d| {
            d["code"] == "guestinfo-failed" && d["message"].as_str().unwrap_or("").contains(says)
        });
        assert!(found.is_some(), "{name}: {:?}", m.diags());
    }
}

/// Expected (rule 15): the hotplug handler, which udev runs for every NIC event, reads this
/// boot's state with the state files' budget and refuses what is not a regular file: a FIFO
/// planted as `handoff.json` ends the event at once instead of holding a udev worker.
#[test]
fn the_hotplug_handler_never_hangs_on_planted_state() {
    let m = Machine::new("surface-hotplug-fifo");
    let fifo = m.run.join("ember/handoff.json");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut cmd = std::process::Command::new(common::EMBER_INITRD);
    cmd.args([
        "hotplug",
        "--action",
        "add",
        "--devpath",
        "/devices/virtual/net/eth1",
    ]);
    for (flag, dir) in [
        ("--host", &m.host),
        ("--target", &m.target),
        ("--run", &m.run),
    ] {
        cmd.arg(flag).arg(dir);
    }
    let (out, ended) = run_bounded(&mut cmd, Duration::from_secs(10));
    assert!(ended, "still waiting on the FIFO: {}", common::text(&out));
    assert_eq!(out.status.code(), Some(1), "{}", common::text(&out));
}

/// The package scripts that remove state (Debian's `postrm purge`, RPM's `%postun` on erase,
/// Alpine's `post-deinstall`), run as root in a target whose /var/lib/cloud, /var/lib/ember
/// and cloud-init's logs were replaced by links (to a directory, into one, to a file) and hold
/// links to files that must stay.
fn purge_scripts() -> Vec<(&'static str, String, &'static str)> {
    let dist = concat!(env!("CARGO_MANIFEST_DIR"), "/dist");
    let read = |rel: &str| std::fs::read_to_string(format!("{dist}/{rel}")).unwrap();
    let spec = read("rpm/ember.spec");
    let postun: String = spec
        .split("\n%postun\n")
        .nth(1)
        .and_then(|s| s.split("\n%").next())
        .unwrap()
        .replace("%%", "%");
    vec![
        ("debian", read("debian/ember.postrm"), "purge"),
        ("rpm", postun, "0"),
        ("alpine", read("alpine/ember.post-deinstall"), ""),
    ]
}

/// Expected: each purge removes the links and what ember and cloud-init wrote, never what a
/// link points at (rm -rf does not follow a link it is given or meets). Held before this
/// round; kept as a guard on the scripts.
#[test]
fn purging_the_package_never_follows_links_planted_in_its_state() {
    use common::chroot;
    if chroot::cannot_chroot() {
        return;
    }
    for (kind, script, arg) in purge_scripts() {
        let m = chroot::Machine::new(&format!("purge-{kind}"), &["sh", "rm", "echo", "command"]);
        let t = &m.target;
        for keep in ["keep/state/precious", "keep/shadow", "keep/ember/kept"] {
            m.write(keep, "keep\n", 0o600);
        }
        std::fs::create_dir_all(t.join("var/lib/cloud/instances/i-1")).unwrap();
        std::fs::create_dir_all(t.join("var/log")).unwrap();
        let link = |to: &str, at: &str| std::os::unix::fs::symlink(to, t.join(at)).unwrap();
        link("/keep/state", "var/lib/cloud/instance");
        link("/keep/shadow", "var/lib/cloud/instances/i-1/user-data.txt");
        link("/keep/ember", "var/lib/ember");
        link("/keep/shadow", "var/log/cloud-init.log");
        link("/keep/state/precious", "var/log/cloud-init-output.log");
        m.write("postrm", &script, 0o755);
        let out = std::process::Command::new("chroot")
            .arg(t)
            .args(["/bin/sh", "/postrm", arg])
            .output()
            .unwrap();
        assert!(out.status.success(), "{kind}: {}", common::text(&out));
        for keep in ["keep/state/precious", "keep/shadow", "keep/ember/kept"] {
            assert_eq!(m.read(keep), "keep\n", "{kind}: {keep}");
        }
        for gone in ["var/lib/cloud", "var/lib/ember", "var/log/cloud-init.log"] {
            assert!(
                std::fs::symlink_metadata(t.join(gone)).is_err(),
                "{kind}: {gone} left"
            );
        }
    }
}

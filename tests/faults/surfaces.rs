//! Fault suite, the surfaces the first hardening round did not attack: the serial and socket
//! metadata channels (SmartOS, CloudSigma) against an agent that never stops talking, ... Each
//! child is killed after a bound, so a regression fails instead of hanging the suite.

use crate::common;
use crate::hangs::run_bounded;
use common::Machine;
use std::time::Duration;

/// Expected (RELIABILITY rule 15: a read loop checks its deadline on every pass): a SmartOS
/// agent that floods the serial line with well-formed lines that never answer the request
/// (frames for another request id after a `GET`; `invalid command` for ever after
/// `NEGOTIATE V2`) ends the datasource at its deadline with `metadata-unreachable` naming the
/// port, like a silent agent. Before, each line was read without a look at the clock while
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
        assert!(ended, "{name}: still reading after 20 s: {}", common::text(&out));
        let d = m.diag_with_code("metadata-unreachable");
        let d = d.unwrap_or_else(|| panic!("{name}: {:?}", m.diags()));
        assert_eq!(d["file"], "/dev/ttyS1", "{name}: {d}");
    }
}

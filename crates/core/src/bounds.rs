//! Every wait ember itself bounds, in one place (RELIABILITY rule 15; issue 37): the manual's
//! "Waits and their bounds" table is checked against [`WAITS`], so a bound cannot change
//! without its documentation. The two budgets an image may change (`request_timeout_ms`,
//! `datasource_timeout_ms`) live in `limits`; the waits derived from them are computed here
//! from their defaults.

use crate::limits::Limits;
use std::time::Duration;

/// One request's bound with the default limits (name lookup included).
pub fn request() -> Duration {
    Duration::from_millis(Limits::default().request_timeout_ms)
}

/// A datasource's whole fetch with the default limits.
pub fn datasource() -> Duration {
    Duration::from_millis(Limits::default().datasource_timeout_ms)
}

/// Attempts per URL a `Fetcher::read` makes (seedfrom, `#include`, write_files sources).
pub const FETCH_ATTEMPTS: u32 = 3;
/// The first pause between metadata attempts; it doubles up to [`RETRY_MAX_PAUSE`].
pub const RETRY_FIRST_PAUSE: Duration = Duration::from_millis(250);
pub const RETRY_MAX_PAUSE: Duration = Duration::from_secs(2);
/// A pause an image names (`sec_between_retries`, `wait_retry`) is cut to this.
pub const RETRY_PAUSE_CAP: Duration = Duration::from_secs(60);
/// `retries` an image names is cut to this.
pub const RETRIES_CAP: u32 = 10;
/// DHCP (and SLAAC) on one NIC of ember's own lease.
pub const DHCP_PER_NIC: Duration = Duration::from_secs(20);
/// With several candidate NICs, how long ember waits for the first to get a carrier before it
/// tries those that have one first.
pub const CARRIER_WAIT: Duration = Duration::from_secs(5);
/// The least a read over a lease just made gets; the share is twice the request bound.
pub const LEASE_SHARE_MIN: Duration = Duration::from_secs(5);
/// The least Azure's ready report gets after the fetch; it is three times the request bound.
pub const AZURE_REPORT_MIN: Duration = Duration::from_secs(10);
/// A disk `disk_setup` names to appear (and again for its partitions).
pub const DISK_DEVICE_WAIT: Duration = Duration::from_secs(5);
/// One `mkfs.*` or `mkswap`.
pub const DISK_TOOL: Duration = Duration::from_secs(30 * 60);
/// The network reload after a hotplug event (`netplan apply`, `ifup -a`, ...).
pub const HOTPLUG_RELOAD: Duration = Duration::from_secs(120);
/// WSL's `wslpath` and `cmd.exe`.
pub const WSL_TOOL: Duration = Duration::from_secs(10);
/// `collect-logs`' `dmesg` and `journalctl`.
pub const COLLECT_LOGS_TOOL: Duration = Duration::from_secs(15);
/// `analyze plot`'s `systemctl show`.
pub const PLOT_TOOL: Duration = Duration::from_secs(10);
/// One rtnetlink answer while ember sets up or removes its lease.
pub const NETLINK_REPLY: Duration = Duration::from_secs(5);
/// `status --wait` re-reads the status this often (as cloud-init does).
pub const STATUS_POLL: Duration = Duration::from_millis(250);
/// `status --wait`: the next stage must start this soon after the last one ended.
pub const STATUS_GRACE: Duration = Duration::from_secs(300);
/// The busybox /init's wait for the root device (`rootdelay=` changes it).
pub const ROOT_DELAY: Duration = Duration::from_secs(10);
/// The systemd initramfs' `udevadm settle` before detection.
pub const UDEV_SETTLE: Duration = Duration::from_secs(30);
/// One TPM command (a PCR extend or read) with its retries while the TPM says it is busy.
pub const TPM_COMMAND: Duration = Duration::from_secs(10);
/// `lxd waitready` in the lxd module.
pub const LXD_WAITREADY: Duration = Duration::from_secs(300);

/// The manual's rows: the wait's name as its first cell begins, and its bound as written.
pub fn waits() -> Vec<(&'static str, String)> {
    let r = request();
    vec![
        ("One request", show(r)),
        ("One datasource's fetch", show(datasource())),
        (
            "One URL read by a seedfrom",
            format!("{FETCH_ATTEMPTS} attempts, each one request"),
        ),
        (
            "Pauses between metadata attempts",
            format!(
                "{} doubling to {}",
                show(RETRY_FIRST_PAUSE),
                show(RETRY_MAX_PAUSE)
            ),
        ),
        (
            "A pause or retries the image names",
            format!("{} / {RETRIES_CAP} retries", show(RETRY_PAUSE_CAP)),
        ),
        ("DHCP on one NIC", show(DHCP_PER_NIC)),
        ("Carrier on the first of several NICs", show(CARRIER_WAIT)),
        (
            "Reads over a lease, per NIC",
            show((r * 2).max(LEASE_SHARE_MIN)),
        ),
        ("Azure's ready report", show((r * 3).max(AZURE_REPORT_MIN))),
        ("rtnetlink answer", show(NETLINK_REPLY)),
        ("One TPM command", show(TPM_COMMAND)),
        ("Root device (busybox /init)", show(ROOT_DELAY)),
        ("udevadm settle (systemd initramfs)", show(UDEV_SETTLE)),
        ("disk_setup's disk to appear", show(DISK_DEVICE_WAIT)),
        ("One mkfs or mkswap", show(DISK_TOOL)),
        ("Network reload after hotplug", show(HOTPLUG_RELOAD)),
        ("WSL's tools", show(WSL_TOOL)),
        ("collect-logs' tools", show(COLLECT_LOGS_TOOL)),
        ("analyze plot's systemctl", show(PLOT_TOOL)),
        ("lxd waitready", show(LXD_WAITREADY)),
        ("status --wait poll", show(STATUS_POLL)),
        ("status --wait grace", show(STATUS_GRACE)),
    ]
}

/// "250 ms", "20 s", "30 min": as the manual writes a bound.
pub fn show(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 != 0 {
        format!("{ms} ms")
    } else if ms >= 600_000 && ms % 60_000 == 0 {
        format!("{} min", ms / 60_000)
    } else {
        format!("{} s", ms / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_file(rel: &str) -> String {
        let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The manual's table row whose first cell begins with `name`: its second cell.
    fn documented<'a>(page: &'a str, name: &str) -> Option<&'a str> {
        page.lines()
            .filter_map(|l| l.strip_prefix("| "))
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split(" | ").nth(1))
            .map(str::trim)
    }

    /// Expected: every bound ember sets is in the manual's table (docs/src/reliability/waits.md)
    /// with the value it has here, so documentation and code cannot drift apart.
    #[test]
    fn the_manual_documents_every_bound_at_its_value() {
        let readme = repo_file("docs/src/reliability/waits.md");
        let mut wrong = Vec::new();
        for (name, bound) in waits() {
            match documented(&readme, name) {
                Some(doc) if doc == bound => {}
                other => wrong.push(format!("{name}: code {bound}, manual {other:?}")),
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Expected: the bounds set outside Rust (the busybox /init's root wait, the systemd
    /// initramfs' settle) are the values this module documents.
    #[test]
    fn the_initramfs_scripts_use_the_documented_bounds() {
        let init = repo_file("initramfs/busybox/init");
        let delay = format!("rootdelay={}", ROOT_DELAY.as_secs());
        assert!(init.contains(&delay), "{delay}");
        let unit = repo_file("initramfs/systemd/ember-initrd-early.service");
        let settle = format!("udevadm settle --timeout={}", UDEV_SETTLE.as_secs());
        assert!(unit.contains(&settle), "{settle}");
    }

    #[test]
    fn bounds_read_as_the_readme_writes_them() {
        assert_eq!(show(Duration::from_millis(250)), "250 ms");
        assert_eq!(show(Duration::from_secs(20)), "20 s");
        assert_eq!(show(Duration::from_secs(300)), "300 s");
        assert_eq!(show(Duration::from_secs(1800)), "30 min");
    }
}

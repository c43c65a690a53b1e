//! Budgets on every input (RELIABILITY rule 9). Generous defaults, each overridable by the
//! image under `ember: {limits: {...}}` in cloud.cfg; a `Diag` names the budget that stopped a run.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest single seed or metadata file (meta-data, user-data, vendor-data, network-config).
    pub file_bytes: u64,
    /// Bytes all gzip payloads of one user-data may inflate to together (the whole, its
    /// parts, includes); also the largest one write_files content may decode to.
    pub inflated_bytes: u64,
    /// YAML nodes after alias expansion (stops alias bombs).
    pub yaml_nodes: u64,
    /// YAML nesting depth.
    pub yaml_depth: u32,
    /// Bytes of YAML keys and scalars after alias expansion (stops a long string repeated
    /// through aliases, which costs few nodes).
    pub yaml_expanded_bytes: u64,
    /// MIME parts in one user-data, counting nested multiparts and includes.
    pub mime_parts: u32,
    /// Nesting of `#include`, `text/x-include-url` and archives.
    pub include_depth: u32,
    /// Bytes fetched by all includes of one user-data together.
    pub include_bytes: u64,
    /// Jinja template work, in minijinja's fuel units (about one per instruction).
    pub template_fuel: u64,
    /// Largest output of one rendered template.
    pub template_bytes: u64,
    /// One HTTP request, connect to last byte, in milliseconds.
    pub request_timeout_ms: u64,
    /// A whole datasource fetch, all retries included, in milliseconds.
    pub datasource_timeout_ms: u64,
    /// Bytes read from one seed volume (cidata, config-2, provisioning media) in all, whatever
    /// its structures say: stops continuation areas or directories that are read again and
    /// again. Reading it also stops at `datasource_timeout_ms`.
    pub volume_read_bytes: u64,
    /// Command-line length considered (the kernel caps it lower anyway).
    pub cmdline_bytes: u64,
    /// Bytes write_files may write in one boot, all items together (deferred ones too):
    /// YAML aliases can name one large content many times.
    pub write_files_bytes: u64,
    /// Bytes of instance files one boot writes into the run directory (RAM in the
    /// initramfs): the handoff first, then network config, instance data and the merged
    /// config, which each hold the whole expanded config; what passes it is left out.
    pub run_bytes: u64,
    /// Bytes the datasource may fetch in one boot, everything together: HTTP and socket
    /// answers, serial answers, seed files on a volume or in a seed directory. Each is also
    /// within `file_bytes`; this stops many answers that each are (LXD's config keys, an
    /// EC2-style tree), and bounds fetched.json, which holds them.
    pub datasource_bytes: u64,
}

const MIB: u64 = 1024 * 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            file_bytes: 16 * MIB,
            inflated_bytes: 64 * MIB,
            // About 400 bytes of memory a node once parsed: ~80 MiB at the limit, within an
            // initramfs's means; real cloud-configs have a few thousand.
            yaml_nodes: 200_000,
            yaml_depth: 256,
            yaml_expanded_bytes: 64 * MIB,
            mime_parts: 1000,
            include_depth: 8,
            include_bytes: 64 * MIB,
            // minijinja charges about one unit per 64 bytes a template creates: ~64 MiB.
            template_fuel: 1_000_000,
            template_bytes: 16 * MIB,
            request_timeout_ms: 10_000,
            datasource_timeout_ms: 60_000,
            // A seed's few files at `file_bytes` each, plus its directories, many times over.
            volume_read_bytes: 256 * MIB,
            cmdline_bytes: 64 * 1024,
            write_files_bytes: 128 * MIB,
            run_bytes: 64 * MIB,
            // Four `file_bytes` files (a seed's meta-data, user-data, vendor-data and
            // network-config at their largest), and no more than `run_bytes` can record.
            datasource_bytes: 64 * MIB,
        }
    }
}

/// What the datasource has fetched so far in this boot, against `datasource_bytes`: one
/// per process (the context's), charged by the layers every read of a datasource passes
/// through (the fetcher for HTTP, sockets and files; seed volumes; the target's seed
/// directories; serial ports), never by a datasource itself.
#[derive(Debug)]
pub struct Tally {
    limit: u64,
    spent: AtomicU64,
}

/// The budget a `Tally` enforces, as diagnostics name it.
pub const TALLY_BUDGET: &str = "datasource_bytes";

impl Tally {
    pub fn new(limit: u64) -> Tally {
        Tally {
            limit,
            spent: AtomicU64::new(0),
        }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes that may still be fetched.
    pub fn left(&self) -> u64 {
        self.limit
            .saturating_sub(self.spent.load(Ordering::Relaxed))
    }

    /// The cap for one read that its own budget caps at `max_bytes`: the smaller, and whether
    /// it is the tally's (so a read that passes it names `datasource_bytes`).
    pub fn cap(&self, max_bytes: u64) -> (u64, bool) {
        let left = self.left();
        (max_bytes.min(left), left < max_bytes)
    }

    /// Starts the count again (the fetch stage, so detection's reads are not counted).
    pub fn reset(&self) {
        self.spent.store(0, Ordering::Relaxed);
    }

    /// Counts `n` bytes fetched (read within `cap`, so within the limit).
    pub fn charge(&self, n: usize) {
        self.spent.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// The message of a read stopped by the tally.
    pub fn message(&self) -> String {
        format!(
            "past the {} bytes the datasource may fetch in all (answers and seed files together); left out",
            self.limit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_caps_reads_at_what_is_left() {
        let t = Tally::new(100);
        assert_eq!(t.cap(40), (40, false));
        t.charge(70);
        assert_eq!(t.cap(40), (30, true));
        t.charge(30);
        assert_eq!((t.left(), t.cap(1)), (0, (0, true)));
    }
}

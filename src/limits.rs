//! Budgets on every input (RELIABILITY rule 9). Generous defaults, each overridable by the
//! image under `ember: {limits: {...}}` in cloud.cfg; a `Diag` names the budget that stopped a run.

use serde::{Deserialize, Serialize};

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
        }
    }
}

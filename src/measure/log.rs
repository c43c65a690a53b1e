//! The event log: systemd's userspace measurement log (`/run/log/systemd/tpm2-measure.log`),
//! appended to as systemd-pcrextend does, so `systemd-pcrlock log` and other readers of it
//! see ember's events beside systemd's. Each record is an RFC 7464 JSON text sequence entry
//! (0x1E, compact JSON, newline) in systemd's subset of TCG CEL-JSON.
//!
//! systemd's writer protocol, kept here: the file is 0600 (only root may lock it), locked
//! exclusively for the whole measurement, and carries the sticky bit while a record is being
//! written, so a reader that finds the bit set knows a writer died half-way and stops trusting
//! the log. The lock is taken before the PCR is extended, so no one else's record comes
//! between an extend and its record. Not the atomic-replace writer (root.rs): a log is
//! appended to, under other writers' lock, in the run directory, never in the target.

use super::bank::{hex, Bank};
use rustix::fs::{FlockOperation, Mode, OFlags};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

pub const LOG: &str = "log/systemd/tpm2-measure.log";

/// The log open and locked; the lock goes when it drops.
pub struct EventLog {
    file: std::fs::File,
}

impl EventLog {
    /// Opens (or makes) the log under `run` and locks it. A log a writer left half-written is
    /// refused, as systemd refuses it.
    pub fn open(run: &Path) -> Result<EventLog, String> {
        let path = run.join(LOG);
        let show = || path.display().to_string();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let flags = OFlags::CREATE
            | OFlags::WRONLY
            | OFlags::APPEND
            | OFlags::CLOEXEC
            | OFlags::NOCTTY
            | OFlags::NOFOLLOW;
        let fd = rustix::fs::open(&path, flags, Mode::from_raw_mode(0o600))
            .map_err(|e| format!("{}: {e}", show()))?;
        let file = std::fs::File::from(fd);
        // Another writer (systemd-pcrextend) holds it while it measures: waited for within a
        // TPM command's bound, as that writer may be stuck on the same TPM.
        let deadline = std::time::Instant::now() + crate::bounds::TPM_COMMAND;
        loop {
            match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => break,
                Err(rustix::io::Errno::WOULDBLOCK) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => return Err(format!("{}: lock: {e}", show())),
            }
        }
        let meta = file.metadata().map_err(|e| format!("{}: {e}", show()))?;
        if !meta.file_type().is_file() {
            return Err(format!("{}: not a regular file", show()));
        }
        if meta.mode() & 0o1000 != 0 {
            return Err(format!(
                "{}: a writer died while writing it (the sticky bit is set); not appended to",
                show()
            ));
        }
        Ok(EventLog { file })
    }

    /// Marks the log as being written; `done` clears the mark. Between the two, the PCR is
    /// extended and the record appended.
    pub fn begin(&self) -> Result<(), String> {
        self.set_mode(0o1600)
    }

    pub fn append(&mut self, record: &[u8]) -> Result<(), String> {
        self.file
            .write_all(record)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| format!("{LOG}: {e}"))
    }

    pub fn done(&self) -> Result<(), String> {
        self.set_mode(0o600)?;
        self.file.sync_all().map_err(|e| format!("{LOG}: {e}"))
    }

    fn set_mode(&self, mode: u32) -> Result<(), String> {
        let perm = std::fs::Permissions::from_mode(mode);
        self.file
            .set_permissions(perm)
            .map_err(|e| format!("{LOG}: {e}"))
    }
}

/// One record: the PCR, each bank's digest of `word`, and the word with the boot it belongs
/// to. systemd-pcrlock checks that each digest is the hash of `content.string`.
pub fn record(
    pcr: u32,
    digests: &[(Bank, Vec<u8>)],
    word: &str,
    boot_id: &str,
    us: u64,
) -> Vec<u8> {
    let digests: Vec<serde_json::Value> = digests
        .iter()
        .map(|(b, d)| serde_json::json!({"hashAlg": b.name(), "digest": hex(d)}))
        .collect();
    let rec = serde_json::json!({
        "pcr": pcr,
        "digests": digests,
        "content_type": "systemd",
        "content": {
            "string": word,
            "bootId": boot_id,
            "timestamp": us,
            "eventType": "ember",
        },
    });
    let mut out = vec![0x1e];
    out.extend_from_slice(&serde_json::to_vec(&rec).unwrap_or_default());
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_a_json_sequence_entry_systemd_reads() {
        let d = vec![(Bank::Sha256, Bank::Sha256.digest(b"ember-user-data:absent"))];
        let r = record(12, &d, "ember-user-data:absent", "0123abcd", 42);
        assert_eq!(r[0], 0x1e);
        assert_eq!(*r.last().unwrap(), b'\n');
        let v: serde_json::Value = serde_json::from_slice(&r[1..]).unwrap();
        assert_eq!(v["pcr"], 12);
        assert_eq!(v["content_type"], "systemd");
        assert_eq!(v["content"]["string"], "ember-user-data:absent");
        assert_eq!(v["digests"][0]["hashAlg"], "sha256");
        assert_eq!(v["digests"][0]["digest"], hex(&d[0].1));
    }

    #[test]
    fn the_log_is_private_and_refused_when_a_writer_died() {
        let dir = std::env::temp_dir().join(format!("ember-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut log = EventLog::open(&dir).unwrap();
        log.begin().unwrap();
        log.append(b"\x1e{}\n").unwrap();
        log.done().unwrap();
        drop(log);
        let meta = std::fs::metadata(dir.join(LOG)).unwrap();
        assert_eq!(meta.mode() & 0o7777, 0o600);
        let log = EventLog::open(&dir).unwrap();
        log.begin().unwrap();
        drop(log); // died before done
        let e = EventLog::open(&dir).err().unwrap();
        assert!(e.contains("sticky bit"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! How the record step writes: into the target, recording each failure so one failed file
//! does not stop the others; into the run directory (RAM in the initramfs) within the
//! `run_bytes` budget; and JSON streamed into the file, so a large config is never held a
//! second time as text.

use super::capped::Capped;
use crate::error::Diag;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::{FileSpec, Root, RootError};
use serde::Serialize;
use std::io::{self, Write};

pub(super) struct TargetWriter<'a> {
    pub root: &'a Root,
}

impl TargetWriter<'_> {
    pub fn write(&self, rec: &mut Recorder, path: &str, data: &[u8], mode: u32) {
        if let Err(e) = self.root.write_file(path, data, &FileSpec::mode(mode)) {
            rec.record(Diag::error(e.code(), e.to_string()));
        }
    }

    /// `head`, then `value` as pretty JSON and a newline.
    pub fn json(
        &self,
        rec: &mut Recorder,
        path: &str,
        head: &str,
        value: &impl Serialize,
        mode: u32,
    ) {
        let fill = |file: &mut std::fs::File| stream(file, head, value, u64::MAX).map(drop);
        if let Err(e) = self.root.write_file_with(path, &FileSpec::mode(mode), fill) {
            rec.record(Diag::error(e.code(), e.to_string()));
        }
    }

    pub fn link(&self, rec: &mut Recorder, target: &str, path: &str) {
        if let Err(e) = self.root.symlink(target, path) {
            rec.record(Diag::error(e.code(), e.to_string()));
        }
    }
}

/// What the instance's run files may still take of the run directory: a small user-data can
/// expand to a large config, which several files hold in full. Spent in the order written.
pub(super) struct RunWriter {
    left: u64,
}

impl RunWriter {
    pub fn new(budget: u64) -> RunWriter {
        RunWriter { left: budget }
    }

    /// `value` as pretty JSON at `rel` if it fits, else nothing there and an error naming the
    /// budget.
    pub fn json(&mut self, rec: &mut Recorder, rel: &str, value: &impl Serialize, mode: u32) {
        let left = self.left;
        let mut used = 0;
        let fill = |file: &mut std::fs::File| {
            used = stream(file, "", value, left)?;
            Ok(())
        };
        match rec.run.write_file_with(rel, &FileSpec::mode(mode), fill) {
            Ok(()) => self.left -= used,
            Err(e) if is_over(&e) => {
                let msg = "not written: the run directory's budget for this boot is spent";
                let d = Diag::error(Reason::BudgetExceeded, msg).file(rel);
                rec.record(d.budget("run_bytes"));
            }
            Err(e) => rec.record(Diag::error(e.code(), e.to_string())),
        }
    }
}

const OVER: &str = "past the run_bytes budget";

fn is_over(e: &RootError) -> bool {
    e.to_string().ends_with(OVER)
}

/// Writes `head`, `value` as pretty JSON and a newline into `file` through a buffer; fails
/// once more than `max` bytes would be written. Returns the bytes written.
fn stream(
    file: &mut std::fs::File,
    head: &str,
    value: &impl Serialize,
    max: u64,
) -> io::Result<u64> {
    let mut out = Capped::new(file, max, OVER);
    out.write_all(head.as_bytes())?;
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n")?;
    out.finish()
}

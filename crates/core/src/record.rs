//! Recording a stage, in either binary: its start, steps, diagnostics and end go into
//! `<run>/ember/status.json` (and cloud-init's projection of it) as they happen, so a waiter
//! always sees the truth. It knows the run directory's paths only, not the initramfs context.
//! Each process owns one stage's record: a save takes the others from the file as it is now,
//! under a lock, since the background host keys (`hostkeys`) record while `config` or `final`
//! runs.

use crate::error::Diag;
use crate::paths::RunPaths;
use crate::reason::Reason;
use crate::root::{FileSpec, Root};
use crate::status::{StageState, StageStatus, Status, Step};
use std::time::Instant;

use crate::clock::{boot_seconds, wall_seconds};

pub struct Recorder {
    pub run: Root,
    pub paths: RunPaths,
    pub status: Status,
    name: &'static str,
    started: Instant,
    /// Time an earlier process of this boot already spent on the stage (`ember init`'s part
    /// of the config stage), added to this one's in the recorded duration.
    earlier_us: u64,
}

/// Creates `<run>/ember` and `<run>/cloud-init` and opens the run directory.
pub fn open_run(paths: &RunPaths) -> Result<Root, Diag> {
    let run_path = paths.run();
    std::fs::create_dir_all(run_path).map_err(|e| {
        Diag::error(Reason::RunDir, e.to_string()).file(run_path.display().to_string())
    })?;
    // /run is a tmpfs: syncing it would cost time and buy nothing across a power cut.
    let run = Root::open_deferred(run_path).map_err(|e| Diag::error(e.code(), e.to_string()))?;
    for dir in [RunPaths::EMBER_DIR, RunPaths::CLOUD_INIT_DIR] {
        run.create_dir_all(dir, &FileSpec::mode(0o755))
            .map_err(|e| Diag::error(e.code(), e.to_string()))?;
    }
    Ok(run)
}

impl Recorder {
    /// Starts recording the stage `name` in the run directory `paths`.
    pub fn begin(paths: &RunPaths, name: &'static str) -> Result<Recorder, Diag> {
        let run = open_run(paths)?;
        let paths = paths.clone();
        let status = run
            .read_file(RunPaths::STATUS, 16 * 1024 * 1024)
            .ok()
            .flatten()
            .and_then(|d| serde_json::from_slice(&d).ok())
            .unwrap_or_else(Status::new);
        let mut rec = Recorder {
            run,
            paths,
            status,
            name,
            started: Instant::now(),
            earlier_us: 0,
        };
        let stage = StageStatus::started(boot_seconds(), wall_seconds(), std::process::id());
        rec.status.stages.insert(name.to_string(), stage);
        rec.save();
        Ok(rec)
    }

    pub fn stage(&mut self) -> &mut StageStatus {
        self.status
            .stages
            .get_mut(self.name)
            .expect("stage inserted at begin")
    }

    pub fn record(&mut self, diag: Diag) {
        self.stage().record(diag);
    }

    pub fn record_all(&mut self, diags: impl IntoIterator<Item = Diag>) {
        for d in diags {
            self.record(d);
        }
    }

    /// Runs `f` as a named, timed step; its result is `error` if it recorded new errors.
    pub fn step<T>(&mut self, name: &str, f: impl FnOnce(&mut Recorder) -> T) -> T {
        let before = self.stage().errors.len();
        let start = Some(boot_seconds());
        let t0 = Instant::now();
        let out = f(self);
        let duration_us = t0.elapsed().as_micros() as u64;
        let result = if self.stage().errors.len() > before {
            "error"
        } else {
            "ok"
        };
        self.stage().steps.push(Step {
            start,
            name: name.into(),
            duration_us,
            result: result.into(),
        });
        out
    }

    /// Records a step that did not run, with why (`skipped (no config)`).
    pub fn skipped(&mut self, name: &str, result: String) {
        self.stage().steps.push(Step {
            start: None,
            name: name.into(),
            duration_us: 0,
            result,
        });
    }

    /// Writes a file in the run directory (`ember/handoff.json`); failures are recorded.
    pub fn write_run(&mut self, rel: &str, data: &[u8], mode: u32) {
        if let Err(e) = self.run.write_file(rel, data, &FileSpec::mode(mode)) {
            self.record(Diag::error(e.code(), e.to_string()));
        }
    }

    pub fn save(&mut self) {
        // Unlocked when the directory handle drops, at the end of the save.
        let _lock = self.lock();
        self.take_other_stages();
        let ember = serde_json::to_vec_pretty(&self.status).unwrap_or_default();
        let ci = serde_json::to_vec_pretty(&self.status.to_cloud_init()).unwrap_or_default();
        // A status that cannot be written leaves nothing to report it in: say it on stderr.
        for (rel, data) in [(RunPaths::STATUS, ember), (RunPaths::CI_STATUS, ci)] {
            if let Err(e) = self.run.write_file(rel, &data, &FileSpec::mode(0o644)) {
                eprintln!("ember: cannot write status: {e}");
            }
        }
    }

    /// An exclusive lock on `<run>/ember` for a read-modify-write of the status; `None` (the
    /// save goes on unlocked) where the directory cannot be opened or locked.
    fn lock(&self) -> Option<std::fs::File> {
        let dir = std::fs::File::open(self.paths.ember_dir()).ok()?;
        rustix::fs::flock(&dir, rustix::fs::FlockOperation::LockExclusive).ok()?;
        Some(dir)
    }

    /// The other stages' records as the file has them now, written by other processes since
    /// this one read it; this stage's record stays this process's.
    fn take_other_stages(&mut self) {
        let Some(now) = self
            .run
            .read_file(RunPaths::STATUS, 16 * 1024 * 1024)
            .ok()
            .flatten()
            .and_then(|d| serde_json::from_slice::<Status>(&d).ok())
        else {
            return;
        };
        for (name, stage) in now.stages {
            if name != self.name {
                self.status.stages.insert(name, stage);
            }
        }
    }

    /// Counts `us` of work an earlier process did on this stage in its recorded duration.
    pub fn add_earlier(&mut self, us: u64) {
        self.earlier_us += us;
    }

    pub fn finish(mut self, state: StageState) -> Status {
        let duration_us = self.earlier_us + self.started.elapsed().as_micros() as u64;
        let stage = self.stage();
        stage.state = state;
        stage.finished = Some(boot_seconds());
        stage.duration_us = Some(duration_us);
        self.save();
        self.status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two processes recording at once (`config` and the background `hostkeys`), each saving
    /// from its own copy: neither save loses the other's record.
    #[test]
    fn a_save_keeps_the_stages_other_processes_recorded() {
        let dir = std::env::temp_dir().join(format!("ember-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let paths = RunPaths::new(&dir);
        let mut config = Recorder::begin(&paths, "config").unwrap();
        let mut keys = Recorder::begin(&paths, "hostkeys").unwrap();
        keys.step("hostkeys", |_| ());
        config.step("module runcmd", |_| ());
        config.save();
        keys.finish(StageState::Done);
        let last = config.finish(StageState::Done);
        let data = std::fs::read(paths.status()).unwrap();
        let on_disk: Status = serde_json::from_slice(&data).unwrap();
        assert_eq!(on_disk, last);
        for (stage, step) in [("config", "module runcmd"), ("hostkeys", "hostkeys")] {
            let s = &on_disk.stages[stage];
            assert_eq!(s.state, StageState::Done, "{stage}");
            assert_eq!(s.steps[0].name, step);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

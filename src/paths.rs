//! Where ember's runtime files live under the run directory (`/run`, or a test's stand-in).
//! Both binaries use these names; they are the contract between initramfs and runner.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct RunPaths {
    run: PathBuf,
}

impl RunPaths {
    pub fn new(run: impl Into<PathBuf>) -> RunPaths {
        RunPaths { run: run.into() }
    }
    pub fn run(&self) -> &Path {
        &self.run
    }
    /// `<run>/ember`: ember's own files.
    pub fn ember_dir(&self) -> PathBuf {
        self.run.join("ember")
    }
    /// `<run>/cloud-init`: files in cloud-init's shape, for tools that read them.
    pub fn cloud_init_dir(&self) -> PathBuf {
        self.run.join("cloud-init")
    }
    pub fn status(&self) -> PathBuf {
        self.ember_dir().join("status.json")
    }
    /// What detect decided, for fetch (run as a separate process) to pick up.
    pub fn detect(&self) -> PathBuf {
        self.ember_dir().join("detect.json")
    }
    /// The fetched data, for local (0600: it holds user-data).
    pub fn fetched(&self) -> PathBuf {
        self.ember_dir().join("fetched.json")
    }
    pub fn handoff(&self) -> PathBuf {
        self.ember_dir().join("handoff.json")
    }
    pub fn instance_data(&self) -> PathBuf {
        self.ember_dir().join("instance-data.json")
    }
    pub fn instance_data_sensitive(&self) -> PathBuf {
        self.ember_dir().join("instance-data-sensitive.json")
    }
    pub fn ci_status(&self) -> PathBuf {
        self.cloud_init_dir().join("status.json")
    }
    pub fn ci_result(&self) -> PathBuf {
        self.cloud_init_dir().join("result.json")
    }
    pub fn ci_instance_data(&self) -> PathBuf {
        self.cloud_init_dir().join("instance-data.json")
    }
    pub fn ci_instance_data_sensitive(&self) -> PathBuf {
        self.cloud_init_dir().join("instance-data-sensitive.json")
    }
    pub fn ci_combined_cloud_config(&self) -> PathBuf {
        self.cloud_init_dir().join("combined-cloud-config.json")
    }
    /// `cloud-id-<id>` plus the `cloud-id` symlink, as cloud-init writes them.
    pub fn ci_cloud_id(&self) -> PathBuf {
        self.cloud_init_dir().join("cloud-id")
    }
    /// cloud-init's marker that it is disabled on this boot.
    pub fn ci_disabled_marker(&self) -> PathBuf {
        self.cloud_init_dir().join("disabled")
    }
}

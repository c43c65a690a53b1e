//! Where ember's runtime files live under the run directory (`/run`, or a test's stand-in).
//! Both binaries use these names; they are the contract between initramfs and runner.
//! The constants are relative to the run directory (for writers holding it as a `Root`);
//! the methods give full paths (for readers).
//!
//! And the image's own places in the target, cloud-init's `system_info.paths`: `cloud_dir`
//! (`/var/lib/cloud`: instances, data, seeds, scripts) and `templates_dir`
//! (`/etc/cloud/templates`). Each binary sets them once, when it knows them (ember-initrd from
//! the image config, the runner from what ember-initrd recorded for this boot, `ember/paths.json`);
//! every user asks [`system`] for them.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// cloud-init's `system_info.paths` that ember honours, as absolute paths in the target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemPaths {
    pub cloud_dir: String,
    pub templates_dir: String,
}

impl Default for SystemPaths {
    fn default() -> Self {
        SystemPaths {
            cloud_dir: "/var/lib/cloud".into(),
            templates_dir: "/etc/cloud/templates".into(),
        }
    }
}

impl SystemPaths {
    /// `rel` below the cloud dir: `cloud("data/instance-id")`.
    pub fn cloud(&self, rel: &str) -> String {
        format!("{}/{rel}", self.cloud_dir)
    }

    /// The seed directory of a datasource: `<cloud_dir>/seed/<name>`.
    pub fn seed(&self, name: &str) -> String {
        self.cloud(&format!("seed/{name}"))
    }

    /// The paths as `ember/paths.json` holds them (this struct serialized), or None.
    pub fn from_json(v: &serde_json::Value) -> Option<SystemPaths> {
        let field = |key: &str| v.get(key)?.as_str().map(String::from);
        Some(SystemPaths {
            cloud_dir: field("cloud_dir")?,
            templates_dir: field("templates_dir")?,
        })
    }

    /// A template of the image: `<templates_dir>/<name>.tmpl`.
    pub fn template(&self, name: &str) -> String {
        format!("{}/{name}.tmpl", self.templates_dir)
    }
}

/// `path` made absolute by joining it to the working directory (as it is when that cannot be
/// read). Only joined: std's `absolute` costs the runner a kilobyte more for normalising what
/// ember never passes.
pub fn absolute(path: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => cwd.join(path),
        _ => path.to_path_buf(),
    }
}

static SYSTEM: OnceLock<SystemPaths> = OnceLock::new();

/// The paths in force: those set for this process, else cloud-init's defaults.
pub fn system() -> &'static SystemPaths {
    SYSTEM.get_or_init(SystemPaths::default)
}

/// Sets the paths for this process; the first setting stands (a process serves one boot).
pub fn set_system(paths: SystemPaths) {
    let _ = SYSTEM.set(paths);
}

#[derive(Clone, Debug)]
pub struct RunPaths {
    run: PathBuf,
}

impl RunPaths {
    pub const EMBER_DIR: &'static str = "ember";
    pub const CLOUD_INIT_DIR: &'static str = "cloud-init";
    pub const STATUS: &'static str = "ember/status.json";
    /// What detect decided, for fetch (run as a separate process) to pick up.
    pub const DETECT: &'static str = "ember/detect.json";
    /// The fetched data, for local (0600: it holds user-data).
    pub const FETCHED: &'static str = "ember/fetched.json";
    pub const HANDOFF: &'static str = "ember/handoff.json";
    /// The network config chosen for this boot and its source, for the renderer.
    pub const NETWORK_CONFIG: &'static str = "ember/network-config.json";
    pub const INSTANCE_DATA: &'static str = "ember/instance-data.json";
    pub const INSTANCE_DATA_SENSITIVE: &'static str = "ember/instance-data-sensitive.json";
    pub const CI_STATUS: &'static str = "cloud-init/status.json";
    pub const CI_RESULT: &'static str = "cloud-init/result.json";
    pub const CI_INSTANCE_DATA: &'static str = "cloud-init/instance-data.json";
    pub const CI_INSTANCE_DATA_SENSITIVE: &'static str = "cloud-init/instance-data-sensitive.json";
    pub const CI_COMBINED_CLOUD_CONFIG: &'static str = "cloud-init/combined-cloud-config.json";
    /// `cloud-id`, a symlink to `cloud-id-<name>`, as cloud-init writes them.
    pub const CI_CLOUD_ID: &'static str = "cloud-init/cloud-id";
    /// ember refused to provision this boot (`ember.measure: required` without a
    /// measurement): cloud-init's stages, beside ember, must not provision it either.
    pub const REFUSED: &'static str = "ember/refused";
    /// cloud-init's marker that it is disabled on this boot.
    pub const CI_DISABLED: &'static str = "cloud-init/disabled";
    /// The image's [`SystemPaths`] for this boot, for the runner (which reads no YAML).
    pub const SYSTEM_PATHS: &'static str = "ember/paths.json";

    pub fn new(run: impl Into<PathBuf>) -> RunPaths {
        RunPaths { run: run.into() }
    }
    pub fn run(&self) -> &Path {
        &self.run
    }
    /// A file named by one of the constants, as a full path.
    pub fn at(&self, rel: &str) -> PathBuf {
        self.run.join(rel)
    }
    pub fn ember_dir(&self) -> PathBuf {
        self.at(Self::EMBER_DIR)
    }
    pub fn cloud_init_dir(&self) -> PathBuf {
        self.at(Self::CLOUD_INIT_DIR)
    }
    pub fn status(&self) -> PathBuf {
        self.at(Self::STATUS)
    }
    pub fn detect(&self) -> PathBuf {
        self.at(Self::DETECT)
    }
    pub fn fetched(&self) -> PathBuf {
        self.at(Self::FETCHED)
    }
    pub fn handoff(&self) -> PathBuf {
        self.at(Self::HANDOFF)
    }
    pub fn instance_data(&self) -> PathBuf {
        self.at(Self::INSTANCE_DATA)
    }
    pub fn instance_data_sensitive(&self) -> PathBuf {
        self.at(Self::INSTANCE_DATA_SENSITIVE)
    }
    pub fn ci_status(&self) -> PathBuf {
        self.at(Self::CI_STATUS)
    }
    pub fn ci_result(&self) -> PathBuf {
        self.at(Self::CI_RESULT)
    }
    pub fn ci_instance_data(&self) -> PathBuf {
        self.at(Self::CI_INSTANCE_DATA)
    }
    pub fn ci_instance_data_sensitive(&self) -> PathBuf {
        self.at(Self::CI_INSTANCE_DATA_SENSITIVE)
    }
    pub fn ci_disabled_marker(&self) -> PathBuf {
        self.at(Self::CI_DISABLED)
    }

    /// `cloud-init/` of the run directory as an absolute path (a test's run directory may be
    /// given relative).
    fn absolute_cloud_init_dir(&self) -> PathBuf {
        absolute(&self.cloud_init_dir())
    }

    /// What `cloud-id` links to for `name` (`cloud-id-nocloud`): the file's absolute path, as
    /// cloud-init makes the link (`/run/cloud-init/cloud-id-nocloud` on a machine).
    pub fn cloud_id_link_target(&self, name: &str) -> String {
        self.absolute_cloud_init_dir()
            .join(name)
            .display()
            .to_string()
    }

    /// The file name `cloud-id` names, when its link text is one of ours: an absolute path to
    /// a file of this run directory's `cloud-init/`, or (as older ember wrote it) a bare name.
    pub fn cloud_id_link_name<'t>(&self, text: &'t str) -> Option<&'t str> {
        let dir = self.absolute_cloud_init_dir();
        let name = match Path::new(text).strip_prefix(&dir) {
            Ok(rest) => rest.to_str()?,
            Err(_) => text,
        };
        let plain = !name.is_empty() && !name.contains('/') && name != "." && name != "..";
        plain.then_some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloud_id_link_is_absolute_and_read_back() {
        let run = RunPaths::new("/run");
        let target = run.cloud_id_link_target("cloud-id-aws");
        assert_eq!(target, "/run/cloud-init/cloud-id-aws");
        assert_eq!(run.cloud_id_link_name(&target), Some("cloud-id-aws"));
        assert_eq!(run.cloud_id_link_name("cloud-id-aws"), Some("cloud-id-aws"));
        for outside in [
            "/etc/shadow",
            "/run/cloud-init/../x",
            "../x",
            "/run/cloud-init/a/b",
        ] {
            assert_eq!(run.cloud_id_link_name(outside), None, "{outside}");
        }
    }
}

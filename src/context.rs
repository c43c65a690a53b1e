//! What every stage works with: the host, the target root, the run directory, the kernel
//! command line and the image config. Built once per process from the flags.

use crate::cmdline;
use crate::config::image::{self, ImageConfig};
use crate::host::Host;
use crate::limits::{Limits, Tally};
use crate::paths::RunPaths;
use crate::root::{ReadOnly, Root};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Ctx {
    pub host: Host,
    pub target_path: PathBuf,
    /// The target root, when it exists (in the initramfs it may not be mounted yet at detect).
    /// Writes are batched: a stage calls `sync()` before the write that marks its work done.
    pub target: Option<Root>,
    pub run: RunPaths,
    /// Where the command line came from: `/proc/cmdline`, `KERNEL_CMDLINE`, `/proc/1/cmdline`.
    pub cmdline_source: String,
    pub cmdline: Vec<String>,
    pub image: ImageConfig,
    /// What the datasource fetched in this process, against `datasource_bytes`.
    pub fetched: Arc<Tally>,
}

/// What a datasource works with: the host, the target root to read, the kernel command line
/// and the image config. No writable root and no run directory: datasources return data and
/// the stages write it.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub host: &'a Host,
    pub target_path: &'a Path,
    pub target: Option<ReadOnly<'a>>,
    pub cmdline: &'a [String],
    pub image: &'a ImageConfig,
    /// Every read the datasource makes through the fetcher, a seed volume or the target is
    /// charged here.
    pub fetched: &'a Arc<Tally>,
}

impl Env<'_> {
    pub fn limits(&self) -> &Limits {
        &self.image.ember.limits
    }
}

impl Ctx {
    /// `kernel_cmdline_env` is `$KERNEL_CMDLINE`, passed in so tests control it.
    pub fn new(
        host: Host,
        target: PathBuf,
        run: PathBuf,
        kernel_cmdline_env: Option<String>,
    ) -> Ctx {
        let (cmdline_source, line) = cmdline::read(&host, kernel_cmdline_env);
        let cmdline = cmdline::split(&line);
        let root = Root::open_deferred(&target).ok();
        let image = image::load(root.as_ref(), &host);
        crate::paths::set_system(image.paths.clone());
        let fetched = Arc::new(Tally::new(image.ember.limits.datasource_bytes));
        Ctx {
            host,
            target_path: target,
            target: root,
            run: RunPaths::new(run),
            cmdline_source,
            cmdline,
            image,
            fetched,
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.image.ember.limits
    }

    /// The context as a datasource sees it: to read, with nothing to write through.
    pub fn env(&self) -> Env<'_> {
        Env {
            host: &self.host,
            target_path: &self.target_path,
            target: self
                .target
                .as_ref()
                .map(|t| ReadOnly::metered(t, &self.fetched)),
            cmdline: &self.cmdline,
            image: &self.image,
            fetched: &self.fetched,
        }
    }

    /// Re-opens the target root (the local stage runs after it is mounted).
    pub fn reopen_target(&mut self) {
        self.target = Root::open_deferred(&self.target_path).ok();
    }
}

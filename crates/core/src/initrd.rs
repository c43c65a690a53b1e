//! Where the runner finds ember-initrd, the binary with the parsers and renderers: the runner
//! links none of them, so `net-convert`, `schema`, `devel render` and the modules' templates
//! (ntp) are handed to it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where `initramfs/install-into-root` puts ember-initrd.
pub const INSTALLED: &str = "/usr/lib/ember/ember-initrd";

/// Where ember-initrd may be, best first: `$EMBER_INITRD`; beside this binary (a build
/// directory, an unpacked release, `/usr/bin` when both are installed there); `../lib/ember/`
/// from it (a `/usr/local` install); the path the initramfs integrations install it at.
pub fn candidates() -> Vec<PathBuf> {
    if let Some(path) = std::env::var_os("EMBER_INITRD") {
        return vec![PathBuf::from(path)];
    }
    let mut v = Vec::new();
    // /proc/self/exe: the binary itself, whatever name (cloud-init, cloud-id) called it.
    if let Some(dir) = std::env::current_exe()
        .ok()
        .as_deref()
        .and_then(Path::parent)
    {
        v.push(dir.join("ember-initrd"));
        if let Some(prefix) = dir.parent() {
            v.push(prefix.join("lib/ember/ember-initrd"));
        }
    }
    v.push(PathBuf::from(INSTALLED));
    v.dedup();
    v
}

/// `ember-initrd COMMAND` as a command to run, or the places tried when it is at none.
pub fn command(command: &str) -> Result<Command, Vec<PathBuf>> {
    let tried = candidates();
    match tried.iter().find(|p| p.is_file()) {
        Some(binary) => {
            let mut cmd = Command::new(binary);
            cmd.arg(command);
            Ok(cmd)
        }
        None => Err(tried),
    }
}

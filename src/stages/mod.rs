//! The initramfs stages in order: detect → fetch → local. Each is runnable on its own and
//! talks to the next only through files in `<run>/ember`.

mod capped;
pub mod cli;
pub mod detect;
pub mod fetch;
pub mod hotplug;
mod instance;
pub mod local;
mod modules;
mod network;
mod network_sources;
mod part_handlers;
mod persist;
mod persist_write;
mod render_cli;
mod system_template;

use crate::context::Ctx;
use crate::status::Status;

/// Runs the three stages in order, each recorded as if run on its own.
pub fn all(ctx: &mut Ctx) -> Status {
    let (detection, status) = detect::run(ctx);
    // What detect alone prints, so a one-process initramfs shows the same on the console.
    print!("{}", detect::describe(&detection));
    if detection.disabled.is_some() {
        return status;
    }
    fetch::run(ctx, &detection);
    local::run(ctx)
}

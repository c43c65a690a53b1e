//! The library in process, no binary spawned: the fuzz targets' corpus replay, the layering
//! of `src/` (no import cycle), and `ember::root::Root`'s safety. Kept apart from the other
//! binaries because root_safety sets the process umask.

mod book;
mod fuzz_replay;
mod layers;
mod root_safety;

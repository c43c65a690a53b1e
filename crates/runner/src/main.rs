//! The post-boot runner and CLI (`ember`, also installed as `cloud-init`); all logic is in
//! the `ember_runner` library.

fn main() {
    ember_core::malloc::return_large_blocks();
    std::process::exit(ember_runner::main(std::env::args_os()));
}

//! The post-boot runner and CLI (`ember`, also installed as `cloud-init`); all logic is in
//! `ember::runner`.

fn main() {
    ember::malloc::return_large_blocks();
    std::process::exit(ember::runner::main(std::env::args_os()));
}

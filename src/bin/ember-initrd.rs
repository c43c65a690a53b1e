//! ember-initrd: the initramfs side of ember (detect, fetch, local).

fn main() {
    std::process::exit(ember::stages::cli::main(std::env::args_os().skip(1)));
}

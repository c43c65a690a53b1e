//! ember-initrd: the initramfs side of ember (detect, fetch, local), and the offline tools
//! that need its parsers (`schema`, `net-convert`).

fn main() {
    ember::malloc::return_large_blocks();
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "schema") {
        std::process::exit(ember::schema::cli::main(&args[1..]));
    }
    std::process::exit(ember::stages::cli::main(args.into_iter()));
}

//! The tests' metadata service emulators as a program, for the QEMU cases:
//! `imds ec2` serves the EC2 fixture on a loopback port, prints the port, and serves until
//! killed. The same code answers the cargo tests (tests/emulator/).

#[path = "../tests/emulator/mod.rs"]
mod emulator;

fn main() {
    let platform = std::env::args().nth(1).unwrap_or_default();
    let port = match platform.as_str() {
        "ec2" => emulator::ec2::start().port,
        "openstack" => emulator::openstack::start().port,
        "gce" => emulator::gce::start().port,
        "digitalocean" => emulator::digitalocean::start().port,
        other => {
            eprintln!(
                "imds: unknown platform '{other}' (known: ec2, openstack, gce, digitalocean)"
            );
            std::process::exit(2);
        }
    };
    println!("{port}");
    loop {
        std::thread::park();
    }
}

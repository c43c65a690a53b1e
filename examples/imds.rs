//! The tests' metadata service emulators as a program, for the QEMU cases and
//! `scripts/bench-clouds`: `imds ec2 [--log FILE]` serves the EC2 fixture on a loopback port,
//! prints the port, and serves until killed (`imds azure-ovf` prints Azure's ovf-env.xml).
//! A serial-port cloud (`imds smartos`, `imds cloudsigma`) listens on a unix socket instead, for QEMU's second
//! serial port to connect to, and prints its path.
//! The same code answers the cargo tests (tests/common/emulator/). With `--log FILE`, every request
//! the emulator receives is appended to FILE as one `METHOD PATH` line, within a few
//! milliseconds of its arrival.

#[path = "../tests/common/emulator/mod.rs"]
mod emulator;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let platform = args.next().unwrap_or_default();
    if platform == "azure-ovf" {
        // The provisioning media's ovf-env.xml of the Azure fixture, for the QEMU case.
        let pw = Some(emulator::azure::PASSWORD);
        print!(
            "{}",
            emulator::azure::ovf_env(pw, Some(emulator::azure::CUSTOM_DATA), true)
        );
        return;
    }
    let log_file = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--log"), Some(file)) => Some(file),
        _ => usage(),
    };
    let (port, log) = match platform.as_str() {
        "ec2" => {
            let s = emulator::ec2::start();
            (s.port, s.log)
        }
        "openstack" => {
            let s = emulator::openstack::start();
            (s.port, s.log)
        }
        "gce" => {
            let s = emulator::gce::start();
            (s.port, s.log)
        }
        "digitalocean" => {
            let s = emulator::digitalocean::start();
            (s.port, s.log)
        }
        "maas" => {
            let s = emulator::maas::start();
            (s.port, s.log)
        }
        "smartos" => {
            let agent = emulator::smartos::Agent::new();
            let path = serial_socket(&platform);
            agent.listen(&path);
            serve(path.display(), agent.log, log_file)
        }
        "cloudsigma" => {
            let host = emulator::cloudsigma::Host::new();
            let path = serial_socket(&platform);
            host.listen(&path);
            serve(path.display(), host.log, log_file)
        }
        // IMDS and the wireserver on one port (`ember.azure.wireserver=` names it).
        "azure" => {
            let s = emulator::azure::start_with_wire();
            (s.port, s.log)
        }
        other => {
            eprintln!(
                "imds: unknown platform '{other}' (known: ec2, openstack, gce, digitalocean, azure, smartos, cloudsigma, maas)"
            );
            std::process::exit(2);
        }
    };
    serve(port, log, log_file)
}

/// A socket path of our own in the temporary directory (QEMU's `-chardev socket` wants it
/// short).
fn serial_socket(platform: &str) -> std::path::PathBuf {
    let name = format!("ember-imds-{platform}-{}.sock", std::process::id());
    std::env::temp_dir().join(name)
}

/// Logs the requests to `log_file`, prints where the emulator is, and serves until killed.
fn serve(
    at: impl std::fmt::Display,
    log: Arc<Mutex<Vec<emulator::Request>>>,
    log_file: Option<String>,
) -> ! {
    if let Some(file) = log_file {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .unwrap_or_else(|e| {
                eprintln!("imds: {file}: {e}");
                std::process::exit(1)
            });
        std::thread::spawn(move || write_log(log, out));
    }
    println!("{at}");
    loop {
        std::thread::park();
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: imds ec2|openstack|gce|digitalocean|azure|smartos|cloudsigma|maas [--log FILE] | imds azure-ovf"
    );
    std::process::exit(2)
}

/// Appends the requests logged since the last look, every 2 ms (the emulators keep their log
/// in memory, for the tests).
fn write_log(log: Arc<Mutex<Vec<emulator::Request>>>, mut out: std::fs::File) {
    let mut written = 0;
    loop {
        let lines: String = {
            let seen = log.lock().unwrap();
            let new = seen[written..]
                .iter()
                .map(|r| format!("{} {}\n", r.method, r.path))
                .collect();
            written = seen.len();
            new
        };
        if !lines.is_empty() && out.write_all(lines.as_bytes()).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

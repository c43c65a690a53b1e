//! The tests' metadata service emulators as a program, for the QEMU cases and
//! `scripts/bench-clouds`: `imds ec2 [--log FILE]` serves the EC2 fixture on a loopback port,
//! prints the port (and the password server's on a second line for exoscale and cloudstack),
//! and serves until killed (`imds azure-ovf` prints Azure's ovf-env.xml).
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
    // A second port some platforms have (the password server), printed on a second line.
    let mut second = None;
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
        "aliyun" => {
            let s = emulator::aliyun::start();
            (s.port, s.log)
        }
        "exoscale" | "cloudstack" => {
            let s = match platform.as_str() {
                "exoscale" => emulator::cloudstack::start_exoscale(),
                _ => emulator::cloudstack::start(),
            };
            second = Some(s.password_port);
            (s.port, s.log)
        }
        "oracle" => {
            let s = emulator::oracle::start();
            (s.port, s.log)
        }
        // IMDS and the wireserver on one port (`ember.azure.wireserver=` names it).
        "azure" => {
            let s = emulator::azure::start_with_wire();
            (s.port, s.log)
        }
        other => {
            eprintln!(
                "imds: unknown platform '{other}' (known: ec2, openstack, gce, digitalocean, oracle, aliyun, exoscale, cloudstack, azure)"
            );
            std::process::exit(2);
        }
    };
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
    println!("{port}");
    if let Some(p) = second {
        println!("{p}");
    }
    loop {
        std::thread::park();
    }
}

fn usage() -> ! {
    eprintln!("usage: imds ec2|openstack|gce|digitalocean|oracle|aliyun|exoscale|cloudstack|azure [--log FILE] | imds azure-ovf");
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

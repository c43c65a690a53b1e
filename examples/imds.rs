//! The tests' metadata service emulators as a program, for the QEMU cases and
//! `scripts/bench-clouds`: `imds ec2 [--log FILE]` serves the EC2 fixture on a loopback port,
//! prints the port (and the password server's on a second line for exoscale and cloudstack),
//! and serves until killed (`imds azure-ovf` prints Azure's ovf-env.xml, `imds vmware-ovf`
//! the OVF environment of a VMware vApp). `imds lxd SOCKET [--log FILE]` serves LXD's devlxd API
//! on the unix socket SOCKET instead (a container's /dev/lxd/sock, bind-mounted). A serial-port
//! cloud (`imds smartos`, `imds cloudsigma`) listens on a unix socket instead, for QEMU's second
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
    if platform == "vmware-ovf" {
        // The OVF environment of the VMware fixture, for the QEMU case's CD.
        print!("{}", emulator::vmware::ovf_fixture());
        return;
    }
    // LXD's API is a unix socket, not a port: its path comes first.
    let socket = (platform == "lxd").then(|| args.next().unwrap_or_else(|| usage()));
    let log_file = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--log"), Some(file)) => Some(file),
        _ => usage(),
    };
    // A second port some platforms have (the password server), printed on a second line.
    let mut second = None;
    let (port, log) = match (platform.as_str(), &socket) {
        ("lxd", Some(path)) => {
            let s = emulator::lxd::start(std::path::Path::new(path));
            (0, s.log)
        }
        ("exoscale" | "cloudstack", _) => {
            let s = match platform.as_str() {
                "exoscale" => emulator::cloudstack::start_exoscale(),
                _ => emulator::cloudstack::start(),
            };
            second = Some(s.password_port);
            (s.port, s.log)
        }
        ("smartos", _) => {
            let agent = emulator::smartos::Agent::new();
            let path = serial_socket(&platform);
            agent.listen(&path);
            serve(path.display(), agent.log, log_file)
        }
        ("cloudsigma", _) => {
            let host = emulator::cloudsigma::Host::new();
            let path = serial_socket(&platform);
            host.listen(&path);
            serve(path.display(), host.log, log_file)
        }
        _ => {
            let Some(&(_, start)) = EMULATORS.iter().find(|(name, _)| *name == platform) else {
                let known: Vec<&str> = EMULATORS.iter().map(|(name, _)| *name).collect();
                eprintln!(
                    "imds: unknown platform '{platform}' (known: {}, lxd, exoscale, cloudstack, \
                     smartos, cloudsigma)",
                    known.join(", ")
                );
                std::process::exit(2);
            };
            start()
        }
    };
    // Where it listens: the socket, else the port (and the second port on a line of its own).
    let at = match (&socket, second) {
        (Some(path), _) => path.clone(),
        (None, Some(p)) => format!("{port}\n{p}"),
        (None, None) => port.to_string(),
    };
    serve(at, log, log_file)
}

/// A socket path of our own in the temporary directory (QEMU's `-chardev socket` wants it
/// short).
fn serial_socket(platform: &str) -> std::path::PathBuf {
    let name = format!("ember-imds-{platform}-{}.sock", std::process::id());
    std::env::temp_dir().join(name)
}

/// Logs the requests to `log_file`, prints where the emulator is, and serves until killed.
fn serve(at: impl std::fmt::Display, log: Log, log_file: Option<String>) -> ! {
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

type Log = Arc<Mutex<Vec<emulator::Request>>>;
/// Starts an emulator: its port and its log.
type Start = fn() -> (u16, Log);

/// Starts an emulator on a loopback port: its port, and its log of requests.
macro_rules! emulator {
    ($name:ident) => {
        || {
            let s = emulator::$name::start();
            (s.port, s.log)
        }
    };
}

/// The emulators by platform name, one row each.
const EMULATORS: &[(&str, Start)] = &[
    ("ec2", emulator!(ec2)),
    // EC2 with an instance-store disk: block-device-mapping's ephemeral0 is `sdb`.
    ("ec2-ephemeral", || {
        let s = emulator::ec2::start();
        let bdm = "/latest/meta-data/block-device-mapping";
        s.set(
            &format!("{bdm}/"),
            vec![emulator::ok("ami\nephemeral0\nroot")],
        );
        s.set(&format!("{bdm}/ephemeral0"), vec![emulator::ok("sdb")]);
        (s.port, s.log)
    }),
    // EC2 as QEMU's user network can serve it (issue 37's boot-faults): one NIC, IPv4 only.
    // QEMU answers no DHCPv6, so an IPv6 NIC would hold ifupdown's networking.service for its
    // five minutes, a fault of the emulation and not of the instance.
    ("ec2-qemu", || {
        let s = emulator::ec2::start();
        let macs = "/latest/meta-data/network/interfaces/macs";
        let mac0 = emulator::ec2::MAC0;
        s.set(&format!("{macs}/"), vec![emulator::ok(&format!("{mac0}/"))]);
        for leaf in ["ipv6s", "subnet-ipv6-cidr-blocks"] {
            s.set(
                &format!("{macs}/{mac0}/{leaf}"),
                vec![emulator::status(404)],
            );
        }
        (s.port, s.log)
    }),
    ("openstack", emulator!(openstack)),
    ("gce", emulator!(gce)),
    ("digitalocean", emulator!(digitalocean)),
    ("aliyun", emulator!(aliyun)),
    ("maas", emulator!(maas)),
    ("oracle", emulator!(oracle)),
    // IMDS and the wireserver on one port (`ember.azure.wireserver=` names it).
    ("azure", || {
        let s = emulator::azure::start_with_wire();
        (s.port, s.log)
    }),
    ("cloudcix", emulator!(cloudcix)),
    ("bigstep", emulator!(bigstep)),
    ("hetzner", emulator!(hetzner)),
    ("vultr", emulator!(vultr)),
    ("akamai", emulator!(akamai)),
    ("upcloud", emulator!(upcloud)),
    ("nwcs", emulator!(nwcs)),
    ("scaleway", emulator!(scaleway)),
];

fn usage() -> ! {
    let known: Vec<&str> = EMULATORS.iter().map(|(name, _)| *name).collect();
    eprintln!(
        "usage: imds {}|exoscale|cloudstack|smartos|cloudsigma [--log FILE] \
         | imds lxd SOCKET [--log FILE] | imds azure-ovf|vmware-ovf",
        known.join("|")
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

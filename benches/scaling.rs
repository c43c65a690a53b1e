//! `cargo bench --bench scaling`: how `ember-initrd all` grows with its input, NoCloud seed
//! directory, a fresh target each run: user-data of 1 KB to 10 MB (one write_files entry that
//! size), 100 / 1 k / 10 k write_files entries (a hundred files to a directory), 100 / 1 k /
//! 10 k users, network configs of 1 / 8 / 64 NICs; and the same run on the EC2 emulator
//! (tests/common/emulator/ec2.rs) with its request count. Prints medians (wall, CPU) and the peak RSS, and the cost per unit, which
//! stays about flat when the cost is linear.

mod common;
#[path = "../tests/common/emulator/mod.rs"]
mod emulator;

use common::{median, run_initrd, write, Sample};
use std::fmt::Write as _;
use std::path::Path;

const META: &[u8] = b"instance-id: i-scale\nlocal-hostname: scale\n";

fn reset(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join("target"));
    let _ = std::fs::remove_dir_all(dir.join("run"));
    let t = dir.join("target");
    write(&t.join("etc/os-release"), b"ID=debian\nVERSION_ID=\"12\"\n");
    write(&t.join("etc/passwd"), b"root:x:0:0:root:/root:/bin/sh\n");
    write(&t.join("etc/shadow"), b"root:*:19000:0:99999:7:::\n");
    write(&t.join("etc/group"), b"root:x:0:\n");
}

fn seed(dir: &Path, files: &[(&str, &[u8])]) {
    let s = dir.join("target/var/lib/cloud/seed/nocloud");
    write(&s.join("meta-data"), META);
    for (name, data) in files {
        write(&s.join(name), data);
    }
}

fn big_file(bytes: usize) -> Vec<u8> {
    let mut ud =
        String::from("#cloud-config\nwrite_files:\n  - path: /var/lib/bench/big\n    content: |\n");
    let line = "      0123456789abcdef0123456789abcdef0123456789abcdef0123456789\n";
    while ud.len() < bytes {
        ud.push_str(line);
    }
    ud.into_bytes()
}

fn many_files(n: usize) -> Vec<u8> {
    let mut ud = String::from("#cloud-config\nwrite_files:\n");
    for i in 0..n {
        // A hundred to a directory: a single directory of 10 k files measures the filesystem.
        let _ = write!(
            ud,
            "  - path: /var/lib/bench/d{}/f{i}\n    content: file {i}\n",
            i / 100
        );
    }
    ud.into_bytes()
}

fn many_users(n: usize) -> Vec<u8> {
    let mut ud = String::from("#cloud-config\nusers:\n");
    for i in 0..n {
        let _ = writeln!(
            ud,
            "  - name: u{i}\n    gecos: User {i}\n    shell: /bin/sh"
        );
    }
    ud.into_bytes()
}

fn many_nics(n: usize) -> Vec<u8> {
    let mut net = String::from("version: 2\nethernets:\n");
    for i in 0..n {
        let _ = write!(
            net,
            "  nic{i}:\n    match:\n      macaddress: \"52:54:00:00:{:02x}:{:02x}\"\n    addresses: [10.{}.{}.2/24]\n    routes:\n      - to: 10.200.{}.0/24\n        via: 10.{}.{}.1\n",
            i / 256, i % 256, i / 256, i % 256, i % 256, i / 256, i % 256
        );
    }
    net.into_bytes()
}

struct Row {
    case: String,
    units: usize,
    unit: &'static str,
    wall_us: u64,
    cpu_us: u64,
    rss_kib: u64,
}

fn measure(bin: &str, dir: &Path, runs: usize, prepare: &dyn Fn(&Path)) -> (u64, u64, u64) {
    let mut samples: Vec<Sample> = Vec::new();
    for _ in 0..runs {
        reset(dir);
        prepare(dir);
        samples.push(run_initrd(bin, dir, &["all"]));
    }
    let mut wall: Vec<u64> = samples.iter().map(|s| s.wall_us).collect();
    let mut cpu: Vec<u64> = samples.iter().map(|s| s.cpu_us).collect();
    let rss = samples.iter().map(|s| s.max_rss_kib).max().unwrap();
    (median(&mut wall), median(&mut cpu), rss)
}

fn main() {
    let bin = common::initrd_bin();
    let dir = std::env::temp_dir().join(format!("ember-scaling-{}", std::process::id()));
    write(&dir.join("host/proc/cmdline"), b"ro quiet\n");
    let mut rows = Vec::new();
    let mut add =
        |case: &str, units: usize, unit: &'static str, runs: usize, data: Vec<u8>, file: &str| {
            let prep = |d: &Path| seed(d, &[("user-data", b"#cloud-config\n"), (file, &data)]);
            let (wall_us, cpu_us, rss_kib) = measure(&bin, &dir, runs, &prep);
            rows.push(Row {
                case: case.into(),
                units,
                unit,
                wall_us,
                cpu_us,
                rss_kib,
            });
        };
    add(
        "baseline (empty cloud-config)",
        1,
        "run",
        11,
        b"#cloud-config\n".to_vec(),
        "user-data",
    );
    for kb in [1, 100, 1000, 10_000] {
        let runs = if kb >= 1000 { 5 } else { 11 };
        add(
            "user-data size",
            kb,
            "KB",
            runs,
            big_file(kb * 1000),
            "user-data",
        );
    }
    for n in [100, 1000, 10_000] {
        add(
            "write_files entries",
            n,
            "file",
            if n > 1000 { 3 } else { 7 },
            many_files(n),
            "user-data",
        );
    }
    for n in [100, 1000, 10_000] {
        add(
            "users",
            n,
            "user",
            if n > 1000 { 3 } else { 7 },
            many_users(n),
            "user-data",
        );
    }
    for n in [1, 8, 64] {
        add(
            "network config NICs",
            n,
            "NIC",
            11,
            many_nics(n),
            "network-config",
        );
    }
    let ec2 = ec2_row(&bin, &dir);
    let _ = std::fs::remove_dir_all(&dir);

    println!("ember-initrd all, NoCloud seed directory, fresh target each run ({bin})");
    println!("| input | size | wall ms | CPU ms | peak RSS KiB | CPU µs per unit over the smaller size |");
    println!("|---|---|---|---|---|---|");
    let mut prev: Option<&Row> = None;
    for r in &rows {
        // The slope between neighbouring sizes: flat slopes mean linear cost.
        let slope = match prev.filter(|p| p.case == r.case) {
            Some(p) => format!(
                "{:.1}",
                r.cpu_us.saturating_sub(p.cpu_us) as f64 / (r.units - p.units) as f64
            ),
            None => "—".into(),
        };
        println!(
            "| {} | {} {} | {:.1} | {:.1} | {} | {slope} |",
            r.case,
            r.units,
            r.unit,
            r.wall_us as f64 / 1000.0,
            r.cpu_us as f64 / 1000.0,
            r.rss_kib
        );
        prev = Some(r);
    }
    println!("{ec2}");
}

/// `ember-initrd all` against the EC2 emulator: wall, CPU, RSS and the requests it logged.
fn ec2_row(bin: &str, dir: &Path) -> String {
    let server = emulator::ec2::start();
    let dmi = dir.join("host/sys/class/dmi/id");
    write(&dmi.join("sys_vendor"), b"Amazon EC2\n");
    write(
        &dmi.join("product_uuid"),
        b"ec2e1916-9099-7caf-fd21-012345abcdef\n",
    );
    let line = format!("ro ember.metadata-url={}\n", server.url());
    write(&dir.join("host/proc/cmdline"), line.as_bytes());
    let runs = 11;
    let before = server.requests().len();
    let (wall, cpu, rss) = measure(bin, dir, runs, &|_| {});
    let requests = (server.requests().len() - before) / runs;
    let _ = std::fs::remove_dir_all(dir.join("host/sys"));
    format!(
        "\nember-initrd all on the EC2 emulator (IMDSv2, loopback), {runs} runs: wall {:.1} ms, CPU {:.1} ms (medians), peak RSS {rss} KiB, {requests} HTTP requests a run",
        wall as f64 / 1000.0,
        cpu as f64 / 1000.0
    )
}

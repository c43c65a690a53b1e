//! `cargo bench --bench scaling`: how `ember-initrd all` grows with its input, NoCloud seed
//! directory, fresh directories each run: user-data of 1 KB to 10 MB (one write_files entry
//! that size), 100 / 1 k / 10 k write_files entries (a hundred files to a directory), 100 /
//! 1 k / 10 k users, network configs of 1 / 8 / 64 NICs; and the same run on the EC2 emulator
//! (tests/common/emulator/ec2.rs) with its request count. Each row has its floor beside it, as
//! in the pipeline bench (common/floor.rs): tar extracting the files one ember run of that row
//! produced, then one `syncfs`, in rounds of an ember run and a floor run, the order
//! alternating. Prints medians (wall, CPU) of both, ember's over the floor's, the peak RSS,
//! and the cost per unit, which stays about flat when the cost is linear. Reports, never
//! fails: where the input is large, parsing it is work the floor has no share of.
//!
//! As in the pipeline bench, each run gets directories of its own, removed at the end of its
//! row (ext4's recently deleted inodes), targets in `EMBER_BENCH_DIR` or the temporary
//! directory, run directories on /dev/shm, the filesystem flushed (untimed) before each run.

mod common;
#[path = "../tests/common/emulator/mod.rs"]
mod emulator;

use common::floor::{self, Floor};
use common::{run_initrd_in, summary, write, How, Summary};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const META: &[u8] = b"instance-id: i-scale\nlocal-hostname: scale\n";

/// A fresh `here` with what every row's target and host hold: an os-release, the account
/// tables with root alone, the kernel command line.
fn base(here: &Path, cmdline: &[u8]) {
    let t = here.join("target");
    write(&t.join("etc/os-release"), b"ID=debian\nVERSION_ID=\"12\"\n");
    write(&t.join("etc/passwd"), b"root:x:0:0:root:/root:/bin/sh\n");
    write(&t.join("etc/shadow"), b"root:*:19000:0:99999:7:::\n");
    write(&t.join("etc/group"), b"root:x:0:\n");
    write(&here.join("host/proc/cmdline"), cmdline);
}

fn seed(here: &Path, files: &[(&str, &[u8])]) {
    base(here, b"ro quiet\n");
    let s = here.join("target/var/lib/cloud/seed/nocloud");
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
    ember: Summary,
    floor: Summary,
}

/// Where one row's directories go, removed at its end: targets below `dir`, run directories
/// below `run`.
struct Place {
    dir: PathBuf,
    run: PathBuf,
}

/// One row: a warm-up ember run under GNU time (the peak RSS), whose output the floor packs,
/// then `runs` rounds of an ember run and a floor run, each in directories `prepare` fills.
fn measure(bin: &str, at: &Place, runs: usize, prepare: &dyn Fn(&Path)) -> (Summary, Summary) {
    let fresh = |name: &str| {
        let here = at.dir.join(name);
        prepare(&here);
        common::settle(&at.dir);
        here
    };
    std::fs::create_dir_all(&at.run).unwrap();
    let here = at.dir.join("w");
    prepare(&here);
    let inputs = floor::Inputs::of(&here);
    let rss = run_initrd_in(bin, &here, &at.run.join("w"), &["all"], How::PeakRss);
    let floor = Floor::pack(&at.run.join("floor.tar"), &here, &inputs, &at.run.join("w"));
    let mut ours = Vec::with_capacity(runs);
    let mut floors = Vec::with_capacity(runs);
    for n in 0..runs {
        let (e, f) = (format!("e{n}"), format!("f{n}"));
        if n % 2 == 1 {
            floors.push(floor.run(&fresh(&f), &at.run.join(&f), How::Timed));
        }
        let here = fresh(&e);
        ours.push(run_initrd_in(
            bin,
            &here,
            &at.run.join(&e),
            &["all"],
            How::Timed,
        ));
        if n % 2 == 0 {
            floors.push(floor.run(&fresh(&f), &at.run.join(&f), How::Timed));
        }
    }
    drop(floor);
    let _ = std::fs::remove_dir_all(&at.dir);
    let _ = std::fs::remove_dir_all(&at.run);
    (summary(&ours, &[rss]), summary(&floors, &[]))
}

fn main() {
    let bin = common::initrd_bin();
    let dir = common::bench_dir("ember-scaling");
    let run = common::run_base("ember-scaling", &dir);
    common::remove_on_panic(&[&dir, &run]);
    let place = |row: usize| Place {
        dir: dir.join(format!("r{row}")),
        run: run.join(format!("r{row}")),
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut add =
        |case: &str, units: usize, unit: &'static str, runs: usize, data: Vec<u8>, file: &str| {
            let prep = |d: &Path| seed(d, &[("user-data", b"#cloud-config\n"), (file, &data)]);
            let (ember, floor) = measure(&bin, &place(rows.len()), runs, &prep);
            rows.push(Row {
                case: case.into(),
                units,
                unit,
                ember,
                floor,
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
    let ec2 = ec2_row(&bin, &place(rows.len()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&run);

    println!("ember-initrd all, NoCloud seed directory, fresh directories each run ({bin})");
    println!(
        "targets in {}, run directories in {}; floor: tar -x of what one ember run of the row produced, then syncfs",
        dir.parent().unwrap_or(&dir).display(),
        run.parent().unwrap_or(&run).display()
    );
    println!("| input | size | wall ms: ember, floor, ratio | CPU ms: ember, floor, ratio | peak RSS KiB | CPU µs per unit over the smaller size |");
    println!("|---|---|---|---|---|---|");
    let mut prev: Option<&Row> = None;
    for r in &rows {
        // The slope between neighbouring sizes: flat slopes mean linear cost.
        let slope = match prev.filter(|p| p.case == r.case) {
            Some(p) => format!(
                "{:.1}",
                r.ember.cpu_us.saturating_sub(p.ember.cpu_us) as f64 / (r.units - p.units) as f64
            ),
            None => "—".into(),
        };
        println!(
            "| {} | {} {} | {} | {slope} |",
            r.case,
            r.units,
            r.unit,
            versus(&r.ember, &r.floor)
        );
        prev = Some(r);
    }
    println!("{ec2}");
}

/// Wall and CPU of ember and its floor with their ratios, then ember's peak RSS: table cells.
fn versus(ember: &Summary, floor: &Summary) -> String {
    let (wall, cpu) = common::ratios(ember, floor);
    let ms = |us: u64| us as f64 / 1000.0;
    format!(
        "{:.1}, {:.1}, {wall:.2} | {:.1}, {:.1}, {cpu:.2} | {}",
        ms(ember.wall_us),
        ms(floor.wall_us),
        ms(ember.cpu_us),
        ms(floor.cpu_us),
        ember.max_rss_kib
    )
}

/// `ember-initrd all` against the EC2 emulator: wall, CPU, RSS and the requests it logged.
fn ec2_row(bin: &str, at: &Place) -> String {
    let server = emulator::ec2::start();
    let line = format!("ro ember.metadata-url={}\n", server.url());
    let prep = |here: &Path| {
        base(here, line.as_bytes());
        let dmi = here.join("host/sys/class/dmi/id");
        write(&dmi.join("sys_vendor"), b"Amazon EC2\n");
        write(
            &dmi.join("product_uuid"),
            b"ec2e1916-9099-7caf-fd21-012345abcdef\n",
        );
    };
    let runs = 11;
    let (ember, floor) = measure(bin, at, runs, &prep);
    // The warm-up run's requests too.
    let requests = server.requests().len() / (runs + 1);
    format!(
        "\nember-initrd all on the EC2 emulator (IMDSv2, loopback), {runs} rounds, {requests} HTTP requests a run:\n\
         | wall ms: ember, floor, ratio | CPU ms: ember, floor, ratio | peak RSS KiB |\n|---|---|---|\n| {} |",
        versus(&ember, &floor)
    )
}

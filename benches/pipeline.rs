//! `cargo bench`: the whole `ember-initrd all` on a NoCloud seed directory with a realistic
//! cloud-config (a hostname, two users with keys, five write_files, runcmd), as a process,
//! against a fresh run directory and target root each time. Reports median and p90 wall time,
//! median CPU time (user+sys) and the largest peak RSS (GNU time's, see common).
//!
//! Each run gets directories of its own, all removed only at the end: removing the previous
//! run's tree before each run made ext4 skip thousands of recently deleted inodes on every
//! file ember created (`recently_deleted` in its allocator), a cost that grew through the
//! bench and that a boot, on a target nobody just emptied, never pays. The run directory goes
//! to /dev/shm where there is one: at boot it is /run, a tmpfs. `EMBER_BENCH_DIR=DIR` puts the
//! targets in DIR (a freshly made filesystem, say) instead of the temporary directory, which
//! other jobs on the machine share.

mod common;
use common::{median, run_initrd_in, write, Sample};
use std::path::Path;

const RUNS: usize = 200;

const USER_DATA: &str = r#"#cloud-config
hostname: bench-node
fqdn: bench-node.example.internal
users:
  - name: alice
    gecos: Alice
    groups: [adm, sudo]
    shell: /bin/bash
    sudo: ALL=(ALL) NOPASSWD:ALL
    ssh_authorized_keys:
      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchKeyAliceAAAAAAAAAAAAAAAAAAAAAAAAAAAA alice@a
      - ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDBenchKeyAliceRsaAAAAAAAAAAAAAAAAAAAAAAAAAAA alice@b
  - name: bob
    shell: /bin/sh
    ssh_authorized_keys:
      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchKeyBobAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA bob@c
write_files:
  - path: /etc/motd
    content: "hello\n"
  - path: /etc/app/app.conf
    permissions: '0640'
    content: |
      listen = 0.0.0.0:8080
      workers = 4
  - path: /etc/app/env
    permissions: '0600'
    content: TOKEN=bench
  - path: /etc/sysctl.d/90-bench.conf
    content: net.ipv4.ip_forward = 1
  - path: /var/lib/app/ready
    content: ""
    defer: true
runcmd:
  - [sh, -c, "echo ok > /var/lib/app/state"]
  - systemctl enable --now app.service
"#;

fn run_once(bin: &str, dir: &Path, run: &Path, n: usize) -> Sample {
    let here = dir.join(n.to_string());
    let target = here.join("target");
    write(
        &target.join("etc/os-release"),
        b"ID=debian\nVERSION_ID=\"12\"\n",
    );
    let seed = target.join("var/lib/cloud/seed/nocloud");
    write(
        &seed.join("meta-data"),
        b"instance-id: i-bench\nlocal-hostname: bench\n",
    );
    write(&seed.join("user-data"), USER_DATA.as_bytes());
    std::fs::create_dir_all(here.join("host/proc")).unwrap();
    std::fs::copy(dir.join("cmdline"), here.join("host/proc/cmdline")).unwrap();
    run_initrd_in(bin, &here, &run.join(n.to_string()), &["all"])
}

fn main() {
    let bin = common::initrd_bin();
    let base = std::env::var_os("EMBER_BENCH_DIR").map_or_else(std::env::temp_dir, Into::into);
    let dir = base.join(format!("ember-bench-{}", std::process::id()));
    let shm = Path::new("/dev/shm");
    let run = match shm.is_dir() {
        true => shm.join(format!("ember-bench-run-{}", std::process::id())),
        false => dir.join("run"),
    };
    write(&dir.join("cmdline"), b"ro quiet\n");
    for n in 0..10 {
        run_once(&bin, &dir, &run, n); // warm the page cache
    }
    let samples: Vec<Sample> = (10..10 + RUNS)
        .map(|n| run_once(&bin, &dir, &run, n))
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&run);
    let mut wall: Vec<u64> = samples.iter().map(|s| s.wall_us).collect();
    let mut cpu: Vec<u64> = samples.iter().map(|s| s.cpu_us).collect();
    let rss = samples.iter().map(|s| s.max_rss_kib).max().unwrap();
    let p90 = {
        wall.sort_unstable();
        wall[wall.len() * 9 / 10]
    };
    println!("ember-initrd all, NoCloud seed dir, realistic cloud-config, {RUNS} runs ({bin})");
    println!(
        "  run directory in {}",
        run.parent().unwrap_or(&run).display()
    );
    println!("  wall time  median {} us, p90 {p90} us", median(&mut wall));
    println!("  CPU time   median {} us (user+sys)", median(&mut cpu));
    println!("  peak RSS   max {rss} KiB");
}

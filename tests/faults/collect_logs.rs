//! `ember collect-logs` run by root where another user can plant things: in a directory she
//! can write (the tarball's own name and the temporary name beside it), and in the trees it
//! collects from (links at the final component or in a parent, hard links, FIFOs), and with
//! the kernel log and journal tools that never end or never stop talking.

use crate::common::{self, stderr, Machine};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

const SECRET: &str = "SECRET-c0ll3ct-9d1e";
/// The record of rendered network files, which `collect-logs` collects.
const RECORD: &str = "/var/lib/ember/network-rendered.json";

fn collect(m: &Machine, target: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["--target", target.to_str().unwrap(), "collect-logs"];
    all.extend_from_slice(args);
    m.ember(&all)
}

/// The tarball's files, `(name, content)`.
fn entries(tarball: &Path) -> Vec<(String, Vec<u8>)> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(tarball).unwrap())
        .read_to_end(&mut tar)
        .unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    while at + 512 <= tar.len() && tar[at] != 0 {
        let head = &tar[at..at + 512];
        let name = String::from_utf8_lossy(&head[..100])
            .trim_end_matches('\0')
            .to_string();
        let size_field = String::from_utf8_lossy(&head[124..136]);
        let size = u64::from_str_radix(size_field.trim_matches(|c| c == '\0' || c == ' '), 8)
            .unwrap() as usize;
        out.push((name, tar[at + 512..at + 512 + size].to_vec()));
        at += 512 + size.div_ceil(512) * 512;
    }
    out
}

/// Expected: the tarball is created new. A name that exists (a file another user made, a
/// link to a file of root's, a dangling link) is refused with an error naming it and left as
/// it was; with `--replace` a new 0600 file of root's takes the name (a link is replaced,
/// never followed), also when temporary names beside it were planted.
#[test]
fn tarball_names_that_exist_are_refused_or_replaced_never_followed() {
    let m = Machine::new("collect-tarball");
    let shared = m.dir.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = m.dir.join("victim");
    std::fs::write(&victim, "root's file\n").unwrap();

    let hers = shared.join("hers.tar.gz");
    std::fs::write(&hers, "").unwrap();
    std::os::unix::fs::chown(&hers, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&hers, std::fs::Permissions::from_mode(0o666)).unwrap();
    let link = shared.join("link.tar.gz");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let dangling = shared.join("dangling.tar.gz");
    std::os::unix::fs::symlink(m.dir.join("made-by-root"), &dangling).unwrap();

    for name in [&hers, &link, &dangling] {
        let out = collect(&m, &m.target, &["--tarfile", name.to_str().unwrap()]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}: {}",
            name.display(),
            stderr(&out)
        );
        let err = stderr(&out);
        assert!(err.contains(name.to_str().unwrap()), "{err}");
        assert!(err.contains("--replace"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's file\n");
    assert!(!m.dir.join("made-by-root").exists());
    let meta = std::fs::metadata(&hers).unwrap();
    assert_eq!((meta.uid(), meta.len()), (65534, 0), "her file untouched");

    // Replaced, with the temporary names a counter would give taken by her links (ours are
    // random and created O_EXCL, so a taken one is skipped, never opened).
    for n in 0..64 {
        let _ = std::os::unix::fs::symlink(&victim, shared.join(format!(".hers.tar.gz.{n}")));
    }
    for name in [&hers, &link, &dangling] {
        let out = collect(
            &m,
            &m.target,
            &["--tarfile", name.to_str().unwrap(), "--replace"],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            name.display(),
            stderr(&out)
        );
        let meta = std::fs::symlink_metadata(name).unwrap();
        assert!(
            meta.file_type().is_file(),
            "{} is a new file",
            name.display()
        );
        assert_eq!((meta.uid(), meta.mode() & 0o7777), (0, 0o600));
        assert!(entries(name).iter().any(|(n, _)| n == "ember-logs/version"));
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's file\n");
    assert!(!m.dir.join("made-by-root").exists());
    let left: Vec<_> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.') && !n.starts_with(".hers.tar.gz."))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");

    // A new name: created, 0600 from the first byte.
    let new = shared.join("new.tar.gz");
    let out = collect(&m, &m.target, &["--tarfile", new.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(Machine::mode(&new), 0o600);
}

/// Expected: what is collected is read as a regular file with one name, reached without
/// following any link, in the target and in the run directory. A link at the final
/// component, a link in a parent directory, a hard link, a FIFO: skipped, each named on
/// stderr with why; what they point at never reaches the tarball; the rest is collected.
#[test]
fn links_fifos_and_hard_links_in_collected_paths_are_skipped_and_named() {
    let m = Machine::new("collect-links");
    let t = &m.target;
    let secret = format!("{SECRET}\n");
    m.write(t, "etc/shadow", secret.as_bytes());
    m.write(t, "var/lib/cloud/instance/user-data.txt", secret.as_bytes());
    m.write(t, "secret-dir/cloud-init-output.log", secret.as_bytes());
    m.write(&m.run, "ember/detect.json", b"{\"kept\": true}\n");
    m.write(&m.run, "elsewhere/status.json", secret.as_bytes());
    std::fs::create_dir_all(t.join("var/log")).unwrap();
    // A final-component link (absolute: resolved inside the target by a following read).
    std::os::unix::fs::symlink("/etc/shadow", t.join("var/log/cloud-init.log")).unwrap();
    // A hard link to the same secret as the network record.
    let record_rel = RECORD.to_string();
    let record = t.join(record_rel.trim_start_matches('/'));
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    std::fs::hard_link(t.join("etc/shadow"), &record).unwrap();
    // A link in a parent directory of the run directory's files.
    std::os::unix::fs::symlink(m.run.join("elsewhere"), m.run.join("cloud-init")).unwrap();
    // A link at the final component in the run directory.
    std::os::unix::fs::symlink(
        t.join("var/lib/cloud/instance/user-data.txt"),
        m.run.join("ember/status.json"),
    )
    .unwrap();
    // A FIFO.
    rustix::fs::mknodat(
        rustix::fs::CWD,
        m.run.join("ember/instance-data.json"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();

    let tarball = m.dir.join("logs.tar.gz");
    let out = collect(&m, t, &["--tarfile", tarball.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains(SECRET), "{err}");
    for (path, why) in [
        ("/var/log/cloud-init.log", "a symbolic link"),
        (record_rel.as_str(), "hard link"),
        ("cloud-init/status.json", "cloud-init is a symbolic link"),
        ("ember/status.json", "a symbolic link"),
        ("ember/instance-data.json", "a FIFO"),
    ] {
        let line = err
            .lines()
            .find(|l| l.starts_with("skipped ") && l.contains(path))
            .unwrap_or_else(|| panic!("{path} not named as skipped: {err}"));
        assert!(line.contains(why), "{line}");
    }
    let got = entries(&tarball);
    for (name, data) in &got {
        let text = String::from_utf8_lossy(data);
        assert!(
            !text.contains(SECRET),
            "{name} holds what a link pointed at"
        );
    }
    assert!(
        got.iter()
            .any(|(n, _)| n == "ember-logs/run/ember/detect.json"),
        "the rest is collected: {:?}",
        got.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
}

/// Expected: on a live system (`--target /`) the kernel log and journal tools are bounded: one
/// that never ends is stopped at its deadline, one that never stops talking at its output
/// budget, and the tarball is written either way, saying which was cut.
#[test]
fn kernel_log_and_journal_tools_that_never_end_are_bounded() {
    let m = Machine::new("collect-tools");
    let bin = m.dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in [
        // 80 MB, far past the budget (pre-fix, all of it was held and written).
        (
            "dmesg",
            "#!/bin/sh\nhead -c 80000000 /dev/zero | tr '\\0' x\n",
        ),
        ("journalctl", "#!/bin/sh\necho started\nexec sleep 120\n"),
    ] {
        std::fs::write(bin.join(name), body).unwrap();
        std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let tarball = m.dir.join("live.tar.gz");
    let start = Instant::now();
    let out = common::run(
        std::process::Command::new(common::EMBER)
            .env("PATH", path)
            .arg("--run")
            .arg(&m.run)
            .args(["--target", "/", "collect-logs", "--tarfile"])
            .arg(&tarball),
    );
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(took < Duration::from_secs(100), "took {took:?}");
    let got = entries(&tarball);
    let size = |n: &str| {
        got.iter()
            .find(|(name, _)| name == n)
            .map(|(_, d)| d.len())
            .unwrap_or_else(|| panic!("{n} missing"))
    };
    assert!(size("ember-logs/dmesg.txt") <= 16 << 20);
    assert!(size("ember-logs/dmesg.txt") > 0);
    assert!(size("ember-logs/journal.txt") > 0);
    let err = stderr(&out);
    assert!(err.contains("dmesg") && err.contains("budget"), "{err}");
    assert!(
        err.contains("journalctl") && err.contains("deadline"),
        "{err}"
    );
}

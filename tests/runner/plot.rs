//! `ember analyze plot` on a real boot: `ember-initrd all` from a NoCloud seed, then the
//! runner's stages chrooted into the target (one runcmd fails), then the SVG, checked as XML
//! and rendered by rsvg-convert to a PNG whose size and colours are read back.

use crate::common;
use common::{skip, stderr, Machine};
use std::io::Read;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::Command;

// No RSA: the target has no ssh-keygen for the runner to make one with.
const USER_DATA: &str =
    "#cloud-config\nhostname: plot\nssh_genkeytypes: [ed25519]\nruncmd:\n  - exit 3\n";

/// The colours of the plot's style sheet (crates/runner/src/plot.rs).
const INITRAMFS_STAGE: [u8; 3] = [0x4a, 0x7e, 0xbb];
const RUNNER_STAGE: [u8; 3] = [0x3c, 0x9a, 0x5f];
const FAILED: [u8; 3] = [0xd9, 0x36, 0x2b];

fn ember(m: &Machine, path: &str, args: &[&str]) -> std::process::Output {
    m.write(&m.host, "proc/sys/kernel/random/boot_id", b"boot-1\n");
    common::run(
        Command::new(common::EMBER)
            .arg("--target")
            .arg(&m.target)
            .arg("--run")
            .arg(&m.run)
            .arg("--host")
            .arg(&m.host)
            .args(args)
            .env("PATH", path),
    )
}

/// A provisioned target whose runner stages ran; None (and SKIP) where chroot cannot run.
fn booted() -> Option<Machine> {
    if !rustix::process::geteuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "CI runs as root");
        skip("chroot into the target needs root");
        return None;
    }
    if !Path::new("/bin/busybox").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "scripts/setup installs busybox-static"
        );
        skip("no /bin/busybox (busybox-static)");
        return None;
    }
    let m = Machine::new("plot");
    let t = &m.target;
    for d in ["bin", "var/tmp", "tmp", "root"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    std::fs::copy("/bin/busybox", t.join("bin/busybox")).unwrap();
    symlink("busybox", t.join("bin/sh")).unwrap();
    m.write(t, "etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n");
    m.write(t, "etc/group", b"root:x:0:\n");
    m.write(t, "etc/default/locale", b"LANG=C.UTF-8\n");
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-plot\n"),
            ("user-data", USER_DATA),
        ],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let path = std::env::var("PATH").unwrap_or_default();
    for args in [&["init"][..], &["modules", "--mode", "config"]] {
        let out = ember(&m, &path, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            common::text(&out)
        );
    }
    // The failed runcmd makes final exit 1; the plot shows it.
    ember(&m, &path, &["modules", "--mode", "final"]);
    Some(m)
}

#[test]
fn plot_draws_a_real_boot_that_rsvg_renders() {
    let Some(m) = booted() else { return };
    // The test host has been up for hours: the boot is moved to 1 s after the kernel's start,
    // as on a machine just booted, so its millisecond bars are wide enough to count.
    let mut status = m.status();
    let shift = status["stages"]["detect"]["start"].as_f64().unwrap() - 1.0;
    for (_, stage) in status["stages"].as_object_mut().unwrap() {
        for key in ["start", "finished"] {
            stage[key] = (stage[key].as_f64().unwrap() - shift).into();
        }
        for step in stage["steps"].as_array_mut().unwrap() {
            if let Some(t) = step["start"].as_f64() {
                step["start"] = (t - shift).into();
            }
        }
    }
    std::fs::write(m.run.join("ember/status.json"), status.to_string()).unwrap();
    let stages = &status["stages"];
    let final_end = stages["final"]["finished"].as_f64().unwrap();

    // systemd stands in: `<run>/systemd/system` says it runs; its systemctl knows no
    // ssh.service (0) and gives sshd.service's start, just after the final stage.
    std::fs::create_dir_all(m.run.join("systemd/system")).unwrap();
    let sshd_us = (final_end * 1e6) as u64 + 250_000;
    let bin = m.dir.join("fakebin");
    let log = m.dir.join("systemctl.log");
    m.write(
        &bin,
        "systemctl",
        format!(
            "#!/bin/sh\necho \"$*\" >> {}\ncase \"$*\" in *sshd.service) echo {sshd_us} ;; *) echo 0 ;; esac\n",
            log.display()
        )
        .as_bytes(),
    );
    std::fs::set_permissions(
        bin.join("systemctl"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let file = m.dir.join("boot.svg");
    let out = ember(
        &m,
        &path,
        &["analyze", "plot", "--output", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "show --value --property=ExecMainStartTimestampMonotonic ssh.service\n\
         show --value --property=ExecMainStartTimestampMonotonic sshd.service\n"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();

    // A row per stage and per step, each named as status.json names it.
    let mut rows = 0;
    for name in ["detect", "fetch", "local", "config", "final"] {
        let stage = &stages[name];
        assert!(
            labels.iter().any(|l| l.starts_with(&format!("{name} "))),
            "{name}: {labels:?}"
        );
        rows += 1;
        for step in stage["steps"].as_array().unwrap() {
            let step_name = step["name"].as_str().unwrap();
            let result = step["result"].as_str().unwrap();
            let not_run = format!("{step_name}: not run, {result}");
            let ran = |l: &&&str| l.starts_with(step_name) && l.ends_with(&format!("({result})"));
            assert!(
                labels.iter().any(|l| ran(&l) || *l == not_run),
                "{step_name}: {labels:?}"
            );
            rows += 1;
        }
    }
    let bars = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .filter(|n| {
            ["si", "sr", "ti", "tr", "f", "k"].contains(&n.attribute("class").unwrap_or(""))
        })
        .count();
    let legend = 6;
    let not_run = text.matches(": not run, ").count();
    assert_eq!(bars, rows - not_run + legend, "{text}");
    assert!(
        labels
            .iter()
            .any(|l| l.contains("module scripts_user") && l.ends_with("(error)")),
        "the failed runcmd: {labels:?}"
    );
    let sshd = format!("sshd started {:.3}s", sshd_us as f64 / 1e6);
    assert!(labels.contains(&sshd.as_str()), "{labels:?}");
    assert!(labels.contains(&"kernel started 0s"));
    let pivot = format!(
        "pivot: the runner started {:.3}s",
        stages["config"]["start"].as_f64().unwrap()
    );
    assert!(labels.contains(&pivot.as_str()), "{labels:?}");
    assert!(text.contains("sshd's start: ExecMainStartTimestampMonotonic of sshd.service"));

    // xmllint is not in scripts/setup's list: the parse above and rsvg-convert judge the XML.
    let xmllint = Command::new("xmllint").arg("--noout").arg(&file).output();
    if let Ok(out) = xmllint {
        assert!(out.status.success(), "xmllint: {}", stderr(&out));
    }
    if !common::have("rsvg-convert") {
        return;
    }
    let png = m.dir.join("boot.png");
    let out = Command::new("rsvg-convert")
        .arg(&file)
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    assert!(out.status.success(), "rsvg-convert: {}", stderr(&out));
    let (w, h, pixels) = decode_png(&std::fs::read(&png).unwrap());
    let root = doc.root_element();
    assert_eq!(w.to_string(), root.attribute("width").unwrap());
    assert_eq!(h.to_string(), root.attribute("height").unwrap());
    let count = |rgb: [u8; 3]| pixels.iter().filter(|p| **p == rgb).count();
    let white = count([255, 255, 255]);
    assert!(white > pixels.len() / 2, "a white background");
    assert!(white < pixels.len(), "something drawn");
    for (what, rgb) in [
        ("the initramfs stages", INITRAMFS_STAGE),
        ("the runner stages", RUNNER_STAGE),
        ("the failed step", FAILED),
    ] {
        // At least the legend's swatch (12x10) and some of a bar.
        assert!(count(rgb) > 120, "{what}: {} pixels of {rgb:?}", count(rgb));
    }
}

#[test]
fn plot_of_a_file_has_no_sshd_marker_and_says_why() {
    let Some(m) = booted() else { return };
    std::fs::create_dir_all(m.run.join("systemd/system")).unwrap();
    let copy = m.dir.join("status-copy.json");
    std::fs::copy(m.run.join("ember/status.json"), &copy).unwrap();
    // A file may come from another machine: systemd is not asked (the note says why).
    let out = ember(
        &m,
        "/nonexistent",
        &["analyze", "plot", "-i", copy.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = common::stdout(&out);
    assert!(text.starts_with("<?xml"), "{text}");
    assert!(!text.contains("sshd started"));
    assert!(text.contains("no sshd marker: its start is unknown (the status was read from a file"));
    assert!(
        ember(&m, "/nonexistent", &["analyze", "plot", "--format", "json"])
            .status
            .code()
            == Some(2),
        "plot is SVG only"
    );
}

/// Width, height and RGB pixels of an 8-bit RGB or RGBA, non-interlaced PNG (what
/// rsvg-convert writes): its IDAT inflated and each row's filter undone.
fn decode_png(data: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    assert_eq!(&data[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut at, mut idat, mut ihdr) = (8, Vec::new(), None);
    while at + 8 <= data.len() {
        let len = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        let kind = &data[at + 4..at + 8];
        let body = &data[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => ihdr = Some(body.to_vec()),
            b"IDAT" => idat.extend_from_slice(body),
            _ => {}
        }
        at += 12 + len;
    }
    let ihdr = ihdr.expect("IHDR");
    let w = u32::from_be_bytes(ihdr[0..4].try_into().unwrap());
    let h = u32::from_be_bytes(ihdr[4..8].try_into().unwrap());
    assert_eq!((ihdr[8], ihdr[12]), (8, 0), "8-bit, not interlaced");
    let bpp = match ihdr[9] {
        2 => 3,
        6 => 4,
        other => panic!("PNG colour type {other}"),
    };
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = w as usize * bpp;
    assert_eq!(raw.len(), h as usize * (stride + 1), "image data size");
    let mut prev = vec![0u8; stride];
    let mut pixels = Vec::with_capacity((w * h) as usize);
    for row in raw.chunks(stride + 1) {
        let (filter, src) = (row[0], &row[1..]);
        let mut cur = vec![0u8; stride];
        for i in 0..stride {
            let a = if i >= bpp { cur[i - bpp] } else { 0 };
            let (b, c) = (prev[i], if i >= bpp { prev[i - bpp] } else { 0 });
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => paeth(a, b, c),
                f => panic!("PNG filter {f}"),
            };
            cur[i] = src[i].wrapping_add(pred);
        }
        pixels.extend(cur.chunks(bpp).map(|p| [p[0], p[1], p[2]]));
        prev = cur;
    }
    (w, h, pixels)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

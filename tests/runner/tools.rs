//! The operator commands: `ember clean` (an image reset so the next boot provisions again),
//! `ember analyze` (stage and step times from status.json) and `ember collect-logs` (a
//! tarball for bug reports, redacted unless asked).

use crate::common;
use common::Machine;

fn provisioned(name: &str) -> Machine {
    let m = Machine::new(name);
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    m.write(&m.target, "usr/lib/systemd/systemd", b"");
    m.write(
        &m.target,
        "etc/machine-id",
        b"0123456789abcdef0123456789abcdef\n",
    );
    m.write(&m.target, "var/log/cloud-init-output.log", b"old output\n");
    for (file, value) in [
        ("address", "52:54:00:aa:bb:01"),
        ("type", "1"),
        ("carrier", "1"),
    ] {
        m.write(
            &m.host,
            &format!("sys/class/net/eth0/{file}"),
            format!("{value}\n").as_bytes(),
        );
    }
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-1\n"),
            ("user-data", "#cloud-config\nhostname: h1\n"),
        ],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    m
}

fn ember(m: &Machine, args: &[&str]) -> std::process::Output {
    let target = m.target.display().to_string();
    let mut all = vec!["--target", target.as_str()];
    all.extend_from_slice(args);
    m.ember(&all)
}

#[test]
fn clean_resets_the_instance_and_keeps_the_seed() {
    let m = provisioned("clean");
    let net = "etc/systemd/network/10-cloud-init-eth0.network";
    assert!(m.target.join(net).exists());
    assert!(m.target.join("var/lib/ember").is_dir());
    // A planted symlink inside the state is removed, not followed.
    std::os::unix::fs::symlink(&m.host, m.target.join("var/lib/cloud/instances/escape")).unwrap();

    let out = ember(
        &m,
        &["clean", "--logs", "--configs", "network", "--machine-id"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let left: Vec<String> = std::fs::read_dir(m.target.join("var/lib/cloud"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["seed"]);
    assert!(m
        .target
        .join("var/lib/cloud/seed/nocloud/meta-data")
        .exists());
    assert!(m.host.join("proc").exists(), "the symlink was followed");
    assert!(!m.target.join("var/lib/ember").exists());
    assert!(!m.target.join(net).exists());
    assert!(!m.target.join("var/log/cloud-init-output.log").exists());
    assert_eq!(m.target_file("etc/machine-id"), "uninitialized\n");

    // The next boot is a first boot again.
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(m.status()["first_boot"], true);
    assert!(m.target.join(net).exists());

    // Bad options are usage errors; --seed takes the seed too.
    assert_eq!(
        ember(&m, &["clean", "--configs", "bogus"]).status.code(),
        Some(2)
    );
    assert_eq!(ember(&m, &["clean", "--seed"]).status.code(), Some(0));
    assert!(!m.target.join("var/lib/cloud/seed").exists());
}

#[test]
fn analyze_shows_blames_and_dumps_the_stages() {
    let m = provisioned("analyze");
    let show = common::stdout(&ember(&m, &["analyze", "show"]));
    for want in [
        "Starting stage: detect",
        "Finished stage: (local)",
        "|`->module write_files",
        "Total Time:",
    ] {
        assert!(show.contains(want), "{want}: {show}");
    }
    assert!(
        show.find("stage: detect") < show.find("stage: fetch"),
        "{show}"
    );

    let blame = common::stdout(&ember(&m, &["analyze", "blame"]));
    let times: Vec<f64> = blame
        .lines()
        .filter_map(|l| l.trim().split('s').next()?.parse().ok())
        .collect();
    assert!(times.len() > 5, "{blame}");
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "not sorted: {blame}"
    );
    assert!(blame.contains("(local/module write_files)"), "{blame}");

    let dump: serde_json::Value =
        serde_json::from_str(&common::stdout(&ember(&m, &["analyze", "dump"]))).unwrap();
    let events = dump.as_array().unwrap();
    let starts = events.iter().filter(|e| e["event_type"] == "start").count();
    let finishes = events
        .iter()
        .filter(|e| e["event_type"] == "finish")
        .count();
    assert!(starts > 5 && starts == finishes, "{dump}");

    let json: serde_json::Value = serde_json::from_str(&common::stdout(&ember(
        &m,
        &["analyze", "show", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["stages"][0]["stage"], "detect");
    assert!(json["total_seconds"].as_f64().unwrap() > 0.0);

    // -o/--outfile (cloud-init's) writes the file instead of stdout; a bad one is named.
    let file = m.dir.join("blame.txt");
    let out = ember(&m, &["analyze", "blame", "-o", file.to_str().unwrap()]);
    assert_eq!(common::stdout(&out), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), blame);
    let out = ember(
        &m,
        &["analyze", "plot", "--outfile", "/nonexistent/plot.svg"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(common::stderr(&out).contains("/nonexistent/plot.svg"));

    let missing = ember(
        &m,
        &["analyze", "show", "--infile", "/nonexistent/status.json"],
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(common::stderr(&missing).contains("/nonexistent/status.json"));
}

#[test]
fn collect_logs_is_redacted_unless_asked_and_private() {
    if !common::have("tar") {
        return;
    }
    let marker = "MARKER-7f3a9c";
    let m = Machine::new("collect");
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-1\n"),
            (
                "user-data",
                &format!("#cloud-config\nruncmd: [echo {marker}]\npassword: {marker}\n"),
            ),
        ],
    );
    m.initrd("all");
    let extract = |args: &[&str], name: &str| -> String {
        let tarball = m.dir.join(format!("{name}.tar.gz"));
        let mut all = vec!["collect-logs", "--tarfile", tarball.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = ember(&m, &all);
        assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&tarball).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir = m.dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let status = std::process::Command::new("tar")
            .arg("xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "tar could not read it");
        let out = std::process::Command::new("grep")
            .args(["-rl", marker])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(dir.join("ember-logs/run/ember/status.json").exists());
        common::stdout(&out)
    };
    assert_eq!(
        extract(&[], "redacted"),
        "",
        "the marker leaked into the default tarball"
    );
    let found = extract(&["--include-sensitive"], "sensitive");
    assert!(found.contains("handoff.json"), "{found}");
}

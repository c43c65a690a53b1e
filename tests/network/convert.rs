//! `ember-initrd net-convert`: a network config rendered offline into a directory.

use crate::common;
use std::process::Command;

fn convert(args: &[&str]) -> std::process::Output {
    common::run(
        Command::new(common::EMBER_INITRD)
            .arg("net-convert")
            .args(args),
    )
}

#[test]
fn renders_each_stack_into_the_directory() {
    let dir = std::env::temp_dir().join(format!("ember-net-convert-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("net.yaml");
    let v1 = "version: 1\nconfig:\n  - type: physical\n    name: eth0\n    mac_address: \"52:54:00:12:34:56\"\n    subnets:\n      - type: static\n        address: 192.0.2.5/24\n        gateway: 192.0.2.1\n";
    std::fs::write(&input, v1).unwrap();
    for (kind, file) in [
        ("networkd", "etc/systemd/network/10-cloud-init-eth0.network"),
        ("netplan", "etc/netplan/50-cloud-init.yaml"),
        ("eni", "etc/network/interfaces.d/50-cloud-init"),
        (
            "network-manager",
            "etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection",
        ),
    ] {
        let out_dir = dir.join(kind);
        let out = convert(&[
            "--kind",
            "yaml",
            "--output-kind",
            kind,
            "--directory",
            out_dir.to_str().unwrap(),
            input.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{kind}: {}",
            common::stderr(&out)
        );
        let text = std::fs::read_to_string(out_dir.join(file))
            .unwrap_or_else(|e| panic!("{kind}: {file}: {e}"));
        assert!(text.contains("192.0.2.5"), "{kind}: {text}");
        assert!(common::stdout(&out).contains(&format!("/{file}")), "{kind}");
    }
    // Bad input names the line; usage errors exit 2.
    std::fs::write(
        &input,
        "version: 2\nethernets:\n  eth0:\n    addresses: [192.0.2.5]\n",
    )
    .unwrap();
    let out = convert(&[
        "--kind",
        "yaml",
        "--output-kind",
        "netplan",
        "--directory",
        dir.join("bad").to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        common::stderr(&out).contains("line 4"),
        "{}",
        common::stderr(&out)
    );
    assert_eq!(convert(&["--kind", "yaml"]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_runner_hands_net_convert_to_ember_initrd() {
    let dir = std::env::temp_dir().join(format!("ember-net-convert-runner-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("net.yaml");
    std::fs::write(&input, "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n").unwrap();
    let runner = |args: &[&str], initrd: &str| {
        common::run(
            Command::new(common::EMBER)
                .args(args)
                .env("EMBER_INITRD", initrd),
        )
    };
    let out_dir = dir.join("out");
    let (d, i) = (out_dir.to_str().unwrap(), input.to_str().unwrap());
    // cloud-init's spelling, with `-p` for the input.
    let args = [
        "devel",
        "net-convert",
        "-k",
        "yaml",
        "-O",
        "networkd",
        "-d",
        d,
        "-p",
        i,
    ];
    let out = runner(&args, common::EMBER_INITRD);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let file = out_dir.join("etc/systemd/network/10-cloud-init-eth0.network");
    assert!(std::fs::read_to_string(file).unwrap().contains("DHCP=ipv4"));

    // Without ember-initrd the error says what is missing.
    let out = runner(&args[1..], "/nonexistent/ember-initrd");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        common::stderr(&out).contains("/nonexistent/ember-initrd"),
        "{}",
        common::stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

//! A NoCloud seed URL by host name, resolved by ember's own resolver: network namespaces
//! joined by a veth pair, dnsmasq answering DNS (and DHCP) on the server's end, the seed
//! served there by name, `ember-initrd all` in the client's namespace. The servers come from
//! ember's own lease, else the host's /etc/resolv.conf, else `nameserver=`; a name nobody
//! knows is an error naming the host and the servers asked. Needs root (SKIP otherwise;
//! under CI root is there).

use crate::common;
use common::netns::{ip, Link};
use common::Machine;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

fn ready() -> bool {
    if !rustix::process::geteuid().is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "network namespaces need root, and CI runs as root"
        );
        common::skip("DNS seed tests need root (network namespaces, veth)");
        return false;
    }
    common::have("ip") && common::have("dnsmasq")
}

/// Serves a seed (meta-data, user-data) on `listener`; the requests' Host headers are kept.
fn serve_seed(listener: TcpListener, instance_id: &str) -> Arc<Mutex<Vec<String>>> {
    let hosts = Arc::new(Mutex::new(Vec::new()));
    let seen = hosts.clone();
    let meta = format!("instance-id: {instance_id}\n");
    std::thread::spawn(move || {
        for stream in listener.incoming().take(16) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).into_owned();
            let host = req.lines().find_map(|l| l.strip_prefix("Host: "));
            seen.lock()
                .unwrap()
                .push(host.unwrap_or_default().to_string());
            let body = match req.split_whitespace().nth(1) {
                Some("/meta-data") => meta.as_str(),
                Some("/user-data") => "#cloud-config\ntimezone: Etc/UTC\n",
                _ => "",
            };
            let code = if body.is_empty() { 404 } else { 200 };
            let head = format!(
                "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(body.as_bytes());
        }
    });
    hosts
}

/// A machine whose host tree shows the client namespace's own network (its routes decide
/// whether ember makes a lease), with short deadlines.
fn machine(name: &str, cmdline: &str) -> Machine {
    let m = Machine::new(name);
    std::fs::write(m.host.join("proc/cmdline"), format!("{cmdline}\n")).unwrap();
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 3000\n    datasource_timeout_ms: 20000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    std::os::unix::fs::symlink("/proc/self/net", m.host.join("proc/net")).unwrap();
    std::os::unix::fs::symlink("/proc/sys", m.host.join("proc/sys")).unwrap();
    std::os::unix::fs::symlink("/sys/class/net", m.host.join("sys/class/net")).unwrap();
    m
}

fn initrd_in(link: &Link, m: &Machine) -> Output {
    common::run(
        Command::new("ip")
            .args(["netns", "exec", &link.client_ns, common::EMBER_INITRD])
            .arg("--host")
            .arg(&m.host)
            .arg("--target")
            .arg(&m.target)
            .arg("--run")
            .arg(&m.run)
            .arg("all")
            .env_remove("KERNEL_CMDLINE"),
    )
}

#[test]
fn a_seed_url_by_name_resolves_through_the_dns_server_of_embers_lease() {
    if !ready() {
        return;
    }
    let link = Link::new("d");
    let _dns = link.dns_server(
        "10.79.1",
        true,
        &["--address=/seed.example/10.79.1.1", "--local=/example/"],
    );
    let hosts = serve_seed(link.listen_in_server("0.0.0.0:8080"), "i-by-name");
    let m = machine("dns-lease", "ro ds=nocloud;s=http://seed.example:8080/");
    let out = initrd_in(&link, &m);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-by-name");
    assert!(
        link.dns_log()
            .contains("query[A] seed.example from 10.79.1.1"),
        "{}",
        link.dns_log()
    );
    assert!(hosts
        .lock()
        .unwrap()
        .iter()
        .all(|h| h == "seed.example:8080"));
    assert!(!link.is_up(), "the lease is gone again");

    // A name the server does not know: the error names it and the server asked.
    let m = machine("dns-nx", "ro ds=nocloud;s=http://nowhere.example:8080/");
    let out = initrd_in(&link, &m);
    m.fell_back(&out);
    let d = m.diag_with_code("seed-unreachable").expect("said");
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains(
            "resolving nowhere.example: no such name (asked 10.79.1.1 from ember's lease)"
        ),
        "{d}"
    );
}

#[test]
fn without_a_lease_resolv_conf_then_the_command_line_give_the_servers() {
    if !ready() {
        return;
    }
    let link = Link::new("r");
    let _dns = link.dns_server("10.79.2", false, &["--address=/seed.example/10.79.2.1"]);
    let _hosts = serve_seed(link.listen_in_server("0.0.0.0:8080"), "i-conf");
    // The client's own address and default route: no lease is made.
    let c = ["-n", &link.client_ns];
    ip(&[
        &c[..],
        &["addr", "add", "10.79.2.2/24", "dev", &link.client],
    ]
    .concat());
    ip(&[&c[..], &["link", "set", &link.client, "up"]].concat());
    ip(&[&c[..], &["route", "add", "default", "via", "10.79.2.1"]].concat());
    let url = "ds=nocloud;s=http://seed.example:8080/";

    let m = machine("dns-conf", &format!("ro {url}"));
    m.write(
        &m.host,
        "etc/resolv.conf",
        b"search example\nnameserver 10.79.2.1\n",
    );
    let out = initrd_in(&link, &m);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-conf");

    let queries = || link.dns_log().matches("query[A] seed.example").count();
    let before = queries();
    let m = machine("dns-cmdline", &format!("ro nameserver=10.79.2.1 {url}"));
    let out = initrd_in(&link, &m);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-conf");
    assert!(queries() > before, "{}", link.dns_log());

    // No server anywhere: said plainly, at once.
    let m = machine("dns-none", &format!("ro {url}"));
    let out = initrd_in(&link, &m);
    m.fell_back(&out);
    let d = m.diag_with_code("seed-unreachable").expect("said");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("resolving seed.example: no DNS server"),
        "{d}"
    );
}

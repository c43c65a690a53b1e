//! EC2 on an IPv6-only subnet, for real: two network namespaces joined by a veth pair, dnsmasq
//! sending router advertisements only (a ULA prefix, no DHCPv4) in one, which also holds EC2's
//! `fd00:ec2::254` with the IMDS emulator bound there; `ember-initrd fetch` in the other with
//! DMI saying AWS and no metadata URL given. The client must come up by SLAAC, read IMDS with
//! IMDSv2 at the IPv6 address, and leave nothing behind: addresses, routes, sysctls, link
//! state. The same with the router saying Managed and dnsmasq's DHCPv6 handing out the
//! address (EC2's own way): the client must take it by DHCPv6, not fall back to link-local.
//! Also a link with no router at all: a clean error, nothing changed. Needs root,
//! `ip` and dnsmasq (SKIP otherwise).

use crate::common;
use crate::common::emulator;
use common::netns::{ip, Link};

use common::Machine;
use emulator::ec2 as imds;
use std::os::fd::AsFd;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const PREFIX: &str = "fd00:77::";

fn ready() -> bool {
    if !rustix::process::geteuid().is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "network namespaces need root, and CI runs as root"
        );
        common::skip("SLAAC tests need root (network namespaces, veth)");
        return false;
    }
    if !std::path::Path::new("/proc/sys/net/ipv6").exists() {
        common::skip("SLAAC tests need IPv6 in the kernel");
        return false;
    }
    common::have("ip") && common::have("dnsmasq")
}

impl Link {
    /// A sysctl of the client's link.
    fn sysctl(&self, name: &str) -> String {
        let path = format!("/proc/sys/net/ipv6/conf/{}/{name}", self.client);
        let out = self.in_client(&["cat", &path]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn set_sysctl(&self, name: &str, value: &str) {
        let key = format!("net.ipv6.conf.{}.{name}={value}", self.client);
        assert!(self
            .in_client(&["sysctl", "-q", "-w", &key])
            .status
            .success());
    }

    fn in_client(&self, args: &[&str]) -> Output {
        common::run(
            Command::new("ip")
                .args(["netns", "exec", &self.client_ns])
                .args(args),
        )
    }

    /// The client link's IPv6 addresses other than link-local, and its IPv6 routes.
    fn leftovers(&self) -> (String, String) {
        let n = ["-n", &self.client_ns, "-6"];
        let addrs = ip(&[
            &n[..],
            &["addr", "show", "dev", &self.client, "scope", "global"],
        ]
        .concat());
        let routes = ip(&[&n[..], &["route", "show", "dev", &self.client]].concat());
        (addrs, routes)
    }
}

/// dnsmasq sending router advertisements for `PREFIX`/64 and logging the solicitations it
/// hears (with `dhcp6`, saying Managed and serving addresses from `PREFIX`100-1ff by DHCPv6
/// instead); killed by PID.
struct Radvd(Child);

impl Radvd {
    fn start(link: &Link) -> Radvd {
        Radvd::start_with(link, false)
    }

    fn start_with(link: &Link, dhcp6: bool) -> Radvd {
        let server = &link.server;
        let at = format!("{PREFIX}1/64");
        ip(&[
            "-n",
            &link.server_ns,
            "addr",
            "add",
            &at,
            "dev",
            server,
            "nodad",
        ]);
        let log = link.dir.join("dnsmasq.log");
        let child = Command::new("ip")
            .args(["netns", "exec", &link.server_ns, "dnsmasq", "--no-daemon"])
            .args([
                "--conf-file=/dev/null",
                "--port=0",
                "--no-hosts",
                "--bind-interfaces",
                "--log-dhcp",
            ])
            .arg(format!("--interface={server}"))
            .arg("--enable-ra")
            .arg(if dhcp6 {
                format!("--dhcp-range={PREFIX}100,{PREFIX}1ff,64,1h")
            } else {
                format!("--dhcp-range={PREFIX},ra-only,64")
            })
            // A router lifetime, so the client takes a default route.
            .arg(format!("--ra-param={server},10,600"))
            .arg(format!("--pid-file={}", link.dir.join("pid").display()))
            .arg(format!(
                "--dhcp-leasefile={}",
                link.dir.join("leases").display()
            ))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while !std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("router advertisement enabled")
        {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "dnsmasq: {log:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Radvd(child)
    }
}

impl Drop for Radvd {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The IMDS emulator at `[fd00:ec2::254]:80` inside the server's namespace: a thread enters
/// it just to bind; the listener stays there.
fn imds_in(link: &Link) -> imds::Imds {
    ip(&[
        "-n",
        &link.server_ns,
        "addr",
        "add",
        "fd00:ec2::254/128",
        "dev",
        &link.server,
        "nodad",
    ]);
    let ns = std::fs::File::open(format!("/run/netns/{}", link.server_ns)).unwrap();
    std::thread::spawn(move || {
        let kind = rustix::thread::LinkNameSpaceType::Network;
        rustix::thread::move_into_link_name_space(ns.as_fd(), Some(kind)).unwrap();
        imds::start_at("[fd00:ec2::254]:80")
    })
    .join()
    .unwrap()
}

/// An AWS machine whose host tree shows the client namespace's own network: the live
/// /proc/net and /proc/sys, and /sys/class/net (which `ip netns exec` mounts for it).
fn aws_machine() -> Machine {
    let m = Machine::new("ec2-slaac");
    m.dmi("sys_vendor", "Amazon EC2");
    m.dmi("product_uuid", "ec2e1916-9099-7caf-fd21-012345abcdef");
    // No metadata URL: EC2's own addresses, reachable here only through the veth.
    std::fs::write(m.host.join("proc/cmdline"), "ro\n").unwrap();
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 20000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    std::os::unix::fs::symlink("/proc/self/net", m.host.join("proc/net")).unwrap();
    std::os::unix::fs::symlink("/proc/sys", m.host.join("proc/sys")).unwrap();
    std::os::unix::fs::symlink("/sys/class/net", m.host.join("sys/class/net")).unwrap();
    m
}

fn initrd_in(link: &Link, m: &Machine, stage: &str) -> Output {
    common::run(
        Command::new("ip")
            .args(["netns", "exec", &link.client_ns, common::EMBER_INITRD])
            .arg("--host")
            .arg(&m.host)
            .arg("--target")
            .arg(&m.target)
            .arg("--run")
            .arg(&m.run)
            .arg(stage)
            .env_remove("KERNEL_CMDLINE"),
    )
}

#[test]
fn an_ipv6_only_link_reaches_imds_by_slaac_and_is_left_as_found() {
    if !ready() {
        return;
    }
    let link = Link::new("6");
    let _ra = Radvd::start(&link);
    let server = imds_in(&link);
    // Off before: ember turns them on, and back off after.
    link.set_sysctl("accept_ra", "0");
    link.set_sysctl("autoconf", "0");
    let m = aws_machine();
    let out = initrd_in(&link, &m, "detect");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let started = Instant::now();
    let out = initrd_in(&link, &m, "fetch");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let status = m.status();
    let fetched = m.json("ember/fetched.json");
    assert_eq!(fetched["instance_id"], imds::INSTANCE_ID);
    let detail = status["datasource_detail"].as_str().unwrap_or_default();
    assert_eq!(detail, "DataSourceEc2 [http://[fd00:ec2::254]][IMDSv2]");
    let steps = status.to_string();
    let step = format!("ok (slaac {PREFIX}");
    assert!(steps.contains(&step), "{status}");
    // IMDSv2 at the IPv6 address: a token first, then GETs that carry it.
    let requests = server.requests();
    assert_eq!(requests[0].method, "PUT", "{requests:?}");
    assert!(requests
        .iter()
        .skip(1)
        .all(|r| r.header("x-aws-ec2-metadata-token").is_some()));
    // Seconds, not the whole DHCP share: DAD twice and the grace DHCPv4 gets.
    assert!(took < Duration::from_secs(12), "{took:?}");
    // Nothing left: no global address, no route from the advertisement, sysctls as they
    // were, the link down again.
    let (addrs, routes) = link.leftovers();
    assert!(addrs.trim().is_empty(), "{addrs}");
    assert!(
        !routes.contains("proto ra") && !routes.contains(PREFIX),
        "{routes}"
    );
    assert_eq!(
        (link.sysctl("accept_ra"), link.sysctl("autoconf")),
        ("0".into(), "0".into())
    );
    assert!(!link.is_up());
}

#[test]
fn a_managed_link_reaches_imds_by_dhcpv6_and_is_left_as_found() {
    if !ready() {
        return;
    }
    let link = Link::new("6");
    let _server = Radvd::start_with(&link, true);
    let server = imds_in(&link);
    let m = aws_machine();
    let out = initrd_in(&link, &m, "detect");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let out = initrd_in(&link, &m, "fetch");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let status = m.status();
    assert_eq!(
        m.json("ember/fetched.json")["instance_id"],
        imds::INSTANCE_ID
    );
    let detail = status["datasource_detail"].as_str().unwrap_or_default();
    assert_eq!(detail, "DataSourceEc2 [http://[fd00:ec2::254]][IMDSv2]");
    // The address dnsmasq leased, as a /128, not the link-local fallback.
    let steps = status.to_string();
    assert!(steps.contains(&format!("ok (dhcp6 {PREFIX}1")), "{status}");
    assert!(steps.contains("/128"), "{status}");
    let leases = std::fs::read_to_string(link.dir.join("leases")).unwrap_or_default();
    assert!(leases.contains(PREFIX), "dnsmasq granted nothing: {leases}");
    assert!(!server.requests().is_empty());
    let (addrs, routes) = link.leftovers();
    assert!(addrs.trim().is_empty(), "{addrs}");
    assert!(!routes.contains(PREFIX), "{routes}");
    assert!(!link.is_up());
}

#[test]
fn no_router_and_no_dhcp_ends_cleanly_at_the_deadline() {
    if !ready() {
        return;
    }
    let link = Link::new("6");
    link.set_sysctl("accept_ra", "0");
    let out = link.in_client(&[
        common::EMBER_INITRD,
        "dhcp",
        &link.client,
        "--slaac",
        "--timeout",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\"outcome\": \"slaac-no-address\""),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no IPv6 router advertisement"), "{stderr}");
    assert_eq!(link.sysctl("accept_ra"), "0");
    assert!(!link.is_up());
}

/// Issue 37: the carrier wait holds where SLAAC is asked too (EC2 always asks). The served
/// NIC, raised early to look for its carrier, goes down and up again around SLAAC's sysctls,
/// so the kernel solicits a router at once (dnsmasq logs the solicitation) instead of waiting
/// for the router's next advertisement; the dead NIC (no carrier) is never tried, and is down
/// again after.
#[test]
fn the_carrier_wait_keeps_slaac_prompt_and_passes_over_a_dead_nic() {
    if !ready() {
        return;
    }
    let dead = Link::new("6");
    let served = Link::new("6");
    let _ra = Radvd::start(&served);
    dead.unplug();
    dead.move_beside(&served);
    served.set_sysctl("accept_ra", "0");
    let started = Instant::now();
    let out = served.in_client(&[
        common::EMBER_INITRD,
        "dhcp",
        &dead.client,
        &served.client,
        "--slaac",
        "--timeout",
        "40",
        "--per-nic",
        "20",
    ]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let attempts = r["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1, "{r}");
    assert_eq!(attempts[0]["nic"], served.client.as_str());
    let address = attempts[0]["address"].as_str().unwrap_or_default();
    assert!(address.starts_with(PREFIX), "{r}");
    // The carrier wait, DAD and DHCPv4's grace: not the dead NIC's 20 s, nor a wait for
    // the router's own advertisement (every 10 s here).
    assert!(took < Duration::from_secs(14), "took {took:?}");
    // The kernel asked for a router: only a link that comes up with SLAAC's sysctls set does.
    let log = std::fs::read_to_string(served.dir.join("dnsmasq.log")).unwrap();
    assert!(log.contains("RTR-SOLICIT("), "{log}");
    assert_eq!(served.sysctl("accept_ra"), "0");
    assert!(!served.is_up());
    let state = ip(&["-n", &served.client_ns, "-j", "link", "show", &dead.client]);
    assert!(!state.contains("\"UP\""), "{state}");
}

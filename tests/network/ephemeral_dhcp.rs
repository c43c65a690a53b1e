//! The ephemeral DHCP client for real: network namespaces joined by veth pairs, dnsmasq as the
//! server in one, `ember-initrd dhcp` in the other (through `ip netns exec`); the address and
//! the option 121 routes are read back with `ip -j` while the lease is held, and must be gone
//! after the teardown. Also a silent server (a clean deadline), a silent first NIC, and the
//! link-local fallback. Needs root (SKIP otherwise; under CI root is there).

use crate::common;
use common::netns::{ip, Link};

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn ready() -> bool {
    if !rustix::process::geteuid().is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "network namespaces need root, and CI runs as root"
        );
        common::skip("ephemeral DHCP tests need root (network namespaces, veth)");
        return false;
    }
    if !common::have("ip") || !common::have("dnsmasq") {
        return false;
    }
    // A usage error only the `dhcp` command gives (without it, the stage parser answers);
    // nothing is sent.
    let out = common::run(Command::new(common::EMBER_INITRD).args(["dhcp", "--per-nic", "never"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stderr.contains("--per-nic wants seconds") {
        assert!(
            std::env::var_os("CI").is_none(),
            "ember-initrd has no dhcp command"
        );
        common::skip("ember-initrd has no dhcp command (src/stages/cli.rs lacks its line)");
        return false;
    }
    true
}

impl Link {
    /// Runs `ember-initrd dhcp ARGS` in the client namespace.
    fn dhcp(&self, args: &[&str]) -> Child {
        Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.client_ns,
                common::EMBER_INITRD,
                "dhcp",
            ])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `ip -j` in the client namespace.
    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["-n", &self.client_ns, "-j"];
        all.extend_from_slice(args);
        serde_json::from_str(&ip(&all)).unwrap()
    }

    fn addresses(&self) -> Vec<String> {
        let v = self.json(&["-4", "addr", "show", "dev", &self.client]);
        v.as_array()
            .into_iter()
            .flatten()
            .flat_map(|l| l["addr_info"].as_array().cloned().unwrap_or_default())
            .map(|a| format!("{}/{}", a["local"].as_str().unwrap(), a["prefixlen"]))
            .collect()
    }

    /// Routes of the main table on the client's link: `dst via gateway` or `dst`.
    fn routes(&self) -> Vec<String> {
        let v = self.json(&["-4", "route", "show", "table", "all", "dev", &self.client]);
        let mut routes: Vec<String> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["type"].as_str().unwrap_or("unicast") == "unicast")
            .map(|r| {
                let dst = r["dst"].as_str().unwrap().to_string();
                match r["gateway"].as_str() {
                    Some(gw) => format!("{dst} via {gw}"),
                    None => dst,
                }
            })
            .collect();
        routes.sort();
        routes
    }
}

/// dnsmasq serving DHCP on the server's end, killed (by its PID) when dropped.
struct Dnsmasq {
    child: Child,
}

impl Dnsmasq {
    fn start(link: &Link, net: &str, options: &[&str]) -> Dnsmasq {
        ip(&[
            "-n",
            &link.server_ns,
            "addr",
            "add",
            &format!("{net}.1/24"),
            "dev",
            &link.server,
        ]);
        let log = link.dir.join("dnsmasq.log");
        let mut cmd = Command::new("ip");
        cmd.args([
            "netns",
            "exec",
            &link.server_ns,
            "dnsmasq",
            "--no-daemon",
            "--conf-file=/dev/null",
        ])
        .arg(format!("--interface={}", link.server))
        .args(["--bind-interfaces", "--port=0", "--no-ping", "--no-hosts"])
        .arg(format!("--dhcp-range={net}.100,{net}.150,255.255.255.0,1h"))
        .arg(format!(
            "--pid-file={}",
            link.dir.join("dnsmasq.pid").display()
        ))
        .arg(format!(
            "--dhcp-leasefile={}",
            link.dir.join("leases").display()
        ))
        .args(options)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap());
        let dnsmasq = Dnsmasq {
            child: cmd.spawn().unwrap(),
        };
        let start = Instant::now();
        while !std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("DHCP, sockets bound")
        {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "dnsmasq did not start: {log:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        dnsmasq
    }
}

impl Drop for Dnsmasq {
    fn drop(&mut self) {
        // `ip netns exec` execs dnsmasq in place: the child's PID is dnsmasq's.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads the JSON report the command prints (it ends with a `}` line), leaving it running.
fn report(child: &mut Child) -> Value {
    let mut text = String::new();
    let mut lines = BufReader::new(child.stdout.as_mut().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let end = line == "}";
        text += &line;
        if end {
            break;
        }
    }
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"))
}

fn finish(child: Child) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    common::assert_no_panic(&out);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lease_with_classless_routes_is_applied_then_removed() {
    if !ready() {
        return;
    }
    let link = Link::new("");
    let _server = Dnsmasq::start(
        &link,
        "10.77.1",
        &[
            "--dhcp-option=121,192.168.50.0/24,10.77.1.254,10.99.0.0/16,0.0.0.0,172.16.0.0/12,10.77.1.1",
            // Azure's wireserver address, as its DHCP servers send it.
            "--dhcp-option=245,168.63.129.16",
        ],
    );
    assert!(!link.is_up());
    let mut child = link.dhcp(&[
        &link.client,
        "--timeout",
        "10",
        "--metadata",
        "169.254.169.254",
        "--site-option",
        "245",
        "--hold-ms",
        "1500",
    ]);
    let r = report(&mut child);
    let lease = &r["lease"];
    let address = lease["address"].as_str().unwrap().to_string();
    assert!(address.starts_with("10.77.1."), "{r}");
    assert_eq!(lease["prefix"], 24);
    assert_eq!(lease["server"], "10.77.1.1");
    assert_eq!(lease["lease_seconds"], 3600);
    // The site-specific option asked for (Azure's wireserver), as the server sent it.
    assert_eq!(
        lease["site_options"],
        json!([[245, [168, 63, 129, 16]]]),
        "{r}"
    );
    assert_eq!(r["attempts"][0]["outcome"], "dhcp");
    assert_eq!(r["attempts"][0]["used"], true);

    // While held: the address, the connected subnet, the three 121 routes (dnsmasq's option 3
    // ignored, as RFC 3442 says), and a host route to the metadata address nothing else reaches.
    assert!(link.is_up());
    assert_eq!(link.addresses(), [format!("{address}/24")]);
    assert_eq!(
        link.routes(),
        [
            "10.77.1.0/24",
            "10.99.0.0/16",
            "169.254.169.254",
            "172.16.0.0/12 via 10.77.1.1",
            "192.168.50.0/24 via 10.77.1.254",
        ]
    );
    let (code, stderr) = finish(child);
    assert_eq!(code, 0, "{stderr}");
    assert!(link.addresses().is_empty());
    assert!(link.routes().is_empty(), "{:?}", link.routes());
    assert!(!link.is_up(), "the link was down before: it is down again");
}

#[test]
fn a_silent_network_ends_at_the_deadline_with_a_clear_error() {
    if !ready() {
        return;
    }
    let link = Link::new("");
    let start = Instant::now();
    let mut child = link.dhcp(&[&link.client, "--timeout", "2"]);
    let r = report(&mut child);
    let (code, stderr) = finish(child);
    let took = start.elapsed();
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no DHCP lease before the deadline (no offer"),
        "{stderr}"
    );
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_millis(3500),
        "{took:?}"
    );
    assert_eq!(r["lease"], Value::Null);
    assert_eq!(r["attempts"][0]["outcome"], "dhcp-no-lease");
    // Nothing left behind: no address, not even the 255.255.255.255 route; the link down.
    assert!(link.addresses().is_empty());
    assert!(link.routes().is_empty(), "{:?}", link.routes());
    assert!(!link.is_up());
}

#[test]
fn a_silent_first_nic_is_passed_over_for_the_next() {
    if !ready() {
        return;
    }
    let quiet = Link::new("");
    let served = Link::new("");
    let _server = Dnsmasq::start(&served, "10.77.2", &[]);
    quiet.move_beside(&served);
    let mut child = served.dhcp(&[
        &quiet.client,
        &served.client,
        "--timeout",
        "8",
        "--per-nic",
        "1.5",
    ]);
    let r = report(&mut child);
    let (code, stderr) = finish(child);
    assert_eq!(code, 0, "{stderr}");
    let attempts = r["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{r}");
    assert_eq!(attempts[0]["nic"], quiet.client.as_str());
    assert_eq!(attempts[0]["outcome"], "dhcp-no-lease");
    assert_eq!(attempts[1]["outcome"], "dhcp");
    assert_eq!(r["nic"], served.client.as_str());
    assert!(served.addresses().is_empty());
}

/// Issue 37: a first NIC with no carrier (its peer down: no cable) no longer costs its whole
/// DHCP wait. ember brings the candidates up, sees only the second has a carrier within
/// `CARRIER_WAIT`, and tries it first; the dead one is never tried, and is down again after.
#[test]
fn a_first_nic_without_carrier_is_tried_after_one_with_carrier() {
    if !ready() {
        return;
    }
    let dead = Link::new("");
    let served = Link::new("");
    let _server = Dnsmasq::start(&served, "10.77.3", &[]);
    dead.unplug();
    dead.move_beside(&served);
    let started = Instant::now();
    let mut child = served.dhcp(&[
        &dead.client,
        &served.client,
        "--timeout",
        "30",
        "--per-nic",
        "15",
    ]);
    let r = report(&mut child);
    let took = started.elapsed();
    let (code, stderr) = finish(child);
    assert_eq!(code, 0, "{stderr}");
    let attempts = r["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1, "{r}");
    assert_eq!(attempts[0]["nic"], served.client.as_str());
    assert_eq!(attempts[0]["outcome"], "dhcp");
    // The carrier wait (5 s) and a lease, never the dead NIC's 15 s.
    assert!(took < Duration::from_secs(12), "took {took:?}");
    let state = ip(&["-n", &served.client_ns, "-j", "link", "show", &dead.client]);
    assert!(!state.contains("\"UP\""), "{state}");
}

#[test]
fn a_link_without_dhcp_gets_a_link_local_address() {
    if !ready() {
        return;
    }
    let link = Link::new("");
    let mut child = link.dhcp(&[
        &link.client,
        "--timeout",
        "3",
        "--link-local",
        "--metadata",
        "169.254.169.254",
        "--hold-ms",
        "1000",
    ]);
    let r = report(&mut child);
    assert_eq!(r["attempts"][0]["outcome"], "link-local", "{r}");
    let address = r["lease"]["address"].as_str().unwrap().to_string();
    let octets: Vec<u8> = address.split('.').map(|o| o.parse().unwrap()).collect();
    assert_eq!(&octets[..2], &[169, 254]);
    assert!((1..=254).contains(&octets[2]));
    assert_eq!(link.addresses(), [format!("{address}/16")]);
    // The subnet reaches 169.254.169.254: no host route.
    assert_eq!(link.routes(), ["169.254.0.0/16"]);
    let (code, stderr) = finish(child);
    assert_eq!(code, 0, "{stderr}");
    assert!(link.addresses().is_empty());
    assert!(!link.is_up());
}

//! `ds=nocloud;s=https://…`: TLS checked against the target's CA bundle, served by
//! `openssl s_server -WWW` on loopback with a test CA made by `openssl` here.

use crate::common;
use common::{have, stderr, Machine};
use std::path::Path;
use std::process::{Child, Command, Stdio};

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA and a server certificate for 127.0.0.1 signed by it (a CA used as the server's own
/// certificate is refused by webpki, as it should be).
fn make_certs(dir: &Path) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=ember test CA",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "srv.key",
            "-out",
            "srv.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    );
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "srv.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "srv.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ],
    );
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `openssl s_server -WWW` serves files under `root`; returns once it accepts connections.
fn serve(root: &Path, certs: &Path) -> (Server, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("openssl")
        .args([
            "s_server",
            "-quiet",
            "-WWW",
            "-accept",
            &format!("127.0.0.1:{port}"),
        ])
        .arg("-cert")
        .arg(certs.join("srv.pem"))
        .arg("-key")
        .arg(certs.join("srv.key"))
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (server, port);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("openssl s_server did not start");
}

#[test]
fn https_seed_verified_with_the_targets_ca_bundle() {
    if !have("openssl") {
        return;
    }
    let m = Machine::new("https");
    let certs = m.dir.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    make_certs(&certs);
    // s_server answers a missing file with an error page, not a 404: serve all four.
    let files = [
        ("meta-data", "instance-id: i-tls\n"),
        ("user-data", "#cloud-config\ntimezone: UTC\n"),
        ("vendor-data", ""),
        ("network-config", ""),
    ];
    m.seed_files(&m.dir, "www/seed", &files);
    let (_server, port) = serve(&m.dir.join("www"), &certs);
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 3000\n    datasource_timeout_ms: 6000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.cmdline(&format!("ro ds=nocloud;s=https://127.0.0.1:{port}/seed/"));

    // Without the CA in any bundle the certificate is refused, with a clear error.
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("seed-unreachable").expect("refused");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("certificate"),
        "{d}"
    );

    // With the CA in the target's bundle, the seed is read.
    std::fs::remove_dir_all(&m.run).unwrap();
    let ca = std::fs::read(certs.join("ca.pem")).unwrap();
    m.write(&m.target, "etc/ssl/certs/ca-certificates.crt", &ca);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-tls");
    assert_eq!(
        m.json("cloud-init/combined-cloud-config.json")["timezone"],
        "UTC"
    );
}

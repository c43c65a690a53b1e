//! A real TPM 2.0 for a test: swtpm on a Unix socket, which ember speaks to as it speaks to
//! /dev/tpmrm0 (a test's host tree links `dev/tpmrm0` to the socket), and tpm2-tools reads
//! through its swtpm TCTI. Stopped, by its PID, when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Swtpm {
    child: Child,
    pub socket: PathBuf,
}

impl Swtpm {
    /// A TPM in `dir` with the PCR banks `banks` active (`None`: swtpm's fresh state, every
    /// bank it has: sha1, sha256, sha384, sha512). `None` when swtpm is not installed (the
    /// test is skipped; under CI that fails).
    pub fn start(dir: &Path, banks: Option<&str>) -> Option<Swtpm> {
        if !super::have("swtpm") || !super::have("tpm2_pcrread") {
            return None;
        }
        let state = dir.join("tpm");
        std::fs::create_dir_all(&state).unwrap();
        if let Some(banks) = banks {
            let out = Command::new("swtpm_setup")
                .args(["--tpm2", "--tpmstate"])
                .arg(&state)
                .args(["--pcr-banks", banks, "--overwrite"])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "swtpm_setup: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        let socket = state.join("sock");
        let child = Command::new("swtpm")
            .args(["socket", "--tpm2", "--tpmstate"])
            .arg(format!("dir={}", state.display()))
            .arg("--server")
            .arg(format!("type=unixio,path={}", socket.display()))
            .arg("--ctrl")
            .arg(format!("type=unixio,path={}.ctrl", socket.display()))
            // No firmware starts it here: swtpm does, as SeaBIOS or the kernel would.
            .args(["--flags", "not-need-init,startup-clear"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !socket.exists() {
            assert!(Instant::now() < deadline, "swtpm made no socket");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Swtpm { child, socket })
    }

    /// Makes it the TPM of a test machine's host tree.
    pub fn plug_into(&self, host: &Path) {
        std::fs::create_dir_all(host.join("dev")).unwrap();
        std::os::unix::fs::symlink(&self.socket, host.join("dev/tpmrm0")).unwrap();
    }

    /// PCR `pcr` in `bank` as tpm2-tools reads it (uppercase hex): the independent reader.
    pub fn pcrread(&self, bank: &str, pcr: u32) -> String {
        let out = Command::new("tpm2_pcrread")
            .arg("-T")
            .arg(format!("swtpm:path={}", self.socket.display()))
            .arg(format!("{bank}:{pcr}"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "tpm2_pcrread: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // "  sha256:\n    12: 0xABCD…"
        text.lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{pcr}: 0x")))
            .unwrap_or_else(|| panic!("tpm2_pcrread printed no PCR {pcr}: {text}"))
            .to_string()
    }

    /// Extends PCR `pcr` in the sha256 bank with `digest` (hex) through tpm2-tools, as a boot
    /// stage before ember (systemd-stub) would.
    pub fn pcrextend_sha256(&self, pcr: u32, digest: &str) {
        let out = Command::new("tpm2_pcrextend")
            .arg("-T")
            .arg(format!("swtpm:path={}", self.socket.display()))
            .arg(format!("{pcr}:sha256={digest}"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tpm2_pcrextend: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Stops it now, as a TPM that dies under a running system.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Swtpm {
    fn drop(&mut self) {
        self.kill();
    }
}

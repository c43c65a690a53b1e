//! ds-identify's rules (`tools/ds-identify`, `tests/unittests/test_ds_identify.py`): each row
//! is a machine as one upstream case describes it (DMI, filesystem labels, files, command
//! line, environment) and the datasource cloud-init's generator picks there. The machine is
//! built as a host tree and a target root, and `ember-initrd detect` judges it.
//!
//! Paths under /sys, /proc, /dev and /run are the initramfs's own (the host tree), and so are
//! /mnt's (WSL's Windows drives); every other path is the target root's (/etc/cloud,
//! /var/lib/cloud, /writable): where ember, running before the pivot, finds them.

mod clouds;
mod hypervisors;
mod smbios;

use crate::common::{stderr, Machine};
use crate::differences;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// What cloud-init's generator concludes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Want {
    /// This datasource (ember's name) is chosen.
    Found(&'static str),
    /// No datasource: ds-identify disables cloud-init.
    NotFound,
    /// Switched off before anything was looked at (policy, marker files, command line).
    Disabled,
}

/// One upstream case. Start from `ROW` and set what the case sets.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// `test_ds_identify.py::VALID_CFG[Ec2-brightbox]` or `…::TestWSL::test_no_userprofile`.
    pub upstream: &'static str,
    pub dmi: &'static [(&'static str, &'static str)],
    /// Extra words for the kernel command line.
    pub cmdline: &'static str,
    /// Block devices with a filesystem and label: (kernel name, `iso9660`|`vfat`|`ext`, label).
    pub labels: &'static [(&'static str, &'static str, &'static str)],
    /// Files by absolute path (host or target, see the module's doc) and content.
    pub files: &'static [(&'static str, &'static str)],
    /// Directories that must exist (empty).
    pub dirs: &'static [&'static str],
    /// Environment of `ember-initrd` (VMware's `VMX_GUESTINFO`, …).
    pub env: &'static [(&'static str, &'static str)],
    pub want: Want,
    /// Where ember deliberately concludes otherwise: a phrase of the manual's entry (docs/src/differences.md). `want`
    /// is then ember's outcome.
    pub differs: Option<&'static str>,
    /// What `systemd-detect-virt` says upstream (`kvm`, `qemu`, `vmware`, `wsl`), laid down as
    /// what it reads: the DMI vendor, or WSL's kernel release. `""`: bare metal, or a kind
    /// (`container-other`, `vm-other`, `not-vmware`) that leaves nothing ember reads.
    pub virt: &'static str,
    /// Files in the host tree at any path (`/usr/bin/…`, `/init`, `/mnt/c/…`); content
    /// starting with `#!` is an executable stand-in, and `/usr/bin` is put first on PATH.
    pub host: &'static [(&'static str, &'static str)],
    /// Unix sockets in the host tree (`/dev/lxd/sock`): a listener bound there, then closed.
    pub sockets: &'static [&'static str],
    /// Real ISO9660 discs: (kernel name, label, files on it).
    pub isos: &'static [Iso],
    /// The kernel shows no /sys/class/dmi/id: `dmi` is in the SMBIOS tables only
    /// (/sys/firmware/dmi/tables), where dmidecode, kenv or sysctl would read it.
    pub dmi_tables: bool,
    /// VFAT volume serials, as blkid's UUID (`9796-932E`), for `labels` devices.
    pub vfat_serials: &'static [(&'static str, &'static str)],
    /// Modification times, in seconds from now, for `files` (a log from an earlier boot).
    pub mtimes: &'static [(&'static str, i64)],
}

/// A disc: its kernel name, its label and its files.
pub type Iso = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

pub const ROW: Row = Row {
    upstream: "",
    dmi: &[],
    cmdline: "",
    labels: &[],
    files: &[],
    dirs: &[],
    env: &[],
    want: Want::NotFound,
    differs: None,
    virt: "",
    host: &[],
    sockets: &[],
    isos: &[],
    dmi_tables: false,
    vfat_serials: &[],
    mtimes: &[],
};

fn on_host(path: &str) -> bool {
    ["/sys/", "/proc/", "/dev/", "/run/", "/mnt/"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// A filesystem superblock with `label`, just enough for ember's probe (no tools needed).
fn superblock(fs: &str, label: &str) -> Vec<u8> {
    let mut img;
    match fs {
        "ext" => {
            img = vec![0u8; 4096];
            img[1024 + 56..1024 + 58].copy_from_slice(&0xEF53u16.to_le_bytes());
            let name = &mut img[1024 + 120..1024 + 136];
            name[..label.len()].copy_from_slice(label.as_bytes());
        }
        "iso9660" => {
            img = vec![0u8; 20 * 2048];
            let pvd = 16 * 2048;
            img[pvd] = 1;
            img[pvd + 1..pvd + 6].copy_from_slice(b"CD001");
            img[pvd + 6] = 1;
            let id = &mut img[pvd + 40..pvd + 72];
            id.fill(b' ');
            id[..label.len()].copy_from_slice(label.as_bytes());
            img[pvd + 128..pvd + 130].copy_from_slice(&2048u16.to_le_bytes());
            img[pvd + 130..pvd + 132].copy_from_slice(&2048u16.to_be_bytes());
            let end = 17 * 2048;
            img[end] = 255;
            img[end + 1..end + 6].copy_from_slice(b"CD001");
            img[end + 6] = 1;
        }
        other => panic!("no fake superblock for {other}"),
    }
    img
}

/// What systemd-detect-virt reads to say the row's `virt`; a DMI field the row sets itself
/// is left as the row has it.
fn lay_down_virt(m: &Machine, row: &Row) {
    assert!(
        !(row.dmi_tables && matches!(row.virt, "kvm" | "qemu" | "vmware")),
        "{}: a virt laid down as DMI needs /sys/class/dmi/id, which dmi_tables removes",
        row.upstream
    );
    let dmi = |field: &str, value: &str| {
        if !row.dmi.iter().any(|(f, _)| *f == field) {
            m.dmi(field, value);
        }
    };
    match row.virt {
        "" => {}
        "kvm" | "qemu" => dmi("sys_vendor", "QEMU"),
        "vmware" => {
            dmi("sys_vendor", "VMware, Inc.");
            dmi("product_name", "VMware Virtual Platform");
        }
        "wsl" => m.write(
            &m.host,
            "proc/sys/kernel/osrelease",
            b"5.15.133.1-microsoft-standard-WSL2\n",
        ),
        other => panic!("no machine for virt {other}"),
    }
}

fn build(row: &Row) -> Machine {
    let m = Machine::new("conformance-di");
    m.cmdline(&format!(
        "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro {}",
        row.cmdline
    ));
    if row.dmi_tables {
        std::fs::remove_dir_all(m.host.join("sys/class/dmi/id")).unwrap();
        let (entry, table) = smbios::tables(row.dmi);
        m.write(
            &m.host,
            "sys/firmware/dmi/tables/smbios_entry_point",
            &entry,
        );
        m.write(&m.host, "sys/firmware/dmi/tables/DMI", &table);
    }
    for (field, value) in row.dmi.iter().filter(|_| !row.dmi_tables) {
        m.dmi(field, value);
    }
    for (dev, fs, label) in row.labels {
        let sys = m.host.join("sys/class/block").join(dev);
        std::fs::create_dir_all(&sys).unwrap();
        let removable = if *fs == "iso9660" { "1\n" } else { "0\n" };
        std::fs::write(sys.join("removable"), removable).unwrap();
        std::fs::write(sys.join("size"), "2048\n").unwrap();
        if *fs == "vfat" {
            m.vfat_seed(dev, label, &[]);
            if let Some((_, serial)) = row.vfat_serials.iter().find(|(d, _)| d == dev) {
                let out = std::process::Command::new("mkfs.vfat")
                    .args(["-n", label, "-i", &serial.replace('-', "")])
                    .arg(m.host.join("dev").join(dev))
                    .output()
                    .unwrap();
                assert!(out.status.success(), "mkfs.vfat: {}", stderr(&out));
            }
        } else {
            std::fs::write(m.host.join("dev").join(dev), superblock(fs, label)).unwrap();
        }
    }
    for (dev, label, files) in row.isos {
        m.iso_seed(dev, label, files);
    }
    for (path, content) in row.files {
        let base: &Path = if on_host(path) { &m.host } else { &m.target };
        m.write(base, path, content.as_bytes());
    }
    for (path, secs) in row.mtimes {
        let base: &Path = if on_host(path) { &m.host } else { &m.target };
        let now = std::time::SystemTime::now();
        let by = std::time::Duration::from_secs(secs.unsigned_abs());
        let when = if *secs < 0 { now - by } else { now + by };
        let file = std::fs::File::options()
            .write(true)
            .open(base.join(path.trim_start_matches('/')))
            .unwrap();
        file.set_modified(when).unwrap();
    }
    for dir in row.dirs {
        let base: &Path = if on_host(dir) { &m.host } else { &m.target };
        std::fs::create_dir_all(base.join(dir.trim_start_matches('/'))).unwrap();
    }
    lay_down_virt(&m, row);
    for (path, content) in row.host {
        m.write(&m.host, path, content.as_bytes());
        if content.starts_with("#!") {
            let file = m.host.join(path.trim_start_matches('/'));
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    for sock in row.sockets {
        let path = m.host.join(sock.trim_start_matches('/'));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        drop(std::os::unix::net::UnixListener::bind(path).unwrap());
    }
    m
}

/// The environment for `ember-initrd`: the row's, with the host tree's stand-ins first on PATH.
fn environment(row: &Row, m: &Machine) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = row
        .env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    if row.host.iter().any(|(p, _)| p.starts_with("/usr/bin/")) {
        let path = std::env::var("PATH").unwrap_or_default();
        let bin = m.host.join("usr/bin");
        vars.push(("PATH".into(), format!("{}:{path}", bin.display())));
    }
    vars
}

/// What ember concluded on `row`'s machine, with its stderr for the failure message.
pub fn judge(row: &Row) -> (Want, String) {
    let m = build(row);
    let vars = environment(row, &m);
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let out = m.initrd_env(&["detect"], &vars);
    let err = stderr(&out);
    let Ok(status) = std::fs::read_to_string(m.run.join("ember/status.json")) else {
        return (
            Want::NotFound,
            format!("no status.json; exit {:?}: {err}", out.status),
        );
    };
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let got = if status["disabled"].is_string() {
        Want::Disabled
    } else {
        match status["datasource"].as_str() {
            // The None datasource standing in, with nothing that chose it (the DMI platform
            // is a note, not a choice): "not found".
            Some("none")
                if status["evidence"]
                    .as_array()
                    .is_none_or(|ev| ev.iter().all(platform_note)) =>
            {
                Want::NotFound
            }
            Some(name) => Want::Found(leak(name)),
            None => Want::NotFound,
        }
    };
    (got, format!("{err}\nstatus: {status}"))
}

/// The evidence entry naming the DMI platform, which detect records whether or not a
/// datasource takes it.
fn platform_note(e: &serde_json::Value) -> bool {
    e["source"] == "dmi"
        && e["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("platform "))
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// Runs every row and fails once, listing every row that disagrees.
pub fn check(table: &[Row]) {
    let mut wrong = Vec::new();
    for row in table {
        assert!(!row.upstream.is_empty(), "a row without its upstream case");
        if let Some(phrase) = row.differs {
            differences::assert_listed(row.upstream, phrase);
        }
        let (got, detail) = judge(row);
        if got != row.want {
            wrong.push(format!(
                "{}: want {:?}, ember chose {got:?}\n{detail}",
                row.upstream, row.want
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rows disagree:\n\n{}",
        wrong.len(),
        table.len(),
        wrong.join("\n\n")
    );
}

#[test]
fn the_tables_cover_ds_identify() {
    let rows = clouds::TABLE.len() + hypervisors::TABLE.len();
    // The floor; upstream's table and its test methods hold about this many cases.
    assert!(rows >= 150, "only {rows} detection rows");
}

//! ds-identify's rules (`tools/ds-identify`, `tests/unittests/test_ds_identify.py`): each row
//! is a machine as one upstream case describes it (DMI, filesystem labels, files, command
//! line, environment) and the datasource cloud-init's generator picks there. The machine is
//! built as a host tree and a target root, and `ember-initrd detect` judges it.
//!
//! Paths under /sys, /proc, /dev and /run are the initramfs's own (the host tree); every other
//! path is the target root's (/etc/cloud, /var/lib/cloud, /writable): where ember, running
//! before the pivot, finds them.

mod clouds;
mod hypervisors;

use crate::common::{stderr, Machine};
use crate::differences;
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
    /// Where ember deliberately concludes otherwise: a phrase of the README's entry. `want`
    /// is then ember's outcome.
    pub differs: Option<&'static str>,
}

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
};

fn on_host(path: &str) -> bool {
    ["/sys/", "/proc/", "/dev/", "/run/"]
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

fn build(row: &Row) -> Machine {
    let m = Machine::new("conformance-di");
    m.cmdline(&format!("BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro {}", row.cmdline));
    for (field, value) in row.dmi {
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
        } else {
            std::fs::write(m.host.join("dev").join(dev), superblock(fs, label)).unwrap();
        }
    }
    for (path, content) in row.files {
        let base: &Path = if on_host(path) { &m.host } else { &m.target };
        m.write(base, path, content.as_bytes());
    }
    for dir in row.dirs {
        let base: &Path = if on_host(dir) { &m.host } else { &m.target };
        std::fs::create_dir_all(base.join(dir.trim_start_matches('/'))).unwrap();
    }
    m
}

/// What ember concluded on `row`'s machine, with its stderr for the failure message.
pub fn judge(row: &Row) -> (Want, String) {
    let m = build(row);
    let out = m.initrd_env(&["detect"], row.env);
    let err = stderr(&out);
    let Ok(status) = std::fs::read_to_string(m.run.join("ember/status.json")) else {
        return (Want::NotFound, format!("no status.json; exit {:?}: {err}", out.status));
    };
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let got = if status["disabled"].is_string() {
        Want::Disabled
    } else {
        match status["datasource"].as_str() {
            // The None datasource standing in, with nothing that chose it: "not found".
            Some("none") if status["evidence"].as_array().is_none_or(Vec::is_empty) => {
                Want::NotFound
            }
            Some(name) => Want::Found(leak(name)),
            None => Want::NotFound,
        }
    };
    (got, format!("{err}\nstatus: {status}"))
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

//! A seed volume (a cidata, config-2 or provisioning-media device) opened within the image's
//! budgets, and the one place its failures become diagnostics: each names the device and the
//! file (`/dev/sr0: meta-data`), never the contents. Reading is `seedfs`'s job, not this one's.

use super::seed::FileRead;
use crate::context::Env;
use crate::detect::blockdev::LabelledDevice;
use crate::error::Diag;
use crate::limits::{Tally, TALLY_BUDGET};
use crate::reason::Reason;
use crate::seedfs::{self, ReadBudget, SeedFs, SeedFsError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a seed may come on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    /// An ISO9660 or UDF disc (Azure's provisioning media).
    Disc,
    /// A disc, or a VFAT stick or disk (NoCloud's cidata, OpenStack's config-2).
    DiscOrFat,
}

/// The devices that may hold a seed: on `media`, and labelled `label` when one is given. A
/// UDF bridge disc (genisoimage -udf) is read through its UDF side.
pub fn seed_devices<'d>(
    devices: &'d [LabelledDevice],
    label: Option<&str>,
    media: Media,
) -> Vec<&'d LabelledDevice> {
    let fs_ok = |d: &LabelledDevice| match d.fs.as_str() {
        "iso9660" | "udf" => true,
        "vfat" => media == Media::DiscOrFat,
        _ => false,
    };
    devices
        .iter()
        .filter(|d| fs_ok(d) && label.is_none_or(|l| d.has_label(l)))
        .collect()
}

pub struct SeedVolume {
    fs: Box<dyn SeedFs>,
    /// `/dev/sr0`, as cloud-init names the device.
    device: String,
    max_file: u64,
    max_read: u64,
    /// The datasource's: every file read is charged to it.
    tally: Arc<Tally>,
}

impl SeedVolume {
    /// Opens `dev` with a session budget: `volume_read_bytes` in all, until
    /// `datasource_timeout_ms` from now.
    pub fn open(env: &Env, dev: &LabelledDevice) -> Result<SeedVolume, Diag> {
        let limits = env.limits();
        let device = dev.dev_name();
        let budget = ReadBudget {
            max_bytes: limits.volume_read_bytes,
            deadline: Some(Instant::now() + Duration::from_millis(limits.datasource_timeout_ms)),
        };
        let opened = std::fs::File::open(&dev.node)
            .map_err(SeedFsError::Io)
            .and_then(|f| seedfs::open_within(f, budget));
        match opened {
            Ok(fs) => Ok(SeedVolume {
                fs,
                device,
                max_file: limits.file_bytes,
                max_read: limits.volume_read_bytes,
                tally: env.fetched.clone(),
            }),
            Err(e) => Err(diag(
                &device,
                None,
                &e,
                limits.file_bytes,
                limits.volume_read_bytes,
            )),
        }
    }

    /// One file, within `file_bytes` and what is left of the datasource's total:
    /// `Ok(None)` when absent.
    pub fn read_file(&mut self, path: &str) -> Result<Option<Vec<u8>>, Diag> {
        let (cap, capped) = self.tally.cap(self.max_file);
        match self.fs.read_file(path, cap) {
            Ok(got) => {
                self.tally.charge(got.as_ref().map_or(0, Vec::len));
                Ok(got)
            }
            Err(SeedFsError::TooLarge { .. }) if capped => {
                let d = Diag::error(Reason::BudgetExceeded, self.tally.message());
                Err(d
                    .budget(TALLY_BUDGET)
                    .file(format!("{}: {path}", self.device)))
            }
            Err(e) => Err(diag(
                &self.device,
                Some(path),
                &e,
                self.max_file,
                self.max_read,
            )),
        }
    }

    /// `read_file` as a seed reader wants it.
    pub fn read(&mut self, path: &str) -> FileRead {
        match self.read_file(path) {
            Ok(Some(d)) => FileRead::Found(d),
            Ok(None) => FileRead::Absent,
            Err(d) => FileRead::Failed(d),
        }
    }

    /// Names in a directory; a missing directory is an empty list, a damaged one an error.
    pub fn list_dir(&mut self, path: &str) -> Result<Vec<String>, Diag> {
        match self.fs.list_dir(path) {
            Ok(names) => Ok(names),
            Err(SeedFsError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(diag(
                &self.device,
                Some(path),
                &e,
                self.max_file,
                self.max_read,
            )),
        }
    }
}

/// The diagnostic for `e`, met on `device` (reading `path`, when there was one): a budget
/// names its limit, a link its own code, anything else is `seed-unreadable`.
fn diag(device: &str, path: Option<&str>, e: &SeedFsError, max_file: u64, max_read: u64) -> Diag {
    let file = match path {
        Some(p) => format!("{device}: {p}"),
        None => device.to_string(),
    };
    let d = match e {
        SeedFsError::TooLarge { .. } => Diag::error(
            Reason::BudgetExceeded,
            format!("larger than {max_file} bytes"),
        )
        .budget("file_bytes"),
        SeedFsError::ReadBudget { .. } => Diag::error(
            Reason::BudgetExceeded,
            format!("reading the volume took over {max_read} bytes from the device"),
        )
        .budget("volume_read_bytes"),
        SeedFsError::Deadline => {
            Diag::error(Reason::BudgetExceeded, e.to_string()).budget("datasource_timeout_ms")
        }
        SeedFsError::Link(_) => Diag::error(Reason::SeedLink, e.to_string()),
        _ => Diag::error(Reason::SeedUnreadable, e.to_string()),
    };
    d.file(file)
}

#[cfg(test)]
mod tests {
    use super::{diag, seed_devices, LabelledDevice, Media};
    use crate::seedfs::SeedFsError;

    #[test]
    fn every_diagnostic_names_device_and_file() {
        let cases = [
            (
                SeedFsError::Corrupt("FAT cluster chain loops at cluster 7".into()),
                "seed-unreadable",
                None,
            ),
            (
                SeedFsError::ReadBudget { max_bytes: 9 },
                "budget-exceeded",
                Some("volume_read_bytes"),
            ),
            (
                SeedFsError::Deadline,
                "budget-exceeded",
                Some("datasource_timeout_ms"),
            ),
            (SeedFsError::Link("meta-data".into()), "seed-link", None),
        ];
        for (e, code, budget) in cases {
            let d = diag("/dev/sr0", Some("meta-data"), &e, 1, 9);
            assert_eq!(d.file.as_deref(), Some("/dev/sr0: meta-data"), "{e}");
            assert_eq!((d.code.as_str(), d.budget.as_deref()), (code, budget));
        }
        let d = diag("/dev/sr0", None, &SeedFsError::NotRecognised, 1, 9);
        assert_eq!(d.file.as_deref(), Some("/dev/sr0"));
    }

    #[test]
    fn seed_devices_by_media_and_label() {
        let dev = |name: &str, fs: &str, label: &str| LabelledDevice {
            name: name.into(),
            node: format!("/dev/{name}").into(),
            fs: fs.into(),
            labels: vec![label.into()],
            uuid: None,
            removable: false,
        };
        let devices = [
            dev("sr0", "iso9660", "CIDATA"),
            dev("sr1", "udf", "rd_rdfe"),
            dev("vdb", "vfat", "cidata"),
            dev("vdc", "ext", "cidata"),
        ];
        let names = |found: Vec<&LabelledDevice>| -> Vec<String> {
            found.iter().map(|d| d.name.clone()).collect()
        };
        let cidata = seed_devices(&devices, Some("cidata"), Media::DiscOrFat);
        assert_eq!(
            names(cidata),
            ["sr0", "vdb"],
            "labels match case-blind; ext is no seed"
        );
        let discs = seed_devices(&devices, None, Media::Disc);
        assert_eq!(names(discs), ["sr0", "sr1"]);
    }
}

//! Stage 1, detect: is ember disabled, and what does the machine show? Local evidence only
//! (command line, SMBIOS/DMI, filesystem labels, seed directories, image config), no network.
//! It gathers facts and knows no datasource: each datasource judges the facts itself
//! (`datasource::choose`).

pub mod blockdev;
pub mod dmi;
pub mod policy;
pub mod smbios;

use crate::cmdline::{self, DsHint, Toggle};
use crate::context::Ctx;
use crate::status::Evidence;
use blockdev::LabelledDevice;
use dmi::Dmi;
use serde::{Deserialize, Serialize};

/// What the machine shows, gathered once and shared by every datasource's `detect`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Facts {
    /// The `ds=` hint of the command line, with the parameter that carried it.
    pub cmdline_ds: Option<(String, DsHint)>,
    /// A `ds=` hint in the SMBIOS system serial (QEMU `-smbios type=1,serial=ds=nocloud;…`).
    pub serial_ds: Option<DsHint>,
    pub dmi: Dmi,
    pub devices: Vec<LabelledDevice>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Detection {
    pub disabled: Option<String>,
    /// The chosen datasource's short name.
    pub datasource: Option<String>,
    /// The platform DMI names (`ec2`, `qemu`, …) and the fields that said so.
    pub platform: Option<(String, String)>,
    pub evidence: Vec<Evidence>,
    pub facts: Facts,
    /// Problems with what detect read (a ds-identify policy value it does not take).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diags: Vec<crate::error::Diag>,
}

/// Why ember must not run, or None. Cheap: the command line, four `stat`s and ds-identify's
/// config file, if there is one.
pub fn disabled_reason(ctx: &Ctx) -> Option<String> {
    match cmdline::toggle(&ctx.cmdline) {
        Toggle::Disabled(word) => return Some(format!("{}: {word}", ctx.cmdline_source)),
        Toggle::ForcedOn => return None,
        Toggle::Unset => {}
    }
    const MARKERS: [&str; 2] = ["/etc/cloud/cloud-init.disabled", "/etc/ember/disabled"];
    for marker in MARKERS {
        if ctx.target.as_ref().is_some_and(|t| t.exists(marker)) {
            return Some(format!("marker file in target: {marker}"));
        }
        if ctx.host.path(marker).exists() {
            return Some(format!("marker file in initramfs: {marker}"));
        }
    }
    policy::disabled(&policy::read(ctx))
}

pub fn gather_facts(ctx: &Ctx) -> Facts {
    let dmi = Dmi::read(&ctx.host);
    let serial_ds = dmi
        .get("product_serial")
        .filter(|s| s.starts_with("ds="))
        .map(|s| cmdline::parse_ds(&s[3..]));
    Facts {
        cmdline_ds: cmdline::ds_hint(&ctx.cmdline),
        serial_ds,
        dmi,
        devices: blockdev::scan(&ctx.host),
    }
}

//! Which instance this boot is: the fetched one (a new instance when its id differs from the
//! last boot's), or, when the datasource gave nothing, the cached one ("no news", RELIABILITY
//! rule 10). Also the removable-seed policy (rule 6).

use super::fetch;
use super::record::Recorder;
use crate::context::Ctx;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::root::Root;
use crate::state::{self, encode_instance_id, EMBER_LIB};

pub struct Chosen {
    pub data: InstanceData,
    pub first_boot: bool,
    pub previous: Option<String>,
}

/// `ember: {removable_seeds: first-boot}` accepts a seed on removable media only while the
/// machine has no instance yet; the default (`always`) follows cloud-init.
fn removable_first_boot_only(ctx: &Ctx) -> bool {
    ctx.image
        .value
        .pointer("/ember/removable_seeds")
        .and_then(|v| v.as_str())
        == Some("first-boot")
}

pub fn choose(ctx: &Ctx, rec: &mut Recorder, target: &Root) -> Option<Chosen> {
    let previous = state::previous_instance_id(crate::root::ReadOnly::new(target));
    if let Some(data) = fetch::load(ctx) {
        match accept(ctx, &data, previous.as_deref()) {
            Ok(()) => {
                let first_boot = previous.as_deref() != Some(data.instance_id.as_str());
                return Some(Chosen {
                    data,
                    first_boot,
                    previous,
                });
            }
            Err(diag) => rec.record(diag),
        }
    }
    let prev = previous?;
    let cached = format!(
        "{EMBER_LIB}/instances/{}/instance.json",
        encode_instance_id(&prev)
    );
    let data = target
        .read_file(&cached, ctx.limits().file_bytes.saturating_mul(4))
        .ok()
        .flatten()
        .and_then(fetch::decode_stored);
    match data {
        Some(data) => {
            rec.record(Diag::warning(
                "cached-instance",
                format!(
                    "no data from the datasource on this boot: keeping the cached instance {prev}"
                ),
            ));
            Some(Chosen {
                data,
                first_boot: false,
                previous: Some(prev),
            })
        }
        None => {
            rec.record(
                Diag::error(
                    "cache-missing",
                    "no data from the datasource and no cached instance data",
                )
                .file(cached),
            );
            None
        }
    }
}

fn accept(ctx: &Ctx, data: &InstanceData, previous: Option<&str>) -> Result<(), Diag> {
    state::check_instance_id(&data.instance_id).map_err(|e| {
        Diag::error("instance-id-invalid", e.to_string())
            .file("meta-data")
            .key("instance-id")
    })?;
    let new_instance = previous.is_some_and(|p| p != data.instance_id);
    if data.from_removable_media && new_instance && removable_first_boot_only(ctx) {
        return Err(Diag::warning(
            "removable-seed-refused",
            "a seed on removable media names a new instance; refused by ember.removable_seeds: first-boot",
        ));
    }
    Ok(())
}

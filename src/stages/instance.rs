//! Which instance this boot is: the fetched one (a new instance when its id differs from the
//! last boot's), or, when the datasource gave nothing, the cached one ("no news", RELIABILITY
//! rule 10). Also the removable-seed policy (rule 6).

use super::fetch;
use crate::context::Ctx;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::Root;
use crate::state::{self, instance_cache};

pub struct Chosen {
    pub data: InstanceData,
    pub first_boot: bool,
    pub previous: Option<String>,
}

/// A cache of format 0 has no public keys: they come from its meta-data by the datasource's
/// rule, as when it was written.
fn migrate(mut data: InstanceData) -> InstanceData {
    if data.version.is_legacy() {
        if let Some(ds) = crate::datasource::by_name(&data.datasource) {
            data.public_keys = ds.public_keys(&data);
        }
    }
    data
}

pub fn choose(ctx: &Ctx, rec: &mut Recorder, target: &Root) -> Option<Chosen> {
    let previous = state::previous_instance_id(crate::root::ReadOnly::new(target));
    let fetched = fetch::load(ctx);
    // None standing in for a datasource that found nothing is no news on a later boot: the
    // cached instance is kept, and without a readable cache there is no instance at all, never
    // a new one (RELIABILITY rule 10), as after a failed fetch.
    let stand_in =
        |d: &InstanceData| d.fallback && previous.as_deref().is_some_and(|p| p != d.instance_id);
    let fetched = fetched.filter(|d| !stand_in(d));
    if let Some(data) = fetched {
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
    let cached = instance_cache::path(&prev);
    let data = target
        .read_file(&cached, ctx.limits().file_bytes.saturating_mul(4))
        .ok()
        .flatten()
        .and_then(|raw| instance_cache::decode::<InstanceData>(&raw).ok())
        .map(migrate);
    match data {
        Some(data) => {
            rec.record(Diag::warning(
                Reason::CachedInstance,
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
                    Reason::CacheMissing,
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
        Diag::error(Reason::InstanceIdInvalid, e.to_string())
            .file("meta-data")
            .key("instance-id")
    })?;
    let new_instance = previous.is_some_and(|p| p != data.instance_id);
    if data.from_removable_media && new_instance && ctx.image.ember.removable_seeds_first_boot {
        return Err(Diag::warning(
            Reason::RemovableSeedRefused,
            "a seed on removable media names a new instance; refused by ember.removable_seeds: first-boot",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache as ember wrote it before the format version: payloads in base64, platform
    /// files as lists, no public keys.
    const FORMAT_0: &str = r#"{"datasource":"nocloud","platform":null,"cloud_name":null,
        "detail":"DataSourceNoCloud","subplatform":"seed-dir (/seed)","instance_id":"i-1",
        "meta_data":{"instance-id":"i-1","public-keys":["ssh-ed25519 AAAA old"]},
        "user_data":"I2Nsb3VkLWNvbmZpZw==","vendor_data":null,"vendor_data2":null,
        "network_config":null,"network_config_lines":{},"from_removable_media":false,"reads":2,
        "config":null,"files":[["/var/lib/waagent/ovf-env.xml",384,"PHhtbC8+"]]}"#;

    #[test]
    fn a_format_0_cache_is_read_and_gets_its_keys_by_the_datasources_rule() {
        let data: InstanceData = instance_cache::decode(FORMAT_0.as_bytes()).unwrap();
        assert!(data.version.is_legacy() && data.public_keys.is_empty());
        let data = migrate(data);
        let keys: Vec<_> = data.public_keys.iter().map(|k| k.key.as_str()).collect();
        assert_eq!(keys, ["ssh-ed25519 AAAA old"]);
        assert_eq!(data.user_data.unwrap().expose(), b"#cloud-config");
        assert_eq!(data.files[0].path, "/var/lib/waagent/ovf-env.xml");
        assert_eq!(
            (data.files[0].mode, data.files[0].content.expose()),
            (384, &b"<xml/>".to_vec())
        );
        let again = serde_json::to_value(InstanceData {
            version: crate::state::instance_cache::legacy(),
            ..InstanceData::default()
        })
        .unwrap();
        assert_eq!(again["version"], 1, "the next write is the current format");
    }
}

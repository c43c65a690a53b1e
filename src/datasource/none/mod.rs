//! cloud-init's None datasource: no platform at all. Chosen when the command line names it
//! (`ds=None`) or the image's `datasource_list` does and nothing listed before it was found;
//! also the stand-in when a listed datasource finds nothing (the fetch stage). The instance is
//! `iid-datasource-none` with empty meta-data (or the image's `datasource: {None: {metadata,
//! userdata_raw}}`), so the image's own config provisions: its default user, host keys, the
//! fallback network.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/fallback.html>

use crate::context::Env;
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::Facts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::{json, Value};

pub struct NoneDs;

pub const INSTANCE_ID: &str = "iid-datasource-none";

/// Whether the image's `datasource_list` names None, and whether it names anything else.
fn listed(env: &Env) -> Option<bool> {
    let list = env.image.datasource_list()?;
    let is_none = |n: &String| n.eq_ignore_ascii_case("None");
    list.iter()
        .any(is_none)
        .then(|| list.iter().any(|n| !is_none(n)))
}

impl Datasource for NoneDs {
    fn name(&self) -> &'static str {
        "none"
    }
    fn cloud_init_name(&self) -> &'static str {
        "None"
    }

    /// Always last in the order: evidence only from the command line or the image's list.
    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let named = facts.cmdline_ds.as_ref().filter(|(_, h)| h.name == "none");
        if let Some((param, _)) = named {
            return vec![Evidence {
                source: "cmdline".into(),
                detail: param.clone(),
            }];
        }
        match listed(env) {
            Some(others) => {
                let detail = match others {
                    true => "datasource_list names None: nothing listed before it was found",
                    false => "datasource_list: [None] in the image config",
                };
                vec![Evidence {
                    source: "config".into(),
                    detail: detail.into(),
                }]
            }
            None => Vec::new(),
        }
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let named = facts
            .cmdline_ds
            .as_ref()
            .is_some_and(|(_, h)| h.name == "none");
        // Chosen for itself (alone in the list, or named), it is the instance; standing in
        // after the others found nothing, a cached instance is kept over it.
        let fallback = !named && listed(env) == Some(true);
        Ok(data(env, fallback))
    }
}

/// The None datasource's data: the image's `datasource: {None: …}`, else nothing. A warning
/// says so, as cloud-init's "Used fallback datasource" does.
pub fn data(env: &Env, fallback: bool) -> InstanceData {
    let cfg = env.image.datasource_settings("None");
    let mut data = InstanceData {
        datasource: "none".into(),
        detail: "DataSourceNone".into(),
        subplatform: "config".into(),
        instance_id: INSTANCE_ID.into(),
        meta_data: json!({}),
        fallback,
        ..InstanceData::default()
    };
    let key = "datasource.None.metadata";
    match cfg.and_then(|c| c.get("metadata")) {
        Some(md @ Value::Object(_)) => data.meta_data = md.clone(),
        None | Some(Value::Null) => {}
        Some(_) => data.diags.push(
            Diag::warning(Reason::WrongType, "must be a mapping: ignored")
                .file("image config")
                .key(key),
        ),
    }
    let key = "datasource.None.userdata_raw";
    match cfg.and_then(|c| c.get("userdata_raw")) {
        Some(Value::String(ud)) => data.user_data = Some(Secret::new(ud.clone().into_bytes())),
        None | Some(Value::Null) => {}
        Some(_) => data.diags.push(
            Diag::warning(Reason::WrongType, "must be a string: ignored")
                .file("image config")
                .key(key),
        ),
    }
    data.diags.push(Diag::warning(
        Reason::NoDatasource,
        "used the fallback datasource None: no platform data, the image's config alone provisions",
    ));
    data
}

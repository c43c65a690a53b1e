//! Which datasource applies: the candidates in order (the command line's choice, else the
//! image's `datasource_list`, else every datasource ember has), each judging the gathered
//! facts itself; the first with evidence wins. Local evidence only: nothing here sends a packet.

use super::{by_name, Datasource, DATASOURCES};
use crate::context::Ctx;
use crate::detect::{disabled_reason, gather_facts, Detection, Facts};
use crate::status::Evidence;

/// The order datasources are tried in: the command line's choice first, then the image's
/// `datasource_list` (cloud-init names), else every datasource ember has.
fn candidates(ctx: &Ctx, facts: &Facts) -> Vec<&'static dyn Datasource> {
    let named = facts
        .cmdline_ds
        .as_ref()
        .map(|(_, h)| h.name.trim_end_matches("-net").to_string());
    if let Some(ds) = named.as_deref().and_then(by_name) {
        return vec![ds];
    }
    match ctx.image.datasource_list() {
        Some(list) => list.iter().filter_map(|n| by_name(n)).collect(),
        None => DATASOURCES.to_vec(),
    }
}

pub fn detect(ctx: &Ctx) -> Detection {
    if let Some(reason) = disabled_reason(ctx) {
        return Detection {
            disabled: Some(reason),
            ..Detection::default()
        };
    }
    let facts = gather_facts(ctx);
    let mut evidence = Vec::new();
    if let Some((platform, why)) = &facts.platform {
        evidence.push(Evidence {
            source: "dmi".into(),
            detail: format!("platform {platform} ({why})"),
        });
    }
    let mut chosen = None;
    for ds in candidates(ctx, &facts) {
        let found = ds.detect(ctx, &facts);
        if !found.is_empty() {
            evidence.extend(found);
            chosen = Some(ds.name().to_string());
            break;
        }
    }
    Detection {
        disabled: None,
        datasource: chosen,
        evidence,
        facts,
    }
}

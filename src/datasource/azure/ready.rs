//! Azure's ready report, as the fetch stage's report hook: whether the platform waits for one
//! (while provisioning), and what it is told over the link IMDS answered on: Ready, or
//! NotReady with the reason the fetch stopped. The wire protocol is wireserver.rs.

use super::{instance_id, wireserver, OvfSource, DEFAULT_RETRIES};
use crate::context::Env;
use crate::datasource::{InstanceData, Link, Reported};
use crate::detect::Facts;
use crate::error::Diag;
use crate::fetch::Fetcher;
use std::time::{Duration, Instant};
use wireserver::Health;

/// The least time the ready report gets, after the reads.
const REPORT_BUDGET: Duration = crate::bounds::AZURE_REPORT_MIN;

/// Ready is reported while provisioning: the media is there, or the instance is new.
pub(super) fn due(env: &Env, facts: &Facts, source: Option<&OvfSource>) -> bool {
    if source.is_some_and(|s| s.media) {
        return true;
    }
    let previous = env
        .target
        .as_ref()
        .copied()
        .and_then(crate::state::previous_instance_id);
    previous.is_none_or(|p| Some(p) != instance_id(env, facts, None))
}

/// Ready, or NotReady with the code and message of the error that stopped the fetch (a diag's
/// message names keys and lines, never a value), to the wireserver: the
/// `ember.azure.wireserver=` override, else option 245 of the lease IMDS answered over.
pub(super) fn report(env: &Env, link: &Link, outcome: Result<&InstanceData, &Diag>) -> Reported {
    let (request, _, _) =
        crate::datasource::common::metadata_get::timing(env, "Azure", DEFAULT_RETRIES);
    // Its own deadline: a slow IMDS must not leave the platform without an answer.
    let budget = (request * 3).max(REPORT_BUDGET);
    // Not charged to `datasource_bytes`: a fetch that spent it must still be reported, or
    // the platform never hears (its answers are capped by the wire protocol's own budget).
    let fetcher = Fetcher::with_deadline(env, request, Instant::now() + budget).unmetered();
    let option_245 = link.lease().and_then(wireserver::from_lease);
    let wire = wireserver::base_url(env.cmdline, option_245);
    let health = match outcome {
        Ok(_) => Health::Ready,
        Err(e) => Health::NotReady {
            description: format!("ember: {}: {}", e.code, e.message),
        },
    };
    let mut reported = Reported::default();
    if let Err(e) = wireserver::report(&fetcher, &wire, &health, &mut reported.reads) {
        reported.diags.push(e);
    }
    reported
}

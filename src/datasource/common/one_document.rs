//! A cloud whose metadata is one JSON document at the metadata address (UpCloud's, NWCS's):
//! read in one GET, through a lease on the first NIC (cloud-init's `find_fallback_nic`) when no
//! route goes there, with the base URL from `ember.metadata-url=` and the timing from the
//! image's `datasource: {<Cloud>: {…}}`. What the document means is the cloud's `read`.

use super::metadata_get::{self, Get};
use crate::context::Env;
use crate::datasource::link::{Link, Service};
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::fetch::Fetcher;
use crate::reason::Reason;

/// Where and how: the cloud's cloud-init name (its settings' key), its default base URL, the
/// document's path under it, and its default retries.
pub struct Document<'a> {
    pub cloud: &'a str,
    pub default_base: &'a str,
    pub path: &'a str,
    pub retries: u32,
}

/// Reads the document into `data` with `read(body, url, data)`.
pub fn fetch(
    env: &Env,
    link: &mut Link,
    doc: &Document,
    data: &mut InstanceData,
    mut read: impl FnMut(&[u8], &str, &mut InstanceData) -> Result<(), Diag>,
) -> Result<(), Diag> {
    let base = crate::cmdline::metadata_url(env.cmdline)
        .unwrap_or(doc.default_base)
        .trim_end_matches('/')
        .to_string();
    let (request, deadline, retries) = metadata_get::timing(env, doc.cloud, doc.retries);
    let fetcher = Fetcher::with_deadline(env, request, deadline);
    let mut service = Service::metadata(env, vec![base.clone()], request, deadline);
    service.nics.truncate(1);
    service.share = None;
    let url = format!("{base}/{}", doc.path);
    link.reach(env, &service, data, |d, via| {
        let get = Get {
            url: &url,
            headers: &[],
            require: None,
            wait_until: via.wait_until,
            retries,
            max_bytes: env.limits().file_bytes,
            unreachable: Reason::MetadataUnreachable,
            pause: None,
        };
        let body = metadata_get::get(&fetcher, &get, &mut d.reads)?;
        read(&body, &url, d)
    })
}

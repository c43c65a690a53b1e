//! The MAAS metadata client, reading as cloud-init's `OauthUrlHelper.readurl` does: a fresh
//! OAuth header per request; a 401 or 403 whose `Date` differs from our clock is sent again
//! once with the timestamp moved by the difference (the skew is kept for the rest of the
//! fetch, in memory only). Retries, 404 as absent and the wording of errors are the shared
//! client's; errors name the URL, never the header.

use super::oauth::{self, Creds};
use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::error::Diag;
use crate::reason::Reason;
use std::cell::Cell;
use std::rc::Rc;

/// The client at `base`, signing with `creds` when there are any.
pub fn client(env: &Env, base: &str, creds: Option<Creds>, retries: u32) -> Client {
    // Our clock's distance to the service's, learnt from a refusal.
    let skew = Rc::new(Cell::new(None::<i64>));
    let signed = creds.is_some();
    let client = Client::at(env, "MAAS", base, retries).on_refused({
        let skew = skew.clone();
        move |status, answer, sent_again| refused(&skew, signed, status, answer, sent_again)
    });
    match creds {
        Some(creds) => client.signed(move || {
            let h = creds.header(oauth::timestamp(skew.get().unwrap_or(0)));
            vec![("Authorization".to_string(), h.into_inner())]
        }),
        None => client,
    }
}

/// A refusal is worth a second try only when the clocks disagree.
fn refused(
    skew: &Cell<Option<i64>>,
    signed: bool,
    status: u16,
    answer: &[(String, String)],
    sent_again: bool,
) -> Result<(), Diag> {
    let date = answer
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("date"))
        .map(|(_, v)| v.as_str());
    let learnt = date.and_then(oauth::skew_from_date);
    if let (false, Some(s), true) = (sent_again, learnt, signed) {
        if s.abs() > 5 || skew.get().is_some() {
            skew.set(Some(s));
            return Ok(());
        }
    }
    let msg = format!(
        "HTTP status {status}: the OAuth credentials were refused (clock skew {})",
        learnt.map_or("unknown: no Date header".into(), |s| format!("{s} s"))
    );
    Err(Diag::error(Reason::MetadataStatus, msg))
}

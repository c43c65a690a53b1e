//! Azure's wireserver ready report, as cloud-init's `WALinuxAgentShim` and
//! `GoalStateHealthReporter` send it: GET the goal state, then POST a Health document (Ready,
//! or NotReady with ProvisioningFailed and a description) for its incarnation, container and
//! role instance, each request retried a few times within the fetcher's deadline. Not here:
//! certificates (keys given by fingerprint), KVP telemetry, the pre-provisioning (PPS) flow.
//! <https://github.com/Azure/WALinuxAgent> (protocol/wire.py)

use crate::datasource::common::xml::{document, utf8};
use crate::error::Diag;
use crate::fetch::{redact_url, FetchError, Fetcher};
use crate::reason::Reason;
use crate::retry::{Policy, Retry, Stopped};
use crate::xml::escape;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The wireserver when DHCP option 245 does not name one.
pub const DEFAULT_WIRESERVER: Ipv4Addr = Ipv4Addr::new(168, 63, 129, 16);
const CMDLINE_KEY: &str = "ember.azure.wireserver";
/// The headers every wireserver request carries: the agent protocol version spoken.
const AGENT_HEADERS: [(&str, &str); 2] = [
    ("x-ms-agent-name", "WALinuxAgent"),
    ("x-ms-version", "2012-11-30"),
];
/// A goal state is about 2 KiB; the health answer is empty.
const MAX_ANSWER_BYTES: u64 = 1 << 20;
/// Requests per step (cloud-init retries each until its own 20-minute limit).
const ATTEMPTS: u32 = 5;
/// cloud-init trims the failure description to this many characters.
const DESCRIPTION_MAX_CHARS: usize = 512;

#[derive(Clone, Debug, PartialEq)]
pub enum Health {
    Ready,
    /// Sent with SubStatus `ProvisioningFailed`; the description is sent as given (trimmed to
    /// 512 characters), so it must hold no secret.
    NotReady {
        description: String,
    },
}

/// What the health report repeats from the goal state.
#[derive(Clone, Debug, PartialEq)]
pub struct GoalState {
    pub incarnation: String,
    pub container_id: String,
    pub instance_id: String,
}

/// Fetches the goal state and posts `health` for it; `reads` counts requests sent.
pub fn report(fetcher: &Fetcher, base: &str, health: &Health, reads: &mut u32) -> Result<(), Diag> {
    let base = base.trim_end_matches('/');
    let goal_url = format!("{base}/machine/?comp=goalstate");
    let mut headers: Vec<(String, String)> = AGENT_HEADERS
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    let xml = send(fetcher, "GET", &goal_url, &headers, &[], reads)?;
    let goal = parse_goal_state(&xml).map_err(|d| {
        let message = format!("the goal state: {}", d.message);
        Diag { message, ..d }.file(redact_url(&goal_url))
    })?;
    let body = health_document(&goal, health);
    headers.push(("Content-Type".into(), "text/xml; charset=utf-8".into()));
    let health_url = format!("{base}/machine?comp=health");
    send(
        fetcher,
        "POST",
        &health_url,
        &headers,
        body.as_bytes(),
        reads,
    )?;
    Ok(())
}

/// One request until a 2xx answer (its body), retried with backoff on no answer and on any
/// other status, as cloud-init's `http_with_retries`; `ATTEMPTS` at most, never past the
/// fetcher's deadline.
fn send(
    fetcher: &Fetcher,
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    reads: &mut u32,
) -> Result<Vec<u8>, Diag> {
    let shown = redact_url(url);
    let mut retry = Retry::new(Policy::metadata(Some(ATTEMPTS), fetcher.deadline()));
    loop {
        *reads += 1;
        let why = match fetcher.request_with_body(method, url, headers, body, MAX_ANSWER_BYTES) {
            Ok(r) if (200..300).contains(&r.status) => return Ok(r.body),
            Ok(r) => format!("HTTP status {}", r.status),
            Err(FetchError::TooLarge { max_bytes, .. }) => {
                let msg = format!("the answer is larger than {max_bytes} bytes");
                return Err(Diag::error(Reason::WireserverFailed, msg).file(shown));
            }
            Err(FetchError::Deadline { .. }) => {
                return Err(stopped(shown, retry.deadline_passed()))
            }
            Err(e) => e.reason(),
        };
        if let Err(stop) = retry.any_failure(why) {
            return Err(stopped(shown, stop));
        }
    }
}

fn stopped(shown: String, stop: Stopped) -> Diag {
    match stop.deadline {
        true => Diag::error(Reason::FetchDeadline, stop.to_string())
            .file(shown)
            .budget("datasource_timeout_ms"),
        false => Diag::error(Reason::WireserverFailed, stop.to_string()).file(shown),
    }
}

/// Incarnation, Container/ContainerId and Container/RoleInstanceList/RoleInstance/InstanceId,
/// each the first of its name (as ElementTree's `find`), none empty.
pub fn parse_goal_state(xml: &[u8]) -> Result<GoalState, Diag> {
    let file = "goal state";
    let doc = document(utf8(xml, file)?, file)?;
    let root = doc.root_element();
    let text = |path: &[&str]| {
        let mut node = Some(root);
        for name in path {
            node = node.and_then(|n| {
                n.children()
                    .find(|c| c.is_element() && c.tag_name().name() == *name)
            });
        }
        match node.and_then(|n| n.text()).map(str::trim) {
            Some(t) if !t.is_empty() => Ok(t.to_string()),
            _ => {
                let key = path.join(".");
                let line = doc.text_pos_at(root.range().start).row;
                Err(
                    Diag::error(Reason::WireserverGoalState, "missing from the goal state")
                        .file(file)
                        .key(key)
                        .line(Some(line)),
                )
            }
        }
    };
    Ok(GoalState {
        incarnation: text(&["Incarnation"])?,
        container_id: text(&["Container", "ContainerId"])?,
        instance_id: text(&[
            "Container",
            "RoleInstanceList",
            "RoleInstance",
            "InstanceId",
        ])?,
    })
}

/// The Health document for `goal`, every value escaped.
pub fn health_document(goal: &GoalState, health: &Health) -> String {
    let (state, details) = match health {
        Health::Ready => ("Ready", String::new()),
        Health::NotReady { description } => {
            let trimmed: String = description.chars().take(DESCRIPTION_MAX_CHARS).collect();
            let details = format!(
                "<Details><SubStatus>ProvisioningFailed</SubStatus><Description>{}</Description></Details>",
                escape(&trimmed)
            );
            ("NotReady", details)
        }
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <Health xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\
         <GoalStateIncarnation>{}</GoalStateIncarnation><Container><ContainerId>{}</ContainerId>\
         <RoleInstanceList><Role><InstanceId>{}</InstanceId><Health><State>{state}</State>{details}\
         </Health></Role></RoleInstanceList></Container></Health>\n",
        escape(&goal.incarnation),
        escape(&goal.container_id),
        escape(&goal.instance_id),
    )
}

/// The wireserver's base URL: `ember.azure.wireserver=` (an IP, IP:port or http(s) URL) when
/// valid, else DHCP option 245, else 168.63.129.16. See `check_override` for a bad value.
/// The DHCP option Azure's servers name the wireserver in (site-specific, RFC 3942).
pub const DHCP_OPTION: u8 = 245;

/// The wireserver address of a lease's option 245, when it carries one (four bytes).
pub fn from_lease(lease: &crate::network::ephemeral::Lease) -> Option<Ipv4Addr> {
    let bytes: [u8; 4] = lease.site_option(DHCP_OPTION)?.try_into().ok()?;
    Some(Ipv4Addr::from(bytes))
}

pub fn base_url(cmdline: &[String], option_245: Option<Ipv4Addr>) -> String {
    if let Some(url) = cmdline_override(cmdline).and_then(override_url) {
        return url;
    }
    format!("http://{}", option_245.unwrap_or(DEFAULT_WIRESERVER))
}

/// A warning naming `ember.azure.wireserver` when its value is not an address `base_url`
/// takes (the value itself is not quoted).
pub fn check_override(cmdline: &[String]) -> Option<Diag> {
    let value = cmdline_override(cmdline)?;
    override_url(value).is_none().then(|| {
        let msg = "not an IP address, IP:port or http(s) URL; the wireserver from DHCP or 168.63.129.16 is used";
        Diag::warning(Reason::CmdlineInvalid, msg)
            .file("/proc/cmdline")
            .key(CMDLINE_KEY)
    })
}

fn override_url(value: &str) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let host = value.split_once("://")?.1;
        return (!host.is_empty()).then(|| value.trim_end_matches('/').to_string());
    }
    match value.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => return Some(format!("http://{ip}")),
        Ok(IpAddr::V6(ip)) => return Some(format!("http://[{ip}]")),
        Err(_) => {}
    }
    let addr: SocketAddr = value.parse().ok()?;
    Some(format!("http://{addr}"))
}

/// `ember.azure.wireserver=ADDRESS`: the wireserver (an IP, IP:port or URL) instead of DHCP
/// option 245 or 168.63.129.16.
fn cmdline_override(cmdline: &[String]) -> Option<&str> {
    crate::cmdline::value(cmdline, "ember.azure.wireserver").filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests;

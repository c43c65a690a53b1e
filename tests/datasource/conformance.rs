//! Datasource conformance: the cases every HTTP cloud shares, run over one table with a row
//! per cloud (its machine, its emulator, the document the faults hit, its instance id and
//! secrets). A case runs the rows in parallel threads and names the cloud of every failure.
//! A cloud that legitimately answers a case otherwise says so in its row, with a comment.

use crate::common::emulator::{self, status, Answer, Request};
use crate::common::{self, have, stderr, stdout, Machine};
use std::process::Output;
use std::time::{Duration, Instant};

/// What a case needs of an emulator, whatever its platform.
trait Emulator: Send {
    fn set(&self, path: &str, answers: Vec<Answer>);
    fn requests(&self) -> Vec<Request>;
}

impl Emulator for emulator::scripted::Server {
    fn set(&self, path: &str, answers: Vec<Answer>) {
        emulator::scripted::Server::set(self, path, answers)
    }
    fn requests(&self) -> Vec<Request> {
        emulator::scripted::Server::requests(self)
    }
}

/// Bigstep's one document is its path; `path` is that without the token.
#[cfg(feature = "ds-bigstep")]
impl Emulator for emulator::bigstep::Server {
    fn set(&self, _path: &str, answers: Vec<Answer>) {
        emulator::bigstep::Server::set(self, answers)
    }
    fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
}

/// MAAS's faults are set by the path under its version.
#[cfg(feature = "ds-maas")]
impl Emulator for emulator::maas::Server {
    fn set(&self, path: &str, answers: Vec<Answer>) {
        let version = format!("{}/2012-03-01/", emulator::maas::BASE);
        let path = path.strip_prefix(&version).unwrap();
        emulator::maas::Server::set(self, path, answers)
    }
    fn requests(&self) -> Vec<Request> {
        emulator::maas::Server::requests(self)
    }
}

/// CloudStack's (and Exoscale's) too.
#[cfg(any(feature = "ds-cloudstack", feature = "ds-exoscale"))]
impl Emulator for emulator::cloudstack::Server {
    fn set(&self, path: &str, answers: Vec<Answer>) {
        let version = format!("/{}/", self.version);
        let path = path.strip_prefix(&version).unwrap();
        emulator::cloudstack::Server::set(self, path, answers)
    }
    fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
}

/// The emulators that keep their faults in a state of their own.
macro_rules! stateful_emulator {
    ($($ty:ty),*) => {$(
        impl Emulator for $ty {
            fn set(&self, path: &str, answers: Vec<Answer>) {
                <$ty>::set(self, path, answers)
            }
            fn requests(&self) -> Vec<Request> {
                <$ty>::requests(self)
            }
        }
    )*};
}
stateful_emulator!(
    emulator::ec2::Imds,
    emulator::gce::Server,
    emulator::azure::Server
);

/// How a run ended: its exit code, one of the codes its diagnostics must include (none: no
/// diagnostic is required), and whether the user-data was applied.
#[derive(Clone, Copy, Debug)]
struct Expect {
    exit: i32,
    codes: &'static [&'static str],
    user_data: bool,
}

const NOT_FOUND: Expect = Expect {
    exit: 1,
    codes: &["metadata-not-found"],
    user_data: false,
};
const TIMED_OUT: Expect = Expect {
    exit: 1,
    codes: &["fetch-deadline", "metadata-unreachable"],
    user_data: false,
};
/// Garbage and a body cut short are retried like any transport failure, until the deadline.
const BROKEN: Expect = Expect {
    exit: 1,
    codes: &["fetch-deadline", "metadata-unreachable"],
    user_data: false,
};

/// The instance is provisioned without the document (from local data, or another one), and
/// the reason is a warning.
const fn provisioned_without(codes: &'static [&'static str], user_data: bool) -> Expect {
    Expect {
        exit: 0,
        codes,
        user_data,
    }
}

/// One cloud.
struct Row {
    cloud: &'static str,
    /// The emulator, and a machine that looks like this cloud and names it.
    boot: fn(&str) -> (Box<dyn Emulator>, Machine),
    /// The document every fault is laid on, and its fixture answer.
    document: &'static str,
    fixture: fn() -> Vec<u8>,
    instance_id: fn() -> String,
    /// The file the user-data writes, and the secret it holds there.
    written: (&'static str, &'static str),
    /// Secrets that must show nowhere: the user-data's, tokens, passwords.
    secrets: &'static [&'static str],
    /// A tool the machine needs (Azure's provisioning media is an ISO image).
    needs: Option<&'static str>,
    /// How many times the document is asked for in a clean run.
    document_requests: usize,
    not_found: Expect,
    slow: Expect,
    garbage: Expect,
    truncated: Expect,
}

/// The defaults of a row: one request of the document, the shared outcomes.
const SHARED: Row = Row {
    cloud: "",
    boot: |_| unreachable!(),
    document: "",
    fixture: Vec::new,
    instance_id: String::new,
    written: ("", ""),
    secrets: &[],
    needs: None,
    document_requests: 1,
    not_found: NOT_FOUND,
    slow: TIMED_OUT,
    garbage: BROKEN,
    truncated: BROKEN,
};

/// Akamai's fallback: the instance from the DMI serial, no user-data, a warning.
const LOCAL_ONLY: Expect = provisioned_without(&["metadata-unreachable"], false);

fn json(v: serde_json::Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn rows() -> Vec<Row> {
    vec![
        #[cfg(feature = "ds-akamai")]
        Row {
            cloud: "akamai",
            boot: |name| {
                let s = emulator::akamai::start();
                let m = crate::akamai::linode(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::akamai::INSTANCE,
            fixture: || json(emulator::akamai::instance()),
            instance_id: || emulator::akamai::ID.to_string(),
            written: ("etc/akamai-secret", "user-data-secret-e81b"),
            secrets: &["user-data-secret-e81b", emulator::akamai::TOKEN],
            // As cloud-init: a service that fails is left for the DMI's local data alone.
            not_found: LOCAL_ONLY,
            slow: LOCAL_ONLY,
            garbage: LOCAL_ONLY,
            truncated: LOCAL_ONLY,
            ..SHARED
        },
        #[cfg(feature = "ds-aliyun")]
        Row {
            cloud: "aliyun",
            boot: |name| {
                let s = emulator::aliyun::start();
                let m = crate::aliyun::ecs(name, &s);
                (Box::new(s), m)
            },
            document: emulator::aliyun::ALL,
            fixture: || json(emulator::aliyun::metadata()),
            instance_id: || emulator::aliyun::ID.to_string(),
            written: ("etc/ecs-secret", "user-data-secret-5c1f"),
            secrets: &["user-data-secret-5c1f", emulator::aliyun::TOKEN],
            // Without meta-data/all, the meta-data tree is crawled instead.
            not_found: provisioned_without(&[], true),
            ..SHARED
        },
        Row {
            cloud: "azure",
            boot: |name| {
                let s = emulator::azure::start_with_wire();
                let m = crate::azure::azure_machine(name, &s);
                let az = emulator::azure::PASSWORD;
                let ovf =
                    emulator::azure::ovf_env(Some(az), Some(emulator::azure::CUSTOM_DATA), true);
                crate::azure::media(&m, &ovf);
                (Box::new(s), m)
            },
            document: "/metadata/instance?api-version=2021-08-01&extended=true",
            fixture: || json(emulator::azure::document()),
            instance_id: || emulator::azure::SYSTEM_UUID.to_ascii_lowercase(),
            written: ("etc/azure-custom", "custom-data-secret-77b2"),
            secrets: &["custom-data-secret-77b2", emulator::azure::PASSWORD],
            needs: Some("xorriso"),
            // The provisioning media alone provisions (its custom data applied); IMDS's failure
            // is recorded in the exit code.
            not_found: Expect {
                user_data: true,
                ..NOT_FOUND
            },
            slow: Expect {
                user_data: true,
                ..TIMED_OUT
            },
            garbage: Expect {
                user_data: true,
                ..BROKEN
            },
            truncated: Expect {
                user_data: true,
                ..BROKEN
            },
            ..SHARED
        },
        #[cfg(feature = "ds-bigstep")]
        Row {
            cloud: "bigstep",
            boot: |name| {
                let s = emulator::bigstep::start();
                let m = crate::bigstep::machine(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::bigstep::PATH,
            fixture: || json(emulator::bigstep::document()),
            instance_id: || emulator::bigstep::INSTANCE_ID.to_string(),
            written: ("etc/bs-secret", "bigstep-user-data-secret-2d8"),
            secrets: &["bigstep-user-data-secret-2d8", "bs-token-5e1c90"],
            ..SHARED
        },
        #[cfg(feature = "ds-cloudcix")]
        Row {
            cloud: "cloudcix",
            boot: |name| {
                let s = emulator::cloudcix::start();
                let m = crate::cloudcix::machine(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::cloudcix::METADATA,
            fixture: || json(emulator::cloudcix::metadata()),
            instance_id: || emulator::cloudcix::INSTANCE_ID.to_string(),
            written: ("etc/cix-secret", "cix-user-data-secret-91a"),
            secrets: &["cix-user-data-secret-91a"],
            ..SHARED
        },
        #[cfg(feature = "ds-cloudstack")]
        Row {
            cloud: "cloudstack",
            boot: |name| {
                let s = emulator::cloudstack::start();
                let m = crate::cloudstack::cs_vm(name, &s);
                (Box::new(s), m)
            },
            document: "/latest/meta-data/instance-id",
            fixture: || emulator::cloudstack::ID.into(),
            instance_id: || emulator::cloudstack::ID.to_string(),
            written: ("etc/cs-secret", "user-data-secret-4d8b"),
            secrets: &["user-data-secret-4d8b", emulator::cloudstack::PASSWORD],
            // A leaf that is not there is absent, as optional leaves are: the meta-data then
            // lacks its instance id.
            not_found: Expect {
                codes: &["metadata-invalid"],
                ..NOT_FOUND
            },
            ..SHARED
        },
        Row {
            cloud: "digitalocean",
            boot: |name| {
                let s = emulator::digitalocean::start();
                let m = crate::digitalocean::droplet(name, &s);
                (Box::new(s), m)
            },
            document: emulator::digitalocean::DOCUMENT,
            fixture: || json(emulator::digitalocean::document()),
            instance_id: || emulator::digitalocean::DROPLET_ID.to_string(),
            written: ("etc/do-secret", "user-data-secret-3b7d"),
            secrets: &["user-data-secret-3b7d"],
            ..SHARED
        },
        Row {
            cloud: "ec2",
            boot: |name| {
                let s = emulator::ec2::start();
                let m = crate::ec2::aws_machine(name, &s);
                (Box::new(s), m)
            },
            document: "/latest/meta-data/instance-id",
            fixture: || emulator::ec2::INSTANCE_ID.into(),
            instance_id: || emulator::ec2::INSTANCE_ID.to_string(),
            written: ("etc/ec2-secret", "user-data-secret-7f3a"),
            secrets: &["user-data-secret-7f3a"],
            // The instance id leaf missing, the identity document's instanceId stands in.
            not_found: provisioned_without(&[], true),
            ..SHARED
        },
        #[cfg(feature = "ds-exoscale")]
        Row {
            cloud: "exoscale",
            boot: |name| {
                let s = emulator::cloudstack::start_exoscale();
                let m = crate::exoscale::exoscale_vm(name, &s);
                (Box::new(s), m)
            },
            document: "/1.0/meta-data/instance-id",
            fixture: || emulator::cloudstack::ID.into(),
            instance_id: || emulator::cloudstack::ID.to_string(),
            written: ("etc/cs-secret", "user-data-secret-4d8b"),
            secrets: &["user-data-secret-4d8b", emulator::cloudstack::PASSWORD],
            // A leaf that is not there is absent, as optional leaves are: the meta-data then
            // lacks its instance id.
            not_found: Expect {
                codes: &["metadata-invalid"],
                ..NOT_FOUND
            },
            ..SHARED
        },
        Row {
            cloud: "gce",
            boot: |name| {
                let s = emulator::gce::start();
                let m = crate::gce::gce_machine(name, &s);
                (Box::new(s), m)
            },
            document: emulator::gce::DOCUMENT,
            fixture: || json(emulator::gce::document()),
            instance_id: || emulator::gce::INSTANCE_ID.to_string(),
            written: ("etc/gce-secret", "user-data-secret-9c1e"),
            secrets: &["user-data-secret-9c1e"],
            ..SHARED
        },
        #[cfg(feature = "ds-hetzner")]
        Row {
            cloud: "hetzner",
            boot: |name| {
                let s = emulator::hetzner::start();
                let m = crate::hetzner::hetzner(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::hetzner::METADATA,
            fixture: || emulator::hetzner::metadata().into_bytes(),
            instance_id: || emulator::hetzner::SERVER_ID.to_string(),
            written: ("etc/hetzner-secret", "user-data-secret-91fa"),
            secrets: &["user-data-secret-91fa"],
            ..SHARED
        },
        #[cfg(feature = "ds-maas")]
        Row {
            cloud: "maas",
            boot: |name| {
                let s = emulator::maas::start();
                let cfg = crate::maas::config(&s, emulator::maas::TOKEN_SECRET);
                let m = crate::maas::node(name, &cfg);
                (Box::new(s), m)
            },
            document: "/MAAS/metadata/2012-03-01/meta-data/instance-id",
            fixture: || emulator::maas::INSTANCE_ID.into(),
            instance_id: || emulator::maas::INSTANCE_ID.to_string(),
            written: ("etc/maas-secret", "maas-user-data-6c1b"),
            secrets: &["maas-user-data-6c1b", emulator::maas::TOKEN_SECRET],
            ..SHARED
        },
        #[cfg(feature = "ds-nwcs")]
        Row {
            cloud: "nwcs",
            boot: |name| {
                let s = emulator::nwcs::start();
                let m = crate::nwcs::nwcs(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::nwcs::DOCUMENT,
            fixture: || json(emulator::nwcs::document()),
            instance_id: || emulator::nwcs::ID.to_string(),
            written: ("etc/nwcs-secret", "user-data-secret-b17d"),
            secrets: &["user-data-secret-b17d"],
            ..SHARED
        },
        Row {
            cloud: "openstack",
            boot: |name| {
                let s = emulator::openstack::start();
                let m = crate::openstack::service_machine(name, &s);
                (Box::new(s), m)
            },
            document: "/openstack/2018-08-27/meta_data.json",
            fixture: || emulator::openstack::meta_data().into_bytes(),
            instance_id: || emulator::openstack::UUID.to_string(),
            written: ("etc/os-secret", "user-data-secret-5c2e"),
            secrets: &["user-data-secret-5c2e", emulator::openstack::ADMIN_PASS],
            // The reason is OpenStack's own.
            not_found: Expect {
                codes: &["openstack-no-metadata"],
                ..NOT_FOUND
            },
            ..SHARED
        },
        #[cfg(feature = "ds-oracle")]
        Row {
            cloud: "oracle",
            boot: |name| {
                let s = emulator::oracle::start();
                let m = crate::oracle::oci_vm(name, &s, "");
                (Box::new(s), m)
            },
            document: emulator::oracle::INSTANCE_V2,
            fixture: || json(emulator::oracle::instance()),
            instance_id: || emulator::oracle::ID.to_string(),
            written: ("etc/oci-secret", "user-data-secret-9e2a"),
            secrets: &["user-data-secret-9e2a"],
            // Without IMDSv2's instance document, v1's is read.
            not_found: provisioned_without(&[], true),
            ..SHARED
        },
        #[cfg(feature = "ds-scaleway")]
        Row {
            cloud: "scaleway",
            boot: |name| {
                let s = emulator::scaleway::start();
                let m = crate::scaleway::scw(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::scaleway::CONF,
            fixture: || json(emulator::scaleway::conf()),
            instance_id: || emulator::scaleway::ID.to_string(),
            written: ("etc/scaleway-secret", "user-data-secret-2aa9"),
            secrets: &["user-data-secret-2aa9"],
            ..SHARED
        },
        #[cfg(feature = "ds-upcloud")]
        Row {
            cloud: "upcloud",
            boot: |name| {
                let s = emulator::upcloud::start();
                let m = crate::upcloud::upcloud(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::upcloud::DOCUMENT,
            fixture: || json(emulator::upcloud::document()),
            instance_id: || emulator::upcloud::UUID.to_string(),
            written: ("etc/upcloud-secret", "user-data-secret-40c7"),
            secrets: &["user-data-secret-40c7"],
            ..SHARED
        },
        #[cfg(feature = "ds-vultr")]
        Row {
            cloud: "vultr",
            boot: |name| {
                let s = emulator::vultr::start();
                let m = crate::vultr::vultr(name, &s.url());
                (Box::new(s), m)
            },
            document: emulator::vultr::DOCUMENT,
            fixture: || json(emulator::vultr::document()),
            instance_id: || emulator::vultr::INSTANCE_ID.to_string(),
            written: ("etc/vultr-secret", "user-data-secret-5c2e"),
            secrets: &["user-data-secret-5c2e", "startup-secret-77ab"],
            ..SHARED
        },
    ]
}

/// Runs `case` for every row at once, each on a thread of its own named by the cloud, and
/// fails with every cloud's failure if any failed.
fn each_row(case: fn(&Row)) {
    let rows = rows();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = rows
            .iter()
            .filter(|row| row.needs.is_none_or(have))
            .map(|row| {
                let thread = std::thread::Builder::new().name(row.cloud.into());
                (row.cloud, thread.spawn_scoped(scope, || case(row)).unwrap())
            })
            .collect();
        running
            .into_iter()
            .filter_map(|(cloud, handle)| {
                let panic = handle.join().err()?;
                let text = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("{cloud}: {text}"))
            })
            .collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// The row's machine and emulator, with `answers` laid on the document.
fn boot(row: &Row, case: &str, answers: Vec<Answer>) -> (Box<dyn Emulator>, Machine) {
    let (server, m) = (row.boot)(&format!("conf-{case}-{}", row.cloud));
    if !answers.is_empty() {
        server.set(row.document, answers);
    }
    (server, m)
}

/// How many times the document was asked for (by its path alone, where it has no query).
fn document_hits(row: &Row, server: &dyn Emulator) -> usize {
    let requests = server.requests();
    let path = |r: &Request| match row.document.contains('?') {
        true => r.path.clone(),
        false => r.path.split('?').next().unwrap_or_default().to_string(),
    };
    requests.iter().filter(|r| path(r) == row.document).count()
}

fn codes(m: &Machine) -> Vec<String> {
    let diags = m.diags();
    let code = |d: &serde_json::Value| d["code"].as_str().unwrap_or_default().to_string();
    diags.iter().map(code).collect()
}

/// The run ended as `expect` says, without a panic.
fn assert_outcome(row: &Row, case: &str, m: &Machine, out: &Output, expect: Expect) {
    common::assert_no_panic(out);
    let seen = codes(m);
    let applied = m.target.join(row.written.0).exists();
    let what = format!(
        "{} {case}: exit {:?}, codes {seen:?}, user-data applied: {applied}\n{}",
        row.cloud,
        out.status.code(),
        stderr(out)
    );
    assert_eq!(out.status.code(), Some(expect.exit), "{what}");
    let named = expect.codes.iter().any(|c| seen.iter().any(|s| s == c));
    assert!(
        expect.codes.is_empty() || named,
        "want {:?}: {what}",
        expect.codes
    );
    assert_eq!(applied, expect.user_data, "{what}");
    if expect.exit == 0 {
        assert_eq!(m.status()["instance_id"], (row.instance_id)(), "{what}");
    }
}

fn fixture(row: &Row) -> Answer {
    Answer::Body(200, (row.fixture)())
}

#[test]
fn provisioned() {
    each_row(|row| {
        let (server, m) = boot(row, "ok", vec![]);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let st = m.status();
        assert_eq!(st["instance_id"], (row.instance_id)(), "{st}");
        let (file, secret) = row.written;
        assert_eq!(m.target_file(file).trim(), secret);
        assert_eq!(document_hits(row, &*server), row.document_requests);
    });
}

#[test]
fn a_server_error_then_success_is_retried_once() {
    each_row(|row| {
        let (server, m) = boot(row, "retry", vec![status(500), fixture(row)]);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(m.status()["instance_id"], (row.instance_id)());
        let hits = document_hits(row, &*server);
        assert_eq!(hits, row.document_requests + 1, "one retry");
    });
}

#[test]
fn a_missing_document_fails_as_documented() {
    each_row(|row| {
        let (server, m) = boot(row, "404", vec![status(404)]);
        let out = m.initrd("all");
        assert_outcome(row, "404", &m, &out, row.not_found);
        let hits = document_hits(row, &*server);
        assert_eq!(hits, row.document_requests, "a 404 is final, not retried");
    });
}

/// The deadline a case gives (`ember.metadata-timeout`), and the slack a run may take beyond
/// it (process start, the local stage, a loaded machine).
const DEADLINE_S: f64 = 1.5;
const SLACK: Duration = Duration::from_secs(4);

/// Runs the machine with the short deadline on its command line: it ends within the bound.
fn run_within_the_deadline(m: &Machine) -> Output {
    let line = std::fs::read_to_string(m.host.join("proc/cmdline")).unwrap();
    let line = line.trim();
    m.cmdline(&format!("{line} ember.metadata-timeout={DEADLINE_S}"));
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    let bound = Duration::from_secs_f64(DEADLINE_S) + SLACK;
    assert!(took < bound, "took {took:?}: {}", stderr(&out));
    out
}

#[test]
fn an_answer_past_the_deadline_ends_in_time() {
    each_row(|row| {
        let slow = Answer::Slow(Duration::from_secs(8), Box::new(fixture(row)));
        let (_server, m) = boot(row, "slow", vec![slow]);
        let out = run_within_the_deadline(&m);
        assert_outcome(row, "slow", &m, &out, row.slow);
    });
}

#[test]
fn garbage_is_a_clear_failure() {
    each_row(|row| {
        let garbage = Answer::Garbage(b"\x00\x01 not http\r\n\r\n".to_vec());
        let (_server, m) = boot(row, "garbage", vec![garbage]);
        let out = run_within_the_deadline(&m);
        assert_outcome(row, "garbage", &m, &out, row.garbage);
    });
}

#[test]
fn a_truncated_answer_is_a_clear_failure() {
    each_row(|row| {
        let truncated = Answer::Truncated((row.fixture)());
        let (_server, m) = boot(row, "truncated", vec![truncated]);
        let out = run_within_the_deadline(&m);
        assert_outcome(row, "truncated", &m, &out, row.truncated);
    });
}

#[test]
fn secrets_show_nowhere() {
    each_row(|row| {
        let (_server, m) = boot(row, "secrets", vec![]);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let status = m.run_file("ember/status.json");
        for secret in row.secrets {
            assert!(!stdout(&out).contains(secret), "secret on stdout");
            assert!(!stderr(&out).contains(secret), "secret on stderr");
            assert!(!status.contains(secret), "secret in status.json");
            m.assert_secret_not_world_readable(secret);
        }
    });
}

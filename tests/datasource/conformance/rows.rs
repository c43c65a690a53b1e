//! The table: one row per HTTP cloud, and what a case needs of each cloud's emulator.

#[cfg(feature = "ds-akamai")]
use super::LOCAL_ONLY;
use super::{provisioned_without, Expect, Row, BROKEN, NOT_FOUND, SHARED, TIMED_OUT};
use crate::common::emulator::{self, Answer, Request};

/// What a case needs of an emulator, whatever its platform.
pub(super) trait Emulator: Send {
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

fn json(v: serde_json::Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

pub(super) fn rows() -> Vec<Row> {
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
            // The provisioning media alone provisions (its custom data applied): the fetch
            // succeeds, no None, and IMDS's failure is recorded in the exit code.
            not_found: Expect {
                exit: 1,
                user_data: true,
                none: false,
                ..NOT_FOUND
            },
            slow: Expect {
                exit: 1,
                user_data: true,
                none: false,
                ..TIMED_OUT
            },
            garbage: Expect {
                exit: 1,
                user_data: true,
                none: false,
                ..BROKEN
            },
            truncated: Expect {
                exit: 1,
                user_data: true,
                none: false,
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

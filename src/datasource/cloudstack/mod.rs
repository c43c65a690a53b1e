//! Apache CloudStack: detected as ds-identify does, by DMI `product_name` starting with
//! `CloudStack` (`CloudStack KVM Hypervisor`), or named on the command line or alone in the
//! image's `datasource_list`. The metadata service is the network's virtual router, found as
//! cloud-init finds it: the address of the name `data-server`, else the DHCP server of the
//! lease (ember's own, made when there is no default route), else the default gateway. Read
//! from it as cloud-init reads it: `latest/user-data` and the EC2-style tree under
//! `latest/meta-data` (common/ec2_tree.rs), then the password server on port 8080 of the same
//! address (common/password_server.rs), whose password becomes the default user's as
//! cloud-init sets it, held as a `Secret` and handed on only as its crypt hash.
//! Not here: the seed directory `/var/lib/cloud/seed/cs` of the root (not mounted yet), the
//! DHCP domain name appended for an FQDN, lease files of other DHCP clients (the initramfs
//! has none). ember's own setting `datasource: {CloudStack: {password_server_port: N}}`
//! moves the password server, as Exoscale's setting of that name does.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/cloudstack.html>

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::ec2_tree;
use crate::datasource::common::password_server;
use crate::datasource::link::{Link, Via};
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

pub struct CloudStack;

const PRODUCT: &str = "CloudStack";
const DATA_SERVER: &str = "data-server";
const API_VERSION: &str = "latest";
const PASSWORD_PORT: u16 = 8080;
const DEFAULT_RETRIES: u32 = 5;

impl Datasource for CloudStack {
    fn name(&self) -> &'static str {
        "cloudstack"
    }
    fn cloud_init_name(&self) -> &'static str {
        "CloudStack"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        let name = dmi.fields.get("product_name")?;
        name.starts_with(PRODUCT)
            .then(|| format!("product_name={name}"))
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "cloudstack".into(),
            ..InstanceData::default()
        };
        let client = Client::at(env, "CloudStack", "", DEFAULT_RETRIES);
        let mut service = client.service_to(env, Vec::new());
        // The router's address is the lease's to tell: no route to a fixed address.
        service.lease.metadata = None;
        let password_port = env
            .image
            .datasource_settings("CloudStack")
            .and_then(|c| c.get("password_server_port"))
            .and_then(Value::as_u64)
            .and_then(|p| u16::try_from(p).ok())
            .unwrap_or(PASSWORD_PORT);
        let result = client.reach(env, link, &service, &mut data, |c, d, via| {
            let base = match crate::cmdline::metadata_url(env.cmdline) {
                Some(url) => url.trim_end_matches('/').to_string(),
                None => {
                    // Time for the resolver's rounds (1, 2, 4 s, the last over TCP).
                    let wait = (c.request_timeout() * 2).max(Duration::from_secs(8));
                    let until = (Instant::now() + wait).min(via.wait_until);
                    let named = c.fetcher().resolve(DATA_SERVER, until).unwrap_or_default();
                    let gateway = default_gateway(env.host);
                    let Some((ip, how)) = router(&named, via, gateway) else {
                        let msg = "no virtual router: no address for data-server, no DHCP server, no default gateway";
                        return Err(Diag::error(Reason::MetadataUnreachable, msg));
                    };
                    d.subplatform = how.to_string();
                    match ip {
                        IpAddr::V6(v6) => format!("http://[{v6}]"),
                        IpAddr::V4(v4) => format!("http://{v4}"),
                    }
                }
            };
            c.set_base(&base);
            read(c, password_port, d)
        });
        result.map(|()| data)
    }
}

/// The virtual router as cloud-init looks for it, and how it was found: `data-server`'s
/// address, the lease's DHCP server, the default gateway (the lease's router, or the route
/// table's when no lease was made).
fn router(
    named: &[IpAddr],
    via: &Via,
    gateway: Option<Ipv4Addr>,
) -> Option<(IpAddr, &'static str)> {
    let lease = via.lease;
    let server = lease.and_then(|l| l.server).filter(|s| !s.is_unspecified());
    let router = lease.and_then(|l| l.routers.first().copied()).or(gateway);
    named
        .iter()
        .find(|ip| ip.is_ipv4())
        .or(named.first())
        .map(|ip| (*ip, "data-server DNS entry"))
        .or(server.map(|s| (IpAddr::V4(s), "DHCP server")))
        .or(router.map(|g| (IpAddr::V4(g), "default gateway")))
}

/// The gateway of the default route in `/proc/net/route` (little-endian hex), if any.
fn default_gateway(host: &crate::host::Host) -> Option<Ipv4Addr> {
    let text = std::fs::read_to_string(host.path("/proc/net/route")).ok()?;
    gateway_of(&text)
}

fn gateway_of(route_table: &str) -> Option<Ipv4Addr> {
    route_table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.get(1) != Some(&"00000000") {
            return None;
        }
        let gw = u32::from_str_radix(f.get(2)?, 16).ok()?;
        Some(Ipv4Addr::from(gw.swap_bytes())).filter(|g| !g.is_unspecified())
    })
}

fn read(client: &Client, password_port: u16, data: &mut InstanceData) -> Result<(), Diag> {
    let mut reads = 0;
    let mut get = |path: &str| client.get_optional(path, &mut reads);
    let result = (|| {
        match get(&format!("{API_VERSION}/user-data")) {
            Ok(ud) => data.user_data = ud.filter(|b| !b.is_empty()).map(Secret::new),
            // Over budget, user-data alone is left out: the rest provisions.
            Err(d) if d.budget.as_deref() == Some("file_bytes") => data.diags.push(d),
            Err(d) => return Err(d),
        }
        ec2_tree::crawl(&mut get, &format!("{API_VERSION}/meta-data"))
    })();
    data.reads += reads;
    let md = result?.unwrap_or(Value::Null);
    let shown = client.shown("");
    let Some(id) = md
        .get("instance-id")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
    else {
        let file = format!("{shown}/{API_VERSION}/meta-data/");
        return Err(Diag::error(Reason::MetadataInvalid, "no instance-id")
            .file(file)
            .key("instance-id"));
    };
    data.instance_id = id.to_string();
    data.meta_data = md;
    password(client, password_port, data);
    data.detail = format!("DataSourceCloudStack [{shown}/]");
    data.subplatform = match data.subplatform.as_str() {
        "" => format!("metadata ({shown}/)"),
        how => format!("metadata ({shown}/, the {how})"),
    };
    Ok(())
}

/// The password server's password into the platform config; a failure is a warning, as
/// cloud-init logs it and goes on.
fn password(client: &Client, port: u16, data: &mut InstanceData) {
    let url = password_server::url_on_port(&client.base(), port, "");
    password_server::apply(client, &url, data);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::ephemeral::Lease;

    #[test]
    fn cloudstack_by_the_start_of_its_product_name() {
        for (name, found) in [
            ("CloudStack KVM Hypervisor", true),
            ("CloudStack", true),
            ("Apache CloudStack", false),
            ("cloudstack", false),
        ] {
            let d = Dmi::from_pairs(&[("product_name", name)]);
            assert_eq!(CloudStack.dmi(&d).is_some(), found, "{name}");
        }
    }

    #[test]
    fn the_router_is_found_as_cloud_init_finds_it() {
        let lease = Lease {
            address: Ipv4Addr::new(10, 1, 1, 23),
            prefix: 24,
            routes: Vec::new(),
            routers: vec![Ipv4Addr::new(10, 1, 1, 254)],
            dns: Vec::new(),
            domain: None,
            mtu: None,
            server: Some(Ipv4Addr::new(10, 1, 1, 1)),
            lease_seconds: None,
            site_options: Vec::new(),
            slaac: None,
        };
        let until = Instant::now();
        let leased = Via {
            lease: Some(&lease),
            wait_until: until,
        };
        let routed = Via {
            lease: None,
            wait_until: until,
        };
        let named = [IpAddr::V4(Ipv4Addr::new(10, 1, 1, 2))];
        let gw = Some(Ipv4Addr::new(192, 168, 0, 1));
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            router(&named, &leased, gw),
            Some((ip("10.1.1.2"), "data-server DNS entry"))
        );
        assert_eq!(
            router(&[], &leased, gw),
            Some((ip("10.1.1.1"), "DHCP server"))
        );
        assert_eq!(
            router(&[], &routed, gw),
            Some((ip("192.168.0.1"), "default gateway"))
        );
        assert_eq!(router(&[], &routed, None), None);
    }

    #[test]
    fn the_default_gateway_of_the_route_table() {
        let head = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n";
        let table = format!("{head}eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\neth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\n");
        assert_eq!(gateway_of(&table), Some(Ipv4Addr::new(192, 168, 1, 1)));
        assert_eq!(gateway_of(head), None);
    }
}

//! The one network model: every parser (v1, v2, OpenStack, the command line) produces it and
//! every renderer (networkd, netplan, ENI, NetworkManager) consumes it. Values are checked and
//! normalised here (addresses parsed, MACs lowercased, durations in milliseconds), so a renderer
//! only formats. It holds no I/O and no knowledge of the host's interfaces.

#[cfg(feature = "deserialize")]
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The input format a model was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    V1,
    V2,
    OpenStack,
    Cmdline,
}

/// A whole network configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Network {
    pub format: Format,
    /// v1, OpenStack and the command line: in input order. v2: ethernets, bonds, bridges,
    /// vlans, each sorted by id (a YAML map's order is not kept).
    pub interfaces: Vec<Interface>,
    /// Routes tied to no interface (v1 `type: route`, `rd.route=` without an interface). A
    /// renderer attaches each to the interface with an address whose subnet holds `via`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<Route>,
    /// Global resolvers and search domains (v1 `type: nameserver`, OpenStack services,
    /// `nameserver=`).
    #[serde(default, skip_serializing_if = "Dns::is_empty")]
    pub dns: Dns,
    /// v2's top-level `renderer:` (`networkd`, `NetworkManager`) as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer: Option<String>,
    /// The v2 input as given, without any `network:` wrapper: the netplan renderer writes it
    /// through unchanged, as cloud-init does, so keys the model does not hold survive there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netplan: Option<Value>,
}

impl Network {
    pub fn interface(&self, id: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.id == id)
    }
}

/// One interface, physical or virtual, with its addressing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Interface {
    /// What other entries call it (bond members, vlan links, bridge ports): v1 `name`, the v2
    /// id, the OpenStack link's name. For virtual devices it is also the device name; for a
    /// physical one see [`Interface::device_name`].
    pub id: String,
    pub kind: Kind,
    /// A MAC address to set on the device (v2 `macaddress`, v1 `mac_address` of a bond,
    /// bridge or vlan). Lowercase, colon-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac_address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// The IPv6 MTU (v2 `ipv6-mtu`, the `mtu` of a v1 IPv6 subnet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv6_mtu: Option<u32>,
    /// How it is brought up (v1 subnets' `control`); `None`: at boot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<Control>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub dhcp4: bool,
    /// How IPv6 is configured beyond static addresses; `None`: static and link-local only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv6: Option<Ipv6Auto>,
    /// Static addresses, in input order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<Address>,
    /// Default gateways (v2 `gateway4/6`, v1 subnet `gateway`, dracut's gateway field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway4: Option<Ipv4Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway6: Option<Ipv6Addr>,
    /// A v1 static subnet's `metric`, by family: the metric of the default route through
    /// the gateway (NetworkManager's `route-metric`, ifupdown's `metric`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric4: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric6: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<Route>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
    #[serde(default, skip_serializing_if = "Dns::is_empty")]
    pub dns: Dns,
    #[serde(default, skip_serializing_if = "DhcpOverrides::is_empty")]
    pub dhcp4_overrides: DhcpOverrides,
    #[serde(default, skip_serializing_if = "DhcpOverrides::is_empty")]
    pub dhcp6_overrides: DhcpOverrides,
    /// Accept IPv6 router advertisements; `None`: the kernel's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept_ra: Option<bool>,
    /// Link-local addressing; `None`: the default (IPv6 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_local: Option<LinkLocal>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub wakeonlan: bool,
    /// Boot does not wait for it (networkd's `RequiredForOnline=no`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
    /// Keep addresses when the daemon restarts (netplan `critical`, networkd
    /// `KeepConfiguration=`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep_configuration: bool,
}

impl Interface {
    pub fn new(id: impl Into<String>, kind: Kind) -> Interface {
        Interface {
            id: id.into(),
            kind,
            mac_address: None,
            mtu: None,
            ipv6_mtu: None,
            control: None,
            dhcp4: false,
            ipv6: None,
            addresses: Vec::new(),
            gateway4: None,
            gateway6: None,
            metric4: None,
            metric6: None,
            routes: Vec::new(),
            rules: Vec::new(),
            dns: Dns::default(),
            dhcp4_overrides: DhcpOverrides::default(),
            dhcp6_overrides: DhcpOverrides::default(),
            accept_ra: None,
            link_local: None,
            wakeonlan: false,
            optional: false,
            keep_configuration: false,
        }
    }

    /// The kernel name the device will have, when the config says it: `set-name`, an exact
    /// `match.name`, the id of an unmatched physical device, or a virtual device's id. `None`
    /// for a device matched by MAC or driver only: the renderer matches instead of naming.
    pub fn device_name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Physical { matching, set_name } => {
                set_name.as_deref().or(if matching.is_empty() {
                    Some(self.id.as_str())
                } else {
                    matching.name.as_deref().filter(|n| !is_glob(n))
                })
            }
            _ => Some(&self.id),
        }
    }

    /// Whether the interface asks for any address at all (DHCP, RA, static).
    pub fn has_addressing(&self) -> bool {
        self.dhcp4 || self.ipv6.is_some() || !self.addresses.is_empty()
    }
}

/// Whether a `match.name` is a glob rather than one name.
pub fn is_glob(name: &str) -> bool {
    name.contains(['*', '?', '['])
}

/// What kind of device, and what makes it up.
// A config has tens of interfaces at most: a boxed BondParams would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Kind {
    /// A device that exists (ethernet, virtio, SR-IOV function), selected by `matching`;
    /// an empty match selects the device named like the interface's id.
    Physical {
        #[serde(default, rename = "match", skip_serializing_if = "Match::is_empty")]
        matching: Match,
        /// Rename the matched device to this.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        set_name: Option<String>,
    },
    /// Members are interface ids.
    Bond {
        members: Vec<String>,
        #[serde(default)]
        params: BondParams,
    },
    /// Members (ports) are interface ids; may be empty.
    Bridge {
        members: Vec<String>,
        #[serde(default)]
        params: BridgeParams,
    },
    /// `link` is an interface id.
    Vlan { id: u16, link: String },
}

/// Physical device selection: every field given must match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Match {
    /// A name or a glob (`enp2*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Lowercase, colon-separated; 6 bytes, or 20 for InfiniBand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub macaddress: Option<String>,
    /// Kernel driver names or globs; any may match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub driver: Vec<String>,
}

impl Match {
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.macaddress.is_none() && self.driver.is_empty()
    }
}

/// When an interface is brought up, as v1's subnet `control` says (ifupdown's words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
#[serde(rename_all = "lowercase")]
pub enum Control {
    /// At boot (`auto`): the default.
    Auto,
    /// When the device appears (`allow-hotplug`).
    Hotplug,
    /// Only when asked for (`ifup`).
    Manual,
    /// Another word, which cloud-init leaves to ENI as a comment (`# control-<word>`).
    #[serde(untagged)]
    Other(String),
}

/// IPv6 autoconfiguration modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
#[serde(rename_all = "kebab-case")]
pub enum Ipv6Auto {
    /// DHCPv6 as the router advertisements' flags say (v2 `dhcp6: true`, v1 `dhcp6`).
    Dhcp6,
    /// Addresses from router advertisements only, no DHCPv6 (v1 `ipv6_slaac`).
    Slaac,
    /// SLAAC addresses, DHCPv6 for the rest (DNS): v1 `ipv6_dhcpv6-stateless`.
    Dhcp6Stateless,
    /// Addresses from DHCPv6: v1 `ipv6_dhcpv6-stateful`.
    Dhcp6Stateful,
}

/// A static address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Address {
    pub ip: IpAddr,
    pub prefix: u8,
    /// v2 address option `label` (networkd `Label=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// v2 address option `lifetime`: `forever` or `0` (networkd `PreferredLifetime=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<String>,
}

/// An address with a prefix length, for destinations and rule selectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Cidr {
    pub ip: IpAddr,
    pub prefix: u8,
}

impl Cidr {
    pub fn is_default(&self) -> bool {
        self.prefix == 0
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.ip, self.prefix)
    }
}

/// Route types iproute2 knows by name (netplan's list), for v2's route `type`.
pub const ROUTE_TYPES: [&str; 11] = [
    "unicast",
    "anycast",
    "blackhole",
    "broadcast",
    "local",
    "multicast",
    "nat",
    "prohibit",
    "throw",
    "unreachable",
    "xresolve",
];

/// A static route. A default route has `to` of prefix 0 (`0.0.0.0/0` or `::/0`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Route {
    pub to: Cidr,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<IpAddr>,
    /// Preferred source address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<IpAddr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub on_link: bool,
    /// `global`, `link` or `host`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `unicast`, `blackhole`, `unreachable`, `prohibit`, … as netplan names them.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
}

impl Route {
    pub fn to(to: Cidr) -> Route {
        Route {
            to,
            via: None,
            from: None,
            metric: None,
            table: None,
            on_link: false,
            scope: None,
            kind: None,
            mtu: None,
        }
    }
}

/// A routing-policy rule (v2 `routing-policy`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Cidr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Cidr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_of_service: Option<u8>,
}

/// Resolvers and search domains.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct Dns {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nameservers: Vec<IpAddr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search: Vec<String>,
}

impl Dns {
    pub fn is_empty(&self) -> bool {
        self.nameservers.is_empty() && self.search.is_empty()
    }
}

/// netplan's DHCP overrides; `None`: the renderer's default (all `use-*` true).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct DhcpOverrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_dns: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_ntp: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_hostname: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_mtu: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_routes: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_hostname: Option<bool>,
    /// `true`, `false` or `route`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_domains: Option<String>,
    /// The hostname to send instead of the machine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route_metric: Option<u32>,
}

impl DhcpOverrides {
    pub fn is_empty(&self) -> bool {
        *self == DhcpOverrides::default()
    }
}

/// Which link-local addresses to bring up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct LinkLocal {
    pub ipv4: bool,
    pub ipv6: bool,
}

/// Bonding parameters, named as netplan names them; durations in milliseconds. Each `None`
/// is the kernel's default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct BondParams {
    /// `balance-rr`, `active-backup`, `balance-xor`, `broadcast`, `802.3ad`, `balance-tlb`,
    /// `balance-alb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lacp_rate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mii_monitor_interval_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_links: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmit_hash_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ad_select: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_members_active: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arp_interval_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arp_ip_targets: Vec<Ipv4Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arp_validate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arp_all_targets: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_delay_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_delay_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_over_mac_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gratuitous_arp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets_per_member: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_reselect_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resend_igmp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learn_packet_interval_ms: Option<u32>,
    /// An interface id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<String>,
}

/// Bridge parameters, named as netplan names them; durations in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "deserialize", derive(Deserialize))]
pub struct BridgeParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ageing_time_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_delay_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello_time_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stp: Option<bool>,
    /// Per member id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub path_cost: BTreeMap<String, u32>,
    /// Per member id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub port_priority: BTreeMap<String, u32>,
    /// bridge-utils' own knobs, which ifupdown alone has (v1 `bridge_gcint` and
    /// `bridge_maxwait`, in seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_interval_s: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_s: Option<u32>,
    /// v1 `bridge_waitport`: one `<seconds> [ports]` value per line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wait_port: Vec<String>,
}

impl BridgeParams {
    /// The v1 keys set here that only ENI can express.
    pub fn ifupdown_only(&self) -> Vec<&'static str> {
        let set = [
            ("bridge_gcint", self.gc_interval_s.is_some()),
            ("bridge_maxwait", self.max_wait_s.is_some()),
            ("bridge_waitport", !self.wait_port.is_empty()),
        ];
        set.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect()
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

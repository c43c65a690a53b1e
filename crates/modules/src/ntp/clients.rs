//! The NTP clients cloud-init knows, with its defaults and its per-distribution changes to
//! them (cc_ntp's `NTP_CLIENT_CONFIG` and `DISTRO_CLIENT_CONFIG`), and how `auto` picks one:
//! the first of the distribution's preferred clients whose program is installed, else the first.

use crate::common::distro::{Family, OsRelease};

/// The client names cloud-init carries defaults for.
pub const KNOWN: [&str; 5] = ["chrony", "ntp", "ntpdate", "openntpd", "systemd-timesyncd"];

/// A client's settings: a known client's defaults, with `ntp.config` merged over them. A
/// client of the user's own has only what `ntp.config` says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientCfg {
    pub name: String,
    pub check_exe: Option<String>,
    pub confpath: Option<String>,
    pub packages: Option<Vec<String>>,
    pub service_name: Option<String>,
    pub template_name: Option<String>,
    pub template: Option<String>,
}

/// cloud-init's distribution name for the target (its `distro.name`, which the template
/// names and the per-distribution defaults use): the os-release `ID` where cloud-init has a
/// distribution of that name, else the family's.
pub fn distro_name(os: &OsRelease) -> String {
    const NAMES: &[&str] = &[
        "almalinux",
        "alpine",
        "azurelinux",
        "centos",
        "cloudlinux",
        "cos",
        "debian",
        "eurolinux",
        "fedora",
        "mariner",
        "miraclelinux",
        "openeuler",
        "openmandriva",
        "opensuse",
        "opensuse-leap",
        "opensuse-microos",
        "opensuse-tumbleweed",
        "photon",
        "rhel",
        "rocky",
        "sle-micro",
        "sle_hpc",
        "sles",
        "ubuntu",
        "virtuozzo",
    ];
    if NAMES.contains(&os.id.as_str()) {
        return os.id.clone();
    }
    match os.family() {
        Family::Debian => "debian",
        Family::RedHat => "rhel",
        Family::Suse => "opensuse",
        Family::Alpine => "alpine",
        Family::Other => return os.id.clone(),
    }
    .to_string()
}

/// The distribution's clients in order of preference (cloud-init's `preferred_ntp_clients`).
pub fn preferred(distro: &str) -> &'static [&'static str] {
    match distro_table(distro) {
        "alpine" => &["chrony", "ntp"],
        "opensuse" | "sles" => &["chrony", "systemd-timesyncd", "ntp"],
        _ => &["chrony", "systemd-timesyncd", "ntp", "ntpdate"],
    }
}

/// The name of the per-distribution table that applies: cloud-init's own aliases
/// (openSUSE's and SLES's variants, AlmaLinux and CloudLinux as RHEL), and, where cloud-init
/// has no table for a RHEL-like distribution (Fedora, Rocky, ...), RHEL's (its service names
/// are the ones those distributions use).
fn distro_table(distro: &str) -> &str {
    match distro {
        "opensuse-leap" | "opensuse-microos" | "opensuse-tumbleweed" => "opensuse",
        "sle_hpc" | "sle-micro" => "sles",
        "almalinux" | "cloudlinux" | "fedora" | "rocky" | "eurolinux" | "miraclelinux"
        | "virtuozzo" | "openeuler" => "rhel",
        other => other,
    }
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

/// A known client's settings on `distro`; `None` for a name cloud-init does not know.
pub fn known(name: &str, distro: &str) -> Option<ClientCfg> {
    let (check_exe, confpath, packages, service, template_name): (_, _, &[&str], _, _) = match name
    {
        "chrony" => (
            "chronyd",
            "/etc/chrony.conf",
            &["chrony"],
            "chrony",
            "chrony.conf.{distro}",
        ),
        "ntp" => (
            "ntpd",
            "/etc/ntp.conf",
            &["ntp"],
            "ntp",
            "ntp.conf.{distro}",
        ),
        "ntpdate" => (
            "ntpdate",
            "/etc/ntp.conf",
            &["ntpdate"],
            "ntpdate",
            "ntp.conf.{distro}",
        ),
        "openntpd" => ("ntpd", "/etc/ntpd.conf", &[], "ntpd", "ntpd.conf.{distro}"),
        "systemd-timesyncd" => (
            "/lib/systemd/systemd-timesyncd",
            "/etc/systemd/timesyncd.conf.d/cloud-init.conf",
            &[],
            "systemd-timesyncd",
            "timesyncd.conf",
        ),
        _ => return None,
    };
    let mut c = ClientCfg {
        name: name.to_string(),
        check_exe: s(check_exe),
        confpath: s(confpath),
        packages: Some(packages.iter().map(|p| p.to_string()).collect()),
        service_name: s(service),
        template_name: s(template_name),
        template: None,
    };
    let usr_timesyncd = "/usr/lib/systemd/systemd-timesyncd";
    match (distro_table(distro), name) {
        ("alpine", "chrony") => {
            c.confpath = s("/etc/chrony/chrony.conf");
            c.service_name = s("chronyd");
        }
        ("alpine", "ntp") => {
            c.packages = Some(Vec::new()); // busybox's ntpd
            c.service_name = s("ntpd");
        }
        ("debian" | "ubuntu", "chrony") => c.confpath = s("/etc/chrony/chrony.conf"),
        ("cos", "chrony") => {
            c.confpath = s("/etc/chrony/chrony.conf");
            c.service_name = s("chronyd");
        }
        ("rhel" | "centos", "chrony") => c.service_name = s("chronyd"),
        ("rhel" | "centos", "ntp") => c.service_name = s("ntpd"),
        ("opensuse" | "sles" | "photon" | "openmandriva" | "mariner" | "azurelinux", "chrony") => {
            c.service_name = s("chronyd")
        }
        ("opensuse" | "sles" | "photon" | "openmandriva", "ntp") => c.service_name = s("ntpd"),
        ("opensuse" | "sles", "systemd-timesyncd") => c.check_exe = s(usr_timesyncd),
        ("photon" | "mariner" | "azurelinux", "systemd-timesyncd") => {
            c.check_exe = s(usr_timesyncd);
            c.confpath = s("/etc/systemd/timesyncd.conf");
        }
        _ => {}
    }
    Some(c)
}

/// The client `name` names (`None`: auto) on `distro`: a known client's settings, an empty
/// one for a name of the user's own, or for auto the first preferred client `installed` says
/// is there, else the distribution's first choice.
pub fn select(name: Option<&str>, distro: &str, installed: impl Fn(&str) -> bool) -> ClientCfg {
    if let Some(n) = name {
        return known(n, distro).unwrap_or_else(|| ClientCfg {
            name: n.to_string(),
            ..ClientCfg::default()
        });
    }
    let order = preferred(distro);
    let all: Vec<ClientCfg> = order.iter().filter_map(|n| known(n, distro)).collect();
    let found = all
        .iter()
        .find(|c| c.check_exe.as_deref().is_some_and(&installed))
        .or(all.first());
    found.cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(text: &str) -> OsRelease {
        OsRelease::parse(text)
    }

    #[test]
    fn distribution_names() {
        let cases = [
            ("ID=ubuntu\nID_LIKE=debian\n", "ubuntu"),
            ("ID=debian\n", "debian"),
            ("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", "debian"),
            ("ID=rocky\nID_LIKE=\"rhel centos fedora\"\n", "rocky"),
            ("ID=ol\nID_LIKE=fedora\n", "rhel"),
            (
                "ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n",
                "opensuse-leap",
            ),
            ("ID=\"sles\"\n", "sles"),
            ("ID=alpine\n", "alpine"),
            ("ID=arch\n", "arch"),
        ];
        for (text, want) in cases {
            assert_eq!(distro_name(&os(text)), want, "{text:?}");
        }
    }

    #[test]
    fn defaults_by_distribution() {
        let c = known("chrony", "ubuntu").unwrap();
        assert_eq!(c.confpath.as_deref(), Some("/etc/chrony/chrony.conf"));
        assert_eq!(c.service_name.as_deref(), Some("chrony"));
        let c = known("chrony", "rocky").unwrap();
        assert_eq!(c.confpath.as_deref(), Some("/etc/chrony.conf"));
        assert_eq!(c.service_name.as_deref(), Some("chronyd"));
        let c = known("ntp", "alpine").unwrap();
        assert_eq!(c.packages, Some(Vec::new()));
        assert_eq!(c.service_name.as_deref(), Some("ntpd"));
        let c = known("systemd-timesyncd", "opensuse-tumbleweed").unwrap();
        assert_eq!(
            c.check_exe.as_deref(),
            Some("/usr/lib/systemd/systemd-timesyncd")
        );
        let c = known("ntpdate", "debian").unwrap();
        assert_eq!(c.template_name.as_deref(), Some("ntp.conf.{distro}"));
        assert_eq!(known("myclient", "debian"), None);
    }

    #[test]
    fn auto_takes_the_first_installed_preferred_client() {
        let none = |_: &str| false;
        assert_eq!(select(None, "debian", none).name, "chrony");
        let timesyncd = |e: &str| e == "/lib/systemd/systemd-timesyncd";
        assert_eq!(select(None, "debian", timesyncd).name, "systemd-timesyncd");
        let ntpd = |e: &str| e == "ntpd";
        assert_eq!(select(None, "alpine", ntpd).name, "ntp");
        assert_eq!(select(None, "sles", ntpd).name, "ntp");
        let mine = select(Some("mine"), "debian", none);
        assert_eq!(
            mine,
            ClientCfg {
                name: "mine".into(),
                ..ClientCfg::default()
            }
        );
    }
}

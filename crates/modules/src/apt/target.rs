//! What `apt_configure` needs to know of the target: its distribution name as cloud-init's
//! distro class names it, its release codename (os-release's `VERSION_CODENAME`, else
//! `/etc/lsb-release`'s `DISTRIB_CODENAME`: cloud-init asks `lsb_release`), its dpkg
//! architecture, and whether its default sources are deb822. Read-only.

use crate::error::Diag;
use crate::reason::Reason;
use crate::root::Root;

/// What cloud-init's `lsb_release()` gives when it cannot tell the codename.
pub const UNAVAILABLE: &str = "UNAVAILABLE";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// cloud-init's `distro.name`: `debian`, `ubuntu`, `raspberry-pi-os`; a derivative takes
    /// the first of those its `ID_LIKE` names.
    pub distro: String,
    /// `$RELEASE` and `codename`.
    pub codename: String,
    /// dpkg's architecture (`amd64`, `arm64`, ...).
    pub arch: String,
    /// Whether the default sources are rendered as `/etc/apt/sources.list.d/<distro>.sources`
    /// (cloud-init's `APT_DEB822_SOURCE_LIST_FILE`, which distributions turn off before
    /// Debian 12 and Ubuntu 23.10) rather than `/etc/apt/sources.list`.
    pub deb822: bool,
}

/// The fields of an os-release (or lsb-release) file.
fn field(text: &str, name: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
        (k.trim() == name && !v.is_empty()).then(|| v.to_string())
    })
}

fn read_text(root: &Root, path: &str) -> Option<String> {
    let data = root.read_file(path, 64 * 1024).ok()??;
    Some(String::from_utf8_lossy(&data).into_owned())
}

impl Target {
    /// The codename's absence is a warning when `warn` (the config asks for something).
    pub fn read(root: &Root, warn: bool, diags: &mut Vec<Diag>) -> Target {
        let os = ["/etc/os-release", "/usr/lib/os-release"]
            .iter()
            .find_map(|p| read_text(root, p))
            .unwrap_or_default();
        let lsb = read_text(root, "/etc/lsb-release").unwrap_or_default();
        let codename = field(&os, "VERSION_CODENAME").or_else(|| field(&lsb, "DISTRIB_CODENAME"));
        let codename = codename.unwrap_or_else(|| {
            let msg = "the target's release codename is unknown (no VERSION_CODENAME in \
                       os-release, no DISTRIB_CODENAME in /etc/lsb-release): $RELEASE is UNAVAILABLE";
            if warn {
                diags.push(Diag::warning(Reason::BadValue, msg).key("apt"));
            }
            UNAVAILABLE.to_string()
        });
        let arch = read_text(root, "/var/lib/dpkg/arch")
            .and_then(|t| {
                t.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| own_arch().to_string());
        Target::from_os_release(&os, codename, arch)
    }

    pub fn from_os_release(os: &str, codename: String, arch: String) -> Target {
        let id = field(os, "ID").unwrap_or_default().to_ascii_lowercase();
        let like = field(os, "ID_LIKE")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let known = ["debian", "ubuntu", "raspberry-pi-os"];
        let distro = std::iter::once(id.as_str())
            .chain(like.split_whitespace())
            .find(|n| known.contains(n))
            .unwrap_or(id.as_str())
            .to_string();
        let version = field(os, "VERSION_ID").unwrap_or_default();
        let deb822 = deb822_default(&distro, &version);
        Target {
            distro,
            codename,
            arch,
            deb822,
        }
    }
}

/// Whether cloud-init writes the default sources as deb822 on this release: upstream always
/// does; Debian's and Ubuntu's packages keep the one-line `sources.list` on releases older
/// than Debian 12 (bookworm) and Ubuntu 23.10 (mantic), whose images ship it that way.
fn deb822_default(distro: &str, version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    let (major, minor) = (parts.next().flatten(), parts.next().flatten());
    match (distro, major) {
        ("debian", Some(major)) => major >= 12,
        ("ubuntu", Some(year)) => (year, minor.unwrap_or(0)) >= (23, 10),
        // Debian testing and unstable have no VERSION_ID; other distributions take upstream's.
        _ => true,
    }
}

/// dpkg's name for the architecture this runner was built for (it runs on the target).
fn own_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "i386",
        "aarch64" => "arm64",
        "arm" => "armhf",
        "powerpc64" => "ppc64el",
        "loongarch64" => "loong64",
        "mips64" => "mips64el",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(os: &str) -> Target {
        Target::from_os_release(os, "x".into(), "amd64".into())
    }

    #[test]
    fn distro_and_deb822_by_release() {
        let cases = [
            ("ID=debian\nVERSION_ID=\"11\"\n", "debian", false),
            ("ID=debian\nVERSION_ID=\"12\"\n", "debian", true),
            ("ID=debian\n", "debian", true),
            ("ID=ubuntu\nVERSION_ID=\"23.04\"\n", "ubuntu", false),
            ("ID=ubuntu\nVERSION_ID=\"23.10\"\n", "ubuntu", true),
            ("ID=ubuntu\nVERSION_ID=\"24.04\"\n", "ubuntu", true),
            ("ID=ubuntu\nVERSION_ID=\"22.04\"\n", "ubuntu", false),
            (
                "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\nVERSION_ID=\"21.3\"\n",
                "ubuntu",
                false,
            ),
            ("ID=raspberry-pi-os\n", "raspberry-pi-os", true),
        ];
        for (os, distro, deb822) in cases {
            let t = target(os);
            assert_eq!((t.distro.as_str(), t.deb822), (distro, deb822), "{os:?}");
        }
    }
}

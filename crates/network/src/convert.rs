//! `net-convert`'s arguments, which both binaries show: ember-initrd runs the command
//! (`ember::net_convert`), the runner hands it over.

/// The arguments, as `ember net-convert --help` shows them too.
pub const OPTIONS: &str = "-k|--kind yaml|v1|v2|network_data.json \
    -O|--output-kind networkd|netplan|eni|network-manager -d|--directory DIR \
    [-D|--distro DISTRO] [-m|--mac NAME,MAC]... (-p|--network-data FILE | FILE)";

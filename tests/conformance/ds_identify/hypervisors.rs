//! Hypervisors and containers: LXD, VMware and OVF, WSL, SmartOS, MAAS beside LXD.
//!
//! Upstream mocks `is_socket_file`, `detect_virt` and the VMware tools' answers; here they are
//! a real socket, the facts systemd-detect-virt reads (`virt`) and stand-in programs on PATH.
//! Upstream's OVF disc is a device whose bytes hold the OVF namespace (ds-identify greps it);
//! here it is a real ISO with `ovf-env.xml` on it, which is where the namespace lives.
//! Upstream's guestinfo stand-ins answer `---`, which the real tools' answer would not pass
//! (ds-identify wants a letter or digit, DataSourceVMware reads `---` as a cleared key): here
//! they answer a real value.

use super::Want::*;
use super::{check, Row, ROW};

const LXD_PORT: &str = "/sys/class/virtio-ports/vport0p1/name";
const LXD_SOCK: &str = "/dev/lxd/sock";

/// `datasource_list: [None]` written every way a YAML flow sequence allows, on a KVM machine
/// with nothing else: None is chosen, as listed.
const FLOW_BASE: Row = Row {
    virt: "kvm",
    want: Found("none"),
    ..ROW
};

/// A stand-in for both guestinfo tools (`vmware-rpctool "info-get guestinfo.KEY"` and
/// `vmtoolsd --cmd "…"`) whose table holds `key` only; every other key is "No value found".
macro_rules! guestinfo {
    ($key:literal, $value:literal) => {
        concat!(
            "#!/bin/sh\n[ \"$1\" = --cmd ] && shift\ncase \"$1\" in\n\"info-get guestinfo.",
            $key,
            "\") printf '%s\\n' '",
            $value,
            "' ;;\n*) echo 'No value found' >&2; exit 1 ;;\nesac\n"
        )
    };
}

const NO_GUESTINFO: &str = guestinfo!("none-at-all", "");
const RPCTOOL: &str = "/usr/bin/vmware-rpctool";
const VMTOOLSD: &str = "/usr/bin/vmtoolsd";
/// open-vm-tools' guest customization plugin, where ds-identify looks first.
const PLUGIN: &str = "/usr/lib/vmware-tools/plugins/vmsvc/libdeployPkgPlugin.so";
const CUSTOMIZATION_ON: (&str, &str) = (
    "/etc/cloud/cloud.cfg",
    "disable_vmware_customization: false\n",
);
/// A disc with an OVF environment on it, as the `OVF` case's `sr0`, beside its unlabelled
/// `sr1` ("ignoreme").
const OVF_DISCS: &[super::Iso] = &[
    ("sr0", "", &[("ovf-env.xml", OVF_ENV)]),
    ("sr1", "ignoreme", &[("notes.txt", "nothing\n")]),
];
const OVF_ENV: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Environment xmlns=\"http://schemas.dmtf.org/ovf/environment/1\"/>\n";

/// `VMware-vmware-customization`: VMware, rpctool with an empty table, the deployPkg plugin
/// and customization switched on.
const CUSTOMIZATION: Row = Row {
    files: &[(PLUGIN, "here"), CUSTOMIZATION_ON],
    host: &[(RPCTOOL, NO_GUESTINFO)],
    virt: "vmware",
    want: Found("vmware"),
    ..ROW
};

const OVF_BASE: Row = Row {
    isos: OVF_DISCS,
    virt: "vmware",
    want: Found("ovf"),
    ..ROW
};

/// `test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label`: a disc without the
/// environment is found by a known label alone.
const NO_MATCH: &[(&str, &str)] = &[("README", "No content match\n")];

const BRANDZ: (&str, &str) = ("/proc/sys/kernel/version", "BrandZ virtual linux\n");
const ZONE_SOCK: &str = "/native/.zonecontrol/metadata.sock";

const DRVFS: &str = "/dev/sdd / ext4 rw,errors=remount-ro,data=ordered 0 0\n\
    cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec0 0\n\
    C:\\134 /mnt/c 9p rw,dirsync,aname=drvfs;path=C:\\;uid=0;gid=0;symlinkroot=/mnt/... 0 0\n\
    snapfuse /snap/core22/1033 fuse.snapfuse ro,nodev,user_id=0,group_id=0,allow_other 0 0\n";
const NO_DRVFS: &str = "/dev/sdd / ext4 rw,errors=remount-ro,data=ordered 0 0\n\
    cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec0 0\n";
const NOBLE: &str = "PRETTY_NAME=\"Ubuntu Noble Numbat (development branch)\"\nNAME=\"Ubuntu\"\n\
    VERSION_ID=\"24.04\"\nVERSION=\"24.04 (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\n\
    ID_LIKE=debian\nUBUNTU_CODENAME=noble\n";
const TRIXIE: &str = "PRETTY_NAME=\"Debian GNU/Linux trixie/sid\"\nNAME=\"Debian GNU/Linux\"\n\
    VERSION_CODENAME=\"trixie\"\nID=debian\n";
/// WSL's `wslpath`: the instance `Noble-MLKit`, the profile at /mnt/c/Users/me.
const WSLPATH: &str = "#!/bin/sh\ncase \"$1\" in\n-am) echo '//wsl.localhost/Noble-MLKit/' ;;\n\
    -au) echo /mnt/c/Users/me ;;\n*) exit 1 ;;\nesac\n";
const WSLPATH_UNPARSED: &str =
    "#!/bin/sh\ncase \"$1\" in\n-am) echo '/wsl.localhost/cant-findme' ;;\n\
    -au) echo /mnt/c/Users/me ;;\n*) exit 1 ;;\nesac\n";
/// WSL's `/init` running `cmd.exe /C echo %USERPROFILE%`.
const INIT: &str = "#!/bin/sh\nprintf 'C:\\\\Users\\\\me\\r\\n'\n";
const INIT_NO_PROFILE: &str = "#!/bin/sh\nprintf '\\r\\n'\n";
const CMD_EXE: (&str, &str) = ("/mnt/c/Windows/System32/cmd.exe", "MZ");
const PROFILE: (&str, &str) = ("/mnt/c/Users/me/NTUSER.DAT", "");

/// `WSL-supported`: WSL with drive C: mounted, the tools answering, Ubuntu 24.04.
const WSL_BASE: Row = Row {
    host: &[("/usr/bin/wslpath", WSLPATH), ("/init", INIT), CMD_EXE],
    virt: "wsl",
    want: Found("wsl"),
    ..ROW
};

const fn wsl_files(file: &'static str) -> [(&'static str, &'static str); 4] {
    [
        ("/proc/mounts", DRVFS),
        ("/etc/os-release", NOBLE),
        PROFILE,
        (file, ""),
    ]
}

pub const TABLE: &[Row] = &[
    // LXD
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm] (lxd_kvm: virtio port, no socket yet)",
        files: &[(LXD_PORT, "com.canonical.lxd\n")],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm] (lxd_kvm: the DMI board_name its comment names)",
        dmi: &[("board_name", "LXD")],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm-qemu-kernel-gt-5.10] (lxd_kvm_jammy)",
        files: &[(LXD_PORT, "com.canonical.lxd")],
        virt: "qemu",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream:
            "test_ds_identify.py::VALID_CFG[LXD-kvm-qemu-kernel-gt-5.10-env] (lxd_kvm_jammy_env)",
        files: &[
            (LXD_PORT, "com.canonical.lxd"),
            ("/run/systemd/somefile", ""),
        ],
        env: &[("SYSTEMD_VIRTUALIZATION", "vm:qemu")],
        virt: "qemu",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD] (lxd_containers: the socket)",
        sockets: &[LXD_SOCK],
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm-not-MAAS-1] (mass_not_detected_1)",
        files: &[(
            "/etc/cloud/cloud.cfg.d/92-broken-maas.cfg",
            "datasource:\n MAAS:\n metadata_urls: [ 'blah.com' ]",
        )],
        sockets: &[LXD_SOCK],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm-not-MAAS-2] (mass_not_detected_2)",
        files: &[("/etc/cloud/cloud.cfg.d/92-broken-maas.cfg", "#MAAS: None")],
        sockets: &[LXD_SOCK],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm-not-MAAS-3] (mass_not_detected_3)",
        files: &[
            ("/etc/cloud/cloud.cfg.d/92-broken-maas.cfg", "MAAS: None\n"),
            (LXD_PORT, "com.canonical.lxd"),
        ],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    // Upstream marks it xfail (its shell reads no block lists); the case's own expectation,
    // Azure alone in the list, is what ember's YAML reader gives.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm-not-azure] (multiline_yaml, xfail upstream)",
        files: &[(
            "/etc/cloud/cloud.cfg.d/92-broken-azure.cfg",
            "datasource_list:\n - Azure",
        )],
        sockets: &[LXD_SOCK],
        virt: "kvm",
        want: Found("azure"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[MAAS-not-LXD] (maas_detected_kernel_cmdline_not_lxd)",
        cmdline: "ds=MAAS",
        sockets: &[LXD_SOCK],
        virt: "kvm",
        want: Found("maas"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-virtio-linuxcontainers] (lxd_virtio_linuxcontainers_serial)",
        files: &[("/sys/class/virtio-ports/vprt0p1/name", "org.linuxcontainers.lxd")],
        virt: "qemu",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-virtio-canonical] (lxd_virtio_canonical_serial)",
        files: &[(LXD_PORT, "com.canonical.lxd")],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-virtio-wrong-name] (lxd_virtio_wrong_serial)",
        files: &[(LXD_PORT, "some.other.serial")],
        virt: "kvm",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-virtio-multiple-ports] (lxd_virtio_multiple_ports)",
        files: &[
            (LXD_PORT, "some.other.serial"),
            ("/sys/class/virtio-ports/vport0p2/name", "com.canonical.lxd"),
            ("/sys/class/virtio-ports/vport0p3/name", "another.serial"),
        ],
        virt: "kvm",
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-virtio-empty] (lxd_virtio_empty_dir)",
        files: &[("/sys/class/virtio-ports/.keep", "")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_LXD[a plain file at /dev/lxd/sock is no socket]",
        files: &[(LXD_SOCK, "")],
        want: NotFound,
        ..ROW
    },
    // FLOW
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence_control (a misspelt key)",
        files: &[(
            "/etc/cloud/cloud.cfg",
            "\"datasource-list\":  [ None    ]   \n\n",
        )],
        want: NotFound,
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-1]",
        files: &[(
            "/etc/cloud/cloud.cfg",
            "datasource_list :  [ None    ]   \n\n",
        )],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-2]",
        files: &[("/etc/cloud/cloud.cfg", "\"datasource_list\": [None]\n")],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-3]",
        files: &[("/etc/cloud/cloud.cfg", "'datasource_list': [None]\n")],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-4]",
        files: &[("/etc/cloud/cloud.cfg", "datasource_list:  [ None     ]")],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-5]",
        files: &[("/etc/cloud/cloud.cfg", "\"datasource_list\": [    'None' ]  ")],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-6]",
        files: &[("/etc/cloud/cloud.cfg", "'datasource_list' : [    None  ]  ")],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-7]",
        files: &[("/etc/cloud/cloud.cfg", "\"datasource_list\"     : [    None  ]  ")],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-8]",
        files: &[(
            "/etc/cloud/cloud.cfg",
            "\"datasource_list\"   \t\t  : \t\t[\t   \tNone \t \t ] \t\t ",
        )],
        ..FLOW_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_flow_sequence[flow_sequence-9]",
        files: &[("/etc/cloud/cloud.cfg", "datasource_list: [None]")],
        ..FLOW_BASE
    },
    // VMWARE
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-NoValidTransports] (vmware_no_valid_transports)",
        virt: "vmware",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-vmware-customization] (vmware_on_vmware_when_vmware_customization_is_enabled)",
        ..CUSTOMIZATION
    },
    Row {
        upstream: "tools/ds-identify::vmware_guest_customization[off unless the config says false]",
        files: &[(PLUGIN, "here")],
        want: NotFound,
        ..CUSTOMIZATION
    },
    Row {
        upstream: "tools/ds-identify::vmware_guest_customization[disable_vmware_customization: true]",
        files: &[(PLUGIN, "here"), ("/etc/cloud/cloud.cfg", "disable_vmware_customization: true\n")],
        want: NotFound,
        ..CUSTOMIZATION
    },
    Row {
        upstream: "tools/ds-identify::vmware_guest_customization[no deployPkg plugin]",
        files: &[CUSTOMIZATION_ON],
        want: NotFound,
        ..CUSTOMIZATION
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-OVF-on-vmware-with-vmware-customization-and-ovf-schema] (VMware first)",
        isos: OVF_DISCS,
        ..CUSTOMIZATION
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OVF-not-on-vmware-with-vmware-customization-and-ovf-schema]",
        isos: OVF_DISCS,
        virt: "",
        want: Found("ovf"),
        ..CUSTOMIZATION
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-EnvVar-NoData] (vmware_envvar_no_data)",
        env: &[("VMX_GUESTINFO", "1")],
        virt: "vmware",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-EnvVar-NoVirtID] (vmware_envvar_no_virt_id)",
        env: &[("VMX_GUESTINFO", "1"), ("VMX_GUESTINFO_METADATA", "instance-id: i-1")],
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-EnvVar-Metadata] (vmware_envvar_activated_by_metadata)",
        env: &[("VMX_GUESTINFO", "1"), ("VMX_GUESTINFO_METADATA", "instance-id: i-1")],
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-EnvVar-Userdata] (vmware_envvar_activated_by_userdata)",
        env: &[("VMX_GUESTINFO", "1"), ("VMX_GUESTINFO_USERDATA", "instance-id: i-1")],
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-EnvVar-Vendordata] (vmware_envvar_activated_by_vendordata)",
        env: &[("VMX_GUESTINFO", "1"), ("VMX_GUESTINFO_VENDORDATA", "instance-id: i-1")],
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-EnvVar-Metadata] as written (the value `---`)",
        env: &[("VMX_GUESTINFO", "1"), ("VMX_GUESTINFO_METADATA", "---")],
        virt: "vmware",
        want: NotFound,
        differs: Some("a guestinfo value of `---` counts as no value"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-GuestInfo-NoData-Rpctool] (vmware_guestinfo_no_data_rcptool)",
        host: &[(RPCTOOL, NO_GUESTINFO)],
        virt: "vmware",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-GuestInfo-NoData-Vmtoolsd] (vmware_guestinfo_no_data_vmtoolsd)",
        host: &[(VMTOOLSD, NO_GUESTINFO)],
        virt: "vmware",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-GuestInfo-NoVirtID] (vmware_guestinfo_no_virt_id)",
        host: &[(RPCTOOL, guestinfo!("metadata", "instance-id: i-1"))],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-GuestInfo-Metadata] (vmware_guestinfo_activated_by_metadata)",
        host: &[(VMTOOLSD, guestinfo!("metadata", "instance-id: i-1"))],
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-GuestInfo-Userdata] (vmware_guestinfo_activated_by_userdata)",
        host: &[(RPCTOOL, guestinfo!("userdata", "instance-id: i-1"))],
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-GuestInfo-Vendordata] (vmware_guestinfo_activated_by_vendordata)",
        host: &[(VMTOOLSD, guestinfo!("vendordata", "instance-id: i-1"))],
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[VMware-OVF-on-vmware-with-guestinfo-metadata-and-ovf-schema] (VMware first)",
        host: &[(VMTOOLSD, guestinfo!("metadata", "instance-id: i-1"))],
        isos: OVF_DISCS,
        virt: "vmware",
        want: Found("vmware"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OVF-not-on-vmware-with-guestinfo-metadata-and-ovf-schema]",
        host: &[(VMTOOLSD, guestinfo!("metadata", "instance-id: i-1"))],
        isos: OVF_DISCS,
        want: Found("ovf"),
        ..ROW
    },
    // The open-vm-tools plugin where each packaging puts it.
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_vmware_on_vmware_open_vm_tools_64",
        files: &[("/usr/lib64/open-vm-tools/plugins/vmsvc/libdeployPkgPlugin.so", "here"), CUSTOMIZATION_ON],
        ..CUSTOMIZATION
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_vmware_on_vmware_open_vm_tools_x86_64_linux_gnu",
        files: &[("/usr/lib/x86_64-linux-gnu/open-vm-tools/plugins/vmsvc/libdeployPkgPlugin.so", "here"), CUSTOMIZATION_ON],
        ..CUSTOMIZATION
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_vmware_on_vmware_open_vm_tools_aarch64_linux_gnu",
        files: &[("/usr/lib/aarch64-linux-gnu/open-vm-tools/plugins/vmsvc/libdeployPkgPlugin.so", "here"), CUSTOMIZATION_ON],
        ..CUSTOMIZATION
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_vmware_on_vmware_open_vm_tools_i386_linux_gnu",
        files: &[("/usr/lib/i386-linux-gnu/open-vm-tools/plugins/vmsvc/libdeployPkgPlugin.so", "here"), CUSTOMIZATION_ON],
        ..CUSTOMIZATION
    },
    // OVF
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OVF-seed] (default_ovf_is_found)",
        files: &[("/var/lib/cloud/seed/ovf/ovf-env.xml", "present\n")],
        want: Found("ovf"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OVF] (ovf_on_vmware_iso_found_by_cdrom_with_ovf_schema_match)",
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OVF-guestinfo] (ovf_on_vmware_guestinfo_found)",
        host: &[(
            RPCTOOL,
            guestinfo!("ovfEnv", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Environment"),
        )],
        virt: "vmware",
        want: Found("ovf"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_default_ovf_with_detect_virt_none_not_found",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_default_ovf_returns_not_found_on_azure",
        dmi: &[("chassis_asset_tag", "7783-7084-3265-9085-8269-3286-77")],
        want: Found("azure"),
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[no match, no label]",
        isos: &[("sr0", "", NO_MATCH)],
        want: NotFound,
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[ovf-transport]",
        isos: &[("sr0", "ovf-transport", NO_MATCH)],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[OVF-TRANSPORT]",
        isos: &[("sr0", "OVF-TRANSPORT", NO_MATCH)],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[OVFENV]",
        isos: &[("sr0", "OVFENV", NO_MATCH)],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[ovfenv]",
        isos: &[("sr0", "ovfenv", NO_MATCH)],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[OVF ENV]",
        isos: &[("sr0", "OVF ENV", NO_MATCH)],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_matching_fs_label[ovf env]",
        isos: &[("sr0", "ovf env", NO_MATCH)],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_different_size[10 MB]",
        files: &[("/sys/class/block/sr0/size", "20480\n")],
        want: NotFound,
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_different_size[100 MB]",
        files: &[("/sys/class/block/sr0/size", "204800\n")],
        want: NotFound,
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_different_size[9 MB]",
        files: &[("/sys/class/block/sr0/size", "18432\n")],
        ..OVF_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ovf_on_vmware_iso_found_by_cdrom_with_different_size[1 MB]",
        files: &[("/sys/class/block/sr0/size", "2048\n")],
        ..OVF_BASE
    },
    // SMARTOS
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[SmartOS-bhyve] (smartos_bhyve)",
        dmi: &[("product_name", "SmartDC HVM")],
        want: Found("smartos"),
        ..ROW
    },
    // Upstream's stand-in for the agent's socket is a plain file (ds-identify tests `-e`);
    // here it is a socket, as the agent makes it.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[SmartOS-lxbrand] (smartos_lxbrand)",
        files: &[BRANDZ],
        sockets: &[ZONE_SOCK],
        want: Found("smartos"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[SmartOS-lxbrand-env] (smartos_lxbrand-env)",
        files: &[BRANDZ],
        sockets: &[ZONE_SOCK],
        env: &[("SYSTEMD_VIRTUALIZATION", "container:container-other")],
        want: Found("smartos"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[SmartOS-lxbrand] as written (a plain file at the socket's path)",
        files: &[BRANDZ, (ZONE_SOCK, "would be a socket\n")],
        want: NotFound,
        differs: Some("the SmartOS zone's metadata socket must be a socket"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_smartos_lxbrand_requires_socket",
        files: &[BRANDZ],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_smartos_lxbrand_requires_socket_env",
        files: &[BRANDZ],
        env: &[("SYSTEMD_VIRTUALIZATION", "container:container-other")],
        want: NotFound,
        ..ROW
    },
    // WSL
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Not-WSL] (wsl_not_found_virt)",
        virt: "kvm",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[WSL-no-host-mounts] (wsl_no_fs_mounts)",
        files: &[("/proc/mounts", NO_DRVFS)],
        want: NotFound,
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_no_userprofile",
        host: &[("/usr/bin/wslpath", WSLPATH), ("/init", INIT_NO_PROFILE), CMD_EXE],
        files: &wsl_files("/mnt/c/Users/me/.cloud-init/default.user-data"),
        want: NotFound,
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_no_cloudinitdir_in_userprofile",
        files: &[("/proc/mounts", DRVFS), ("/etc/os-release", NOBLE), PROFILE],
        want: NotFound,
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_empty_cloudinitdir",
        files: &[("/proc/mounts", DRVFS), ("/etc/os-release", NOBLE), PROFILE],
        dirs: &["/mnt/c/Users/me/.cloud-init"],
        want: NotFound,
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_fail_due_instance_name_parsing",
        host: &[("/usr/bin/wslpath", WSLPATH_UNPARSED), ("/init", INIT), CMD_EXE],
        files: &[
            ("/proc/mounts", DRVFS),
            ("/etc/os-release", TRIXIE),
            ("/mnt/c/Users/me/.cloud-init/cant-findme.user-data", ""),
        ],
        want: NotFound,
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata_version_codename",
        files: &[
            ("/proc/mounts", DRVFS),
            ("/etc/os-release", TRIXIE),
            ("/mnt/c/Users/me/.cloud-init/debian-trixie.user-data", ""),
        ],
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[.ubuntupro/.cloud-init/<instance>.user-data]",
        files: &wsl_files("/mnt/c/Users/me/.ubuntupro/.cloud-init/Noble-MLKit.user-data"),
        dirs: &["/mnt/c/Users/me/.cloud-init"],
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[.ubuntupro/.cloud-init/agent.yaml]",
        files: &wsl_files("/mnt/c/Users/me/.ubuntupro/.cloud-init/agent.yaml"),
        dirs: &["/mnt/c/Users/me/.cloud-init"],
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[.cloud-init/<instance>.user-data]",
        files: &wsl_files("/mnt/c/Users/me/.cloud-init/Noble-MLKit.user-data"),
        dirs: &["/mnt/c/Users/me/.ubuntupro/.cloud-init"],
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[.cloud-init/<distro>-<version>.user-data]",
        files: &wsl_files("/mnt/c/Users/me/.cloud-init/ubuntu-24.04.user-data"),
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[.cloud-init/<distro>-all.user-data]",
        files: &wsl_files("/mnt/c/Users/me/.cloud-init/ubuntu-all.user-data"),
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[.cloud-init/default.user-data]",
        files: &wsl_files("/mnt/c/Users/me/.cloud-init/default.user-data"),
        ..WSL_BASE
    },
    Row {
        upstream: "test_ds_identify.py::TestWSL::test_found_via_userdata[none left]",
        files: &[("/proc/mounts", DRVFS), ("/etc/os-release", NOBLE), PROFILE],
        dirs: &[
            "/mnt/c/Users/me/.cloud-init",
            "/mnt/c/Users/me/.ubuntupro/.cloud-init",
        ],
        want: NotFound,
        ..WSL_BASE
    },
    Row {
        upstream: "tools/ds-identify::dscheck_WSL[the Pro agent's files count on Ubuntu only]",
        files: &[
            ("/proc/mounts", DRVFS),
            ("/etc/os-release", TRIXIE),
            ("/mnt/c/Users/me/.ubuntupro/.cloud-init/agent.yaml", ""),
        ],
        want: NotFound,
        ..WSL_BASE
    },
];

#[test]
fn hypervisors_agree_with_ds_identify() {
    check(TABLE);
}

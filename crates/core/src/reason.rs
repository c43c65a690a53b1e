//! The reason codes: one vocabulary for every diagnostic. Each kebab-case name is the stable
//! string in status.json's `code` (and `ember status --format json`), documented here once and
//! listed in the manual (docs/src/reference/reason-codes.md) by a test that fails when the two
//! differ. A diagnostic is made from a `Reason`; it keeps the string, so a status.json from
//! another ember version (the initramfs and the root are upgraded apart) reads and writes back
//! unchanged.

macro_rules! reasons {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Reason {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Reason {
            /// Every reason, in the order of their names.
            pub const ALL: &'static [Reason] = &[$(Reason::$variant,)*];

            /// The stable name: `yaml-syntax`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Reason::$variant => $code,)*
                }
            }

            /// What it means, as documented above (for the manual's list).
            #[cfg(test)]
            pub fn doc(self) -> &'static str {
                match self {
                    $(Reason::$variant => concat!($($doc),*),)*
                }
            }
        }
    };
}

reasons! {
    /// An item of a cloud-config-archive is not usable (no content, not a mapping); skipped.
    ArchiveItem = "archive-item",
    /// A cloud-config-archive is not a list.
    ArchiveType = "archive-type",
    /// Azure: neither ovf-env.xml nor IMDS gave any data.
    AzureNoData = "azure-no-data",
    /// Azure: no DMI system UUID and no IMDS vmId to name the instance.
    AzureNoInstanceId = "azure-no-instance-id",
    /// Azure: the password from ovf-env.xml could not be hashed; not set.
    AzurePassword = "azure-password",
    /// Azure: a pre-provisioned (pooled) VM, which ember does not reprovision.
    AzurePreprovisioned = "azure-preprovisioned",
    /// A key has the right type but a value ember cannot use.
    BadValue = "bad-value",
    /// Content declared base64 is not valid base64.
    Base64Invalid = "base64-invalid",
    /// An input is larger or deeper than its budget (`limits.rs`); named in `budget`.
    BudgetExceeded = "budget-exceeded",
    /// ca_certs: the debconf selections could not be set.
    CaCertsDebconfFailed = "ca-certs-debconf-failed",
    /// ca_certs: removing the distro's certificates is not supported on this target.
    CaCertsRemoveUnsupported = "ca-certs-remove-unsupported",
    /// ca_certs: the target has no tool to update its certificate store.
    CaCertsToolMissing = "ca-certs-tool-missing",
    /// ca_certs: updating the certificate store failed.
    CaCertsUpdateFailed = "ca-certs-update-failed",
    /// The datasource gave nothing and there is no cached instance to keep.
    CacheMissing = "cache-missing",
    /// The datasource gave nothing: the cached instance is kept (no news).
    CachedInstance = "cached-instance",
    /// A cloud-config document lacks its `#cloud-config` first line.
    CloudConfigHeader = "cloud-config-header",
    /// A cloud-config document is not a mapping.
    CloudConfigType = "cloud-config-type",
    /// A kernel command line parameter ember reads has a value it cannot use.
    CmdlineInvalid = "cmdline-invalid",
    /// A command a module ran (bootcmd, runcmd) failed.
    CommandFailed = "command-failed",
    /// The image config (`/etc/cloud/cloud.cfg`, `cloud.cfg.d`) has an unusable value.
    ConfigInvalid = "config-invalid",
    /// An image config file could not be read.
    ConfigRead = "config-read",
    /// A target account database (passwd, group, shadow) cannot be read as such.
    DbInvalid = "db-invalid",
    /// The deferred write_files handoff could not be read.
    DeferredInvalid = "deferred-invalid",
    /// A deprecated key or form was accepted; the message names its replacement.
    Deprecated = "deprecated",
    /// The deadline passed before a lease.
    DhcpDeadline = "dhcp-deadline",
    /// Every interface was tried without a lease.
    DhcpExhausted = "dhcp-exhausted",
    /// An interface could not be brought up.
    DhcpLink = "dhcp-link",
    /// No DHCP server offered a lease.
    DhcpNoLease = "dhcp-no-lease",
    /// No network interface to lease an address on.
    DhcpNoNic = "dhcp-no-nic",
    /// An interface that is not Ethernet; no DHCP on it.
    DhcpNotEthernet = "dhcp-not-ethernet",
    /// The DHCP client's socket could not be opened.
    DhcpSocket = "dhcp-socket",
    /// More diagnostics than status.json lists; the rest are counted.
    DiagnosticsNotListed = "diagnostics-not-listed",
    /// disk_setup: the disk already holds a partition table or data; left alone.
    DiskInUse = "disk-in-use",
    /// disk_setup or growpart: reading or writing the disk failed.
    DiskIo = "disk-io",
    /// The kernel did not take the new partition table.
    DiskKernel = "disk-kernel",
    /// disk_setup: the device does not exist.
    DiskNoDevice = "disk-no-device",
    /// A key given twice where it must be given once.
    DuplicateKey = "duplicate-key",
    /// An `encoding` ember does not know.
    EncodingUnknown = "encoding-unknown",
    /// An interface of the ephemeral network could not be brought up; another is tried.
    EphemeralNetwork = "ephemeral-network",
    /// The deadline passed while fetching; the message names the last attempt's failure.
    FetchDeadline = "fetch-deadline",
    /// A fetch failed for good (retries used up, or a refusal).
    FetchFailed = "fetch-failed",
    /// A module frequency ember does not know; the module's own is used.
    FrequencyUnknown = "frequency-unknown",
    /// fs_setup: the device already holds a filesystem; left alone.
    FsInUse = "fs-in-use",
    /// fs_setup: the device does not exist.
    FsNoDevice = "fs-no-device",
    /// A group named for a user does not exist and is not created.
    GroupMissing = "group-missing",
    /// growpart: the partition could not be grown.
    GrowpartFailed = "growpart-failed",
    /// growpart: the device to grow does not exist.
    GrowpartNoDevice = "growpart-no-device",
    /// growpart: the partition is not the last one and cannot grow.
    GrowpartNotLast = "growpart-not-last",
    /// growpart: a partition table or device ember cannot grow.
    GrowpartUnsupported = "growpart-unsupported",
    /// VMware: vmware-rpctool (or vmtoolsd) could not read or clear a guestinfo key.
    GuestinfoFailed = "guestinfo-failed",
    /// Gzip-compressed content is corrupt.
    GzipCorrupt = "gzip-corrupt",
    /// The handoff from ember-initrd to the runner could not be read.
    HandoffInvalid = "handoff-invalid",
    /// An ssh host key could not be made.
    HostkeyFailed = "hostkey-failed",
    /// An ssh host key type ember does not make.
    HostkeyType = "hostkey-type",
    /// Not a valid host name.
    HostnameInvalid = "hostname-invalid",
    /// No free uid or gid in the target's login.defs range.
    IdExhausted = "id-exhausted",
    /// EC2: the instance metadata service is disabled for this instance.
    ImdsDisabled = "imds-disabled",
    /// EC2: the instance metadata service refused an IMDSv2 token.
    ImdsTokenRefused = "imds-token-refused",
    /// An `#include` names a URL already being included.
    IncludeLoop = "include-loop",
    /// The runner could not learn the instance id.
    InstanceId = "instance-id",
    /// The datasource's instance id cannot name a directory (empty, too long, control characters).
    InstanceIdInvalid = "instance-id-invalid",
    /// A failure inside ember itself.
    Internal = "internal",
    /// A module started on an earlier boot and did not finish; not run again.
    Interrupted = "interrupted",
    /// Not a valid user or group name.
    InvalidName = "invalid-name",
    /// A JSON patch could not be applied to the merged config.
    JsonpFailed = "jsonp-failed",
    /// A JSON patch document is not valid.
    JsonpInvalid = "jsonp-invalid",
    /// A partition layout that does not fit the disk.
    LayoutInvalid = "layout-invalid",
    /// The link-local address ember picked is in use.
    LinkLocalInUse = "link-local-in-use",
    /// A `merge_how` value ember cannot read.
    MergeHowInvalid = "merge-how-invalid",
    /// A `merge_how` merger or option ember does not know.
    MergeHowUnknown = "merge-how-unknown",
    /// The metadata service answered 400 Bad Request.
    MetadataBadRequest = "metadata-bad-request",
    /// An answer lacks the header the metadata service always sends; not used.
    MetadataImpostor = "metadata-impostor",
    /// A metadata document cannot be read (not JSON, not the expected shape).
    MetadataInvalid = "metadata-invalid",
    /// The metadata service has no such document (404).
    MetadataNotFound = "metadata-not-found",
    /// The metadata service answered with a status ember cannot use.
    MetadataStatus = "metadata-status",
    /// No metadata service answered before the wait ended.
    MetadataUnreachable = "metadata-unreachable",
    /// A MIME part's transfer encoding ember cannot decode.
    MimeEncoding = "mime-encoding",
    /// A MIME multipart document ember cannot read.
    MimeMalformed = "mime-malformed",
    /// A required key is missing.
    MissingKey = "missing-key",
    /// fs_setup: making the filesystem failed.
    MkfsFailed = "mkfs-failed",
    /// A module list names a module cloud-init does not have; the item is skipped.
    ModuleUnknown = "module-unknown",
    /// A module ember does not have yet; its keys are not applied.
    ModuleUnsupported = "module-unsupported",
    /// mounts: the device does not exist.
    MountNoDevice = "mount-no-device",
    /// mounts: the device has no filesystem.
    MountNoFilesystem = "mount-no-filesystem",
    /// User-data nests deeper than its budget (includes, MIME, archives).
    NestingTooDeep = "nesting-too-deep",
    /// An unusable network config, or an entry of one.
    NetworkConfigInvalid = "network-config-invalid",
    /// A network config key ember does not know.
    NetworkConfigUnknownKey = "network-config-unknown-key",
    /// A network config feature ember does not render.
    NetworkConfigUnsupported = "network-config-unsupported",
    /// The target has no network stack ember renders for.
    NetworkNoRenderer = "network-no-renderer",
    /// ember's record of the network files it wrote cannot be trusted; nothing removed.
    NetworkRecordRefused = "network-record-refused",
    /// A network config feature the chosen renderer cannot express.
    NetworkRenderUnsupported = "network-render-unsupported",
    /// A renderer named in the config that ember does not have.
    NetworkRenderer = "network-renderer",
    /// No interface on this machine has the MAC the network config names; the fallback network is used.
    NicMissing = "nic-missing",
    /// No datasource found.
    NoDatasource = "no-datasource",
    /// A key needs the default user and there is none.
    NoDefaultUser = "no-default-user",
    /// The partition named does not exist.
    NoPartition = "no-partition",
    /// No NoCloud seed found.
    NoSeed = "no-seed",
    /// The disk has no partition table.
    NoTable = "no-table",
    /// A file or value that must be UTF-8 text is not.
    NotUtf8 = "not-utf8",
    /// ntp: the client is not installed and the target has no package manager to install it.
    NtpClientMissing = "ntp-client-missing",
    /// ntp: a key the client's configuration has no setting for.
    NtpKeyIgnored = "ntp-key-ignored",
    /// ntp: the NTP service could not be restarted.
    NtpServiceFailed = "ntp-service-failed",
    /// ntp: the target has no service manager ember drives.
    NtpServiceManagerMissing = "ntp-service-manager-missing",
    /// ntp: the client's template is missing or did not render.
    NtpTemplateFailed = "ntp-template-failed",
    /// OpenStack: injected files are not written.
    OpenstackFilesIgnored = "openstack-files-ignored",
    /// OpenStack: the metadata document is missing.
    OpenstackNoMetadata = "openstack-no-metadata",
    /// OpenStack: the metadata has no uuid.
    OpenstackNoUuid = "openstack-no-uuid",
    /// An `output` form ember does not support.
    OutputUnsupported = "output-unsupported",
    /// Azure: an ovf-env.xml flag is not true or false.
    OvfBool = "ovf-bool",
    /// Azure: ovf-env.xml's CustomData is not valid base64.
    OvfCustomData = "ovf-custom-data",
    /// Azure: ovf-env.xml lacks or mangles a required element.
    OvfInvalid = "ovf-invalid",
    /// Azure: the XML is not an Azure ovf-env.xml.
    OvfNotAzure = "ovf-not-azure",
    /// The owner or group named for a file does not exist in the target.
    OwnerUnknown = "owner-unknown",
    /// The package manager failed.
    PackageCommandFailed = "package-command-failed",
    /// The target has no package manager ember drives.
    PackageManagerMissing = "package-manager-missing",
    /// A package manager named ember does not drive.
    PackageManagerUnsupported = "package-manager-unsupported",
    /// A user-data part-handler could not be loaded, or raised; the part is named.
    PartHandlerFailed = "part-handler-failed",
    /// A password could not be set.
    PasswordFailed = "password-failed",
    /// A path that must be absolute or plain is not.
    PathInvalid = "path-invalid",
    /// A required path is missing.
    PathMissing = "path-missing",
    /// A file mode written as a decimal number; read as cloud-init reads it.
    PermissionsDecimal = "permissions-decimal",
    /// A file mode that is not an octal mode.
    PermissionsInvalid = "permissions-invalid",
    /// phone_home: the post failed.
    PhoneHomeFailed = "phone-home-failed",
    /// phone_home: a value asked for in `post` is unknown.
    PhoneHomeValueMissing = "phone-home-value-missing",
    /// A file in the target could not be read.
    ReadFailed = "read-failed",
    /// SELinux relabelling was skipped.
    RelabelSkipped = "relabel-skipped",
    /// A seed on removable media names a new instance and the image refuses it.
    RemovableSeedRefused = "removable-seed-refused",
    /// A malformed entry in the pending resize list; dropped.
    ResizefsEntry = "resizefs-entry",
    /// Growing a filesystem failed.
    ResizefsFailed = "resizefs-failed",
    /// restorecon failed.
    RestoreconFailed = "restorecon-failed",
    /// A path queued for restorecon is unusable.
    RestoreconPath = "restorecon-path",
    /// The target root could not be opened.
    RootOpen = "root-open",
    /// The run directory could not be made or opened.
    RunDir = "run-dir",
    /// A user script exited with a failure status.
    ScriptFailed = "script-failed",
    /// A secret would have to go on a command line, where the process list shows it; not run.
    SecretRefused = "secret-refused",
    /// A seed lacks a required file (meta-data).
    SeedIncomplete = "seed-incomplete",
    /// A seed volume holds a link where a file must be.
    SeedLink = "seed-link",
    /// A seed URL did not answer.
    SeedUnreachable = "seed-unreachable",
    /// A seed volume could not be read.
    SeedUnreadable = "seed-unreadable",
    /// A module's semaphore could not be read; not run, since it may have run already.
    SemaphoreUnreadable = "semaphore-unreadable",
    /// No IPv6 address was configured by router advertisement.
    SlaacNoAddress = "slaac-no-address",
    /// The authorized_keys of a user could not be written.
    SshAuthkeys = "ssh-authkeys",
    /// A user's `.ssh` or authorized_keys is a symbolic link; not written.
    SshAuthkeysLink = "ssh-authkeys-link",
    /// A user's home directory is not an absolute path.
    SshHomeInvalid = "ssh-home-invalid",
    /// An ssh host key given in the config could not be written.
    SshHostkey = "ssh-hostkey",
    /// ssh-keygen failed.
    SshKeygen = "ssh-keygen",
    /// A host key's public half was not given and cannot be derived.
    SshPubkeyUnderived = "ssh-pubkey-underived",
    /// The default user is not in the target's passwd.
    SshUserMissing = "ssh-user-missing",
    /// sshd_config could not be read or written.
    SshdConfig = "sshd-config",
    /// sshd could not be reloaded to offer host keys made after it started.
    SshdReload = "sshd-reload",
    /// A partition table that does not read as one (bad signature, checksum or bounds).
    TableCorrupt = "table-corrupt",
    /// A partition table or layout ember does not write.
    TableUnsupported = "table-unsupported",
    /// The target root was not found.
    TargetMissing = "target-missing",
    /// A template could not be rendered.
    TemplateError = "template-error",
    /// A template names a variable that is not defined.
    TemplateUndefined = "template-undefined",
    /// A time zone the target does not have.
    TimezoneUnknown = "timezone-unknown",
    /// A module needs a program the target does not have (named in the message).
    ToolMissing = "tool-missing",
    /// The TPM refused or failed a measurement (PCR extend), or did not answer in time.
    TpmFailed = "tpm-failed",
    /// The TPM measurement log (systemd's) could not be written; the PCR was still extended.
    TpmLog = "tpm-log",
    /// `ember.measure: required` and the machine has no TPM to measure into.
    TpmMissing = "tpm-missing",
    /// The uid asked for belongs to another user.
    UidTaken = "uid-taken",
    /// A user-data part of a type ember does not handle; kept unused.
    UnhandledPart = "unhandled-part",
    /// A key no cloud-config module reads (typo?); ignored.
    UnknownKey = "unknown-key",
    /// A value none of the accepted words; left as is.
    UnrecognizedValue = "unrecognized-value",
    /// A key ember reads but whose feature it does not support.
    UnsupportedKey = "unsupported-key",
    /// An `updates` event ember does not support.
    UnsupportedUpdateEvent = "unsupported-update-event",
    /// User-data as the platform gives it cannot be decoded (base64, encoding).
    UserDataInvalid = "user-data-invalid",
    /// The user named does not exist in the target.
    UserMissing = "user-missing",
    /// User-data ignored: the image sets allow_userdata false.
    UserdataDisallowed = "userdata-disallowed",
    /// VMware: guest customization (cloud-init's `imc`) is switched on; ember does not apply it.
    VmwareCustomizationUnsupported = "vmware-customization-unsupported",
    /// Azure: the wireserver did not take the report.
    WireserverFailed = "wireserver-failed",
    /// Azure: the wireserver's goal state lacks an element.
    WireserverGoalState = "wireserver-goal-state",
    /// A file in the target could not be written.
    WriteFailed = "write-failed",
    /// A write outside the target root, or into /proc, /sys or /dev, refused.
    WriteRefused = "write-refused",
    /// A key has the wrong type (a list where a mapping must be, …).
    WrongType = "wrong-type",
    /// XML that does not parse.
    XmlSyntax = "xml-syntax",
    /// YAML that does not parse.
    YamlSyntax = "yaml-syntax",
    /// A YAML value of the wrong type for where it stands, or a scalar that cannot be what its tag says (`!!int abc`, an unknown tag): the top-level key it stands under is left out.
    YamlType = "yaml-type",
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<Reason> for String {
    fn eq(&self, other: &Reason) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<&str> for Reason {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Reason> for str {
    fn eq(&self, other: &Reason) -> bool {
        self == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manual's list, as this file documents it.
    fn rendered() -> String {
        let mut out = String::from("| code | meaning |\n|---|---|\n");
        for r in Reason::ALL {
            out.push_str(&format!("| `{}` | {} |\n", r.as_str(), r.doc().trim()));
        }
        out
    }

    #[test]
    fn names_are_sorted_unique_kebab_case() {
        let names: Vec<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
        let mut sorted = names.clone();
        crate::sort::sort(&mut sorted);
        sorted.dedup();
        assert_eq!(names, sorted);
        for n in names {
            let kebab = n.split('-').all(|w| {
                !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
            assert!(kebab, "{n}");
        }
    }

    #[test]
    fn the_manual_lists_every_reason() {
        let page = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/src/reference/reason-codes.md"
        );
        let readme = std::fs::read_to_string(page).unwrap();
        let (start, end) = ("<!-- reasons:begin -->\n", "<!-- reasons:end -->");
        let listed = readme
            .split_once(start)
            .and_then(|(_, rest)| rest.split_once(end))
            .map(|(list, _)| list);
        let want = rendered();
        assert!(
            listed == Some(want.as_str()),
            "docs/src/reference/reason-codes.md differs from crates/core/src/reason.rs; between the markers put:\n{want}"
        );
    }
}

//! Clouds found by DMI, labels, seed directories, policy and the command line: every case of
//! upstream's table and test methods but the hypervisors' (hypervisors.rs), then rules of
//! `tools/ds-identify` that no upstream test reaches. Where an upstream case runs on a BSD
//! (kenv, sysctl, dmidecode, geom) the row is its Linux counterpart: the same fields in the
//! SMBIOS tables with no /sys/class/dmi/id, the same label on a Linux device.

use super::Want::*;
use super::{check, Row, ROW};

const EC2_HVM: &[(&str, &str)] = &[
    ("product_serial", "ec23aef5-54be-4843-8d24-8c819f88453e"),
    ("product_uuid", "EC23AEF5-54BE-4843-8D24-8C819F88453E"),
];
const AZURE_TAG: &str = "7783-7084-3265-9085-8269-3286-77";
const XEN: (&str, &str) = ("/sys/hypervisor/type", "xen\n");
const IBM_UUID: (&str, &str) = ("xvdb", "9796-932E");
const PROVISIONING: &str = "/root/provisioningConfiguration.cfg";
const INSTALL_LOG: &str = "/root/swinstall.log";
const BOOT_REF: &str = "/proc/1/environ";
const GCE_ONE_FIELD: &str = "Detection needs two DMI fields to agree";
const EC2_UUID_ALONE: &str = "Detection asks more than cloud-init's `ec2*` UUID glob";
const NOCLOUD_LIST: &str = "datasource_list: [ Azure, OpenStack, NoCloud, None ]\n";

pub const TABLE: &[Row] = &[
    // EC2 and the EC2-compatible clouds.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-hvm] (aws_ec2_hvm)",
        dmi: EC2_HVM,
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-hvm-env] (aws_ec2_hvm_env)",
        dmi: EC2_HVM,
        env: &[("SYSTEMD_VIRTUALIZATION", "vm:kvm")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-hvm-swap-endianness] (aws_ec2_hvm_endian)",
        dmi: &[("product_uuid", "AB232AEC-54BE-4843-8D24-8C819F88453E")],
        want: NotFound,
        differs: Some(EC2_UUID_ALONE),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-xen] (aws_ec2_xen)",
        files: &[
            XEN,
            ("/sys/hypervisor/uuid", "ec2c6e2f-5fac-4fc7-9c82-74127ec14bbb\n"),
        ],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-brightbox] (brightbox_is_ec2)",
        dmi: &[("product_serial", "srv-otuxg.gb1.brightbox.com")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-brightbox-negative] (brightbox_is_not_brightbox)",
        dmi: &[("product_serial", "tricky-host.bobrightbox.com")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-Tilaa] (tilaa_is_ec2)",
        dmi: &[("sys_vendor", "Tilaa")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-ZStack] (zstack_is_ec2)",
        dmi: &[("chassis_asset_tag", "123456.zstack.io")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-E24Cloud] (e24cloud_is_ec2)",
        dmi: &[("sys_vendor", "e24cloud")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-E24Cloud-negative] (e24cloud_not_active)",
        dmi: &[("sys_vendor", "e24cloudyday")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-Outscale] (outscale_is_ec2)",
        dmi: &[
            ("product_name", "3DS Outscale VM"),
            ("sys_vendor", "3DS Outscale"),
        ],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-Outscale-negative-sysvendor] (outscale_not_active_sysvendor)",
        dmi: &[
            ("product_name", "3DS Outscale VM"),
            ("sys_vendor", "Not 3DS Outscale"),
        ],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-Outscale-negative-productname] (outscale_not_active_productname)",
        dmi: &[
            ("product_name", "Not 3DS Outscale VM"),
            ("sys_vendor", "3DS Outscale"),
        ],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::ec2_identify_platform (a product_uuid of ec2… alone, which Hetzner and Hyper-V can show: cloud-init issues 6880, 6987)",
        dmi: &[
            ("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF"),
            ("sys_vendor", "Hetzner"),
        ],
        want: Found("hetzner"),
        differs: Some(EC2_UUID_ALONE),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::ec2_identify_platform (a byte-swapped ec2 product_uuid alone on Hyper-V)",
        dmi: &[
            ("product_uuid", "45E12AEC-DCD1-B213-94ED-012345ABCDEF"),
            ("sys_vendor", "Microsoft Corporation"),
        ],
        want: NotFound,
        differs: Some(EC2_UUID_ALONE),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::ec2_identify_platform (a Xen guest id not starting with ec2)",
        files: &[
            XEN,
            ("/sys/hypervisor/uuid", "5a2c6e2f-5fac-4fc7-9c82-74127ec14bbb\n"),
        ],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Ec2 (strict_id false on the command line: only a maybe, and maybe=none)",
        dmi: &[("product_uuid", "12345678-DCD1-B213-94ED-012345ABCDEF")],
        cmdline: "ci.datasource.ec2.strict_id=false",
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_aliyun_over_ec2 (AliYun alone)",
        dmi: &[("product_name", "Alibaba Cloud ECS")],
        want: Found("aliyun"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_aliyun_over_ec2 (Ec2-xen with AliYun's product name, found=first)",
        dmi: &[("product_name", "Alibaba Cloud ECS")],
        files: &[
            XEN,
            ("/sys/hypervisor/uuid", "ec2c6e2f-5fac-4fc7-9c82-74127ec14bbb\n"),
            (
                "/etc/cloud/ds-identify.cfg",
                "policy: search,found=first,maybe=none,notfound=disabled\n",
            ),
        ],
        want: Found("aliyun"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[AliYun] (aliyun_found_by_product_id)",
        dmi: &[("product_name", "Alibaba Cloud ECS")],
        want: Found("aliyun"),
        ..ROW
    },
    // Azure.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Azure-dmi-detection] (azure_dmi_detection_from_chassis_asset_tag)",
        dmi: &[("chassis_asset_tag", AZURE_TAG)],
        want: Found("azure"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Azure-seed-detection] (azure_seed_file_detection)",
        dmi: &[("chassis_asset_tag", "No-match")],
        files: &[("/var/lib/cloud/seed/azure/ovf-env.xml", "present\n")],
        want: Found("azure"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Azure-parse-invalid] (azure_invalid_configuration: a block list, which ds-identify skips and ember reads)",
        dmi: &[("chassis_asset_tag", AZURE_TAG)],
        files: &[(
            "/etc/cloud/cloud.cfg.d/91-azure_datasource.cfg",
            "datasource_list:\n   - Azure",
        )],
        want: Found("azure"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_wb_print_variables (Azure-dmi-detection; ember prints its own facts)",
        dmi: &[("chassis_asset_tag", AZURE_TAG)],
        want: Found("azure"),
        ..ROW
    },
    // GCE.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[GCE] (gce_by_product_name)",
        dmi: &[("product_name", "Google Compute Engine")],
        want: NotFound,
        differs: Some(GCE_ONE_FIELD),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[GCE_ENV] (gce_by_product_name_env)",
        dmi: &[("product_name", "Google Compute Engine")],
        env: &[("SYSTEMD_VIRTUALIZATION", "vm:kvm")],
        want: NotFound,
        differs: Some(GCE_ONE_FIELD),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[GCE-serial] (gce_by_serial)",
        dmi: &[("product_serial", "GoogleCloud-8f2e88f")],
        want: NotFound,
        differs: Some(GCE_ONE_FIELD),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_GCE (product name and serial, as GCE shows both)",
        dmi: &[
            ("product_name", "Google Compute Engine"),
            ("product_serial", "GoogleCloud-8f2e88f"),
        ],
        want: Found("gce"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_configured_list_with_none (GCE with datasource_list [Ec2, None])",
        dmi: &[("product_name", "Google Compute Engine")],
        files: &[(
            "/etc/cloud/cloud.cfg.d/myds.cfg",
            "datasource_list: [\"Ec2\", \"None\"]\n",
        )],
        want: Found("ec2"),
        ..ROW
    },
    // OpenStack's metadata service.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack] (default_openstack_intel_is_found)",
        dmi: &[("product_name", "OpenStack Nova")],
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: search,found=all,maybe=none,notfound=disabled\n",
        )],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-OpenTelekom] (openstack_open_telekom_cloud)",
        dmi: &[("chassis_asset_tag", "OpenTelekomCloud")],
        files: &[XEN],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-SAPCCloud] (openstack_sap_ccloud)",
        dmi: &[("chassis_asset_tag", "SAP CCloud VM")],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-SAPCCloud-env] (openstack_sap_ccloud-env)",
        dmi: &[("chassis_asset_tag", "SAP CCloud VM")],
        env: &[("SYSTEMD_VIRTUALIZATION", "vm:vmware")],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-HuaweiCloud] (openstack_huawei_cloud)",
        dmi: &[("chassis_asset_tag", "HUAWEICLOUD")],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-SamsungCloudPlatform] (openstack_samsung_cloud_platform)",
        dmi: &[("chassis_asset_tag", "Samsung Cloud Platform")],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-AssetTag-Nova] (openstack_asset_tag_nova)",
        dmi: &[("chassis_asset_tag", "OpenStack Nova")],
        files: &[XEN],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[OpenStack-AssetTag-Compute] (openstack_asset_tag_compute)",
        dmi: &[("chassis_asset_tag", "OpenStack Compute")],
        files: &[XEN],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_OpenStack (product name OpenStack Compute, RDO's nova)",
        dmi: &[("product_name", "OpenStack Compute")],
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_openstack_on_non_intel_is_maybe (on Intel without a product name)",
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: search,found=all,maybe=none,notfound=disabled\n",
        )],
        want: NotFound,
        ..ROW
    },
    Row {
        // The architecture cannot be set here; on ppc64 ds-identify's maybe is dropped by
        // maybe=none, so the outcome is Intel's.
        upstream: "test_ds_identify.py::TestDsIdentify::test_openstack_on_non_intel_is_maybe (ppc64: a maybe, dropped)",
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: search,found=all,maybe=none,notfound=disabled\n",
        )],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_OpenStack (sys_vendor OpenStack Foundation alone is no sign)",
        dmi: &[("sys_vendor", "OpenStack Foundation")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_OpenStack (a config drive wins over the service)",
        dmi: &[("product_name", "OpenStack Nova")],
        labels: &[("vdb", "iso9660", "config-2")],
        want: Found("configdrive"),
        ..ROW
    },
    // ConfigDrive.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[ConfigDrive] (config_drive)",
        labels: &[("vdb", "vfat", "config-2")],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[ConfigDrive] (config_drive, as an ISO9660 disc)",
        labels: &[("vdb", "iso9660", "config-2")],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[ConfigDriveUpper] (config_drive_upper)",
        labels: &[("vdb", "vfat", "CONFIG-2")],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[ConfigDrive-seed] (config_drive_seed)",
        files: &[(
            "/var/lib/cloud/seed/config_drive/openstack/latest/meta_data.json",
            "md\n",
        )],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::check_configdrive_v2 (a dated version in /config-drive)",
        files: &[(
            "/config-drive/openstack/2015-10-15/meta_data.json",
            "{\"uuid\": \"i-1\"}\n",
        )],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::check_configdrive_v2 (a dated version in the seed directory)",
        files: &[(
            "/var/lib/cloud/seed/config_drive/openstack/2012-08-10/meta_data.json",
            "{\"uuid\": \"i-1\"}\n",
        )],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::check_configdrive_v2 (a seed directory without meta_data.json)",
        files: &[(
            "/var/lib/cloud/seed/config_drive/openstack/latest/user_data",
            "#cloud-config\n",
        )],
        want: NotFound,
        ..ROW
    },
    // IBM Cloud.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[IBMCloud-metadata] (ibmcloud_template_userdata)",
        labels: &[("xvdb", "vfat", "METADATA")],
        files: &[XEN],
        want: Found("ibmcloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[IBMCloud-config-2] (ibmcloud_os_code)",
        labels: &[("xvdb", "vfat", "config-2")],
        vfat_serials: &[IBM_UUID],
        files: &[XEN],
        want: Found("ibmcloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_config_drive_interacts_with_ibmcloud_config_disk (list [ConfigDrive, IBMCloud])",
        labels: &[("xvdb", "vfat", "config-2")],
        vfat_serials: &[IBM_UUID],
        files: &[
            XEN,
            (
                "/etc/cloud/cloud.cfg.d/99_networklayer_common.cfg",
                "datasource_list: [ ConfigDrive, IBMCloud ]\n",
            ),
        ],
        want: Found("ibmcloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_config_drive_interacts_with_ibmcloud_config_disk (list [ConfigDrive, NoCloud])",
        labels: &[("xvdb", "vfat", "config-2")],
        vfat_serials: &[IBM_UUID],
        files: &[
            XEN,
            (
                "/etc/cloud/cloud.cfg.d/99_networklayer_common.cfg",
                "datasource_list: [ ConfigDrive, NoCloud ]\n",
            ),
        ],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ibmcloud_template_userdata_in_provisioning",
        labels: &[("xvdb", "vfat", "METADATA")],
        files: &[XEN, (PROVISIONING, "key=value\n")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ibmcloud_template_no_userdata_in_provisioning",
        files: &[XEN, (PROVISIONING, "key=value\n")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ibmcloud_template_no_userdata (IBMCloud-nodisks)",
        labels: &[("xvda2", "ext", "cloudimg-rootfs")],
        files: &[XEN],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ibmcloud_os_code_different_uuid",
        labels: &[("xvdb", "vfat", "config-2")],
        vfat_serials: &[("xvdb", "DEAD-BEEF")],
        files: &[XEN],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ibmcloud_with_nocloud_seed",
        labels: &[("xvdb", "vfat", "config-2")],
        vfat_serials: &[IBM_UUID],
        files: &[
            XEN,
            ("/var/lib/cloud/seed/nocloud/user-data", "ud\n"),
            ("/var/lib/cloud/seed/nocloud/meta-data", "md\n"),
        ],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_ibmcloud_with_configdrive_seed",
        labels: &[("xvdb", "vfat", "config-2")],
        vfat_serials: &[IBM_UUID],
        files: &[
            XEN,
            (
                "/var/lib/cloud/seed/config_drive/openstack/latest/meta_data.json",
                "md\n",
            ),
        ],
        want: Found("configdrive"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestIsIBMProvisioning::test_no_config (IBMCloud-metadata: not provisioning)",
        labels: &[("xvdb", "vfat", "METADATA")],
        files: &[XEN, (BOOT_REF, "PWD=/")],
        want: Found("ibmcloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestIsIBMProvisioning::test_config_only (provisioning)",
        labels: &[("xvdb", "vfat", "METADATA")],
        files: &[XEN, (BOOT_REF, "PWD=/"), (PROVISIONING, "key=value")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestIsIBMProvisioning::test_config_with_old_log (a log from an earlier boot)",
        labels: &[("xvdb", "vfat", "METADATA")],
        files: &[
            XEN,
            (BOOT_REF, "PWD=/"),
            (PROVISIONING, "key=value\nkey2=val2\n"),
            (INSTALL_LOG, "log data\n"),
        ],
        mtimes: &[(BOOT_REF, 0), (PROVISIONING, -10), (INSTALL_LOG, -30)],
        want: Found("ibmcloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestIsIBMProvisioning::test_config_with_new_log (a log from this boot)",
        labels: &[("xvdb", "vfat", "METADATA")],
        files: &[
            XEN,
            (BOOT_REF, "PWD=/"),
            (PROVISIONING, "key=value\nkey2=val2\n"),
            (INSTALL_LOG, "log data\n"),
        ],
        mtimes: &[(BOOT_REF, 0), (PROVISIONING, -10), (INSTALL_LOG, 30)],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::is_ibm_cloud (a METADATA volume off Xen is not IBM Cloud)",
        labels: &[("xvdb", "vfat", "METADATA")],
        want: NotFound,
        ..ROW
    },
    // NoCloud.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloud] (default_nocloud_as_vdb_iso9660)",
        labels: &[
            ("vda1", "ext", "cloudimg-rootfs"),
            ("vda15", "vfat", "UEFI"),
            ("vdb", "iso9660", "cidata"),
        ],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloudUpper] (nocloud_upper)",
        labels: &[("vdb", "iso9660", "CIDATA")],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloud-fbsd] (freebsd_nocloud: geom's iso9660/cidata, here a Linux disc)",
        labels: &[("vtbd0", "iso9660", "cidata")],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloud-fatboot] (nocloud_fatboot)",
        labels: &[("xvdb", "vfat", "cidata")],
        files: &[XEN],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloud-cfg] (nocloud_seed_in_cfg)",
        files: &[(
            "/etc/cloud/cloud.cfg",
            "datasource_list: [ Azure, OpenStack, NoCloud, None ]\ndatasource:\n  NoCloud:\n    user-data: |\n      #cloud-config\n      hostname: footbar\n    meta-data: |\n      instance_id: cloud-image\n",
        )],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloud-seed] (nocloud_seed)",
        files: &[
            ("/var/lib/cloud/seed/nocloud/user-data", "ud\n"),
            ("/var/lib/cloud/seed/nocloud/meta-data", "md\n"),
        ],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_NoCloud (the nocloud-net seed directory)",
        files: &[
            ("/var/lib/cloud/seed/nocloud-net/user-data", "ud\n"),
            ("/var/lib/cloud/seed/nocloud-net/meta-data", "md\n"),
        ],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NoCloud-seed-ubuntu-core] (nocloud_seed_ubuntu_core_writable)",
        files: &[
            (
                "/writable/system-data/var/lib/cloud/seed/nocloud-net/user-data",
                "ud\n",
            ),
            (
                "/writable/system-data/var/lib/cloud/seed/nocloud-net/meta-data",
                "md\n",
            ),
        ],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::check_writable_seed_dir (Ubuntu Core's nocloud seed)",
        files: &[
            (
                "/writable/system-data/var/lib/cloud/seed/nocloud/user-data",
                "ud\n",
            ),
            (
                "/writable/system-data/var/lib/cloud/seed/nocloud/meta-data",
                "md\n",
            ),
        ],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_nocloud_seedfrom",
        files: &[(
            "/etc/cloud/cloud.cfg.d/test.cfg",
            "datasource_list: [ Azure, OpenStack, NoCloud, None ]\ndatasource:\n  NoCloud:\n    seedfrom: http://0.0.0.0/test\n",
        )],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_nocloud_userdata_and_metadata",
        files: &[(
            "/etc/cloud/cloud.cfg.d/test.cfg",
            "datasource_list: [ Azure, OpenStack, NoCloud, None ]\ndatasource:\n  NoCloud:\n    meta-data: \"\"\n    user-data: |\n      #cloud-config\n      <some-config>\n",
        )],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_NoCloud (ds=nocloud in the SMBIOS serial)",
        dmi: &[("product_serial", "ds=nocloud;s=http://10.0.0.2/")],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_path_env_gets_set_from_main (NoCloud with a foreign PATH: ember runs no program to detect)",
        labels: &[("vdb", "iso9660", "cidata")],
        env: &[("PATH", "/mycust/path")],
        want: Found("nocloud"),
        ..ROW
    },
    // Clouds found by one DMI field, and by their labels.
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Hetzner] (hetzner_found)",
        dmi: &[("sys_vendor", "Hetzner")],
        want: Found("hetzner"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Hetzner-kenv] (bsd_dmi_kenv: FreeBSD's smbios.system.maker, here the SMBIOS tables)",
        dmi: &[("sys_vendor", "Hetzner")],
        dmi_tables: true,
        want: Found("hetzner"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Hetzner-sysctl] (bsd_dmi_sysctl: OpenBSD's hw.vendor, here the SMBIOS tables)",
        dmi: &[("sys_vendor", "Hetzner")],
        dmi_tables: true,
        want: Found("hetzner"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Hetzner-dmidecode] (bsd_dmi_dmidecode: no /sys/class/dmi/id)",
        dmi: &[("sys_vendor", "Hetzner")],
        dmi_tables: true,
        want: Found("hetzner"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NWCS] (nwcs_found)",
        dmi: &[("sys_vendor", "NWCS")],
        want: Found("nwcs"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NWCS-kenv] (FreeBSD's kenv, here the SMBIOS tables)",
        dmi: &[("sys_vendor", "NWCS")],
        dmi_tables: true,
        want: Found("nwcs"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[NWCS-dmidecode] (no /sys/class/dmi/id)",
        dmi: &[("sys_vendor", "NWCS")],
        dmi_tables: true,
        want: Found("nwcs"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[CloudCIX] (cloudcix_found)",
        dmi: &[("product_name", "CloudCIX")],
        want: Found("cloudcix"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Oracle] (oracle_found_by_chassis)",
        dmi: &[("chassis_asset_tag", "OracleCloud.com")],
        want: Found("oracle"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestOracle::test_not_found",
        dmi: &[("chassis_asset_tag", "Not Oracle")],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Akamai] (akamai_found_by_sys_vendor: dmidecode says Linode)",
        dmi: &[("sys_vendor", "Linode")],
        dmi_tables: true,
        want: Found("akamai"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestAkamai::test_found_by_sys_vendor_akamai",
        dmi: &[("sys_vendor", "Akamai")],
        dmi_tables: true,
        want: Found("akamai"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestAkamai::test_not_found",
        dmi: &[("sys_vendor", "Other")],
        dmi_tables: true,
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dmi_decode (Ec2-hvm's serial and UUID from the tables: SMBIOS 2.6's byte order)",
        dmi: EC2_HVM,
        dmi_tables: true,
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dmi_decode (an Outscale VM from the tables: vendor and product)",
        dmi: &[
            ("product_name", "3DS Outscale VM"),
            ("sys_vendor", "3DS Outscale"),
        ],
        dmi_tables: true,
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dmi_decode (Oracle's chassis asset tag from the tables)",
        dmi: &[("chassis_asset_tag", "OracleCloud.com")],
        dmi_tables: true,
        want: Found("oracle"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dmi_decode (no /sys/class/dmi/id and no tables: nothing)",
        dmi_tables: true,
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::get_dmi_field (/sys/class/dmi/id present: no fallback to the tables)",
        dmi: &[("sys_vendor", "Hetzner")],
        files: &[("/sys/firmware/dmi/tables/DMI", "")],
        want: Found("hetzner"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[RbxCloud] (rbx_cloud)",
        labels: &[
            ("vda2", "ext", "cloudimg-rootfs"),
            ("vdb", "vfat", "CLOUDMD"),
        ],
        want: Found("rbxcloud"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[RbxCloudLower] (rbx_cloud_lower)",
        labels: &[("vdb", "vfat", "cloudmd")],
        want: Found("rbxcloud"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_DigitalOcean",
        dmi: &[("sys_vendor", "DigitalOcean")],
        want: Found("digitalocean"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_UpCloud",
        dmi: &[("sys_vendor", "UpCloud")],
        want: Found("upcloud"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Vultr (sys_vendor)",
        dmi: &[("sys_vendor", "Vultr")],
        want: Found("vultr"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Scaleway (sys_vendor)",
        dmi: &[("sys_vendor", "Scaleway")],
        want: Found("scaleway"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Vultr (vultr on the command line)",
        cmdline: "vultr",
        want: Found("vultr"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Vultr (the file /etc/vultr)",
        files: &[("/etc/vultr", "")],
        want: Found("vultr"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Scaleway (scaleway on the command line)",
        cmdline: "scaleway",
        want: Found("scaleway"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_OpenNebula (a CDROM volume, here without context.sh)",
        labels: &[("sr0", "iso9660", "CDROM")],
        want: NotFound,
        differs: Some("counts only when it holds `context.sh`"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_CloudSigma",
        dmi: &[("product_name", "CloudSigma")],
        want: Found("cloudsigma"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_CloudStack (product name CloudStack*)",
        dmi: &[("product_name", "CloudStack KVM Hypervisor")],
        want: Found("cloudstack"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Exoscale (product name Exoscale*)",
        dmi: &[("product_name", "Exoscale Compute Platform")],
        want: Found("exoscale"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_OpenNebula (a CONTEXT volume)",
        labels: &[("sr0", "iso9660", "CONTEXT")],
        want: Found("opennebula"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::dscheck_Bigstep (the seed url file)",
        files: &[("/var/lib/cloud/data/seed/bigstep/url", "http://10.0.0.1/md\n")],
        want: Found("bigstep"),
        ..ROW
    },
    // datasource_list as the image writes it (upstream's flow sequences are hypervisors.rs's
    // rows: they run on its LXD machine).
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_single_entry_defines_datasource (Ec2-hvm with datasource_list [NoCloud])",
        dmi: EC2_HVM,
        files: &[(
            "/etc/cloud/cloud.cfg.d/myds.cfg",
            "datasource_list: [\"NoCloud\"]\n",
        )],
        want: NotFound,
        differs: Some("named alone in `datasource_list` without a seed"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::_main (a single network datasource in datasource_list is used as it is)",
        files: &[("/etc/cloud/cloud.cfg.d/myds.cfg", "datasource_list: [ Ec2 ]\n")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::found (None in the list, nothing before it found)",
        files: &[("/etc/cloud/cloud.cfg", NOCLOUD_LIST)],
        want: Found("none"),
        ..ROW
    },
    // Policy: ds-identify.cfg and ci.di.policy=.
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_policy_disabled (the built-in policy disabled, here from the command line)",
        dmi: EC2_HVM,
        cmdline: "ci.di.policy=disabled",
        want: Disabled,
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::TestDsIdentify::test_policy_config_disable_overrides_builtin",
        dmi: EC2_HVM,
        files: &[("/etc/cloud/ds-identify.cfg", "policy: disabled\n")],
        want: Disabled,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::_read_config (a quoted value and a comment)",
        dmi: EC2_HVM,
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "# set by the image\npolicy: \"disabled\"  # no cloud-init here\n",
        )],
        want: Disabled,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::read_config (ci.di.policy= replaces the file's policy)",
        dmi: EC2_HVM,
        cmdline: "ci.di.policy=search",
        files: &[("/etc/cloud/ds-identify.cfg", "policy: disabled\n")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::read_config (ci.di.policy=disabled over a searching file)",
        dmi: EC2_HVM,
        cmdline: "ci.di.policy=disabled,found=all",
        files: &[("/etc/cloud/ds-identify.cfg", "policy: search\n")],
        want: Disabled,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::parse_policy (enabled: cloud-init runs and searches itself)",
        dmi: EC2_HVM,
        files: &[("/etc/cloud/ds-identify.cfg", "policy: enabled\n")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::parse_policy (report: a dry run that does not switch cloud-init off)",
        dmi: EC2_HVM,
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: report,notfound=disabled\n",
        )],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::parse_policy (found=first: the first found)",
        dmi: &[("product_name", "OpenStack Nova")],
        labels: &[("vdb", "iso9660", "cidata")],
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: search,found=first,maybe=none,notfound=disabled\n",
        )],
        want: Found("nocloud"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::parse_policy (bad values keep the defaults: still a search)",
        dmi: EC2_HVM,
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: search,found=many,maybe=some,notfound=never\n",
        )],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::_main (search, notfound=enabled, nothing found)",
        files: &[(
            "/etc/cloud/ds-identify.cfg",
            "policy: search,notfound=enabled\n",
        )],
        want: NotFound,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::read_config (the file's datasource: names one, as ds= does)",
        files: &[("/etc/cloud/ds-identify.cfg", "datasource: Ec2\n")],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::read_config (ds= on the command line wins over the file's datasource:)",
        cmdline: "ds=GCE",
        files: &[("/etc/cloud/ds-identify.cfg", "datasource: Ec2\n")],
        want: Found("gce"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::read_config (ci.ds= names the datasource)",
        cmdline: "ci.ds=Ec2",
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::read_config (ci.datasource= names the datasource)",
        cmdline: "ci.datasource=OpenStack",
        want: Found("openstack"),
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::is_disabled (cloud-init=disabled on the command line)",
        dmi: EC2_HVM,
        cmdline: "cloud-init=disabled",
        want: Disabled,
        ..ROW
    },
    Row {
        upstream: "tools/ds-identify::is_disabled (the marker file /etc/cloud/cloud-init.disabled)",
        dmi: EC2_HVM,
        files: &[("/etc/cloud/cloud-init.disabled", "")],
        want: Disabled,
        ..ROW
    },
];

#[test]
fn clouds_agree_with_ds_identify() {
    check(TABLE);
}

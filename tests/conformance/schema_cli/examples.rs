//! The module docs' examples (`doc/module-docs/cc_*/example*.yaml`), each of which
//! cloud-init's `test_schema.py::TestCloudConfigExamples` holds valid. Each is written here as
//! the JSON its YAML loads to (comments dropped); `jinja` marks the two templates, rendered over
//! instance data that has `v1.instance_id`. write_files' third example (a `!!binary` content)
//! is in `cases.rs`, since JSON cannot hold bytes.

/// `(module/exampleN, is a Jinja template, the config)`.
pub static EXAMPLES: &[(&str, bool, &str)] = &[
    (
        "cc_ansible/example1",
        false,
        r###"{"ansible": {"package_name": "ansible-core", "install_method": "distro", "pull": [{"url": "https://github.com/holmanb/vmboot.git", "playbook_names": ["ubuntu.yml"]}]}}"###,
    ),
    (
        "cc_ansible/example2",
        false,
        r###"{"ansible": {"package_name": "ansible-core", "install_method": "pip", "pull": [{"url": "https://github.com/holmanb/vmboot.git", "playbook_names": ["ubuntu.yml", "watermark.yml"]}]}}"###,
    ),
    (
        "cc_apk_configure/example1",
        false,
        r###"{"apk_repos": {"preserve_repositories": true}}"###,
    ),
    (
        "cc_apk_configure/example2",
        false,
        r###"{"apk_repos": {"alpine_repo": {"community_enabled": true, "version": "v3.12"}}}"###,
    ),
    (
        "cc_apk_configure/example3",
        false,
        r###"{"apk_repos": {"alpine_repo": {"base_url": "https://some-alpine-mirror/alpine", "community_enabled": true, "testing_enabled": true, "version": "edge"}, "local_repo_base_url": "https://my-local-server/local-alpine"}}"###,
    ),
    (
        "cc_apt_configure/example1",
        false,
        r###"{"apt": {"preserve_sources_list": false, "disable_suites": ["$RELEASE-updates", "backports", "$RELEASE", "mysuite"], "primary": [{"arches": ["amd64", "i386", "default"], "uri": "http://us.archive.ubuntu.com/ubuntu", "search": ["http://cool.but-sometimes-unreachable.com/ubuntu", "http://us.archive.ubuntu.com/ubuntu"], "search_dns": false}, {"arches": ["s390x", "arm64"], "uri": "http://archive-to-use-for-arm64.example.com/ubuntu"}], "security": [{"arches": ["default"], "search_dns": true}], "sources_list": "deb $MIRROR $RELEASE main restricted\ndeb-src $MIRROR $RELEASE main restricted\ndeb $PRIMARY $RELEASE universe restricted\ndeb $SECURITY $RELEASE-security multiverse\n", "debconf_selections": {"set1": "the-package the-package/some-flag boolean true"}, "conf": "APT {\n    Get {\n        Assume-Yes 'true';\n        Fix-Broken 'true';\n    }\n}\n", "proxy": "http://[[user][:pass]@]host[:port]/", "http_proxy": "http://[[user][:pass]@]host[:port]/", "ftp_proxy": "ftp://[[user][:pass]@]host[:port]/", "https_proxy": "https://[[user][:pass]@]host[:port]/", "sources": {"source1": {"keyid": "keyid", "keyserver": "keyserverurl", "source": "deb [signed-by=$KEY_FILE] http://<url>/ bionic main"}, "source2": {"source": "ppa:<ppa-name>"}, "source3": {"source": "deb $MIRROR $RELEASE multiverse", "key": "------BEGIN PGP PUBLIC KEY BLOCK-------\n<key data>\n------END PGP PUBLIC KEY BLOCK-------\n"}, "source4": {"source": "deb $MIRROR $RELEASE multiverse", "append": false, "key": "------BEGIN PGP PUBLIC KEY BLOCK-------\n<key data>\n------END PGP PUBLIC KEY BLOCK-------\n"}}}}"###,
    ),
    (
        "cc_apt_configure/example2",
        false,
        r###"{"apt": {"sources_list": "Types: deb\nURIs: http://archive.ubuntu.com/ubuntu/\nSuites: $RELEASE\nComponents: main\n"}}"###,
    ),
    (
        "cc_apt_pipelining/example1",
        false,
        r###"{"apt_pipelining": false}"###,
    ),
    (
        "cc_apt_pipelining/example2",
        false,
        r###"{"apt_pipelining": "os"}"###,
    ),
    (
        "cc_apt_pipelining/example3",
        false,
        r###"{"apt_pipelining": 3}"###,
    ),
    (
        "cc_bootcmd/example1",
        false,
        r###"{"bootcmd": ["echo 192.168.1.130 us.archive.ubuntu.com > /etc/hosts", ["cloud-init-per", "once", "mymkfs", "mkfs", "/dev/vdb"]]}"###,
    ),
    (
        "cc_byobu/example1",
        false,
        r###"{"byobu_by_default": "enable-user"}"###,
    ),
    (
        "cc_byobu/example2",
        false,
        r###"{"byobu_by_default": "disable-system"}"###,
    ),
    (
        "cc_ca_certs/example1",
        false,
        r###"{"ca_certs": {"remove_defaults": true, "trusted": ["single_line_cert", "-----BEGIN CERTIFICATE-----\nYOUR-ORGS-TRUSTED-CA-CERT-HERE\n-----END CERTIFICATE-----\n"]}}"###,
    ),
    (
        "cc_chef/example1",
        false,
        r###"{"chef": {"directories": ["/etc/chef", "/var/log/chef"], "encrypted_data_bag_secret": "/etc/chef/encrypted_data_bag_secret", "environment": "_default", "initial_attributes": {"apache": {"keepalive": false, "prefork": {"maxclients": 100}}}, "install_type": "omnibus", "log_level": ":auto", "omnibus_url_retries": 2, "run_list": ["recipe[apache2]", "role[db]"], "server_url": "https://chef.yourorg.com:4000", "ssl_verify_mode": ":verify_peer", "validation_cert": "system", "validation_name": "yourorg-validator"}}"###,
    ),
    (
        "cc_disable_ec2_metadata/example1",
        false,
        r###"{"disable_ec2_metadata": true}"###,
    ),
    (
        "cc_disk_setup/example1",
        false,
        r###"{"device_aliases": {"my_alias": "/dev/sdb", "swap_disk": "/dev/sdc"}, "disk_setup": {"/dev/sdd": {"layout": true, "overwrite": true, "table_type": "mbr"}, "my_alias": {"layout": [50, 50], "overwrite": true, "table_type": "gpt"}, "swap_disk": {"layout": [[100, 82]], "overwrite": true, "table_type": "gpt"}}, "fs_setup": [{"cmd": "mkfs -t %(filesystem)s -L %(label)s %(device)s", "device": "my_alias.1", "filesystem": "ext4", "label": "fs1"}, {"device": "my_alias.2", "filesystem": "ext4", "label": "fs2"}, {"device": "swap_disk.1", "filesystem": "swap", "label": "swap"}, {"device": "/dev/sdd1", "filesystem": "ext4", "label": "fs3"}], "mounts": [["my_alias.1", "/mnt1"], ["my_alias.2", "/mnt2"], ["swap_disk.1", "none", "swap", "sw", "0", "0"], ["/dev/sdd1", "/mnt3"]]}"###,
    ),
    (
        "cc_fan/example1",
        false,
        r###"{"fan": {"config": "# fan 240\n10.0.0.0/8 eth0/16 dhcp\n10.0.0.0/8 eth1/16 dhcp off\n# fan 241\n241.0.0.0/8 eth0/16 dhcp\n", "config_path": "/etc/network/fan"}}"###,
    ),
    (
        "cc_final_message/example1",
        false,
        r###"{"final_message": "cloud-init has finished\nversion: $version\ntimestamp: $timestamp\ndatasource: $datasource\nuptime: $uptime\n"}"###,
    ),
    (
        "cc_growpart/example1",
        false,
        r###"{"growpart": {"devices": ["/"], "ignore_growroot_disabled": false, "mode": "auto"}}"###,
    ),
    (
        "cc_growpart/example2",
        false,
        r###"{"growpart": {"devices": ["/", "/dev/vdb1"], "ignore_growroot_disabled": true, "mode": "growpart"}}"###,
    ),
    (
        "cc_grub_dpkg/example1",
        false,
        r###"{"grub_dpkg": {"enabled": true, "grub-pc/install_devices": "/dev/sda", "grub-pc/install_devices_empty": false, "grub-efi/install_devices": "/dev/sda"}}"###,
    ),
    (
        "cc_install_hotplug/example1",
        false,
        r###"{"updates": {"network": {"when": ["hotplug"]}}}"###,
    ),
    (
        "cc_install_hotplug/example2",
        false,
        r###"{"updates": {"network": {"when": ["boot", "hotplug"]}}}"###,
    ),
    (
        "cc_keyboard/example1",
        false,
        r###"{"keyboard": {"layout": "us"}}"###,
    ),
    (
        "cc_keyboard/example2",
        false,
        r###"{"keyboard": {"layout": "de", "model": "pc105", "variant": "nodeadkeys", "options": "compose:rwin"}}"###,
    ),
    (
        "cc_keyboard/example3",
        false,
        r###"{"keyboard": {"layout": "gb", "variant": "gb-extd"}}"###,
    ),
    (
        "cc_keys_to_console/example1",
        false,
        r###"{"ssh": {"emit_keys_to_console": false}}"###,
    ),
    (
        "cc_keys_to_console/example2",
        false,
        r###"{"ssh_key_console_blacklist": ["rsa"]}"###,
    ),
    (
        "cc_keys_to_console/example3",
        false,
        r###"{"ssh_fp_console_blacklist": ["E25451E0221B5773DEBFF178ECDACB160995AA89", "FE76292D55E8B28EE6DB2B34B2D8A784F8C0AAB0"]}"###,
    ),
    (
        "cc_landscape/example1",
        false,
        r###"{"landscape": {"client": {"url": "https://landscape.canonical.com/message-system", "ping_url": "http://landscape.canonical.com/ping", "data_path": "/var/lib/landscape/client", "http_proxy": "http://my.proxy.com/foobar", "https_proxy": "https://my.proxy.com/foobar", "tags": "server,cloud", "computer_title": "footitle", "registration_key": "fookey", "account_name": "fooaccount"}}}"###,
    ),
    (
        "cc_landscape/example2",
        false,
        r###"{"landscape": {"client": {"computer_title": "kiosk 1", "account_name": "Joe's Biz"}}}"###,
    ),
    (
        "cc_landscape/example3",
        false,
        r###"{"apt": {"sources": {"trunk-testing-ppa": {"source": "ppa:landscape/self-hosted-beta"}}}, "landscape": {"client": {"account_name": "myaccount", "computer_title": "himom"}}}"###,
    ),
    ("cc_locale/example1", false, r###"{"locale": "ar_AE"}"###),
    (
        "cc_locale/example2",
        false,
        r###"{"locale": "fr_CA", "locale_configfile": "/etc/alternate_path/locale"}"###,
    ),
    ("cc_locale/example3", false, r###"{"locale": false}"###),
    (
        "cc_lxd/example1",
        false,
        r###"{"lxd": {"init": {"storage_backend": "dir"}}}"###,
    ),
    (
        "cc_lxd/example2",
        false,
        r###"{"lxd": {"init": {"network_address": "0.0.0.0", "network_port": 8443, "storage_backend": "zfs", "storage_pool": "datapool", "storage_create_loop": 10}, "bridge": {"mode": "new", "mtu": 1500, "name": "lxdbr0", "ipv4_address": "10.0.8.1", "ipv4_netmask": 24, "ipv4_dhcp_first": "10.0.8.2", "ipv4_dhcp_last": "10.0.8.3", "ipv4_dhcp_leases": 250, "ipv4_nat": true, "ipv6_address": "fd98:9e0:3744::1", "ipv6_netmask": 64, "ipv6_nat": true, "domain": "lxd"}}}"###,
    ),
    (
        "cc_lxd/example3",
        false,
        r###"{"lxd": {"preseed": "config:\n  core.https_address: 192.168.1.1:9999\nnetworks:\n  - config:\n      ipv4.address: 10.42.42.1/24\n      ipv4.nat: true\n      ipv6.address: fd42:4242:4242:4242::1/64\n      ipv6.nat: true\n    description: \"\"\n    name: lxdbr0\n    type: bridge\n    project: default\nstorage_pools:\n  - config:\n      size: 5GiB\n      source: /var/snap/lxd/common/lxd/disks/default.img\n    description: \"\"\n    name: default\n    driver: zfs\nprofiles:\n  - config: {}\n    description: Default LXD profile\n    devices:\n      eth0:\n        name: eth0\n        network: lxdbr0\n        type: nic\n      root:\n        path: /\n        pool: default\n        type: disk\n    name: default\n  - config: {}\n    security.nesting: true\n    devices:\n      eth0:\n        name: eth0\n        network: lxdbr0\n        type: nic\n      root:\n        path: /\n        pool: default\n        type: disk\n    name: nested\nprojects:\n  - config:\n      features.images: true\n      features.networks: true\n      features.profiles: true\n      features.storage.volumes: true\n    description: Default LXD project\n    name: default\n  - config:\n      features.images: false\n      features.networks: true\n      features.profiles: false\n      features.storage.volumes: false\n    description: Limited Access LXD project\n    name: limited\n"}}"###,
    ),
    (
        "cc_mcollective/example1",
        false,
        r###"{"mcollective": {"conf": {"loglevel": "debug", "plugin.stomp.host": "dbhost", "public-cert": "-------BEGIN CERTIFICATE--------\n<cert data>\n-------END CERTIFICATE--------\n", "private-cert": "-------BEGIN CERTIFICATE--------\n<cert data>\n-------END CERTIFICATE--------\n"}}}"###,
    ),
    (
        "cc_mounts/example1",
        false,
        r###"{"mounts": [["/dev/ephemeral0", "/mnt", "auto", "defaults,noexec"], ["sdc", "/opt/data"], ["xvdh", "/opt/data", "auto", "defaults,nofail", "0", "0"]], "mount_default_fields": ["None", "None", "auto", "defaults,nofail", "0", "2"], "swap": {"filename": "/my/swapfile", "size": "auto", "maxsize": 10485760}}"###,
    ),
    (
        "cc_mounts/example2",
        false,
        r###"{"swap": {"filename": "/swapfile", "size": "2G", "maxsize": "2G"}}"###,
    ),
    (
        "cc_mounts/example3",
        false,
        r###"{"mounts": [["/dev/sr0", "/mnt/Cdrom Drive", "auto", "uid=1000,gid=1000", "0", "0"]]}"###,
    ),
    (
        "cc_ntp/example1",
        false,
        r###"{"ntp": {"enabled": true, "ntp_client": "chrony"}}"###,
    ),
    (
        "cc_ntp/example2",
        false,
        r###"{"ntp": {"enabled": true, "ntp_client": "myntpclient", "config": {"confpath": "/etc/myntpclient/myntpclient.conf", "check_exe": "myntpclientd", "packages": ["myntpclient"], "service_name": "myntpclient", "template": "## template:jinja\n# My NTP Client config\n{% if pools -%}# pools{% endif %}\n{% for pool in pools -%}\npool {{pool}} iburst\n{% endfor %}\n{%- if servers %}# servers\n{% endif %}\n{% for server in servers -%}\nserver {{server}} iburst\n{% endfor %}\n{% if peers -%}# peers{% endif %}\n{% for peer in peers -%}\npeer {{peer}}\n{% endfor %}\n{% if allow -%}# allow{% endif %}\n{% for cidr in allow -%}\nallow {{cidr}}\n{% endfor %}\n"}, "pools": ["0.int.pool.ntp.org", "1.int.pool.ntp.org", "ntp.myorg.org"], "servers": ["ntp.server.local", "ntp.ubuntu.com", "192.168.23.2"], "allow": ["192.168.23.0/32"], "peers": ["km001", "km002"]}}"###,
    ),
    (
        "cc_package_update_upgrade_install/example1",
        false,
        r###"{"package_reboot_if_required": true, "package_update": true, "package_upgrade": true, "packages": ["pwgen", "pastebinit", ["libpython3.8", "3.8.10-0ubuntu1~20.04.2"], {"snap": ["certbot", ["juju", "--edge"], ["lxd", "--channel=5.15/stable"]]}, {"apt": ["mg"]}]}"###,
    ),
    (
        "cc_package_update_upgrade_install/example2",
        false,
        r###"{"package_update": true, "package_upgrade": true, "snap": {"commands": {"0": "snap refresh --hold=forever"}}, "package_reboot_if_required": true}"###,
    ),
    (
        "cc_phone_home/example1",
        true,
        r###"{"phone_home": {"post": "all", "url": "http://example.com/{{ v1.instance_id }}/"}}"###,
    ),
    (
        "cc_phone_home/example2",
        true,
        r###"{"phone_home": {"post": ["pub_key_rsa", "pub_key_ecdsa", "pub_key_ed25519", "instance_id", "hostname", "fqdn"], "tries": 5, "url": "http://example.com/{{ v1.instance_id }}/"}}"###,
    ),
    (
        "cc_power_state_change/example1",
        false,
        r###"{"power_state": {"delay": "now", "mode": "poweroff", "message": "Powering off", "timeout": 2, "condition": true}}"###,
    ),
    (
        "cc_power_state_change/example2",
        false,
        r###"{"power_state": {"delay": 30, "mode": "reboot", "message": "Rebooting machine", "condition": "test -f /var/tmp/reboot_me"}}"###,
    ),
    (
        "cc_puppet/example1",
        false,
        r###"{"puppet": {"install": true, "version": "7.7.0", "install_type": "aio", "collection": "puppet7", "aio_install_url": "https://git.io/JBhoQ", "cleanup": true, "conf_file": "/etc/puppet/puppet.conf", "ssl_dir": "/var/lib/puppet/ssl", "csr_attributes_path": "/etc/puppet/csr_attributes.yaml", "exec": true, "exec_args": ["--test"], "conf": {"agent": {"server": "puppetserver.example.org", "certname": "%i.%f"}, "ca_cert": "-----BEGIN CERTIFICATE-----\nMIICCTCCAXKgAwIBAgIBATANBgkqhkiG9w0BAQUFADANMQswCQYDVQQDDAJjYTAe\nFw0xMDAyMTUxNzI5MjFaFw0xNTAyMTQxNzI5MjFaMA0xCzAJBgNVBAMMAmNhMIGf\nMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQCu7Q40sm47/E1Pf+r8AYb/V/FWGPgc\nb014OmNoX7dgCxTDvps/h8Vw555PdAFsW5+QhsGr31IJNI3kSYprFQcYf7A8tNWu\n1MASW2CfaEiOEi9F1R3R4Qlz4ix+iNoHiUDTjazw/tZwEdxaQXQVLwgTGRwVa+aA\nqbutJKi93MILLwIDAQABo3kwdzA4BglghkgBhvhCAQ0EKxYpUHVwcGV0IFJ1Ynkv\nT3BlblNTTCBHZW5lcmF0ZWQgQ2VydGlmaWNhdGUwDwYDVR0TAQH/BAUwAwEB/zAd\nBgNVHQ4EFgQUu4+jHB+GYE5Vxo+ol1OAhevspjAwCwYDVR0PBAQDAgEGMA0GCSqG\nSIb3DQEBBQUAA4GBAH/rxlUIjwNb3n7TXJcDJ6MMHUlwjr03BDJXKb34Ulndkpaf\n+GAlzPXWa7bO908M9I8RnPfvtKnteLbvgTK+h+zX1XCty+S2EQWk29i2AdoqOTxb\nhppiGMp0tT5Havu4aceCXiy2crVcudj3NFciy8X66SoECemW9UYDCb9T5D0d\n-----END CERTIFICATE-----\n"}, "csr_attributes": {"custom_attributes": {"1.2.840.113549.1.9.7": "342thbjkt82094y0uthhor289jnqthpc2290"}, "extension_requests": {"pp_uuid": "ED803750-E3C7-44F5-BB08-41A04433FE2E", "pp_image_name": "my_ami_image", "pp_preshared_key": "342thbjkt82094y0uthhor289jnqthpc2290"}}}}"###,
    ),
    (
        "cc_puppet/example2",
        false,
        r###"{"puppet": {"install_type": "packages", "package_name": "puppet", "exec": false}}"###,
    ),
    (
        "cc_raspberry_pi/example1",
        false,
        r###"{"rpi": {"interfaces": {"spi": true, "i2c": true}}}"###,
    ),
    (
        "cc_raspberry_pi/example2",
        false,
        r###"{"rpi": {"interfaces": {"serial": true}}}"###,
    ),
    (
        "cc_raspberry_pi/example3",
        false,
        r###"{"rpi": {"interfaces": {"serial": {"console": true, "hardware": false}}}}"###,
    ),
    (
        "cc_raspberry_pi/example4",
        false,
        r###"{"rpi": {"interfaces": {"serial": {"console": false, "hardware": true}}}}"###,
    ),
    (
        "cc_raspberry_pi/example5",
        false,
        r###"{"rpi": {"enable_usb_gadget": true}}"###,
    ),
    (
        "cc_resizefs/example1",
        false,
        r###"{"resize_rootfs": false}"###,
    ),
    (
        "cc_resizefs/example2",
        false,
        r###"{"resize_rootfs": "noblock"}"###,
    ),
    (
        "cc_resolv_conf/example1",
        false,
        r###"{"manage_resolv_conf": true, "resolv_conf": {"domain": "example.com", "nameservers": ["8.8.8.8", "8.8.4.4"], "options": {"rotate": true, "timeout": 1}, "searchdomains": ["foo.example.com", "bar.example.com"], "sortlist": ["10.0.0.1/255", "10.0.0.2"]}}"###,
    ),
    (
        "cc_rh_subscription/example1",
        false,
        r###"{"rh_subscription": {"username": "joe@foo.bar", "password": "1234abcd"}}"###,
    ),
    (
        "cc_rh_subscription/example2",
        false,
        r###"{"rh_subscription": {"activation_key": "foobar", "org": "ABC"}}"###,
    ),
    (
        "cc_rh_subscription/example3",
        false,
        r###"{"rh_subscription": {"activation_key": "foobar", "org": 12345, "auto_attach": true, "service_level": "self-support", "add_pool": ["1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a", "2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b"], "enable_repo": ["repo-id-to-enable", "other-repo-id-to-enable"], "disable_repo": ["repo-id-to-disable", "other-repo-id-to-disable"], "rhsm_baseurl": "http://url", "server_hostname": "foo.bar.com", "release_version": "6Server"}}"###,
    ),
    (
        "cc_rsyslog/example1",
        false,
        r###"{"rsyslog": {"remotes": {"juju": "10.0.4.1", "maas": "192.168.1.1"}, "service_reload_command": "auto"}}"###,
    ),
    (
        "cc_rsyslog/example2",
        false,
        r###"{"rsyslog": {"config_dir": "/opt/etc/rsyslog.d", "config_filename": "99-late-cloud-config.conf", "configs": ["*.* @@192.158.1.1", {"content": "*.*   @@192.0.2.1:10514", "filename": "01-example.conf"}, {"content": "*.*   @@syslogd.example.com\n"}], "remotes": {"juju": "10.0.4.1", "maas": "192.168.1.1"}, "service_reload_command": ["your", "syslog", "restart", "command"]}}"###,
    ),
    (
        "cc_rsyslog/example3",
        false,
        r###"{"rsyslog": {"check_exe": "rsyslogd", "config_dir": "/usr/local/etc/rsyslog.d", "install_rsyslog": true, "packages": ["rsyslogd"]}}"###,
    ),
    (
        "cc_runcmd/example1",
        false,
        r###"{"runcmd": [["ls", "-l", "/"], ["sh", "-xc", "echo $(date) ': hello world!'"], ["sh", "-c", "echo \"=========hello world'=========\""], "ls -l /root"]}"###,
    ),
    (
        "cc_salt_minion/example1",
        false,
        r###"{"salt_minion": {"conf": {"file_client": "local", "fileserver_backend": ["gitfs"], "gitfs_remotes": ["https://github.com/_user_/_repo_.git"], "master": "salt.example.com"}, "config_dir": "/etc/salt", "grains": {"role": ["web"]}, "pkg_name": "salt-minion", "pki_dir": "/etc/salt/pki/minion", "private_key": "------BEGIN PRIVATE KEY------\n<key data>\n------END PRIVATE KEY-------\n", "public_key": "------BEGIN PUBLIC KEY-------\n<key data>\n------END PUBLIC KEY-------\n", "service_name": "salt-minion"}}"###,
    ),
    (
        "cc_scripts_vendor/example1",
        false,
        r###"{"vendor_data": {"enabled": true, "prefix": "/usr/bin/ltrace"}}"###,
    ),
    (
        "cc_scripts_vendor/example2",
        false,
        r###"{"vendor_data": {"enabled": true, "prefix": ["timeout", 30]}}"###,
    ),
    (
        "cc_scripts_vendor/example3",
        false,
        r###"{"vendor_data": {"enabled": false}}"###,
    ),
    (
        "cc_seed_random/example1",
        false,
        r###"{"random_seed": {"command": ["sh", "-c", "dd if=/dev/urandom of=$RANDOM_SEED_FILE"], "command_required": true, "data": "my random string", "encoding": "raw", "file": "/dev/urandom"}}"###,
    ),
    (
        "cc_seed_random/example2",
        false,
        r###"{"random_seed": {"command": ["pollinate", "--server=http://local.pollinate.server"], "command_required": true, "file": "/dev/urandom"}}"###,
    ),
    (
        "cc_set_hostname/example1",
        false,
        r###"{"preserve_hostname": true}"###,
    ),
    (
        "cc_set_hostname/example2",
        false,
        r###"{"hostname": "myhost", "create_hostname_file": true, "fqdn": "myhost.example.com", "prefer_fqdn_over_hostname": true}"###,
    ),
    (
        "cc_set_hostname/example3",
        false,
        r###"{"create_hostname_file": false}"###,
    ),
    (
        "cc_set_passwords/example1",
        false,
        r###"{"password": "password1", "ssh_pwauth": true}"###,
    ),
    (
        "cc_set_passwords/example2",
        false,
        r###"{"chpasswd": {"expire": false, "users": [{"name": "user1", "password": "password1", "type": "text"}, {"name": "user2", "password": "$6$rounds=4096$5DJ8a9WMTEzIo5J4$Yms6imfeBvf3Yfu84mQBerh18l7OR1Wm1BJXZqFSpJ6BVas0AYJqIjP7czkOaAZHZi1kxQ5Y1IhgWN8K9NgxR1"}, {"name": "user3", "type": "RANDOM"}]}, "ssh_pwauth": false}"###,
    ),
    (
        "cc_set_passwords/example3",
        false,
        r###"{"ssh_pwauth": false, "write_files": [{"path": "/etc/ssh/sshd_config.d/70-no-pam-password-auth.conf", "content": "KbdInteractiveAuthentication no", "permissions": "0500"}]}"###,
    ),
    (
        "cc_snap/example1",
        false,
        r###"{"snap": {"assertions": {"0": "signed_assertion_blob_here\n", "2": "signed_assertion_blob_here\n"}, "commands": {"0": "snap create-user --sudoer --known <snap-user>@mydomain.com", "1": "snap install canonical-livepatch", "2": "canonical-livepatch enable <AUTH_TOKEN>"}}}"###,
    ),
    (
        "cc_snap/example2",
        false,
        r###"{"snap": {"commands": {"0": ["install", "vlc"], "1": ["snap", "install", "vlc"], "2": "snap install vlc", "3": "snap install vlc"}}}"###,
    ),
    (
        "cc_snap/example3",
        false,
        r###"{"snap": {"commands": [["install", "vlc"], ["snap", "install", "vlc"], "snap install vlc", "snap install vlc"]}}"###,
    ),
    (
        "cc_snap/example4",
        false,
        r###"{"snap": {"assertions": ["signed_assertion_blob_here", "signed_assertion_blob_here\n"]}}"###,
    ),
    (
        "cc_spacewalk/example1",
        false,
        r###"{"spacewalk": {"activation_key": "<key>", "proxy": "<proxy host>", "server": "<url>"}}"###,
    ),
    (
        "cc_ssh/example1",
        false,
        r###"{"allow_public_ssh_keys": true, "disable_root": true, "disable_root_opts": "no-port-forwarding,no-agent-forwarding,no-X11-forwarding", "ssh_authorized_keys": ["ssh-rsa AAAAB3NzaC1yc2EAAAABIwAAAGEA3FSyQwBI6Z+nCSjUU ...", "ssh-rsa AAAAB3NzaC1yc2EAAAABIwAAAQEA3I7VUf2l5gSn5uavROsc5HRDpZ ..."], "ssh_deletekeys": true, "ssh_genkeytypes": ["rsa", "ecdsa", "ed25519"], "ssh_keys": {"rsa_certificate": "ssh-rsa-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQt ...\n", "rsa_private": "-----BEGIN RSA PRIVATE KEY-----\nMIIBxwIBAAJhAKD0YSHy73nUgysO13XsJmd4fHiFyQ+00R7VVu2iV9Qco\n...\n-----END RSA PRIVATE KEY-----\n", "rsa_public": "ssh-rsa AAAAB3NzaC1yc2EAAAABIwAAAGEAoPRhIfLvedSDKw7Xd ..."}, "ssh_publish_hostkeys": {"blacklist": ["rsa"], "enabled": true}, "ssh_quiet_keygen": true}"###,
    ),
    (
        "cc_ssh_authkey_fingerprints/example1",
        false,
        r###"{"no_ssh_fingerprints": true}"###,
    ),
    (
        "cc_ssh_authkey_fingerprints/example2",
        false,
        r###"{"authkey_hash": "sha512"}"###,
    ),
    (
        "cc_ssh_import_id/example1",
        false,
        r###"{"ssh_import_id": ["user", "gh:user", "lp:user"]}"###,
    ),
    (
        "cc_timezone/example1",
        false,
        r###"{"timezone": "America/New_York"}"###,
    ),
    (
        "cc_ubuntu_autoinstall/example1",
        false,
        r###"{"autoinstall": {"version": 1}}"###,
    ),
    (
        "cc_ubuntu_drivers/example1",
        false,
        r###"{"drivers": {"nvidia": {"license-accepted": true}}}"###,
    ),
    (
        "cc_ubuntu_pro/example1",
        false,
        r###"{"ubuntu_pro": {"token": "<ubuntu_pro_token>"}}"###,
    ),
    (
        "cc_ubuntu_pro/example2",
        false,
        r###"{"ubuntu_pro": {"enable": ["fips", "esm"], "token": "<ubuntu_pro_token>"}}"###,
    ),
    (
        "cc_ubuntu_pro/example3",
        false,
        r###"{"power_state": {"mode": "reboot"}, "ubuntu_pro": {"enable": ["fips"], "token": "<ubuntu_pro_token>"}}"###,
    ),
    (
        "cc_ubuntu_pro/example4",
        false,
        r###"{"ubuntu_pro": {"token": "<ubuntu_pro_token>", "config": {"http_proxy": "http://some-proxy:8088", "https_proxy": "https://some-proxy:8088", "global_apt_https_proxy": "https://some-global-apt-proxy:8088/", "global_apt_http_proxy": "http://some-global-apt-proxy:8088/", "ua_apt_http_proxy": "http://10.0.10.10:3128", "ua_apt_https_proxy": "https://10.0.10.10:3128"}, "enable": ["fips"]}}"###,
    ),
    (
        "cc_ubuntu_pro/example5",
        false,
        r###"{"ubuntu_pro": {"enable": [], "enable_beta": []}}"###,
    ),
    (
        "cc_ubuntu_pro/example6",
        false,
        r###"{"ubuntu_pro": {"enable": ["esm"], "enable_beta": ["realtime-kernel"]}}"###,
    ),
    (
        "cc_ubuntu_pro/example7",
        false,
        r###"{"ubuntu_pro": {"features": {"disable_auto_attach": true}}}"###,
    ),
    (
        "cc_update_etc_hosts/example1",
        false,
        r###"{"manage_etc_hosts": false}"###,
    ),
    (
        "cc_update_etc_hosts/example2",
        false,
        r###"{"manage_etc_hosts": true}"###,
    ),
    (
        "cc_update_etc_hosts/example3",
        false,
        r###"{"manage_etc_hosts": "localhost"}"###,
    ),
    (
        "cc_update_hostname/example1",
        false,
        r###"{"preserve_hostname": false}"###,
    ),
    (
        "cc_update_hostname/example2",
        false,
        r###"{"preserve_hostname": true}"###,
    ),
    (
        "cc_update_hostname/example3",
        false,
        r###"{"preserve_hostname": true}"###,
    ),
    (
        "cc_update_hostname/example4",
        false,
        r###"{"fqdn": "external.fqdn.me", "hostname": "myhost", "prefer_fqdn_over_hostname": true, "create_hostname_file": true}"###,
    ),
    (
        "cc_update_hostname/example5",
        false,
        r###"{"prefer_fqdn_over_hostname": false}"###,
    ),
    (
        "cc_update_hostname/example6",
        false,
        r###"{"create_hostname_file": false}"###,
    ),
    (
        "cc_users_groups/example1",
        false,
        r###"{"users": ["default"]}"###,
    ),
    (
        "cc_users_groups/example2",
        false,
        r###"{"groups": [{"admingroup": ["root", "sys"]}, "cloud-users"]}"###,
    ),
    (
        "cc_users_groups/example3",
        false,
        r###"{"users": [{"name": "newsuper", "lock_passwd": true, "ssh_import_id": ["gh:TheRealFalcon", "lp:falcojr"], "shell": "/bin/bash"}]}"###,
    ),
    (
        "cc_users_groups/example4",
        false,
        r###"{"users": [{"doas": ["permit nopass newsuper", "deny newsuper as root"], "name": "newsuper"}]}"###,
    ),
    (
        "cc_users_groups/example5",
        false,
        r###"{"users": ["default", {"name": "youruser", "selinux_user": "staff_u"}]}"###,
    ),
    (
        "cc_users_groups/example6",
        false,
        r###"{"users": ["default", {"name": "nosshlogins", "ssh_redirect_user": true}]}"###,
    ),
    (
        "cc_users_groups/example7",
        false,
        r###"{"ssh_import_id": ["chad.smith"], "user": {"name": "mynewdefault", "sudo": null}}"###,
    ),
    ("cc_users_groups/example8", false, r###"{"users": []}"###),
    (
        "cc_wireguard/example1",
        false,
        r###"{"wireguard": {"interfaces": [{"name": "wg0", "config_path": "/etc/wireguard/wg0.conf", "content": "[Interface]\nPrivateKey = <private_key>\nAddress = <address>\n[Peer]\nPublicKey = <public_key>\nEndpoint = <endpoint_ip>:<endpoint_ip_port>\nAllowedIPs = <allowedip1>, <allowedip2>, ...\n"}, {"name": "wg1", "config_path": "/etc/wireguard/wg1.conf", "content": "[Interface]\nPrivateKey = <private_key>\nAddress = <address>\n[Peer]\nPublicKey = <public_key>\nEndpoint = <endpoint_ip>:<endpoint_ip_port>\nAllowedIPs = <allowedip1>\n"}], "readinessprobe": ["systemctl restart service", "curl https://webhook.endpoint/example", "nc -zv some-service-fqdn 443"]}}"###,
    ),
    (
        "cc_write_files/example1",
        false,
        r###"{"write_files": [{"encoding": "b64", "content": "CiMgVGhpcyBmaWxlIGNvbnRyb2xzIHRoZSBzdGF0ZSBvZiBTRUxpbnV4...", "owner": "root:root", "path": "/etc/sysconfig/selinux", "permissions": "0644"}]}"###,
    ),
    (
        "cc_write_files/example2",
        false,
        r###"{"write_files": [{"content": "15 * * * * root ship_logs\n", "path": "/etc/crontab", "append": true}]}"###,
    ),
    (
        "cc_write_files/example4",
        false,
        r###"{"write_files": [{"path": "/root/CLOUD_INIT_WAS_HERE"}]}"###,
    ),
    (
        "cc_write_files/example5",
        false,
        r###"{"write_files": [{"path": "/etc/nginx/conf.d/example.com.conf", "content": "server {\n    server_name example.com;\n    listen 80;\n    root /var/www;\n    location / {\n        try_files $uri $uri/ $uri.html =404;\n    }\n}\n", "owner": "nginx:nginx", "permissions": "0640", "defer": true}]}"###,
    ),
    (
        "cc_write_files/example6",
        false,
        r###"{"write_files": [{"source": {"uri": "https://gitlab.example.com/some_ci_job/artifacts/hello", "headers": {"Authorization": "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "User-Agent": "cloud-init on myserver.example.com"}}, "path": "/usr/bin/hello", "permissions": "0755"}]}"###,
    ),
    (
        "cc_yum_add_repo/example1",
        false,
        r###"{"yum_repos": {"my_repo": {"baseurl": "http://blah.org/pub/epel/testing/5/$basearch/"}}, "yum_repo_dir": "/store/custom/yum.repos.d"}"###,
    ),
    (
        "cc_yum_add_repo/example2",
        false,
        r###"{"yum_repos": {"cloud-init-daily": {"name": "Copr repo for cloud-init-dev owned by @cloud-init", "baseurl": "https://download.copr.fedorainfracloud.org/results/@cloud-init/cloud-init-dev/epel-8-$basearch/", "type": "rpm-md", "skip_if_unavailable": true, "gpgcheck": true, "gpgkey": "https://download.copr.fedorainfracloud.org/results/@cloud-init/cloud-init-dev/pubkey.gpg", "enabled_metadata": 1}}}"###,
    ),
    (
        "cc_yum_add_repo/example3",
        false,
        r###"{"yum_repos": {"epel-testing": {"baseurl": "https://download.copr.fedorainfracloud.org/results/@cloud-init/cloud-init-dev/pubkey.gpg", "enabled": false, "failovermethod": "priority", "gpgcheck": true, "gpgkey": "file:///etc/pki/rpm-gpg/RPM-GPG-KEY-EPEL", "name": "Extra Packages for Enterprise Linux 5 - Testing"}}}"###,
    ),
    (
        "cc_yum_add_repo/example4",
        false,
        r###"{"yum_repos": {"my package stream": {"baseurl": "http://blah.org/pub/epel/testing/5/$basearch/", "mirrorlist": "http://some-url-to-list-of-baseurls", "repo_gpgcheck": 1, "enable_gpgcheck": true, "gpgkey": "https://url.to.ascii-armored-gpg-key"}}}"###,
    ),
    (
        "cc_zypper_add_repo/example1",
        false,
        r###"{"zypper": {"config": {"download.use_deltarpm": true, "reposdir": "/etc/zypp/repos.dir", "servicesdir": "/etc/zypp/services.d"}, "repos": [{"autorefresh": 1, "baseurl": "http://dl.opensuse.org/dist/leap/v/repo/oss/", "enabled": 1, "id": "opensuse-oss", "name": "os-oss"}, {"baseurl": "http://dl.opensuse.org/dist/leap/v/update", "id": "opensuse-oss-update", "name": "os-oss-up"}]}}"###,
    ),
];

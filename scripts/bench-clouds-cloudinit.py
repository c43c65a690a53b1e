"""cloud-init's datasource classes against one of ember's metadata emulators, for
scripts/bench-clouds: times `get_data()` (and the `_get_data()` inside it) N times and counts
the requests each run adds to the emulator's log. Prints one JSON object per run.

    /usr/bin/python3 -S bench-clouds-cloudinit.py --dist-packages DIR --platform P --url URL
        --host HOST --log FILE --runs N --instance-id ID --work DIR

Run with Debian's python3 and `-S`, so that the only third-party code on the path is the
cloud-init package tree given (Debian's cloud-init 22.4 and its python3-* dependencies).

What is bypassed, and how (cloud-init's own code otherwise runs unchanged):
- DMI: `cloudinit.dmi.DMI_SYS_PATH` points at the host tree ember reads (HOST/sys/class/dmi/id),
  its container check is off and its dmidecode fallback answers nothing, so both read the same
  DMI fields and neither this machine's.
- The ephemeral network: the network-stage classes (DataSourceEc2, DataSourceGCE,
  DataSourceOpenStack: `perform_dhcp_setup = False`) and DigitalOcean's `use_ip4LL: false`,
  as cloud-init runs them once the network is up; the emulator is on loopback.
- The metadata address: each class's documented setting (`metadata_urls`, `metadata_url`).
- Name lookups: `util.is_resolvable` first resolves three names that must not exist to detect
  DNS redirection; here every lookup other than a loopback literal fails at once, without a
  query, and every connection off loopback is refused: nothing leaves the machine.
- OpenStack: 22.4's MetadataReader reads EC2-style metadata from http://169.254.169.254
  whatever `metadata_urls` says; that read is replaced by an empty result (the Nova emulator
  has no EC2 tree, and the real address is off loopback), so its requests are not counted.
- Logging: cloud-init's logging is not set up (no log file), which spares it the writes it
  does on a real boot.
"""
import argparse
import errno
import json
import os
import shutil
import socket
import sys
import time

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def guard_network():
    """No name lookups and no connections except to loopback."""
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect

    def getaddrinfo(host, *args, **kwargs):
        if host not in LOOPBACK:
            raise socket.gaierror(socket.EAI_NONAME, f"bench-clouds: no lookup of {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOOPBACK:
            raise OSError(errno.ENETUNREACH, f"bench-clouds: {address[0]} is off loopback")
        return real_connect(self, address)

    socket.getaddrinfo = getaddrinfo
    socket.socket.connect = connect


def log_lines(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def settled_count(path):
    """The log's line count once the emulator's writer (every 2 ms) has caught up."""
    time.sleep(0.03)
    return log_lines(path)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("dist-packages", "platform", "url", "host", "log", "instance-id", "work"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--runs", type=int, required=True)
    a = ap.parse_args()
    sys.path.insert(0, a.dist_packages)
    guard_network()

    from cloudinit import distros, dmi, helpers, settings, util
    from cloudinit.sources import (DataSourceDigitalOcean, DataSourceEc2, DataSourceGCE,
                                   DataSourceOpenStack)
    from cloudinit.sources.helpers import openstack

    dmi.DMI_SYS_PATH = os.path.join(a.host, "sys/class/dmi/id")
    dmi.is_container = lambda: False
    dmi._call_dmidecode = lambda *_args: None
    openstack.MetadataReader._read_ec2_metadata = lambda self: {}

    classes = {
        "ec2": (DataSourceEc2.DataSourceEc2, "Ec2", {"metadata_urls": [a.url]}),
        "gce": (DataSourceGCE.DataSourceGCE, "GCE",
                {"metadata_url": a.url + "/computeMetadata/v1/"}),
        "digitalocean": (DataSourceDigitalOcean.DataSourceDigitalOcean, "DigitalOcean",
                         {"metadata_url": a.url + "/metadata/v1.json", "use_ip4LL": False}),
        "openstack": (DataSourceOpenStack.DataSourceOpenStack, "OpenStack",
                      {"metadata_urls": [a.url]}),
    }
    cls, name, ds_cfg = classes[a.platform]
    # The same default user as ember's target (GCE hands keys to it).
    sys_cfg = util.mergemanydict([
        {
            "datasource_list": [name, "None"],
            "datasource": {name: ds_cfg},
            "system_info": {"default_user": {"name": "admin"}},
            "users": ["default"],
        },
        settings.CFG_BUILTIN,
    ])
    print(f"cloud-init {util.version.version_string()} from {a.dist_packages}", file=sys.stderr)
    for i in range(1, a.runs + 1):
        top = os.path.join(a.work, f"ci-{a.platform}-{i}")
        paths = helpers.Paths({"cloud_dir": top + "/var/lib/cloud",
                               "run_dir": top + "/run/cloud-init"})
        distro = distros.fetch("debian")("debian", sys_cfg["system_info"], paths)
        ds = cls(sys_cfg, distro, paths)
        inner = {}
        real_get = ds._get_data

        def timed_get_data(real_get=real_get, inner=inner):
            t = time.perf_counter()
            try:
                return real_get()
            finally:
                inner["ms"] = 1000 * (time.perf_counter() - t)

        ds._get_data = timed_get_data
        before = settled_count(a.log)
        t = time.perf_counter()
        found = ds.get_data()
        total_ms = 1000 * (time.perf_counter() - t)
        requests = settled_count(a.log) - before
        got_id = str(ds.get_instance_id()) if found else None
        user_data = ds.userdata_raw or b""
        ok = bool(found) and got_id == a.instance_id and len(user_data) > 0
        print(json.dumps({
            "run": i, "get_data_ms": total_ms, "inner_ms": inner.get("ms"),
            "requests": requests, "ok": ok, "instance_id": got_id,
            "user_data_bytes": len(user_data),
        }), flush=True)
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()

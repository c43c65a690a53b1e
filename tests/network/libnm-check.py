#!/usr/bin/python3
"""libnm's own verdict on NetworkManager files ember writes (run by tests/network/consumers.rs).

A `.nmconnection` FILE is read with libnm's keyfile reader, as NetworkManager's keyfile plugin
reads /etc/NetworkManager/system-connections, then verified. A value the reader warns about
(NetworkManager logs it and drops the value) and what NetworkManager would have to repair while
loading (verify's "normalizable" errors) count as wrong too: ember writes profiles whole. Any other FILE (the conf.d snippet) must parse as the GKeyFile NetworkManager reads.
Prints `FILE: what libnm says` for each bad file and exits 1 when one is bad. `--probe` exits 0
when libnm can be loaded, else prints why and exits 2.
"""

import os
import sys

try:
    import gi

    gi.require_version("NM", "1.0")
    from gi.repository import GLib, NM
except (ImportError, ValueError) as e:
    print(f"libnm cannot be loaded ({e}): apt-get install python3-gi gir1.2-nm-1.0")
    sys.exit(2)


def problem(path):
    """What is wrong with the file at `path`, or None."""
    kf = GLib.KeyFile()
    try:
        kf.load_from_file(path, GLib.KeyFileFlags.NONE)
        if not path.endswith(".nmconnection"):
            return None
        base = os.path.dirname(os.path.abspath(path))
        warnings = []
        conn = NM.keyfile_read(kf, base, NM.KeyfileHandlerFlags.NONE, warned, warnings)
        if warnings:
            return "; ".join(warnings)
        conn.verify()
    except GLib.Error as e:
        return e.message
    return None


def warned(_keyfile, _conn, kind, data, warnings):
    """The reader's handler: keeps its warnings; False goes on reading."""
    if kind == NM.KeyfileHandlerType.WARN:
        w = data.warn_get()
        if w.out_severity == NM.KeyfileWarnSeverity.WARN:
            warnings.append(w.out_message)
    return False


def main(args):
    if args == ["--probe"]:
        return 0
    bad = 0
    for path in args:
        why = problem(path)
        if why is not None:
            bad += 1
            print(f"{path}: {why}")
    return 1 if bad else 0


sys.exit(main(sys.argv[1:]))

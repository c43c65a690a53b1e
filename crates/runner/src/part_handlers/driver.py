# ember's part-handler driver: runs cloud-init user-data part-handlers with the target's
# python3, for `ember init` (crates/runner/src/part_handlers.rs writes this file, 0600, and runs it).
#
#   python3 -B driver.py MANIFEST RESULTS FREQUENCY
#
# MANIFEST (JSON, from ember) lists the handlers and the parts after them, in part order, by
# the data they came from. FREQUENCY is "once-per-instance" on the instance's first run and
# "always" on later boots. For each data source, in order:
#   - a handler is loaded as a module, called with "__begin__", then registered for the types
#     its list_types() returns (a later handler takes a type over);
#   - a part goes to the handler registered for its type;
#   - at the end, each registered handler is called once with "__end__".
# A call happens when the handler's `frequency` (default "once-per-instance") is "always", or
# both it and FREQUENCY are "once-per-instance". handler_version 1 gets (data, ctype,
# filename, payload), 2 adds the frequency, 3 also the part's headers. `data` is None: ember
# has no cloud-init object to give.
#
# RESULTS (JSON, written 0600) says what failed (the call, the exception's type and its line
# in the handler, never its message: that may quote user data), which parts no handler
# claimed, and which types a handler listed that ember handles itself. Exit status 0 unless
# the driver itself could not work (bad arguments or manifest): failures are in RESULTS.

import importlib.machinery
import importlib.util
import json
import os
import sys
import traceback

PER_INSTANCE = "once-per-instance"
ALWAYS = "always"
FREQUENCIES = ("once-per-instance", "always", "once")
HANDLER_TYPE = "text/part-handler"
# What ember itself does with these types is final: parts of them never reach a handler.
BUILTIN = (
    "text/cloud-config",
    "text/cloud-config-jsonp",
    "text/cloud-config-archive",
    "text/cloud-boothook",
    "text/jinja2",
    "text/part-handler",
    "text/x-include-url",
    "text/x-include-once-url",
    "text/x-shellscript",
    "text/x-shellscript-per-boot",
    "text/x-shellscript-per-instance",
    "text/x-shellscript-per-once",
)


class Handler(object):
    def __init__(self, index, module):
        self.index = index
        self.module = module
        version = getattr(module, "handler_version", 1)
        try:
            self.version = int(version)
        except (TypeError, ValueError):
            self.version = 1
        self.frequency = getattr(module, "frequency", PER_INSTANCE)


class Run(object):
    def __init__(self, frequency):
        self.frequency = frequency
        self.failed = []
        self.unclaimed = []
        self.claimed = []
        self.builtin = []
        self.frequency_unknown = []

    def fail(self, index, call, exc, path, part=None):
        line = None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == path:
                line = frame.lineno
        if line is None and isinstance(exc, SyntaxError) and exc.filename == path:
            line = exc.lineno
        self.failed.append(
            {
                "index": index,
                "call": call,
                "part": part,
                "error": type(exc).__name__,
                "line": line,
            }
        )

    def runs(self, handler):
        return handler.frequency == ALWAYS or (
            self.frequency == PER_INSTANCE and handler.frequency == PER_INSTANCE
        )

    def call(self, handler, path, ctype, filename, payload, part=None):
        """One handle_part call, when the frequencies allow it; True unless it raised."""
        if not self.runs(handler):
            return True
        try:
            fn = handler.module.handle_part
            if handler.version == 1:
                fn(None, ctype, filename, payload)
            elif handler.version == 2:
                fn(None, ctype, filename, payload, self.frequency)
            elif handler.version == 3:
                headers = {"Content-Type": ctype}
                fn(None, ctype, filename, payload, self.frequency, headers)
            else:
                raise ValueError("unknown handler_version")
        # A handler's failure is recorded and the others go on (sys.exit included).
        except (Exception, SystemExit) as exc:
            call = "handle_part" if part is not None else ctype
            self.fail(handler.index, call, exc, path, part)
            return False
        return True

    def load(self, index, path):
        name = os.path.splitext(os.path.basename(path))[0]
        directory = os.path.dirname(path)
        if directory not in sys.path:
            sys.path.insert(0, directory)
        # Whatever the file is called: cloud-init's handler files end in .py, ember's too.
        loader = importlib.machinery.SourceFileLoader(name, path)
        spec = importlib.util.spec_from_loader(name, loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return Handler(index, module)

    def walk(self, entries):
        """One data source's entries, as cloud-init walks one user-data."""
        registered = {}  # type -> (Handler, path); insertion order is registration order
        begun = []
        for index, entry in entries:
            path = entry["path"]
            ctype = entry["content_type"]
            if ctype == HANDLER_TYPE:
                try:
                    handler = self.load(index, path)
                except (Exception, SystemExit) as exc:
                    self.fail(index, "load", exc, path)
                    continue
                if handler.frequency not in FREQUENCIES:
                    self.frequency_unknown.append(index)
                self.call(handler, path, "__begin__", None, None)
                try:
                    types = list(handler.module.list_types())
                except (Exception, SystemExit) as exc:
                    self.fail(index, "list_types", exc, path)
                    continue
                for t in types:
                    if not isinstance(t, str):
                        continue
                    if t.lower() in BUILTIN:
                        self.builtin.append([index, t.lower()])
                        continue
                    registered[t] = (handler, path)
                begun.append(handler)
                continue
            found = registered.get(ctype)
            try:
                with open(path, "rb") as f:
                    payload = f.read()
            except OSError as exc:
                self.fail(index, "read", exc, path)
                continue
            if found is None:
                if payload:
                    self.unclaimed.append(index)
                continue
            handler, hpath = found
            if ctype.startswith("text/"):
                payload = payload.decode("utf-8", "surrogateescape")
            self.claimed.append([index, handler.index])
            self.call(handler, hpath, ctype, entry["filename"], payload, part=index)
        ended = []
        for handler, path in registered.values():
            if handler in begun and handler not in ended:
                ended.append(handler)
                self.call(handler, path, "__end__", None, None)


def main(argv):
    if len(argv) != 4 or argv[3] not in (PER_INSTANCE, ALWAYS):
        sys.stderr.write("usage: driver.py MANIFEST RESULTS once-per-instance|always\n")
        return 2
    with open(argv[1]) as f:
        manifest = json.load(f)
    run = Run(argv[3])
    sources = []
    by_source = {}
    for index, entry in enumerate(manifest["entries"]):
        source = entry["source"]
        if source not in by_source:
            by_source[source] = []
            sources.append(source)
        by_source[source].append((index, entry))
    for source in sources:
        run.walk(by_source[source])
    results = {
        "frequency": run.frequency,
        "failed": run.failed,
        "unclaimed": run.unclaimed,
        "claimed": run.claimed,
        "builtin": run.builtin,
        "frequency_unknown": run.frequency_unknown,
    }
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(argv[2], flags, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

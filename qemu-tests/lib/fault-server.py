#!/usr/bin/env python3
"""fault-server.py MODE: a metadata service that fails the way MODE says, on a loopback port
it prints on its first line, until killed. MODE is `5xx` (every request is read and answered
503 Service Unavailable) or `hang` (requests are read and never answered; each connection is
held open). For the boot matrix's fault cells (qemu-tests/lib/faults.sh)."""

import socket
import sys
import threading


def serve(conn, mode):
    with conn:
        conn.settimeout(600)
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            if mode == "5xx":
                body = b"service unavailable\n"
                conn.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                    + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
                    + body
                )
            else:
                while conn.recv(4096):
                    pass
        except OSError:
            pass


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("5xx", "hang"):
        sys.exit("usage: fault-server.py 5xx|hang")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, mode), daemon=True).start()


main()

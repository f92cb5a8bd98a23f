"""A TCP proxy in its own process, for database-fault tests: `python tests/app/tcp_proxy.py
TARGET_HOST TARGET_PORT` listens on a free 127.0.0.1 port, prints it, and forwards every
connection to the target. Stopped with SIGSTOP it is a frozen database host: the kernel still
accepts connections and acknowledges data, but nothing ever answers (the probe's fault)."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


def main(host: str, port: int) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        try:
            upstream = socket.create_connection((host, port))
        except OSError:
            client.close()
            continue
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

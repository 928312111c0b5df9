"""Raw-socket servers on 127.0.0.1 for fault injection the local API server cannot stage.

Each runs in a daemon thread and answers every connection the same way: a canned HTTP answer (a body
that lies about its encoding, a redirect to itself) or nothing at all (a peer that never reads).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


def _read_head(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        part = conn.recv(65536)
        if not part:
            break
        data += part
    return data


@contextlib.contextmanager
def canned_server(answer: bytes, heads: list[bytes] | None = None, host: str = "127.0.0.1") -> Iterator[str]:
    """A server that reads each request head and sends ``answer``, then closes; yields its base URL.

    ``heads`` collects each request head as received (headers included: what was really sent);
    ``host`` may be another loopback address (``127.0.0.2``) to play a second host.
    """
    listener = socket.create_server((host, 0))
    listener.settimeout(0.05)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(5)
            with conn:
                head = _read_head(conn)
                if heads is not None:
                    heads.append(head)
                with contextlib.suppress(OSError):
                    conn.sendall(answer)
                    conn.shutdown(socket.SHUT_WR)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


@contextlib.contextmanager
def deaf_server(connected: threading.Event | None = None) -> Iterator[str]:
    """A server that accepts connections and never reads from them (a write that can never finish).

    ``connected`` is set once a connection is accepted: a test waits on it instead of sleeping and
    hoping the client got that far.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    # small buffers: the client's send blocks after a few hundred KiB, not tens of MiB
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.settimeout(0.05)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            accepted.append(conn)
            if connected is not None:
                connected.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
        for conn in accepted:
            conn.close()


def http_answer(status: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items())]
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

"""The refusing proxy of a run without a sandbox: every proxy variable points at it, it answers 403 and
counts what reached it (``CONNECT host:port``, or a plain request's URL host)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import Counter
from urllib.parse import urlsplit

_BODY = b"autocue: egress is closed during a scenario run\n"
_REPLY = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
          b"Content-Length: %d\r\n\r\n%s" % (len(_BODY), _BODY))
_LOCAL = "127.0.0.1,localhost,::1"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def target(request_line: str) -> str | None:
    """``host:port`` a proxy request line asks for (``CONNECT h:p HTTP/1.1``, ``GET http://h/... HTTP/1.1``)."""
    parts = request_line.split()
    if len(parts) < 2:
        return None
    method, where = parts[0].upper(), parts[1]
    if method == "CONNECT":
        return where
    url = urlsplit(where)
    if url.hostname is None:
        return None
    port = url.port or (443 if url.scheme == "https" else 80)
    host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
    return f"{host}:{port}"


class RefusingProxy:
    """A loopback proxy that refuses every request (a thread; ``close`` stops it)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port: int = self._sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True, name=f"autocue-refusing-proxy:{self.port}").start()

    @property
    def env(self) -> dict[str, str]:
        """Every proxy variable at this proxy; loopback (the mock server) bypasses it."""
        url = f"http://127.0.0.1:{self.port}"
        return {**dict.fromkeys(PROXY_VARS, url), "NO_PROXY": _LOCAL, "no_proxy": _LOCAL}

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            try:
                while b"\n" not in data and len(data) < 8192:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                dest = target(data.split(b"\n", 1)[0].decode("latin-1"))
                if dest is not None:
                    with self._lock:
                        self.counts[dest] += 1
                conn.sendall(_REPLY)
            except OSError:
                return

    def close(self) -> None:
        with contextlib.suppress(OSError):  # shutdown wakes the blocked accept (close alone does not)
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

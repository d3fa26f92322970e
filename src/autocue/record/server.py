"""``RecordingServer``: the recording proxy on a loopback port, in a background thread.

    with RecordingServer(upstream="http://127.0.0.1:8000", out_dir="recordings") as rec:
        client = OpenAI(base_url=rec.openai_base_url, api_key="...")

It binds and configures uvicorn exactly as the mock server does (``bind_socket``,
``uvicorn_config``: ``TCP_NODELAY``, h11, no access log); ``autocue record`` runs the same app
in the foreground.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import uvicorn

from autocue.mockllm.server import serve_in_thread, uvicorn_config
from autocue.mockllm.sockets import bind_socket
from autocue.record.proxy import RecordingProxy, RecordOptions
from autocue.scenario.redact import Redactor


class RecordingServer:
    """``start()`` serves the proxy in a daemon thread; ``stop()`` ends it. Also a context manager."""

    def __init__(self, *, upstream: str, out_dir: str | Path, api: str = "auto", redactor: Redactor | None = None,
                 host: str = "127.0.0.1", port: int = 0, **options: Any) -> None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self.proxy = RecordingProxy(RecordOptions(upstream=upstream, out_dir=out, api=api,
                                                  redactor=redactor or Redactor(), **options))
        self.host = host
        self.port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    @property
    def files(self) -> list[Path]:
        """The scenario files written so far, in the order their sessions started."""
        return [p for p in self.proxy.paths.values() if p.exists()]

    def start(self) -> RecordingServer:
        if self._thread is not None:
            raise RuntimeError("recording proxy already started")
        sock = bind_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        server = self._server = uvicorn.Server(uvicorn_config(self.proxy))

        def serve() -> None:
            try:
                server.run(sockets=[sock])
            finally:
                sock.close()

        try:
            self._thread = serve_in_thread(server, serve, name=f"autocue-record:{self.port}", what="recording proxy")
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._thread = None
        self._server = None

    def __enter__(self) -> RecordingServer:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

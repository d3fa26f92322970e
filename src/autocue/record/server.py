"""``RecordingServer``: the recording proxy on a loopback port, in a background thread.

    with RecordingServer(upstream="http://127.0.0.1:8000", out_dir="recordings") as rec:
        client = OpenAI(base_url=rec.openai_base_url, api_key="...")

It binds and configures uvicorn exactly as the mock server does (a ``LoopbackServer``:
``TCP_NODELAY``, no access log); ``autocue record`` runs the same app in the foreground.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autocue.mockllm.server import LoopbackServer
from autocue.record.proxy import RecordingProxy, RecordOptions
from autocue.scenario.redact import Redactor


class RecordingServer(LoopbackServer):
    """``start()`` serves the proxy in a daemon thread; ``stop()`` ends it. Also a context manager."""

    what = "recording proxy"
    thread_name = "autocue-record"

    def __init__(self, *, upstream: str, out_dir: str | Path, api: str = "auto", redactor: Redactor | None = None,
                 host: str = "127.0.0.1", port: int = 0, **options: Any) -> None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self.proxy = RecordingProxy(RecordOptions(upstream=upstream, out_dir=out, api=api,
                                                  redactor=redactor or Redactor(), **options))
        super().__init__(self.proxy, host, port)

    @property
    def files(self) -> list[Path]:
        """The scenario files written so far, in the order their sessions started."""
        return [p for p in self.proxy.paths.values() if p.exists()]

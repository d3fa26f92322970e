"""Fork a recording at reply N (``autocue replay FILE --from N --upstream URL --out BRANCH``).

``ForkApp`` is one ASGI app in front of two: a mock server (``MockApp``) playing the recording's
first N replies (``truncate``: the file cut after its N-th ``llmResponse``; its ``--match`` mode
applies, so an agent that asks otherwise than it did fails there), and the recording proxy
(``RecordingProxy``) to the live upstream. A client session's model requests go to the mock
until its N replies are played (side calls the mock answers on its own do not count), then to
the proxy. The branch scenario is written at ``out``: the N recorded replies as they were, then
every reply of the upstream appended as the proxy records it (user turns, timings, usage, request
fingerprints, redaction: as ``autocue record``). Other requests (model lists, ...) are the mock's.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl

from autocue.mockllm.app import MockApp, _session_key, _strip_prefixes, create_app
from autocue.mockllm.asgi import Receive, Scope, Send
from autocue.mockllm.options import ServerOptions
from autocue.mockllm.state import MockState
from autocue.record.errors import ForkError as ForkError
from autocue.record.proxy import RecordingProxy, RecordOptions, model_call_api
from autocue.scenario.redact import Redactor
from autocue.scenario.writer import Recording, flow, write_atomic

HEADER = "# recorded by autocue record"
_ITEM = re.compile(r"^  - ", re.MULTILINE)


def truncate(text: str, n: int, name: str, source: str) -> tuple[str, int]:
    """A recording's YAML cut after its ``n``-th reply, renamed ``name``; and how many replies it
    holds in all. A file ``autocue record`` did not write (its header, one item per reply) is refused."""
    if not text.startswith(HEADER):
        raise ForkError(f"{source}: not a recording written by autocue record (no {HEADER!r} header); "
                        "record the run first, then fork it")
    head, sep, body = text.partition("\ntimeline:\n")
    if not sep:
        raise ForkError(f"{source}: the recording has no timeline")
    starts = [m.start() for m in _ITEM.finditer(body)]
    items = [body[a:b] for a, b in zip(starts, [*starts[1:], len(body)], strict=False)]
    replies = [i for i, it in enumerate(items) if it.startswith("  - llmResponse:")]
    if n < 0 or n > len(replies):
        raise ForkError(f"--from {n}: {source} holds {len(replies)} replies; give 0 to {len(replies)}")
    kept = items[:replies[n - 1] + 1] if n else []
    head = re.sub(r"(?m)^name: .*$", f"name: {flow(name)}", head, count=1)
    return head + sep + "".join(kept), len(replies)


class ForkApp:
    """Plays the first replies from a recording, then proxies to the upstream and records the branch."""

    def __init__(self, recording: Path, n: int, upstream: str, out: Path, *, match: str | None = None,
                 redactor: Redactor | None = None) -> None:
        text = recording.read_text(encoding="utf-8")
        self.head, self.total = truncate(text, n, out.stem, str(recording))
        self.n = n
        self.out = out
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, self.head)
        self.state = MockState([], ServerOptions(match=match))
        self.state.add_yaml(self.head, str(out))
        self.mock: MockApp = create_app(self.state)
        self.proxy = RecordingProxy(RecordOptions(upstream=upstream, out_dir=out.parent,
                                                  redactor=redactor or Redactor()))
        self._branched: str | None = None
        """The file key of the session the branch is written for (the first to reach the upstream)."""

    def _played_all(self, key: str) -> bool:
        if self.n == 0:
            return True
        return any(s["key"] == key and s["remaining"] == 0 for s in self.state.session_status())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and model_call_api(scope["method"], scope["path"], "auto") is not None:
            inner = _strip_prefixes(scope) if scope["path"].startswith(("/s/", "/scenario/")) else scope
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in inner["headers"]}
            qs: bytes = inner.get("query_string") or b""
            key = _session_key(inner, headers, dict(parse_qsl(qs.decode("latin-1"))) if qs else {})
            if self._played_all(key):
                self._branch(inner, key)
                await self.proxy(scope, receive, send)
                return
        await self.mock(scope, receive, send)

    def _branch(self, scope: Scope, session_key: str) -> None:
        """The first session to reach the upstream records into ``out``, after the N replies kept."""
        file_key = self.proxy._file_key(scope, session_key)
        if self._branched is not None or file_key in self.proxy.recordings:
            return
        self._branched = file_key
        rec = Recording(self.out.stem, self.proxy.options.redactor, match="strict")
        rec.resume()  # the head and the N replies are in the file: new items are appended
        self.proxy.recordings[file_key] = rec
        self.proxy.paths[file_key] = self.out
        self.proxy._taken.add(self.out)
        self.proxy._written.add(self.out)

    async def aclose(self) -> None:
        await self.proxy.aclose()

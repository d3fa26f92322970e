"""``autocue fuzz-client``: run a client command against fuzzed streams and shrink a failure.

``FuzzClient(cmd, source)`` starts a mock server on ``source`` (default: ``fuzz_script()``,
text with multi-byte and astral characters, then two parallel tool calls with escapes in
their arguments). Each run gets a fresh session behind ``/fuzz/{spec}/s/{session}/``; the
command is a shell command whose ``{base_url}``, ``{openai_base_url}`` and ``{api_key}`` are
replaced, and whose environment has ``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``,
``GOOGLE_GEMINI_BASE_URL``, ``AUTOCUE_BASE_URL`` and the API keys set.

A run fails when the command exits non-zero or prints other output than it does on the
plain (unfuzzed) stream. ``shrink(run)`` turns every fuzz feature off that the failure does
not need, then lowers ``splits`` to the least that still fails (with the failing seed or one
of the next few): the fewest cuts and extra events that break the client.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from autocue.llm.types import TextContent
from autocue.mockllm.server import MockLLMServer
from autocue.mockllm.sources import Source
from autocue.mockllm.wire.fuzz import FEATURES, FuzzSpec
from autocue.process import capture_sync
from autocue.script.model import Script, ScriptedResponse, ScriptedToolCall, Turn

API_KEY = "autocue-fuzz"
SHRINK_SEEDS = 8
"""Seeds tried (from the failing one on) at each lower ``splits`` while shrinking."""


def fuzz_script() -> Script:
    """The default scenario: a reply with text and two parallel calls, then a final answer."""
    return Script([Turn("fuzz the client", [
        ScriptedResponse([TextContent("Héllo wörld — 日本語 😀🎉 \"quoted\" \\ done."),
                          ScriptedToolCall("read", {"path": "dír/ファイル😀.txt", "q": "a\"b\\c\n", "n": 12345}),
                          ScriptedToolCall("bash", {"command": "echo 'ü😀' && printf '%s' \"x\""})]),
        ScriptedResponse([TextContent("Fertig: ✓ 🚀 — 完了.")]),
    ])], name="fuzz")


@dataclass(slots=True)
class Run:
    """One run of the client command."""

    spec: FuzzSpec | None
    code: int
    stdout: str
    stderr: str
    streams: list[bytes] = field(default_factory=list)
    failed: bool = False

    def why(self, plain: str) -> str:
        if self.code != 0:
            last = (self.stderr.strip().splitlines() or [""])[-1]
            return f"exit {self.code}" + (f": {last[:300]}" if last else "")
        got = self.stdout.strip().splitlines()
        want = plain.strip().splitlines()
        for k, (a, b) in enumerate(zip(got, want, strict=False)):
            if a != b:
                return f"output line {k + 1} is {a[:150]!r}, on the plain stream {b[:150]!r}"
        return f"the output has {len(got)} lines, on the plain stream {len(want)}"


class FuzzClient:
    """A client command against a fuzzing mock server (use as a context manager)."""

    def __init__(self, cmd: str, source: Source = (), *, timeout: float = 60.0, cwd: str | Path | None = None) -> None:
        self.cmd = cmd
        self.timeout = timeout
        self.cwd = cwd
        self.server = MockLLMServer(source or fuzz_script())
        self.server.app.fuzz_log = {}
        self.plain: Run | None = None
        self._n = 0

    def __enter__(self) -> FuzzClient:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def run(self, spec: FuzzSpec | None) -> Run:
        """Run the command once against ``spec`` (None: the plain stream)."""
        self._n += 1
        session = f"fuzz-client-{self._n}"
        prefix = (f"/fuzz/{spec.text}" if spec is not None else "") + f"/s/{session}"
        base = self.server.base_url + prefix
        env = dict(os.environ)
        env.update({"OPENAI_BASE_URL": base + "/v1", "ANTHROPIC_BASE_URL": base, "GOOGLE_GEMINI_BASE_URL": base,
                    "AUTOCUE_BASE_URL": base, "OPENAI_API_KEY": API_KEY, "ANTHROPIC_API_KEY": API_KEY,
                    "GEMINI_API_KEY": API_KEY, "AUTOCUE_FUZZ": spec.text if spec is not None else ""})
        cmd = self.cmd.replace("{openai_base_url}", base + "/v1").replace("{base_url}", base)
        cmd = cmd.replace("{api_key}", API_KEY)
        # the process runner: a timeout stops the client's whole group, not only its shell
        p = capture_sync(["/bin/sh", "-c", cmd], env=env, cwd=None if self.cwd is None else str(self.cwd),
                         timeout=self.timeout)
        code, out, err = p.code, p.stdout, p.stderr
        if p.stopped == "timeout":
            code, err = 124, err + f"\ntimed out after {self.timeout:g} s"
        log = self.server.app.fuzz_log
        streams = log.pop(session, []) if log is not None else []
        self.server.reset(session)
        run = Run(spec, code, out, err, streams)
        if self.plain is not None:
            run.failed = code != 0 or out != self.plain.stdout
        return run

    def baseline(self) -> Run:
        """The plain run: what the command prints when nothing is fuzzed."""
        self.plain = None
        self.plain = self.run(None)
        return self.plain

    def seeds(self, seeds: range, on_run: Callable[[Run], None] | None = None) -> Run | None:
        """The first failing run over ``seeds`` (None: every seed passed)."""
        for seed in seeds:
            r = self.run(FuzzSpec(seed))
            if on_run is not None:
                on_run(r)
            if r.failed:
                return r
        return None

    def shrink(self, failing: Run) -> Run:
        """The smallest failing run reachable from ``failing``: features off, fewer splits."""
        assert failing.spec is not None
        best = failing
        for feature in FEATURES:
            spec = best.spec
            assert spec is not None
            if getattr(spec, feature):
                r = self.run(spec.without(feature))
                if r.failed:
                    best = r
        spec = best.spec
        assert spec is not None
        for splits in range(spec.splits):  # fewer cuts: the same features, this seed or one of the next
            for seed in range(spec.seed, spec.seed + SHRINK_SEEDS):
                r = self.run(replace(spec, seed=seed, splits=splits))
                if r.failed:
                    return r
        return best


def events(streams: list[bytes]) -> int:
    """How many SSE events and comments ``streams`` hold."""
    return sum(s.replace(b"\r\n", b"\n").count(b"\n\n") for s in streams)


__all__ = ["API_KEY", "FuzzClient", "Run", "events", "fuzz_script"]

"""``EventLoop``: the hat-based orchestrator loop.

Public surface: ``EventLoop(config, *, prompt=None, workspace=None, session_path=..., backend=None,
backends=None, on_output=None, on_status=None, env=None)`` with ``await run()`` /
``run_sync()`` → ``LoopResult``, and ``interrupt()``; ``LoopResult.to_dict()``.

One iteration:

1. pick the hat to run: the first hat (by id) with pending events; events nobody subscribes
   to (and activations with nothing pending) go to the coordinator hat ``default`` (built in
   unless configured; with no hats configured it is the only hat);
2. build its prompt (``prompt.build_prompt``) and run its backend once, with the time left
   before ``max_runtime_seconds`` as timeout (on timeout the backend is cancelled, which kills
   a command's whole process group, and the loop ends with ``MaxRuntime``);
3. parse ``<event>`` blocks from its output (and lines appended to ``.autocue/events.jsonl``)
   and publish them, stamped with the hat as source; a hat that published nothing publishes
   its ``default_publishes``;
4. detect completion (``completion_promise`` as the last non-empty line outside event blocks,
   or as the topic of the last event) **before** any limit check, so a promise on the last
   allowed iteration is ``CompletionPromise``. Completion is refused, with a ``task.resume``
   event naming them, while ``required_events`` have not all been seen;
5. check, in order: MaxIterations, MaxRuntime, ConsecutiveFailures (backend exit ≠ 0),
   ValidationFailure (3 consecutive malformed event tags/lines, or a fatal backend error such
   as an exhausted mock), LoopStale (the same topic+source+payload published 3 times in a
   row; ``task.complete`` is exempt).

``interrupt()`` (SIGINT/SIGTERM in the CLI) cancels the running backend: ``Interrupted`` (130).
Every run ends with a ``loop.terminate`` event and a ``_meta.termination`` record.

The phases are methods of ``run.LoopRun``; routing is ``bus.HatBus``; the events file is read by
``events_file.read_events_file``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autocue.loop.backend import Backend, BackendResult, OutputSink
from autocue.loop.backends import make_backend
from autocue.loop.bus import COORDINATOR
from autocue.loop.config import BackendSpec, HatConfig, LoopConfig, LoopConfigError
from autocue.loop.result import LoopResult
from autocue.loop.run import LoopRun

_DEFAULT_SESSION = object()

_COORDINATOR_INSTRUCTIONS = (
    "You coordinate the loop. Work on the task directly or hand work to another hat by publishing an "
    "event it triggers on. When everything is done, print the completion promise on the last line."
)


class EventLoop:
    """See module docstring."""

    def __init__(
        self,
        config: LoopConfig,
        *,
        prompt: str | None = None,
        workspace: str | Path | None = None,
        session_path: Any = _DEFAULT_SESSION,
        backend: Backend | None = None,
        backends: dict[str, Backend] | None = None,
        on_output: OutputSink | None = None,
        on_status: Callable[[str], None] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.config = config
        self.workspace = Path(workspace).absolute() if workspace is not None else Path.cwd()
        if session_path is _DEFAULT_SESSION:
            session_path = self.workspace / ".autocue" / "session.jsonl"
        self.session_path: Path | None = Path(session_path) if session_path is not None else None
        self.task = self._resolve_prompt(prompt)
        self.on_output = on_output
        self.on_status = on_status
        self.env = dict(env or {})
        hats = dict(config.hats)
        if COORDINATOR not in hats:
            triggers = [] if hats else ["*"]
            hats[COORDINATOR] = HatConfig(COORDINATOR, "Coordinator", "", triggers, [], _COORDINATOR_INSTRUCTIONS)
        self.hats = hats
        self._backends: dict[str, Backend] = {}
        self._default_backend = backend
        self._backend_overrides = dict(backends or {})
        self._build_backends()
        self.interrupted = False
        """Set by ``interrupt()``: the run ends ``Interrupted``."""
        self.running_task: asyncio.Future[BackendResult] | None = None
        """The backend call of the running iteration (cancelled by ``interrupt()``)."""

    # ------------------------------------------------------------------ setup
    def _resolve_prompt(self, prompt: str | None) -> str:
        if prompt is not None and prompt.strip():
            return prompt
        el = self.config.event_loop
        if el.prompt:
            return el.prompt
        name = el.prompt_file or "PROMPT.md"
        for base in (self.workspace, self.config.base_dir):
            p = base / name
            if p.is_file():
                return p.read_text(encoding="utf-8")
        raise LoopConfigError(
            f"{self.config.source}: no prompt: pass PROMPT on the command line, set event_loop.prompt, "
            f"or create {name} (looked in {self.workspace} and {self.config.base_dir})"
        )

    def _build_backends(self) -> None:
        shared: dict[int, Backend] = {}

        def build(spec: BackendSpec) -> Backend:
            key = id(spec)
            if key not in shared:
                shared[key] = make_backend(spec)
            return shared[key]

        for hid, hat in self.hats.items():
            if hid in self._backend_overrides:
                self._backends[hid] = self._backend_overrides[hid]
            elif hat.backend is not None:
                self._backends[hid] = build(hat.backend)
            elif self._default_backend is not None:
                self._backends[hid] = self._default_backend
            else:
                self._backends[hid] = build(self.config.backend)

    def backend_for(self, hat_id: str) -> Backend:
        return self._backends[hat_id]

    def backend_stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for b in {id(b): b for b in self._backends.values()}.values():  # a shared backend once
            for k, v in b.stats().items():
                if k in out and isinstance(v, int) and isinstance(out[k], int):
                    out[k] += v
                elif k in out and isinstance(v, list) and isinstance(out[k], list):
                    out[k] = [*out[k], *v]
                else:
                    out.setdefault(k, v)
        return out

    # ------------------------------------------------------------------ control
    def interrupt(self) -> None:
        """Stop the loop: the running backend is cancelled and the run ends ``Interrupted``."""
        self.interrupted = True
        for b in self._backends.values():  # don't wait for cancellation to reach the process group
            kill = getattr(b, "kill_running", None)
            if kill is not None:
                kill()
        t = self.running_task
        if t is not None and not t.done():
            t.cancel()

    def run_sync(self) -> LoopResult:
        return asyncio.run(self.run())

    # ------------------------------------------------------------------ the loop
    async def run(self) -> LoopResult:
        """Run until a termination reason (one ``LoopRun``: a method per phase)."""
        return await LoopRun(self).execute()


__all__ = ["COORDINATOR", "EventLoop", "LoopResult"]

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
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autocue.loop.backend import Backend, BackendResult, Invocation, OutputSink
from autocue.loop.backends import make_backend
from autocue.loop.config import BackendSpec, HatConfig, LoopConfig, LoopConfigError
from autocue.loop.events import Event, has_promise, parse_events
from autocue.loop.paths import EVENTS_FILE, SCRATCHPAD
from autocue.loop.prompt import build_prompt
from autocue.loop.recorder import SessionRecorder
from autocue.loop.safe_files import UnsafeFileError, create_fresh, describe, open_dir
from autocue.loop.termination import TerminationReason
from autocue.loop.topics import is_wildcard, topic_matches

COORDINATOR = "default"
LOOP_SOURCE = "loop"
STALE_LIMIT = 3
MALFORMED_LIMIT = 3
STALE_EXEMPT = frozenset({"task.complete"})
_DEFAULT_SESSION = object()

_COORDINATOR_INSTRUCTIONS = (
    "You coordinate the loop. Work on the task directly or hand work to another hat by publishing an "
    "event it triggers on. When everything is done, print the completion promise on the last line."
)


@dataclass(slots=True)
class LoopResult:
    reason: TerminationReason
    iterations: int
    elapsed_secs: float
    events_count: int
    session_file: str | None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    hats_run: list[str] = field(default_factory=list)
    backend_stats: dict[str, Any] = field(default_factory=dict)
    records_count: int = 0

    @property
    def exit_code(self) -> int:
        return self.reason.exit_code

    @property
    def termination_reason(self) -> str:
        return self.reason.value

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "exit_code": self.exit_code,
            "termination_reason": self.reason.value,
            "iterations": self.iterations,
            "elapsed_secs": round(self.elapsed_secs, 3),
            "session_file": self.session_file,
            "events_count": self.events_count,
            "stdout": self.stdout,
            "stderr": self.stderr,
        }
        d.update(self.backend_stats)
        if self.error:
            d["error"] = self.error
        if self.warnings:
            d["warnings"] = list(self.warnings)
        return d


class _Bus:
    """Pending events per hat, routing, and publish bookkeeping."""

    def __init__(self, hats: dict[str, HatConfig], promise: str) -> None:
        self.hats = hats
        self.order = sorted(hats)
        self.pending: dict[str, deque[Event]] = {h: deque() for h in hats}
        self.promise = promise
        self.orphans: deque[Event] = deque()
        self._route_cache: dict[str, tuple[list[str], list[str]]] = {}

    def _subscribers(self, topic: str) -> tuple[list[str], list[str]]:
        hit = self._route_cache.get(topic)
        if hit is None:
            specific: list[str] = []
            fallback: list[str] = []
            for hid in self.order:
                trig = self.hats[hid].triggers
                if any(not is_wildcard(t) and topic_matches(t, topic) for t in trig):
                    specific.append(hid)
                elif any(is_wildcard(t) for t in trig):
                    fallback.append(hid)
            hit = (specific, fallback)
            self._route_cache[topic] = hit
        return hit

    def route(self, ev: Event) -> str | None:
        """Queue ``ev`` for its hats; returns a reason when it could not be delivered."""
        if ev.topic == self.promise:
            return None
        if ev.target is not None:
            q = self.pending.get(ev.target)
            if q is None:
                return f"target hat '{ev.target}' does not exist (hats: {', '.join(self.order)})"
            q.append(ev)
            return None
        specific, fallback = self._subscribers(ev.topic)
        dest = [h for h in (specific or fallback) if h != ev.source]
        if not dest:
            self.orphans.append(ev)
            return None
        for h in dest:
            self.pending[h].append(ev)
        return None

    def next(self) -> tuple[str | None, list[Event]]:
        for hid in self.order:
            q = self.pending[hid]
            if q:
                evs = list(q)
                q.clear()
                return hid, evs
        if self.orphans:
            evs = list(self.orphans)
            self.orphans.clear()
            return None, evs
        return None, []


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
        self._interrupted = False
        self._task: asyncio.Future[BackendResult] | None = None

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
        seen: set[int] = set()
        out: dict[str, Any] = {}
        for b in self._backends.values():
            if id(b) in seen:
                continue
            seen.add(id(b))
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
        self._interrupted = True
        for b in self._backends.values():  # don't wait for cancellation to reach the process group
            kill = getattr(b, "kill_running", None)
            if kill is not None:
                kill()
        t = self._task
        if t is not None and not t.done():
            t.cancel()

    def run_sync(self) -> LoopResult:
        return asyncio.run(self.run())

    # ------------------------------------------------------------------ the loop
    async def run(self) -> LoopResult:
        cfg = self.config.event_loop
        ws = self.workspace
        ws.mkdir(parents=True, exist_ok=True)
        with open_dir(ws, os.path.dirname(SCRATCHPAD), create=True):  # a link planted there is refused
            pass
        events_file = ws / EVENTS_FILE
        create_fresh(ws, EVENTS_FILE).close()  # never truncates through a link an agent planted
        events_offset = 0
        events_lines = 0
        rec = SessionRecorder(self.session_path, inside=ws)
        out_chunks: list[bytes] = []
        err_chunks: list[bytes] = []
        user_sink = self.on_output
        status = self.on_status

        def sink(data: bytes, is_stdout: bool) -> None:
            (out_chunks if is_stdout else err_chunks).append(data)
            rec.terminal_write(data, is_stdout)
            if user_sink is not None:
                user_sink(data, is_stdout)

        warnings = list(self.config.warnings)
        bus = _Bus(self.hats, cfg.completion_promise)
        start = time.monotonic()
        iterations = 0
        failures = 0
        malformed = 0
        stale_sig: tuple[str, str | None, str] | None = None
        stale_count = 0
        published = 0
        seen_topics: set[str] = set()
        activations: dict[str, int] = {}
        hats_run: list[str] = []
        error: str | None = None
        reason: TerminationReason | None = None
        base_env = {
            **self.env,
            "AUTOCUE_WORKSPACE": str(ws),
            "AUTOCUE_EVENTS_FILE": str(events_file),
            "AUTOCUE_SCRATCHPAD": str(ws / SCRATCHPAD),
        }

        def publish(ev: Event) -> None:
            nonlocal published, stale_sig, stale_count
            rec.publish(ev)
            published += 1
            seen_topics.add(ev.topic)
            sig = ev.signature()
            if ev.topic in STALE_EXEMPT:
                stale_sig, stale_count = None, 0
            elif sig == stale_sig:
                stale_count += 1
            else:
                stale_sig, stale_count = sig, 1
            why = bus.route(ev)
            if why is not None:
                rec.event_dropped(ev.topic, why)
                warnings.append(f"event '{ev.topic}' from {ev.source}: {why}")

        rec.loop_start(
            prompt_file=cfg.prompt_file, max_iterations=cfg.max_iterations,
            max_runtime_seconds=cfg.max_runtime_seconds, completion_promise=cfg.completion_promise,
            hats=sorted(self.config.hats),
        )
        publish(Event(cfg.starting_event, self.task, LOOP_SOURCE))
        try:
            while reason is None:
                if self._interrupted:
                    reason = TerminationReason.INTERRUPTED
                    break
                hid, evs = bus.next()
                if hid is None:
                    hid = COORDINATOR
                hat = self.hats[hid]
                if hat.max_activations is not None and activations.get(hid, 0) >= hat.max_activations:
                    payload = f"hat '{hid}' reached max_activations={hat.max_activations}; dropped: " + ", ".join(
                        e.topic for e in evs
                    )
                    publish(Event(f"{hid}.exhausted", payload, LOOP_SOURCE))
                    if stale_count >= STALE_LIMIT:
                        reason = TerminationReason.LOOP_STALE
                    elif hid == COORDINATOR:
                        error = f"the coordinator hat reached max_activations={hat.max_activations}"
                        reason = TerminationReason.VALIDATION_FAILURE
                    continue
                activations[hid] = activations.get(hid, 0) + 1
                iterations += 1
                hats_run.append(hid)
                it_start = time.monotonic()
                trigger = evs[0].topic if evs else None
                if status is not None:
                    status(f"[iteration {iterations}] hat {hid}" + (f" on {trigger}" if trigger else ""))
                prompt = build_prompt(
                    hat, evs, self.task, SCRATCHPAD, cfg.completion_promise, self.hats.values()
                )
                inv = Invocation(
                    prompt, hid, iterations, ws,
                    {**base_env, "AUTOCUE_HAT": hid, "AUTOCUE_ITERATION": str(iterations)}, sink,
                )
                remaining = cfg.max_runtime_seconds - (time.monotonic() - start)
                result: BackendResult | None = None
                if remaining <= 0:
                    reason = TerminationReason.MAX_RUNTIME
                else:
                    task = asyncio.ensure_future(self._backends[hid].run(inv))
                    self._task = task
                    try:
                        result = await asyncio.wait_for(task, remaining)
                    except TimeoutError:
                        reason = TerminationReason.MAX_RUNTIME
                        error = (
                            f"max_runtime_seconds={cfg.max_runtime_seconds} reached while hat '{hid}' was running "
                            f"(iteration {iterations}); the backend was stopped"
                        )
                    except asyncio.CancelledError:
                        if not self._interrupted:
                            raise
                        reason = TerminationReason.INTERRUPTED
                    finally:
                        self._task = None
                if result is None:
                    rec.iteration(iterations, hid, duration_ms=_ms(it_start), trigger=trigger, exit_code=-1)
                    break
                if result.fatal:
                    error = result.error or result.stderr or "the backend failed"
                    rec.iteration(iterations, hid, duration_ms=_ms(it_start), trigger=trigger,
                                  exit_code=result.exit_code)
                    reason = TerminationReason.VALIDATION_FAILURE
                    break
                # -- events out of the output
                parsed = parse_events(result.output, hid)
                events = parsed.events
                bad = len(parsed.dropped)
                for d in parsed.dropped:
                    rec.event_dropped(d.topic, d.reason, d.snippet)
                    warnings.append(f"iteration {iterations} (hat {hid}): malformed event tag dropped: {d.reason}")
                events_offset, events_lines, file_events, file_bad = _read_events_file(
                    ws, events_offset, events_lines, hid
                )
                for line_no, why in file_bad:
                    rec.event_dropped(None, f"{EVENTS_FILE} line {line_no}: {why}")
                    warnings.append(f"iteration {iterations} (hat {hid}): {EVENTS_FILE} line {line_no}: {why}")
                events.extend(file_events)
                bad += len(file_bad)
                if bad:
                    malformed += bad
                elif events:
                    malformed = 0
                ok = result.ok
                failures = 0 if ok else failures + 1
                completed = ok and (
                    (bool(events) and events[-1].topic == cfg.completion_promise)
                    or has_promise(result.output, cfg.completion_promise, parsed.events)
                )
                for ev in events:
                    publish(ev)
                if not events and ok and hat.default_publishes:
                    publish(Event(hat.default_publishes, "", hid))
                rec.iteration(iterations, hid, duration_ms=_ms(it_start), trigger=trigger, exit_code=result.exit_code)
                if completed:
                    missing = [t for t in cfg.required_events if t not in seen_topics]
                    if missing:
                        publish(Event(
                            "task.resume",
                            "Completion refused: required events not seen yet: " + ", ".join(missing),
                            LOOP_SOURCE,
                        ))
                    else:
                        reason = TerminationReason.COMPLETION_PROMISE
                        break
                reason = self._limits(iterations, start, failures, malformed, stale_count)
        finally:
            self._task = None
        elapsed = time.monotonic() - start
        assert reason is not None
        if error is None and reason is TerminationReason.CONSECUTIVE_FAILURES:
            error = f"{failures} consecutive backend failures (max_consecutive_failures={cfg.max_consecutive_failures})"
        publish(Event("loop.terminate", _terminate_payload(reason, iterations, elapsed), LOOP_SOURCE))
        rec.termination(reason.value, iterations, elapsed)
        rec.close()
        if rec.write_error:
            warnings.append(rec.write_error)
        if status is not None:
            status(f"[loop] {reason.value} after {iterations} iteration(s), exit code {reason.exit_code}")
        return LoopResult(
            reason=reason,
            iterations=iterations,
            elapsed_secs=elapsed,
            events_count=published,
            session_file=str(self.session_path) if self.session_path is not None else None,
            stdout=b"".join(out_chunks).decode("utf-8", "replace"),
            stderr=b"".join(err_chunks).decode("utf-8", "replace"),
            error=error,
            warnings=warnings,
            hats_run=hats_run,
            backend_stats=self.backend_stats(),
            records_count=rec.count,
        )

    def _limits(
        self, iterations: int, start: float, failures: int, malformed: int, stale_count: int
    ) -> TerminationReason | None:
        cfg = self.config.event_loop
        if self._interrupted:
            return TerminationReason.INTERRUPTED
        if iterations >= cfg.max_iterations:
            return TerminationReason.MAX_ITERATIONS
        if time.monotonic() - start >= cfg.max_runtime_seconds:
            return TerminationReason.MAX_RUNTIME
        if failures >= cfg.max_consecutive_failures:
            return TerminationReason.CONSECUTIVE_FAILURES
        if malformed >= MALFORMED_LIMIT:
            return TerminationReason.VALIDATION_FAILURE
        if stale_count >= STALE_LIMIT:
            return TerminationReason.LOOP_STALE
        return None


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def _terminate_payload(reason: TerminationReason, iterations: int, elapsed: float) -> str:
    status = "Task completed." if reason is TerminationReason.COMPLETION_PROMISE else "Loop stopped."
    return (
        f"## Reason\n{reason.as_str()}\n\n## Status\n{status}\n\n## Summary\n- Iterations: {iterations}\n"
        f"- Duration: {elapsed:.1f}s\n- Exit code: {reason.exit_code}"
    )


def _read_events_tail(ws: Path, offset: int) -> bytes:
    path = ws / EVENTS_FILE
    parent, name = EVENTS_FILE.rsplit("/", 1)
    with open_dir(ws, parent) as dfd:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            raise UnsafeFileError(path, describe(st))
        if st.st_size <= offset:
            return b""
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            raise UnsafeFileError(path, describe(st))
        fh.seek(offset)
        return fh.read(st.st_size - offset)


def _read_events_file(
    ws: Path, offset: int, base_line: int, hat: str
) -> tuple[int, int, list[Event], list[tuple[int, str]]]:
    """New complete lines appended to the events file since ``offset`` (``base_line`` lines before it).

    The file is opened without following links (an agent may have replaced it by a link, a
    hard link or a FIFO): such a file is reported as one bad line and not read."""
    try:
        chunk = _read_events_tail(ws, offset)
    except UnsafeFileError as e:
        return offset, base_line, [], [(base_line + 1, f"not read: {e}")]
    except OSError:
        return offset, base_line, [], []
    end = chunk.rfind(b"\n")
    if end < 0:
        return offset, base_line, [], []
    chunk = chunk[: end + 1]
    events: list[Event] = []
    bad: list[tuple[int, str]] = []
    lines = chunk.split(b"\n")[:-1]
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            bad.append((base_line + i, f"invalid JSON ({e})"))
            continue
        topic = obj.get("topic") if isinstance(obj, dict) else None
        if not isinstance(topic, str) or not topic:
            bad.append((base_line + i, 'expected {"topic": "...", "payload": "..."}'))
            continue
        payload = obj.get("payload", "")
        if not isinstance(payload, str):
            payload = orjson.dumps(payload).decode("utf-8")
        target = obj.get("target")
        events.append(Event(topic, payload, hat, target if isinstance(target, str) else None))
    return offset + end + 1, base_line + len(lines), events, bad


__all__ = ["COORDINATOR", "EventLoop", "LoopResult"]

"""``LoopRun``: one run of an ``EventLoop``, a method per phase of an iteration.

``EventLoop.run()`` makes one and awaits ``execute()``. The phases (see ``engine.py`` for the
rules): ``start`` (workspace, events file, recorder, the starting event), ``next_hat`` (pick a
hat; a hat past ``max_activations`` publishes ``<hat>.exhausted``), ``invoke`` (its backend,
with the time left as timeout), ``collect_events`` (event tags of the output and lines of the
events file), ``conclude`` (completion, required events, limits) and ``finish`` (the
``loop.terminate`` event, the termination record, the ``LoopResult``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from autocue.loop.backend import Backend, BackendResult, Invocation, OutputSink
from autocue.loop.bus import COORDINATOR, HatBus
from autocue.loop.config import HatConfig, LoopConfig
from autocue.loop.events import Event, has_promise, parse_events
from autocue.loop.events_file import read_events_file
from autocue.loop.paths import EVENTS_FILE, SCRATCHPAD
from autocue.loop.prompt import build_prompt
from autocue.loop.recorder import SessionRecorder
from autocue.loop.result import LoopResult
from autocue.loop.safe_files import create_fresh, open_dir
from autocue.loop.termination import TerminationReason

LOOP_SOURCE = "loop"
STALE_LIMIT = 3
MALFORMED_LIMIT = 3
STALE_EXEMPT = frozenset({"task.complete"})


class RunHost(Protocol):
    """What a run reads of its loop (``EventLoop``): the configuration, the hats and their
    backends, the output and status sinks; it writes ``running_task`` (the backend call
    ``interrupt()`` cancels) and reads ``interrupted``."""

    config: LoopConfig
    workspace: Path
    session_path: Path | None
    task: str
    hats: dict[str, HatConfig]
    env: dict[str, str]
    on_output: OutputSink | None
    on_status: Callable[[str], None] | None
    interrupted: bool
    running_task: asyncio.Future[BackendResult] | None

    def backend_for(self, hat_id: str) -> Backend: ...

    def backend_stats(self) -> dict[str, Any]: ...


class LoopRun:
    """The state of one run: counters, the recorder, the bus and the captured output."""

    def __init__(self, loop: RunHost) -> None:
        self.loop = loop
        self.cfg = loop.config.event_loop
        self.ws = loop.workspace
        self.rec: SessionRecorder | None = None
        self.bus = HatBus(loop.hats, self.cfg.completion_promise)
        self.warnings = list(loop.config.warnings)
        self.out_chunks: list[bytes] = []
        self.err_chunks: list[bytes] = []
        self.start_time = time.monotonic()
        self.iterations = 0
        self.failures = 0
        self.malformed = 0
        self.stale_sig: tuple[str, str | None, str] | None = None
        self.stale_count = 0
        self.published = 0
        self.seen_topics: set[str] = set()
        self.activations: dict[str, int] = {}
        self.hats_run: list[str] = []
        self.error: str | None = None
        self.reason: TerminationReason | None = None
        self.events_offset = 0
        self.events_lines = 0
        self.base_env = {
            **loop.env,
            "AUTOCUE_WORKSPACE": str(self.ws),
            "AUTOCUE_EVENTS_FILE": str(self.ws / EVENTS_FILE),
            "AUTOCUE_SCRATCHPAD": str(self.ws / SCRATCHPAD),
        }

    @property
    def recorder(self) -> SessionRecorder:
        assert self.rec is not None, "start() opens the recorder"
        return self.rec

    # ------------------------------------------------------------------ output and events
    def sink(self, data: bytes, is_stdout: bool) -> None:
        (self.out_chunks if is_stdout else self.err_chunks).append(data)
        self.recorder.terminal_write(data, is_stdout)
        if self.loop.on_output is not None:
            self.loop.on_output(data, is_stdout)

    def publish(self, ev: Event) -> None:
        self.recorder.publish(ev)
        self.published += 1
        self.seen_topics.add(ev.topic)
        sig = ev.signature()
        if ev.topic in STALE_EXEMPT:
            self.stale_sig, self.stale_count = None, 0
        elif sig == self.stale_sig:
            self.stale_count += 1
        else:
            self.stale_sig, self.stale_count = sig, 1
        why = self.bus.route(ev)
        if why is not None:
            self.recorder.event_dropped(ev.topic, why)
            self.warnings.append(f"event '{ev.topic}' from {ev.source}: {why}")

    # ------------------------------------------------------------------ phases
    def start(self) -> None:
        """Prepare the workspace (refusing planted links), open the recorder, publish the task."""
        ws = self.ws
        ws.mkdir(parents=True, exist_ok=True)
        with open_dir(ws, os.path.dirname(SCRATCHPAD), create=True):  # a link planted there is refused
            pass
        create_fresh(ws, EVENTS_FILE).close()  # never truncates through a link an agent planted
        self.rec = SessionRecorder(self.loop.session_path, inside=ws)
        cfg = self.cfg
        self.rec.loop_start(
            prompt_file=cfg.prompt_file, max_iterations=cfg.max_iterations,
            max_runtime_seconds=cfg.max_runtime_seconds, completion_promise=cfg.completion_promise,
            hats=sorted(self.loop.config.hats),
        )
        self.publish(Event(cfg.starting_event, self.loop.task, LOOP_SOURCE))

    async def execute(self) -> LoopResult:
        self.start()
        try:
            while self.reason is None:
                if self.loop.interrupted:
                    self.reason = TerminationReason.INTERRUPTED
                    break
                if not await self.iteration():
                    break
        finally:
            self.loop.running_task = None
        return self.finish()

    async def iteration(self) -> bool:
        """One activation of a hat; False when the run ends inside it (no limit check after)."""
        picked = self.next_hat()
        if picked is None:
            return True
        hid, hat, evs = picked
        it_start = time.monotonic()
        trigger = evs[0].topic if evs else None
        if self.loop.on_status is not None:
            self.loop.on_status(f"[iteration {self.iterations}] hat {hid}" + (f" on {trigger}" if trigger else ""))
        result = await self.invoke(hid, hat, evs)
        if result is None:
            self.recorder.iteration(self.iterations, hid, duration_ms=_ms(it_start), trigger=trigger, exit_code=-1)
            return False
        if result.fatal:
            self.error = result.error or result.stderr or "the backend failed"
            self.recorder.iteration(self.iterations, hid, duration_ms=_ms(it_start), trigger=trigger,
                                    exit_code=result.exit_code)
            self.reason = TerminationReason.VALIDATION_FAILURE
            return False
        events, completed = self.collect_events(hid, hat, result)
        self.recorder.iteration(self.iterations, hid, duration_ms=_ms(it_start), trigger=trigger,
                                exit_code=result.exit_code)
        return self.conclude(events, completed)

    def next_hat(self) -> tuple[str, HatConfig, list[Event]] | None:
        """The hat to run and its events; None when the picked hat is exhausted (it publishes
        ``<hat>.exhausted``, and the run may end stale or, for the coordinator, invalid)."""
        hid, evs = self.bus.next()
        if hid is None:
            hid = COORDINATOR
        hat = self.loop.hats[hid]
        if hat.max_activations is not None and self.activations.get(hid, 0) >= hat.max_activations:
            payload = f"hat '{hid}' reached max_activations={hat.max_activations}; dropped: " + ", ".join(
                e.topic for e in evs
            )
            self.publish(Event(f"{hid}.exhausted", payload, LOOP_SOURCE))
            if self.stale_count >= STALE_LIMIT:
                self.reason = TerminationReason.LOOP_STALE
            elif hid == COORDINATOR:
                self.error = f"the coordinator hat reached max_activations={hat.max_activations}"
                self.reason = TerminationReason.VALIDATION_FAILURE
            return None
        self.activations[hid] = self.activations.get(hid, 0) + 1
        self.iterations += 1
        self.hats_run.append(hid)
        return hid, hat, evs

    async def invoke(self, hid: str, hat: HatConfig, evs: list[Event]) -> BackendResult | None:
        """Run the hat's backend with the time left; None (and a reason) on timeout or interrupt."""
        cfg, loop = self.cfg, self.loop
        prompt = build_prompt(hat, evs, loop.task, SCRATCHPAD, cfg.completion_promise, loop.hats.values())
        env = {**self.base_env, "AUTOCUE_HAT": hid, "AUTOCUE_ITERATION": str(self.iterations)}
        inv = Invocation(prompt, hid, self.iterations, self.ws, env, self.sink)
        remaining = cfg.max_runtime_seconds - (time.monotonic() - self.start_time)
        if remaining <= 0:
            self.reason = TerminationReason.MAX_RUNTIME
            return None
        task = asyncio.ensure_future(loop.backend_for(hid).run(inv))
        loop.running_task = task
        try:
            return await asyncio.wait_for(task, remaining)
        except TimeoutError:
            self.reason = TerminationReason.MAX_RUNTIME
            self.error = (
                f"max_runtime_seconds={cfg.max_runtime_seconds} reached while hat '{hid}' was running "
                f"(iteration {self.iterations}); the backend was stopped"
            )
        except asyncio.CancelledError:
            if not loop.interrupted:
                raise
            self.reason = TerminationReason.INTERRUPTED
        finally:
            loop.running_task = None
        return None

    def collect_events(self, hid: str, hat: HatConfig, result: BackendResult) -> tuple[list[Event], bool]:
        """Publish the events of the output and the events file; returns them and whether the
        hat signalled completion (checked before any limit)."""
        parsed = parse_events(result.output, hid)
        events = parsed.events
        bad = len(parsed.dropped)
        for d in parsed.dropped:
            self.recorder.event_dropped(d.topic, d.reason, d.snippet)
            self.warnings.append(f"iteration {self.iterations} (hat {hid}): malformed event tag dropped: {d.reason}")
        self.events_offset, self.events_lines, file_events, file_bad = read_events_file(
            self.ws, self.events_offset, self.events_lines, hid
        )
        for line_no, why in file_bad:
            self.recorder.event_dropped(None, f"{EVENTS_FILE} line {line_no}: {why}")
            self.warnings.append(f"iteration {self.iterations} (hat {hid}): {EVENTS_FILE} line {line_no}: {why}")
        events.extend(file_events)
        bad += len(file_bad)
        if bad:
            self.malformed += bad
        elif events:
            self.malformed = 0
        ok = result.ok
        self.failures = 0 if ok else self.failures + 1
        promise = self.cfg.completion_promise
        completed = ok and (
            (bool(events) and events[-1].topic == promise) or has_promise(result.output, promise, parsed.events)
        )
        for ev in events:
            self.publish(ev)
        if not events and ok and hat.default_publishes:
            self.publish(Event(hat.default_publishes, "", hid))
        return events, completed

    def conclude(self, events: list[Event], completed: bool) -> bool:
        """Completion (refused while required events are missing), then the limits; False ends the run."""
        if completed:
            missing = [t for t in self.cfg.required_events if t not in self.seen_topics]
            if not missing:
                self.reason = TerminationReason.COMPLETION_PROMISE
                return False
            self.publish(Event(
                "task.resume", "Completion refused: required events not seen yet: " + ", ".join(missing), LOOP_SOURCE,
            ))
        self.reason = self.limits()
        return True

    def limits(self) -> TerminationReason | None:
        cfg = self.cfg
        if self.loop.interrupted:
            return TerminationReason.INTERRUPTED
        if self.iterations >= cfg.max_iterations:
            return TerminationReason.MAX_ITERATIONS
        if time.monotonic() - self.start_time >= cfg.max_runtime_seconds:
            return TerminationReason.MAX_RUNTIME
        if self.failures >= cfg.max_consecutive_failures:
            return TerminationReason.CONSECUTIVE_FAILURES
        if self.malformed >= MALFORMED_LIMIT:
            return TerminationReason.VALIDATION_FAILURE
        if self.stale_count >= STALE_LIMIT:
            return TerminationReason.LOOP_STALE
        return None

    def finish(self) -> LoopResult:
        """Publish ``loop.terminate``, close the recording and build the result."""
        elapsed = time.monotonic() - self.start_time
        reason = self.reason
        assert reason is not None
        if self.error is None and reason is TerminationReason.CONSECUTIVE_FAILURES:
            self.error = (
                f"{self.failures} consecutive backend failures "
                f"(max_consecutive_failures={self.cfg.max_consecutive_failures})"
            )
        self.publish(Event("loop.terminate", _terminate_payload(reason, self.iterations, elapsed), LOOP_SOURCE))
        rec = self.recorder
        rec.termination(reason.value, self.iterations, elapsed)
        rec.close()
        if rec.write_error:
            self.warnings.append(rec.write_error)
        if self.loop.on_status is not None:
            self.loop.on_status(
                f"[loop] {reason.value} after {self.iterations} iteration(s), exit code {reason.exit_code}"
            )
        session_path = self.loop.session_path
        return LoopResult(
            reason=reason,
            iterations=self.iterations,
            elapsed_secs=elapsed,
            events_count=self.published,
            session_file=str(session_path) if session_path is not None else None,
            stdout=b"".join(self.out_chunks).decode("utf-8", "replace"),
            stderr=b"".join(self.err_chunks).decode("utf-8", "replace"),
            error=self.error,
            warnings=self.warnings,
            hats_run=self.hats_run,
            backend_stats=self.loop.backend_stats(),
            records_count=rec.count,
        )


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def _terminate_payload(reason: TerminationReason, iterations: int, elapsed: float) -> str:
    status = "Task completed." if reason is TerminationReason.COMPLETION_PROMISE else "Loop stopped."
    return (
        f"## Reason\n{reason.as_str()}\n\n## Status\n{status}\n\n## Summary\n- Iterations: {iterations}\n"
        f"- Duration: {elapsed:.1f}s\n- Exit code: {reason.exit_code}"
    )


__all__ = ["COORDINATOR", "LoopRun", "RunHost"]

"""Probes kept from issue 15: mutated real session files, and appends killed with SIGKILL.

- Property: a real pi session file mutated (byte flips, line deletions and duplications,
  JSON values swapped for other types, duplicated ids, parent cycles, deep nesting, a cut)
  either opens (context, tree and listing built) or raises ``SessionFileError``; nothing
  else, never a hang, and the file on disk changes only when a ``.bak`` of it was kept.
- SIGKILL: a child appending entries in a loop is killed at random moments; the file then
  opens with every fully written entry, at most the torn last line dropped.

Bounded by the suite's hypothesis profile (``--fuzz-long`` for a long run).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance import pi_session_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autocue.session import SessionFileError
from autocue.session.manager import SessionManager
from autocue.session.messages import convert_to_llm
from autocue.session.session_dir import list_sessions

FILES = [*pi_session_files(), *sorted((Path(__file__).parent / "fixtures").glob("*.jsonl"))]
ORIGINALS = {f.name: f.read_bytes() for f in FILES}
_NEST_MARK = "\u2063nest-here\u2063"
OTHER_TYPES: list[Any] = [None, True, False, 0, 1, 2, -7, 3.5, "", "x", "3", [], {}, [1, "a"], {"k": None}]


# ---------------------------------------------------------------------------- mutations


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _json_line(lines: list[bytes], i: int) -> dict[str, Any] | None:
    try:
        d = json.loads(lines[i])
    except (ValueError, RecursionError):  # not JSON, or a line an earlier mutation nested too deeply
        return None
    return d if isinstance(d, dict) else None


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path inside a decoded line (objects and lists), the line itself excluded."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        yield (*prefix, k)
        yield from _paths(v, (*prefix, k))


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for k in path[:-1]:
        value = value[k]
    value[path[-1]] = new


def _dump(d: Any) -> bytes:
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def mutated_file(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(ORIGINALS)))
    data = ORIGINALS[name]
    for _ in range(draw(st.integers(1, 3))):
        lines = _lines(data)
        n = len(lines)
        i = draw(st.integers(0, n - 1))
        kind = draw(st.sampled_from(["flip", "delete", "duplicate", "swap", "same_id", "cycle", "nest", "cut"]))
        if kind == "flip" and data:
            pos = draw(st.integers(0, len(data) - 1))
            data = data[:pos] + bytes([draw(st.integers(0, 255))]) + data[pos + 1:]
            continue
        if kind == "cut" and data:
            data = data[: draw(st.integers(0, len(data) - 1))]
            continue
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        else:
            d = _json_line(lines, i)
            if d is None:
                continue
            if kind == "swap":
                paths = list(_paths(d))
                if not paths:
                    continue
                _set(d, draw(st.sampled_from(paths)), draw(st.sampled_from(OTHER_TYPES)))
            elif kind in ("same_id", "cycle"):
                j = draw(st.integers(0, n - 1))
                other = _json_line(lines, j)
                if other is None or "id" not in other:
                    continue
                d["id" if kind == "same_id" else "parentId"] = other["id"]
            else:  # nest: a value buried under many lists (written as text: json.dumps would recurse)
                paths = list(_paths(d))
                if not paths:
                    continue
                depth = draw(st.sampled_from([50, 300, 1100, 3000]))
                _set(d, draw(st.sampled_from(paths)), _NEST_MARK)
                lines[i] = _dump(d).replace(_dump(_NEST_MARK), b"[" * depth + b'"deep"' + b"]" * depth, 1)
                data = b"\n".join(lines)
                continue
            lines[i] = _dump(d)
        data = b"\n".join(lines)
    return name, data


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Fail (rather than hang the suite) if the body runs longer than ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"opening a session file took over {seconds} s: a loop?")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _open_everything(path: Path) -> None:
    sm = SessionManager.open(path)
    ctx = sm.build_session_context()
    convert_to_llm(ctx.messages)
    sm.get_tree()
    for e in sm.get_entries():
        e.to_json()
        sm.get_branch(e.id)
    sm.get_session_name()
    sm.close()


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_file())
def test_a_mutated_real_session_file_opens_or_raises_session_file_error(case: tuple[str, bytes]) -> None:
    name, data = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        with _time_limit(20):
            try:
                _open_everything(path)
            except SessionFileError as e:
                assert e.path == str(path) and str(e).startswith(str(path))
            infos = list_sessions(tmp)  # never raises; an unreadable file is left out
        assert [i.path for i in infos] in ([], [str(path)])
        after = {p.name: p.read_bytes() for p in Path(tmp).iterdir()}
        if after[name] != data:  # rewritten (a migration): only with the original kept beside it
            assert after[name + ".bak"] == data
            assert set(after) == {name, name + ".bak"}
        else:
            assert set(after) == {name}


# ---------------------------------------------------------------------------- SIGKILL during appends

_APPENDER = r"""
import sys
from autocue.llm import AssistantMessage, TextContent, UserMessage
from autocue.session.manager import SessionManager

sm = SessionManager.create_at(sys.argv[1], "/w")
sm.append_message(UserMessage("start", timestamp=1))
sm.append_message(AssistantMessage([TextContent("ok")], timestamp=2))  # from here on every append is written
print("ready", flush=True)
i = 0
while True:
    sm.append_custom_entry("n", {"i": i, "pad": "x" * (i % 5000)})
    i += 1
"""


def _kill_once(tmp: Path, rng: random.Random) -> None:
    path = tmp / f"killed-{rng.randrange(10**9)}.jsonl"
    child = subprocess.Popen([sys.executable, "-c", _APPENDER, str(path)], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.15))
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]  # every fully written line
    whole = [json.loads(x) for x in complete.splitlines()]
    sm = SessionManager.open(path)
    entries = sm.get_entries()
    assert [e.to_json() for e in entries] == whole[1:]
    numbers = [e.to_json()["data"]["i"] for e in entries[2:]]
    assert numbers == list(range(len(numbers)))
    if complete == data:
        assert sm.warnings == []
    else:  # the torn last line: reported, cut off before the next write
        assert len(sm.warnings) == 1 and "skipped a torn last line" in sm.warnings[0]
    sm.append_custom_entry("after", None)
    sm.close()
    again = SessionManager.open(path)
    assert again.warnings == [] and len(again.get_entries()) == len(entries) + 1
    assert path.read_bytes().startswith(complete)


@pytest.mark.slow
def test_appends_killed_with_sigkill_leave_every_written_entry(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    kills = 40 if request.config.getoption("--fuzz-long") else 4
    rng = random.Random()
    for _ in range(kills):
        _kill_once(tmp_path, rng)

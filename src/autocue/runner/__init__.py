"""The scenario executor: run a scenario as an end-to-end test of a terminal program.

``run_scenarios(paths, **options) -> RunReport`` loads scenario files (or directories),
selects (``tags``, ``keyword``, ``shard``), and runs each one: a fresh workspace, the program
under test (a launch profile or a command) in a pseudo-terminal read into a screen emulator
and recorded as asciicast v2, the embedded mock LLM server, and the whole timeline (inputs,
edits, commands, screenshots against goldens, assertions, ``expect``). See docs/runner.md.

This package imports nothing at start on purpose: the mock agent's process imports it, and its
start-up is part of every ``--agent mock`` run. Its names are imported on first use
(``autocue.lazy``); the executor, the loader and the server when a run starts. Selection and
terminal helpers live in ``autocue.runner.selection`` and ``autocue.runner.extras``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.runner.interrupt import Interrupt
    from autocue.runner.keys import KEYS, parse_input
    from autocue.runner.options import RunOptions
    from autocue.runner.report import FAILURE_KINDS, Failure, RunReport, ScenarioResult, merge_junit, merge_reports
    from autocue.runner.selection import Selected

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.runner.keys": ["KEYS", "parse_input"],
    "autocue.runner.options": ["RunOptions"],
    "autocue.runner.report": ["FAILURE_KINDS", "Failure", "RunReport", "ScenarioResult", "merge_junit",
                              "merge_reports"],
})


def collect(paths: Sequence[str | Path], *, tags: Sequence[str] = (), keyword: str | None = None,
            shard: tuple[int, int] | None = None) -> list[Selected]:
    """The selected scenarios of ``paths`` (raises ``ScenarioError`` for a file that does not load)."""
    from autocue.runner.selection import load_path, select

    return select([s for p in paths for s in load_path(p)], tags=tags, keyword=keyword, shard=shard)


def run_one(selected: Selected, options: RunOptions, stop: Interrupt | None = None) -> ScenarioResult:
    """Run one selected scenario (``stop``: an interrupt raises ``Interrupted`` once the run cleaned up;
    one that came before does not start it)."""
    from autocue.runner.executor import Execution

    if stop is not None:
        stop.check()
    return Execution(selected.scenario, selected.extras, options, stop).run()


def run_selected(items: Sequence[Selected], options: RunOptions, stop: Interrupt | None = None) -> RunReport:
    """Run ``items`` (``options.jobs`` at once); with ``stop`` (``autocue run``'s SIGINT/SIGTERM), an
    interrupt stops every running scenario and starts no other: ``Interrupted`` once all cleaned up."""
    from concurrent.futures import ThreadPoolExecutor

    from autocue.runner.report import RunReport

    if options.jobs > 1 and len(items) > 1:
        with ThreadPoolExecutor(max_workers=options.jobs, thread_name_prefix="autocue-run") as pool:
            results = list(pool.map(lambda s: run_one(s, options, stop), items))
    else:
        results = [run_one(s, options, stop) for s in items]
    return RunReport(results)


def run_scenarios(paths: str | Path | Sequence[str | Path], *, tags: Sequence[str] = (), keyword: str | None = None,
                  shard: tuple[int, int] | None = None, **options: Any) -> RunReport:
    """Run the scenarios of ``paths``; keyword options are ``RunOptions`` fields (``agent``, ``cmd``,
    ``terminal`` ("WxH" or a ``TerminalProfile``), ``speed``, ``timeout``, ``settle``,
    ``update_goldens``, ``ci`` (default: the ``CI`` variable), ``out``, ``keep``, ``jobs``)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    term = options.get("terminal")
    if isinstance(term, str):
        from autocue.runner.extras import parse_size

        options["terminal"] = parse_size(term)
    if "out" in options:
        options["out"] = Path(options["out"])
    from autocue.runner.options import RunOptions

    return run_selected(collect(paths, tags=tags, keyword=keyword, shard=shard), RunOptions(**options))


__all__ = [
    "FAILURE_KINDS", "KEYS", "Failure", "RunOptions", "RunReport", "ScenarioResult", "collect", "merge_junit",
    "merge_reports", "parse_input", "run_one", "run_scenarios", "run_selected",
]

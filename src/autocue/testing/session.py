"""``create_test_session`` and ``TestSession``: a real ``AgentSession`` whose model is a playbook.

The playbook plugs in through the public provider seam (a ``ScriptedProvider``); extensions
load for real; ``tools=[...]`` adds the test's own tools (plain typed functions, or ``AgentTool``s)
to the built-in ones (``builtin_tools=False``: only those); environment tools are mocked by
replacing only their execution (hooks fire once, at the agent level); UI dialogs are answered
by ``mock_ui``; every event is collected.

    with create_test_session(extensions=["examples/planner/planner.py"], mock_tools={"bash": "ok"}) as t:
        t.run_sync(when("Propose a plan", [call("plan_propose", {"title": "Cook"}), say("Done.")]))
        assert t.events.tool_results_for("plan_propose")[0].is_error is False
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue import suite_coverage, telemetry
from autocue.agent.tool import AgentTool, tool_from_function
from autocue.dicts import deep_merge
from autocue.extensions.events import EMITTED_ONLY_BY
from autocue.llm.types import Model
from autocue.script.model import Turn
from autocue.script.provider import ScriptedProvider, scripted_model
from autocue.session.agent_session import AgentSession
from autocue.session.settings import Settings
from autocue.testing.dsl import TurnSpec
from autocue.testing.errors import (
    ExtensionLoadError,
    HarnessError,
    ToolExecutionError,
    UnknownToolError,
    hide_harness_frame,
)
from autocue.testing.events import EventCollector, TestEvents
from autocue.testing.mock_tools import MockHandler, build_mock_tools
from autocue.testing.mock_ui import UI_OPTIONS, MockUI, Recorder, RecordingNoUI
from autocue.testing.playbook import Playbook
from autocue.testing.recorded import RecordReplayProvider
from autocue.testing.subagents import SubagentScripts
from autocue.testing.transcript import render_transcript
from autocue.tools import BUILTIN_TOOL_NAMES, create_builtin_tools

if TYPE_CHECKING:
    from autocue.testing.mcp_servers import HarnessMCP

_ACTIVE: ContextVar[list[TestSession] | None] = ContextVar("autocue_test_sessions", default=None)


@contextlib.contextmanager
def track_sessions() -> Iterator[list[TestSession]]:
    """Collect every ``TestSession`` created inside the block (the pytest plugin uses it per test)."""
    sessions: list[TestSession] = []
    token = _ACTIVE.set(sessions)
    try:
        yield sessions
    finally:
        _ACTIVE.reset(token)


_TEST_DEFAULT_SETTINGS: dict[str, Any] = {"retry": {"baseDelayMs": 0}}


class TestSession:
    """A test harness around a real ``AgentSession``. Use as ``with`` or ``async with``.

    ``record="path.yaml"`` with ``provider=`` and ``model=`` (a real provider): record its
    replies into that scenario file when it is missing, replay them when it is present
    (``record_mode``: ``new_episodes``, ``none``, ``all``; see ``autocue.testing.recorded``)."""

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        *,
        extensions: Sequence[str | os.PathLike[str]] | None = None,
        extension_factories: Sequence[Callable[[Any], Any]] | None = None,
        tools: Sequence[Callable[..., Any] | AgentTool] = (),
        builtin_tools: bool = True,
        mock_tools: Mapping[str, MockHandler] | None = None,
        mock_ui: Mapping[str, Any] | None = None,
        has_ui: bool = True,
        system_prompt: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        skills: Sequence[Any] | None = None,
        settings: Mapping[str, Any] | Settings | None = None,
        auto_assert: bool = True,
        propagate_errors: bool = True,
        mcp_servers: Mapping[str, Any] | None = None,
        record: str | os.PathLike[str] | None = None,
        provider: Any = None,
        model: Model | None = None,
        record_mode: str | None = None,
        ttsr_rules: Sequence[Any] = (),
        unknown_tool_advice: Callable[[str], str] | None = None,
        all_events: bool = False,
    ) -> None:
        self.auto_assert = auto_assert
        self._all_events = all_events
        self._own_tools = _own_tools(tools)
        self._builtin_tools = builtin_tools
        self._unknown_tool_advice = unknown_tool_advice or _python_advice
        """What an ``UnknownToolError`` tells the user to do, given the tool's name (the CLI names its flags)."""
        self.recorder: RecordReplayProvider | None = None
        """With ``record=``: the recording's provider (replays it, or records ``provider``'s replies)."""
        if record is not None:
            self.recorder = RecordReplayProvider(record, provider=provider, model=model, mode=record_mode)
        elif provider is not None or record_mode is not None:
            raise HarnessError("provider= and record_mode= go with record='path.yaml' (the scenario file to record "
                               "into or replay)")
        self._model = model
        self._ttsr_rules = list(ttsr_rules)
        self.propagate_errors = propagate_errors
        self._owns_cwd = cwd is None
        self.cwd = Path(tempfile.mkdtemp(prefix="autocue-test-")) if cwd is None else Path(cwd).resolve()
        self._disposed = False
        self._otel = telemetry.start_session()  # None unless telemetry is on (--autocue-otel)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._mcp_servers = mcp_servers
        self.mcp: HarnessMCP | None = None
        registry = _ACTIVE.get()
        if registry is not None:
            registry.append(self)
        try:
            self._setup(extensions, extension_factories, mock_tools, mock_ui, has_ui, system_prompt, skills, settings)
        except BaseException:
            self._remove_cwd()
            raise

    def _setup(
        self,
        extensions: Sequence[str | os.PathLike[str]] | None,
        extension_factories: Sequence[Callable[[Any], Any]] | None,
        mock_tools: Mapping[str, MockHandler] | None,
        mock_ui: Mapping[str, Any] | None,
        has_ui: bool,
        system_prompt: str | None,
        skills: Sequence[Any] | None,
        settings: Mapping[str, Any] | Settings | None,
    ) -> None:
        self.provider = ScriptedProvider()
        self.playbook = Playbook(self.provider)
        self.events = TestEvents(all_events=self._all_events)
        mocks = dict(mock_tools or {})
        self._mock_names = frozenset(mocks)
        # all seven built-ins (read, bash, edit, write, grep, find, ls), not only pi's default four, then the
        # test's own tools (one of a built-in's name replaces it); a mock keeps the schema of the tool it replaces
        real = dict(create_builtin_tools(str(self.cwd), BUILTIN_TOOL_NAMES)) if self._builtin_tools else {}
        real.update(self._own_tools)
        mock_objs = build_mock_tools(mocks, real)
        base = {**real, **mock_objs}
        self._mock_tools: list[AgentTool | None] = list(mock_objs.values())
        self._tools_seen: list[AgentTool] | None = None
        self._active_by_name: dict[str, AgentTool] = {}
        st = settings if isinstance(settings, Settings) else Settings.from_dict(
            deep_merge(_TEST_DEFAULT_SETTINGS, settings or {}), source="create_test_session")
        factories = list(extension_factories or ())
        if self._mcp_servers:
            from autocue.testing.mcp_servers import HarnessMCP

            self.mcp = HarnessMCP(self._mcp_servers, cwd=str(self.cwd), exclude=self._mock_names, warn=self.events.warn)
            factories.append(self.mcp.factory)
        # Extension paths resolve against the process's working directory, as a user writes them.
        specs = [os.fspath(Path(e).resolve()) if _looks_like_path(e) else os.fspath(e) for e in extensions or ()]
        self.collector = EventCollector(
            self.events, self.playbook, is_mocked=self._is_mocked, known_tools=self._known_tools
        )
        record_ui: Recorder = self.collector.record_ui
        if suite_coverage.COLLECTOR is not None:
            record_ui = _dialogs_covered(record_ui)
        ui = MockUI(mock_ui, record_ui) if has_ui else RecordingNoUI(record_ui)
        self.session = AgentSession(
            provider=self.recorder if self.recorder is not None else self.provider,
            model=self._model or scripted_model(),
            settings=st,
            cwd=self.cwd,
            tools=base,
            extensions=specs,
            extension_factories=factories,
            ui=ui,  # type: ignore[arg-type]
            has_ui=has_ui,
            system_prompt=system_prompt or "",
            skills=skills,
            subagents=True,
            ttsr_rules=self._ttsr_rules,
        )
        self.session.subscribe(self.collector)
        self.subagents = SubagentScripts(self.events, self._is_mock_tool, self._known_tools)
        sub = self.session.subagents
        assert sub is not None
        sub.provider_for = self.subagents.provider_for
        sub.process_args = self.subagents.process_args
        sub.on_child.append(self.subagents.on_child)
        self.extension_errors = list(self.session.extensions_result.errors)
        if self.extension_errors and self.auto_assert:
            missing = [e for e in self.extension_errors if not e.traceback]
            if missing == self.extension_errors:  # files that are not there: one line says it all
                raise ExtensionLoadError("; ".join(str(e.error) for e in missing) + " (a relative path starts at "
                                         f"the working directory, {os.getcwd()}: run from where the path is right, "
                                         "or pass an absolute one)")
            lines = ["Extension load errors:"]
            for err in self.extension_errors:
                lines.append(f"  {err.path}: {type(err.error).__name__}: {err.error}")
                if err.traceback:
                    lines.append("    " + err.traceback.rstrip().replace("\n", "\n    "))
            lines.append("Fix the extension, or pass auto_assert=False to inspect t.extension_errors.")
            raise ExtensionLoadError("\n".join(lines))
        self._warn_shadowed_mocks()
        self._warn_never_emitted()

    def _warn_never_emitted(self) -> None:
        for event, ext_handlers in self.session.runner.by_event.items():
            who = EMITTED_ONLY_BY.get(event)
            if who is not None:
                names = ", ".join(sorted({f"{ext.name} ({ext.path})" for ext, _ in ext_handlers}))
                self.events.warn(
                    f"extension {names} subscribes to {event!r}, which only {who} emits: a test session never "
                    "fires it, so the handler does not run here"
                )

    def _warn_shadowed_mocks(self) -> None:
        sources = self.session.runner.tool_sources()
        for name in sorted(self._mock_names):
            ext = sources.get(name)
            if ext is not None:
                self.events.warn(
                    f"mock_tools[{name!r}] is not used: extension {ext.name} ({ext.path}) registers a tool of that "
                    "name, and extension tools take precedence (they are under test)"
                )

    def _is_mocked(self, name: str) -> bool:
        """Whether the tool the agent runs under ``name`` is one of our mocks (not an extension's)."""
        if name not in self._mock_names:
            return False
        tools = self.session.agent.state.tools
        if tools is not self._tools_seen:  # Agent.set_tools installs a new list on every change
            self._tools_seen = tools
            self._active_by_name = {t.name: t for t in tools}
        return self._active_by_name.get(name) in self._mock_tools

    def _is_mock_tool(self, name: str) -> bool:
        """Whether ``name`` is one of our mocks among every tool of the session (a child's view)."""
        return name in self._mock_names and self.session.tool_registry.all_tools().get(name) in self._mock_tools

    def _known_tools(self) -> list[str]:
        return [t.name for t in self.session.agent.state.tools]

    # ------------------------------------------------------------------ running
    async def run(self, *turns: TurnSpec | Turn) -> None:
        """Play ``when()`` turns: send each prompt and feed its actions as the model's replies."""
        __tracebackhide__ = hide_harness_frame  # pytest shows the test's line and the message, not this frame
        if self._disposed:
            raise HarnessError("this TestSession was disposed; create a new one")
        await self._bind()
        for turn in turns:
            if not isinstance(turn, Turn):
                raise TypeError(f"run() takes when(...) turns, got {turn!r}")
            self.playbook.begin_turn(turn)
            if self._otel is not None:
                self._otel.turns += 1
            self.subagents.begin_turn(turn.prompt, turn.subagents if isinstance(turn, TurnSpec) else {})
            failures_before = len(self.collector.failures)
            unknown_before = len(self.collector.unknown_tools)
            if turn.prompt is None:
                await self.session.continue_()
            else:
                await self.session.prompt(turn.prompt)
            self._check_turn(failures_before, unknown_before)

    def _check_turn(self, failures_before: int, unknown_before: int) -> None:
        __tracebackhide__ = hide_harness_frame
        # A subagent's own problem comes first; the task tool's failure it caused is not repeated.
        problems: list[HarnessError] = self.subagents.end_turn(
            strict=self.auto_assert, propagate_errors=self.propagate_errors
        )
        if self.propagate_errors:
            for f in self.collector.failures[failures_before:]:
                if not (problems and f.tool_name == "task"):
                    problems.append(ToolExecutionError(f.describe()))
        for step, turn, name in self.collector.unknown_tools[unknown_before:]:
            known = ", ".join(sorted(self._known_tools())) or "none"
            problems.append(UnknownToolError(
                f'The model called tool "{name}" at playbook step {step} (turn {turn}), but no tool of that name '
                f"is built in, given, mocked, or registered by an extension.\n  Known tools: {known}\n"
                f"  {self._unknown_tool_advice(name)}"
            ))
        try:
            self.playbook.end_turn(strict=self.auto_assert)
        except HarnessError as e:
            problems.append(e)
        if not problems:
            return
        first = problems[0]
        if len(problems) > 1:
            extra = "\n\n".join(f"Also: {p}" for p in problems[1:])
            raise type(first)(f"{first}\n\n{extra}") from None  # one message, not first's again
        raise first

    def run_sync(self, *turns: TurnSpec | Turn) -> None:
        """``run`` for plain (sync) tests. Inside a running event loop use ``await t.run(...)``."""
        __tracebackhide__ = hide_harness_frame
        try:
            self._loop_for_sync("run_sync").run_until_complete(self.run(*turns))
        except HarnessError as e:  # its message says it all: no asyncio or harness frames under the test's line
            raise e.with_traceback(None) from e.__cause__

    def _loop_for_sync(self, what: str) -> asyncio.AbstractEventLoop:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise HarnessError(
                f"TestSession.{what}() was called inside a running event loop; use "
                f"'await t.{_async_twin(what)}(...)' in async code"
            )
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
        return self._loop

    def transcript(self) -> str:
        """The run so far as readable text (turns, calls, results, blocks, UI calls)."""
        return render_transcript(self.events.all)

    # ------------------------------------------------------------------ lifecycle
    async def dispose_async(self) -> None:
        """Dispose from async code: fires ``session_shutdown`` once and removes the temp cwd."""
        if self._disposed:
            return
        self._disposed = True
        try:
            if self.mcp is not None:
                await self.mcp.stop()
            await self.session.dispose()
            if self.recorder is not None:
                await self.recorder.aclose()
        finally:
            # break the harness's own cycles too: the provider calls back into the playbook, the
            # collector into this object
            self.provider.on_played = None
            self.collector.detach()
            if self._otel is not None:
                self._otel.end([f.describe() for f in self.collector.failures])
            self.subagents.detach()
            if self.session.subagents is not None:
                self.session.subagents.provider_for = None
                self.session.subagents.process_args = None
                self.session.subagents.on_child.clear()
            self._remove_cwd()

    def dispose(self) -> None:
        """Fire ``session_shutdown`` (once) and remove the temp cwd. Idempotent."""
        if self._disposed:
            return
        loop = self._loop_for_sync("dispose")
        try:
            loop.run_until_complete(self.dispose_async())
        finally:
            loop.close()

    adispose = dispose_async
    """The earlier name of ``dispose_async`` (kept working)."""

    def dispose_quietly(self) -> None:
        """Dispose from sync code even after an async test: runs on a fresh loop if need be."""
        if self._disposed:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.dispose()
            return
        raise HarnessError("dispose_quietly() cannot run inside a running event loop; use 'await t.dispose_async()'")

    def _remove_cwd(self) -> None:
        if self._owns_cwd:
            shutil.rmtree(self.cwd, ignore_errors=True)

    def __enter__(self) -> TestSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.dispose()

    async def __aenter__(self) -> TestSession:
        await self._bind()
        return self

    async def _bind(self) -> None:
        """Start the MCP servers, then bind the extensions (``session_start`` fires once)."""
        if self.mcp is not None:
            await self.mcp.start()
        await self.session.bind_extensions()

    async def __aexit__(self, *exc: object) -> None:
        await self.dispose_async()


def _own_tools(tools: Sequence[Callable[..., Any] | AgentTool]) -> dict[str, AgentTool]:
    """``tools=[...]`` by name: an ``AgentTool`` as it is, a function as ``tool_from_function`` makes it (its
    typed parameters are the schema, its docstring the description), as pydantic-ai's ``Agent(tools=...)``."""
    if isinstance(tools, (str, bytes, AgentTool)) or callable(tools):
        raise HarnessError(f"tools= takes a list of functions and AgentTools, got {tools!r}: "
                           f"write tools=[{_label(tools)}]")
    out: dict[str, AgentTool] = {}
    for i, t in enumerate(tools):
        if isinstance(t, AgentTool):
            tool = t
        elif callable(t):
            try:
                tool = tool_from_function(t)
            except (TypeError, NameError, ValueError) as e:
                raise HarnessError(f"tools[{i}] ({_label(t)}): {e}") from None
        else:
            raise HarnessError(f"tools[{i}] is {t!r}: give a function (typed parameters, a docstring) or an AgentTool")
        if tool.name in out:
            raise HarnessError(f"tools[{i}]: two tools are named {tool.name!r}; give one of them another name "
                               f"(tool_from_function(fn, name=...))")
        out[tool.name] = tool
    return out


def _label(obj: Any) -> str:
    return str(getattr(obj, "__name__", None) or getattr(obj, "name", None) or repr(obj))


def _python_advice(name: str) -> str:
    return (f'Give it in tools=[{name}] (a typed function), mock it (mock_tools={{"{name}": "..."}}), '
            "or load the extension that registers it.")


def _async_twin(name: str) -> str:
    """The coroutine twin of a blocking method, by the naming rule (docs/architecture.md)."""
    return name.removesuffix("_sync") if name.endswith("_sync") else f"{name}_async"


def _looks_like_path(spec: str | os.PathLike[str]) -> bool:
    s = os.fspath(spec)
    return s.endswith(".py") or os.sep in s or "/" in s or Path(s).exists()


create_test_session = TestSession
"""Build a ``TestSession``: the same keyword options (see the module docstring and docs/testing.md)."""


def _dialogs_covered(record: Recorder) -> Recorder:
    """``record`` that also tells suite coverage (``--autocue-coverage``) of each dialog the UI was asked for."""

    def covered(name: str, args: list[Any], value: Any) -> None:
        cov = suite_coverage.COLLECTOR
        if cov is not None and name in UI_OPTIONS:
            cov.dialog(name, str(args[0]) if args else "")
        record(name, args, value)

    return covered

"""One error family: every exception class autocue defines derives from ``autocue.AutocueError``.

The walk imports every module of ``autocue`` and collects the exception classes defined there
(private control-flow ones included), so a new exception that forgets the root fails here. The
tree in docs/architecture.md is compared with the one the code defines.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import autocue
from autocue import AutocueError

PAGE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def autocue_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(autocue.__path__, "autocue."):
        if info.name == "autocue.__main__":  # runs the command when imported; defines nothing
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == info.name
                    and not obj.__name__.startswith("_")):  # private ones never leave their module
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


def exception_tree() -> list[str]:
    """The public classes below ``AutocueError``, indented by depth, each with its stdlib bases and module."""
    classes = [c for c in autocue_exceptions() if not c.__name__.startswith("_")]
    lines = ["AutocueError (autocue.errors)"]

    def add(parent: type[BaseException], depth: int) -> None:
        for c in sorted((c for c in classes if parent in c.__bases__), key=lambda c: c.__name__):
            stdlib = [b.__name__ for b in c.__bases__ if b.__module__ == "builtins"]
            extra = f" [{', '.join(stdlib)}]" if stdlib else ""
            lines.append(f"{'    ' * depth}{c.__name__}{extra} ({c.__module__})")
            add(c, depth + 1)

    add(AutocueError, 1)
    return lines


def test_every_autocue_exception_derives_from_autocue_error() -> None:
    classes = autocue_exceptions()
    assert len(classes) > 30  # the walk found the package's exceptions, not an empty list
    outside = [f"{c.__module__}.{c.__qualname__}" for c in classes if c is not AutocueError
               and not issubclass(c, AutocueError)]
    assert outside == [], f"derive these from autocue.AutocueError (keep their stdlib base): {outside}"


def test_the_stdlib_bases_stay() -> None:
    from autocue.loop.safe_files import UnsafeFileError
    from autocue.scenario import ScenarioError
    from autocue.session import SessionBusyError, SessionDisposedError, SessionError, SessionFileNotFoundError
    from autocue.testing.errors import HarnessError

    assert issubclass(ScenarioError, ValueError)
    assert issubclass(HarnessError, AssertionError)
    assert issubclass(UnsafeFileError, OSError)
    assert issubclass(SessionFileNotFoundError, FileNotFoundError)
    for busy in (SessionBusyError, SessionDisposedError):
        assert issubclass(busy, SessionError) and issubclass(busy, RuntimeError)


def test_the_docs_list_the_tree_the_code_defines() -> None:
    text = PAGE.read_text()
    block = re.search(r"<!-- exception tree:.*?-->\n```text\n(.*?)```", text, re.S)
    assert block is not None, "docs/architecture.md lost its exception tree block"
    assert block.group(1).splitlines() == exception_tree(), "\n".join(exception_tree())


def test_nearest_is_the_one_did_you_mean_within_edit_distance_2() -> None:
    from autocue.errors import edit_distance, nearest

    assert [edit_distance(a, b) for a, b in [("veiw", "view"), ("kitten", "sitting"), ("", "ab"), ("run", "run")]] == [
        1, 3, 2, 0]
    profiles = ["mock", "aider", "autocue", "claude", "codex", "gemini", "opencode", "pi"]
    assert [nearest(w, profiles) for w in ("claud", "Claude-", "codx", "gemni", "opncode", "pie")] == [
        "claude", "claude", "codex", "gemini", "opencode", "pi"]
    assert [nearest(w, profiles) for w in ("frobnicate", "bash", "p", "xy")] == [None, None, None, None]


def test_a_package_defines_its_public_exceptions_in_its_errors_py() -> None:
    elsewhere = []
    for c in autocue_exceptions():
        parts = c.__module__.split(".")
        package = ".".join(parts[:2])
        if len(parts) == 2 and not (Path(autocue.__path__[0]) / parts[1]).is_dir():
            continue  # a root module (autocue.errors, autocue.yamlpos, ...) keeps its own
        if c.__module__ != f"{package}.errors":
            elsewhere.append(f"{c.__module__}.{c.__qualname__}")
    assert elsewhere == [], f"define these in their package's errors.py (re-import them where they were): {elsewhere}"


def test_a_moved_exception_is_still_importable_from_its_old_module() -> None:
    from autocue.llm.providers.http import ProviderHTTPError
    from autocue.loop import LoopError
    from autocue.loop.config import LoopConfigError
    from autocue.runner.pytest_plugin import ScenarioFailed
    from autocue.runner.report import ReportError
    from autocue.sandbox import SandboxError, SmokeSpecError
    from autocue.session.settings import SettingsError

    assert LoopConfigError.__module__ == "autocue.loop.errors" and issubclass(LoopConfigError, LoopError)
    assert issubclass(LoopConfigError, ValueError) and issubclass(ReportError, ValueError)
    assert issubclass(SmokeSpecError, SandboxError) and issubclass(SettingsError, ValueError)
    assert (ScenarioFailed.__module__, ProviderHTTPError.__module__) == ("autocue.runner.errors", "autocue.llm.errors")
    from autocue.mockllm.errors import MockLLMError
    from autocue.mockllm.sources import ScenarioSourceError
    from autocue.mockllm.state import PinLimitError
    from autocue.mockllm.wire.fuzz import FuzzSpecError

    assert all(issubclass(c, MockLLMError) and issubclass(c, ValueError)
               for c in (ScenarioSourceError, PinLimitError, FuzzSpecError))

"""The part of the sandbox check that runs inside the fresh interpreter.

    <venv>/bin/python -I -m autocue.sandbox.child REQUEST.json REPORT.json

It discovers extensions through the ``autocue.extensions`` entry-point group only (the
working directory and ``AUTOCUE_DIR`` are empty directories), imports each entry point to
tell failure classes apart, loads them all for real with the extension loader, binds a real
``AgentSession`` (``session_start``, ``resources_discover`` → skills), checks the registered
tools, optionally plays the smoke playbook through ``create_test_session``, and writes the
JSON report to ``REPORT.json`` (stdout is left to the extensions).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata as md
import json
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from autocue.extensions.loader import ENTRY_POINT_GROUP, ExtensionsResult, LoadError, finish_loading, load_extensions
from autocue.sandbox.problems import Problem, ProblemKind

_AUTOCUE_DIR = str(Path(__file__).resolve().parents[1])
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_BUILTIN_TOOLS = frozenset({"read", "write", "edit", "bash", "grep", "find", "ls"})


def _ep_label(ep: md.EntryPoint) -> str:
    return f"{ep.name} = {ep.value!r}"


def _ep_where(ep: md.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    name = dist.metadata["Name"] if dist is not None else "?"
    return f'entry point {ep.name} = "{ep.value}" (group {ENTRY_POINT_GROUP}, distribution {name})'


def _tb(err: BaseException) -> str:
    return "".join(traceback.format_exception(type(err), err, err.__traceback__))


def _user_frame(err: BaseException) -> str | None:
    """The innermost traceback frame outside autocue and the standard library: ``file:line in fn``."""
    found: str | None = None
    stdlib = str(Path(json.__file__).resolve().parent)
    for fr in traceback.extract_tb(err.__traceback__):
        fn = str(Path(fr.filename).resolve()) if not fr.filename.startswith("<") else fr.filename
        if fn.startswith(_AUTOCUE_DIR) or fn.startswith(stdlib) or fr.filename.startswith("<frozen"):
            continue
        found = f"{fr.filename}:{fr.lineno} in {fr.name}"
    return found


class Checker:
    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request
        self.work = Path(request["work_dir"])
        self.agent_dir = Path(request["agent_dir"])
        self.source_modules: dict[str, str] = dict(request.get("source_modules") or {})
        self.package_tops: set[str] = set(request.get("package_top_level") or [])
        self.package_tops |= {m.split(".")[0] for m in self.source_modules}
        self.problems: list[Problem] = []
        self.warnings: list[str] = []
        self.report: dict[str, Any] = {"python": sys.version.split()[0], "executable": sys.executable}

    # ------------------------------------------------------------------ entry points
    def precheck(self, ep: md.EntryPoint) -> Problem | None:
        """Import the entry point the way the loader will, and name what is wrong."""
        label = _ep_label(ep)
        try:
            module = importlib.import_module(ep.module)
        except ModuleNotFoundError as e:
            return self._missing_module(ep, e)
        except Exception as e:
            return self._import_failed(ep, e)
        obj: Any = module
        for part in (ep.attr or "").split(".") if ep.attr else []:
            if not hasattr(obj, part):
                have = sorted(n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                              and getattr(v, "__module__", None) == module.__name__)
                return Problem(
                    ProblemKind.BROKEN_ENTRY_POINT,
                    f"{_ep_where(ep)}: module {ep.module} has no attribute {ep.attr!r}",
                    "The entry point's ':attribute' part names something the installed module does not define.",
                    f"Point the entry point at the extension function, e.g. \"{ep.module}:extension\" or just "
                    f"\"{ep.module}\" (module-level `extension(api)`). Callables in the module: "
                    f"{', '.join(have) or 'none'}.",
                    extension=label,
                )
            obj = getattr(obj, part)
        if obj is module:
            fn = getattr(module, "extension", None)
            if fn is None or not callable(fn):
                return Problem(
                    ProblemKind.BROKEN_ENTRY_POINT,
                    f"{_ep_where(ep)}: module {ep.module} ({getattr(module, '__file__', '?')}) has no "
                    "`extension(api)` function",
                    "An entry point naming a module loads that module's `extension(api)` function.",
                    f"Define `def extension(api): ...` in {ep.module}, or name the function: "
                    f"\"{ep.module}:my_function\".",
                    extension=label,
                )
        elif not callable(obj):
            return Problem(
                ProblemKind.BROKEN_ENTRY_POINT,
                f"{_ep_where(ep)}: {ep.value} is a {type(obj).__name__}, not a function",
                "An entry point must name an extension function (taking the ExtensionAPI) or a module with one.",
                f"Point it at the function: \"{ep.module}:<function>\".",
                extension=label,
            )
        return None

    def _missing_module(self, ep: md.EntryPoint, e: ModuleNotFoundError) -> Problem:
        label = _ep_label(ep)
        missing = e.name or ""
        top = missing.split(".")[0]
        where = _user_frame(e)
        at = f" (imported at {where})" if where else ""
        if missing in self.source_modules:
            return Problem(
                ProblemKind.MODULE_MISSING_FROM_WHEEL,
                f"{_ep_where(ep)}: module {missing} is not in the installed package{at}, but it is in the source "
                f"tree at {self.source_modules[missing]}",
                "The wheel's build configuration left the module out, so users who install the package do "
                "not get it (tests that import from the source tree cannot see this).",
                "Include it in the wheel: with hatchling check [tool.hatch.build.targets.wheel] packages / "
                "only-include / exclude; with setuptools check [tool.setuptools] packages / py-modules. Then "
                "list the wheel's files (unzip -l dist/*.whl) to confirm.",
                _tb(e), label, {"module": missing, "source": self.source_modules[missing]},
            )
        if missing == ep.module or ep.module.startswith(missing + "."):
            return Problem(
                ProblemKind.BROKEN_ENTRY_POINT,
                f"{_ep_where(ep)}: module {ep.module} does not exist (neither in the installed package nor in "
                "the source tree)",
                "The entry point names a module that is not there (a typo, or a module renamed since).",
                "Fix [project.entry-points.\"autocue.extensions\"] in pyproject.toml. Top-level names in the "
                f"wheel: {', '.join(sorted(self.package_tops)) or 'none'}.",
                _tb(e), label, {"module": missing},
            )
        if top in self.package_tops:
            return Problem(
                ProblemKind.IMPORT_ERROR,
                f"{_ep_where(ep)}: importing {ep.module} failed: no module named {missing!r}{at}",
                f"{missing} is inside the package's own namespace but exists neither in the wheel nor in the "
                "source tree: an import names a module that is not there.",
                "Fix the import (or add the module).",
                _tb(e), label, {"module": missing},
            )
        return Problem(
            ProblemKind.UNDECLARED_DEPENDENCY,
            f"{_ep_where(ep)}: importing {ep.module} failed: no module named {missing!r}{at}",
            f"The extension imports {top}, which is not installed in the sandbox: only the package's declared "
            "dependencies (and theirs) are. It works on your machine because it is installed there.",
            f"Add the distribution that provides {top!r} to [project].dependencies in pyproject.toml.",
            _tb(e), label, {"module": missing},
        )

    def _import_failed(self, ep: md.EntryPoint, e: BaseException) -> Problem:
        where = _user_frame(e)
        at = f" at {where}" if where else ""
        if isinstance(e, SyntaxError):
            at = f" at {e.filename}:{e.lineno}"
        return Problem(
            ProblemKind.IMPORT_ERROR,
            f"{_ep_where(ep)}: importing {ep.module} raised {type(e).__name__}: {e}{at}",
            "The module fails while it is being imported (module-level code), so no extension can load.",
            "Run `python -c 'import " + ep.module + "'` in a clean environment and fix the error; move side "
            "effects out of module level into extension(api) or handlers.",
            _tb(e), _ep_label(ep),
        )

    def load_error(self, ep: md.EntryPoint | None, err: LoadError) -> Problem:
        label = _ep_label(ep) if ep is not None else err.name
        where = _ep_where(ep) if ep is not None else f"extension {err.name} ({err.path})"
        frames = traceback.extract_tb(err.error.__traceback__)
        in_register = any(f.name in ("register_tool", "_function_tool", "tool_from_function") for f in frames)
        user = _user_frame(err.error)
        at = f" at {user}" if user else ""
        if in_register:
            return Problem(
                ProblemKind.TOOL_REGISTRATION,
                f"{where}: api.register_tool failed{at}: {type(err.error).__name__}: {err.error}",
                "register_tool takes an AgentTool or a typed function (every parameter annotated, a docstring "
                "for the description); the tool given cannot be turned into a model-callable tool.",
                "Fix the registered tool (see the traceback for the tool and the exact complaint).",
                err.traceback, label,
            )
        return Problem(
            ProblemKind.EXTENSION_ERROR,
            f"{where}: extension(api) raised{at}: {type(err.error).__name__}: {err.error}",
            "The extension's setup function fails, so none of its tools, hooks or commands exist.",
            "Fix the error shown in the traceback; only registration (api.on, api.register_*) is allowed while "
            "loading, actions belong in handlers.",
            err.traceback, label,
        )

    # ------------------------------------------------------------------ tools
    def check_tools(self, result: ExtensionsResult, labels: dict[str, str]) -> None:
        owner: dict[str, str] = {}
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        for ext in result.extensions:
            label = labels.get(ext.path, ext.name)

            def bad(message: str, explanation: str, fix: str, details: str = "", label: str = label) -> None:
                self.problems.append(Problem(ProblemKind.TOOL_REGISTRATION, message, explanation, fix, details,
                                             label))

            for name, tool in ext.tools.items():
                where = f"extension {label}: tool {name!r}"
                if name in owner:
                    bad(f"{where} is registered by two extensions ({owner[name]} and {label})",
                        "Two extensions registering the same tool name collide: only one of them is used.",
                        "Rename one of the tools.")
                owner[name] = label
                if not _TOOL_NAME.match(name):
                    bad(f"{where}: the name is not valid for model APIs",
                        "OpenAI, Anthropic and Gemini accept tool names of 1-64 letters, digits, '_' and '-' only; "
                        "a request with this tool fails at the provider.",
                        "Rename the tool, e.g. " + repr(re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "my_tool") + ".")
                schema = tool.parameters
                if not isinstance(schema, dict) or schema.get("type") != "object":
                    bad(f"{where}: parameters must be a JSON Schema object with \"type\": \"object\", got {schema!r}"[
                        :400],
                        "Model APIs take tool arguments as a JSON object described by an object schema.",
                        "Give parameters={'type': 'object', 'properties': {...}, 'required': [...]}.")
                else:
                    try:
                        validator_for(schema).check_schema(schema)
                    except SchemaError as e:
                        bad(f"{where}: its parameters are not a valid JSON Schema: {e.message}",
                            "The schema is sent to the model and used to validate arguments; an invalid one breaks "
                            "both.", "Fix the parameters schema (see details).", str(e))
                if not callable(getattr(tool, "execute", None)):
                    bad(f"{where}: execute is not callable",
                        "The agent calls tool.execute(tool_call_id, params, signal, on_update).",
                        "Give the AgentTool an execute function.")
                if not (tool.description or "").strip():
                    self.warnings.append(f"{where} has no description (the model sees none)")
                if name in _BUILTIN_TOOLS:
                    self.warnings.append(f"{where} replaces the built-in tool {name!r}")

    # ------------------------------------------------------------------ main
    async def run(self) -> dict[str, Any]:
        eps = sorted(md.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)
        self.report["entry_points"] = [
            {"name": ep.name, "value": ep.value,
             "dist": ep.dist.metadata["Name"] if getattr(ep, "dist", None) is not None else None}  # type: ignore[union-attr]
            for ep in eps
        ]
        by_path = {f"entry-point:{ep.name} ({ep.value})": ep for ep in eps}
        labels = {path: _ep_label(ep) for path, ep in by_path.items()}
        classified: set[str] = set()
        for path, ep in by_path.items():
            pre = self.precheck(ep)
            if pre is not None:
                self.problems.append(pre)
                classified.add(path)

        # Load for real: discovery with an empty cwd and agent dir finds the entry points only.
        result = load_extensions([], cwd=self.work, discover=True, agent_dir=self.agent_dir)
        await finish_loading(result)
        extension_errors = [err.message for err in result.errors]
        self.problems += [self.load_error(by_path.get(e.path), e) for e in result.errors if e.path not in classified]
        self.check_tools(result, labels)

        skills, session_errors = await self._bind(result)
        extension_errors += session_errors
        loaded_paths = [e.path for e in result.extensions]
        self.report["extensions"] = [
            {"name": e.name, "path": e.path, "entry_point": labels.get(e.path), "tools": list(e.tools),
             "commands": list(e.commands)}
            for e in result.extensions
        ]
        self.report["loaded"] = {
            "extensions": len(result.extensions),
            "extension_errors": extension_errors,
            "tools": [t for e in result.extensions for t in e.tools],
            "skills": skills,
        }
        smoke = self.request.get("smoke")
        if smoke is not None:
            specs = [by_path[p].value for p in loaded_paths if p in by_path]
            self.report["smoke"] = await self._smoke(smoke, specs)
        self.report["problems"] = [p.to_json() for p in self.problems]
        self.report["warnings"] = self.warnings
        return self.report

    async def _bind(self, result: ExtensionsResult) -> tuple[list[str], list[str]]:
        """Bind a real session: ``session_start`` and ``resources_discover`` run; skills are loaded."""
        from autocue.script.provider import ScriptedProvider
        from autocue.session.agent_session import AgentSession

        session = AgentSession(provider=ScriptedProvider(), cwd=self.work, extensions=result, tools={})
        errors: list[str] = []
        announced: list[str] = []

        def listen(ev: Any) -> None:
            if getattr(ev, "type", None) == "extension_error":
                errors.append(f"{ev.extension_path}: {ev.event} handler raised: {ev.error}")
                self.problems.append(Problem(
                    ProblemKind.EXTENSION_ERROR,
                    f"extension {ev.extension_path}: its {ev.event!r} handler raised: {ev.error}",
                    f"The handler runs when a session starts ({ev.event}); it fails in a clean install.",
                    "Fix the handler (see details).", ev.stack or "",
                ))

        session.subscribe(listen)
        runner = session.runner
        original = runner.emit_resources_discover

        async def spy(ev: Any) -> tuple[list[str], list[str]]:
            skills, prompts = await original(ev)
            announced.extend(skills)
            return skills, prompts

        runner.emit_resources_discover = spy  # type: ignore[method-assign]
        try:
            await session.bind_extensions()
            for p in announced:
                path = Path(p) if Path(p).is_absolute() else self.work / p
                if not path.exists():
                    self.problems.append(Problem(
                        ProblemKind.SKILL_ERROR,
                        f"an extension announces the skill path {p}, which does not exist in the installed package",
                        "resources_discover returned a path to skill files the wheel does not contain (or a path "
                        "relative to the user's working directory instead of the package).",
                        "Build the path from the module (Path(__file__).parent / 'skills') and include the skill "
                        "files in the wheel (hatchling includes files inside the package; setuptools needs "
                        "package-data).",
                    ))
            for d in session.resources.diagnostics:
                self.problems.append(Problem(
                    ProblemKind.SKILL_ERROR, f"skill: {d}",
                    "A skill file an extension announces cannot be used.",
                    "Give every skill a front matter with name and description.",
                ))
            return [s.name for s in session.resources.skills], errors
        finally:
            await session.dispose()

    async def _smoke(self, wire: dict[str, Any], specs: list[str]) -> dict[str, Any]:
        from autocue.sandbox.smoke import events_to_json, wire_mock_ui, wire_to_turns
        from autocue.testing.errors import HarnessError
        from autocue.testing.session import create_test_session

        turns = wire_to_turns(wire["script"])
        try:
            t = create_test_session(
                extensions=specs, mock_tools=wire.get("mock_tools") or {},
                mock_ui=wire_mock_ui(wire.get("mock_ui") or {}), has_ui=bool(wire.get("has_ui", True)),
                propagate_errors=bool(wire.get("propagate_errors", True)),
            )
        except Exception as e:
            return {"error": f"{type(e).__name__}: {e}", "events": None, "transcript": ""}
        error: str | None = None
        try:
            await t.run(*turns)
        except HarnessError as e:
            error = f"{type(e).__name__}: {e}"
        except Exception as e:
            error = f"{type(e).__name__}: {e}\n{_tb(e)}"
        transcript = t.transcript()
        events = events_to_json(t.events)
        await t.dispose_async()
        return {"error": error, "events": events, "transcript": transcript}


def main(argv: list[str]) -> int:
    request_path, report_path = Path(argv[0]), Path(argv[1])
    request = json.loads(request_path.read_text(encoding="utf-8"))
    try:
        report = asyncio.run(Checker(request).run())
    except BaseException as e:  # report the crash itself; the parent names it
        report = {"crash": f"{type(e).__name__}: {e}", "traceback": _tb(e)}
        report_path.write_text(json.dumps(report), encoding="utf-8")
        return 2
    report_path.write_text(json.dumps(report, default=repr), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Print the table of every surface the mock server serves, or write it into docs/mock-server.md.

    python scripts/surfaces.py [--write] [--check]

A surface is an endpoint as its API's docs name it (``WireApi.surfaces`` of each wire module in
``src/autocue/mockllm/wire/``, in the order of ``autocue.catalog.apis``). The "judged by" column
lists the official clients of the tests that carry ``@pytest.mark.surface("METHOD /path",
client="name")``: the test suite drives that endpoint with that client. ``--write`` replaces the
table between the ``<!-- surfaces:start -->`` and ``<!-- surfaces:end -->`` markers of
docs/mock-server.md; ``--check`` exits 1 when the page's table is stale, a mark names no surface,
or a surface's path is answered by no route of the server (``tests/test_surfaces.py`` runs it).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autocue.mockllm.wire.api import Surface, WireApi
from autocue.mockllm.wire.registry import all_apis

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "mock-server.md"
TESTS = ROOT / "tests"
START, END = "<!-- surfaces:start -->", "<!-- surfaces:end -->"


@dataclass
class Judge:
    client: str
    test: str
    """``tests/x.py::test_name``."""


@dataclass
class Row:
    api: WireApi
    surface: Surface
    judges: list[Judge] = field(default_factory=list)


def _marks(node: ast.AST) -> list[tuple[str, str, int]]:
    """``(surface, client, line)`` of every ``pytest.mark.surface(...)`` call in ``node``."""
    out: list[tuple[str, str, int]] = []
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "surface"):
            continue
        if not (call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
            continue
        client = next((k.value.value for k in call.keywords if k.arg == "client" and isinstance(k.value, ast.Constant)
                       and isinstance(k.value.value, str)), "")
        out.append((call.args[0].value, client, call.lineno))
    return out


def judges(tests: Path = TESTS) -> list[tuple[str, Judge, str]]:
    """``(surface name, judge, file:line)`` of every mark in the tests."""
    found: list[tuple[str, Judge, str]] = []
    for f in sorted(tests.rglob("test_*.py")):
        tree = ast.parse(f.read_text(), str(f))
        rel = f.relative_to(tests.parent).as_posix()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for name, client, line in (m for d in node.decorator_list for m in _marks(d)):
                    found.append((name, Judge(client, f"{rel}::{node.name}"), f"{rel}:{line}"))
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                      for t in node.targets):
                for name, client, line in _marks(node.value):
                    found.append((name, Judge(client, rel), f"{rel}:{line}"))
    return found


def rows(tests: Path = TESTS) -> tuple[list[Row], list[str]]:
    """Every surface with its judges, and the problems found (a mark naming no surface)."""
    out = [Row(api, s) for api in all_apis() for s in api.surfaces]
    by_name = {r.surface.name: r for r in out}
    problems: list[str] = []
    for name, judge, where in judges(tests):
        row = by_name.get(name)
        if row is None:
            problems.append(f"{where}: pytest.mark.surface({name!r}) names no surface of any wire API "
                            f"(WireApi.surfaces); known: {', '.join(by_name)}")
        elif not judge.client:
            problems.append(f"{where}: pytest.mark.surface({name!r}) needs client='<official client>'")
        else:
            row.judges.append(judge)
    return out, problems


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "m", path.partition("?")[0])


def unrouted(table: list[Row]) -> list[str]:
    """Surfaces (and their ``also`` paths) that no route of the server answers."""
    from autocue.mockllm.app import MockApp
    from autocue.mockllm.state import MockState

    app = MockApp(MockState())
    bad: list[str] = []
    for r in table:
        s = r.surface
        for path in (s.path, *s.also):
            concrete = _concrete(path)
            if s.method == "WEBSOCKET":  # an upgraded GET, served outside the router
                if concrete not in r.api.websocket_paths:
                    bad.append(f"{r.api.name}: WEBSOCKET {path} is not in {r.api.name}'s websocket_paths")
                continue
            route = next((rt for rt in app.router.routes if rt.regex.match(concrete)
                          and s.method in rt.methods), None)
            if route is None or route.endpoint == app.not_found:
                bad.append(f"{r.api.name}: {s.method} {path} is answered by no route of the mock server")
            elif route.path in {wr.path for wr in r.api.routes} and r.api.call(concrete) is None:
                bad.append(f"{r.api.name}: {s.method} {path} is refused by {r.api.name}'s call()")
    return bad


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(table: list[Row]) -> str:
    judged = sum(1 for r in table if r.judges)
    lines = [
        f"{len(table)} surfaces, {judged} judged by an official client in the test suite "
        "(generated by `python scripts/surfaces.py --write` from the wire modules' `surfaces` and the "
        "tests' `@pytest.mark.surface` marks).",
        "",
        "| API | endpoint | streamed as | judged by |",
        "|---|---|---|---|",
    ]
    for r in table:
        s = r.surface
        ep = f"`{s.method} {s.path}`"
        if s.what:
            ep += f" ({s.what})"
        if s.also:
            ep += "; also " + ", ".join(f"`{a}`" for a in s.also)
        clients = sorted({j.client for j in r.judges})
        files = sorted({j.test.partition("::")[0] for j in r.judges})
        judged_by = (", ".join(f"`{c}`" for c in clients) + " (" + ", ".join(f"`{f}`" for f in files) + ")") \
            if clients else "not judged"
        lines.append(f"| {_cell(r.api.label)} | {_cell(ep)} | {_cell(s.streamed or '—')} | {_cell(judged_by)} |")
    return "\n".join(lines) + "\n"


def page_with(text: str, page: str) -> str:
    head, sep, rest = page.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{PAGE}: the markers {START} and {END} are missing")
    return head + START + "\n" + text + END + tail


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="replace the table in docs/mock-server.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when the page is stale or a mark or path is wrong")
    args = ap.parse_args()
    found, problems = rows()
    problems += unrouted(found)
    text = table(found)
    page = PAGE.read_text()
    if args.write:
        PAGE.write_text(page_with(text, page))
    elif args.check:
        if page_with(text, page) != page:
            problems.append(f"{PAGE.relative_to(ROOT)}: the surface table is stale: run python scripts/surfaces.py "
                            "--write")
    else:
        sys.stdout.write(text)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

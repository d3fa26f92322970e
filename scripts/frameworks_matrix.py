"""Run the framework matrix (examples/frameworks/<name>/) and publish it in docs/frameworks.md.

    python scripts/frameworks_matrix.py [--write] [--only NAME,...]

Each example runs in its own venv, ``.frameworks/<name>/`` (``bash scripts/frameworks.sh
--install NAME`` makes it): its test, with that venv's python. Prints the Markdown table
(framework, the versions installed in the venv, the dialects, the one-line wiring from the
example's ``WIRING``, pass / fail / not installed); ``--write`` replaces the table between the
``<!-- frameworks:start -->`` and ``<!-- frameworks:end -->`` markers of docs/frameworks.md.
Exit 1 when an installed example failed. tests/frameworks/test_framework_matrix.py imports it.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "frameworks"
VENVS = ROOT / ".frameworks"
PAGE = ROOT / "docs" / "frameworks.md"
START, END = "<!-- frameworks:start -->", "<!-- frameworks:end -->"
DIALECT_WORDS = [  # (a word in agent.py, the dialect it means): when agent.py sets no DIALECTS
    ("responses.create", "OpenAI Responses"), ("ResponsesModel", "OpenAI Responses"),
    ("chat.completions", "OpenAI Chat"), ("OpenAI", "OpenAI Chat"), ("anthropic", "Anthropic Messages"),
    ("genai", "Gemini"), ("ollama", "Ollama"), ("bedrock", "Bedrock Converse"), ("boto3", "Bedrock Converse"),
]


def examples() -> list[Path]:
    """Every example folder (one with a requirements.txt), by name."""
    return sorted(p.parent for p in EXAMPLES.glob("*/requirements.txt"))


def python_of(name: str) -> Path:
    return VENVS / name / "bin" / "python"


def install_command(name: str) -> str:
    return f"bash scripts/frameworks.sh --install {name}"


def constants(example: Path) -> dict[str, str]:
    """agent.py's module-level string constants (``WIRING``, ``DIALECTS``), read without importing it."""
    tree = ast.parse((example / "agent.py").read_text())
    found: dict[str, str] = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            found[node.targets[0].id] = node.value.value
    return found


def requirements(example: Path) -> list[tuple[str, str]]:
    """The ``(distribution, pinned version)`` of each line of requirements.txt (extras dropped)."""
    out = []
    for line in (example / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out.append((re.sub(r"\[.*\]", "", name).strip(), version.strip()))
    return out


def dialects(example: Path) -> str:
    """agent.py's ``DIALECTS``, or the dialects the words of its source name."""
    given = constants(example).get("DIALECTS")
    if given:
        return given
    text = (example / "agent.py").read_text()
    found = dict.fromkeys(d for word, d in DIALECT_WORDS if word in text.replace("Anthropic", "anthropic"))
    return ", ".join(found) or "?"


def installed_versions(name: str, example: Path) -> str:
    """``dist version`` of each pinned requirement, read in the example's venv (importlib.metadata)."""
    dists = [d for d, _ in requirements(example)]
    code = ("import importlib.metadata as m, sys\n"
            "for d in sys.argv[1:]:\n"
            "    try: print(d, m.version(d))\n"
            "    except m.PackageNotFoundError: print(d, 'missing')\n")
    out = subprocess.run([str(python_of(name)), "-c", code, *dists], capture_output=True, text=True, check=True)
    return ", ".join(out.stdout.split("\n")[:-1])


def clean_env() -> dict[str, str]:
    """The environment for a venv's pytest: none of the calling pytest's or venv's variables."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "VIRTUAL_ENV", "COV_")) and k != "PYTHONHOME"}


def run_example(name: str, *pytest_args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The example's test run by its venv's python, from the repository's root."""
    cmd = [str(python_of(name)), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLES / name), *pytest_args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=clean_env())


@dataclass
class Row:
    name: str
    versions: str
    dialects: str
    wiring: str
    result: str
    seconds: float = 0.0


def matrix_row(example: Path) -> Row:
    name = example.name
    wiring = constants(example).get("WIRING", "?")
    if not python_of(name).exists():
        return Row(name, "not installed", dialects(example), wiring, f"not installed: `{install_command(name)}`")
    t0 = time.monotonic()
    done = run_example(name)
    counts = ", ".join(re.findall(r"\d+ (?:passed|failed|skipped|errors?)", done.stdout)) or f"exit {done.returncode}"
    result = ("pass" if done.returncode == 0 else "FAIL") + f" ({counts})"
    return Row(name, installed_versions(name, example), dialects(example), wiring, result, time.monotonic() - t0)


def table(rows: list[Row]) -> str:
    lines = ["| framework | versions installed | dialects | wiring | result |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| [{r.name}](#{r.name}) | {r.versions} | {r.dialects} | `{r.wiring}` | {r.result} |")
    return "\n".join(lines)


def write(text: str) -> None:
    page = PAGE.read_text()
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{START}\n{text}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--write", action="store_true", help="replace the table in docs/frameworks.md")
    ap.add_argument("--only", default="", help="comma-separated example names (default: all)")
    args = ap.parse_args(argv)
    wanted = set(filter(None, args.only.split(",")))
    rows = []
    for example in examples():
        if wanted and example.name not in wanted:
            continue
        row = matrix_row(example)
        print(f"{row.result.split(' ', 1)[0]:5} {row.name} ({row.seconds:.1f} s)", file=sys.stderr)
        rows.append(row)
    text = table(rows)
    print(text)
    if args.write:
        write(text)
    return 1 if any(r.result.startswith("FAIL") for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())

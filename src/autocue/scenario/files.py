"""Reading scenarios: from YAML text, a file (bounded by ``MAX_DOCUMENT_BYTES``), or the
``*.yaml`` / ``*.yml`` files of a directory."""

from __future__ import annotations

from pathlib import Path

from autocue.scenario.errors import Pos, ScenarioError
from autocue.scenario.limits import MAX_DOCUMENT_BYTES
from autocue.scenario.loader import ScenarioLoader
from autocue.scenario.model import Scenario
from autocue.scenario.yamlsrc import too_big

SCENARIO_SUFFIXES = (".yaml", ".yml")


def load_scenario_texts(text: str, filename: str = "<string>") -> list[Scenario]:
    """Every scenario document in ``text``."""
    return ScenarioLoader(filename).load(text)


def load_scenario_text(text: str, filename: str = "<string>") -> Scenario:
    """The single scenario in ``text``; ``filename`` is used in positions."""
    docs = load_scenario_texts(text, filename)
    if len(docs) != 1:
        raise ScenarioError(
            f"expected one scenario, found {len(docs)} YAML documents: use load_scenarios() for several",
            docs[1].pos,
        )
    return docs[0]


def read_scenario_file(path: Path) -> str:
    """The text of a scenario file, read no further than ``MAX_DOCUMENT_BYTES`` (``ScenarioError`` past it)."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise ScenarioError(too_big(max(len(data), path.stat().st_size)), Pos(str(path), 1, 1))
        return data.decode("utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such scenario file", Pos(str(path), 1, 1)) from None
    except UnicodeDecodeError as e:
        raise ScenarioError(f"a scenario file must be UTF-8 text ({e.reason} at byte {e.start})",
                            Pos(str(path), 1, 1)) from None
    except IsADirectoryError:
        raise ScenarioError("is a directory: use load_scenarios() for a directory", Pos(str(path), 1, 1)) from None


def load_scenario(path: str | Path) -> Scenario:
    """Load the one scenario in the file at ``path``."""
    p = Path(path)
    return load_scenario_text(read_scenario_file(p), str(p))


def scenario_files(path_or_dir: str | Path) -> list[Path]:
    """The scenario files a path names: itself, or the sorted ``*.yaml``/``*.yml`` of a directory."""
    p = Path(path_or_dir)
    if p.is_dir():
        return sorted(f for f in p.iterdir() if f.suffix in SCENARIO_SUFFIXES and f.is_file())
    return [p]


def load_scenarios(path_or_dir: str | Path) -> list[Scenario]:
    """Every scenario in a file (all its YAML documents) or in a directory's ``*.yaml`` / ``*.yml`` files."""
    return [sc for f in scenario_files(path_or_dir) for sc in load_scenario_texts(read_scenario_file(f), str(f))]

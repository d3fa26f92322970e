"""Matrix definitions: a ``matrix:`` file or axis flags → cells with stable ids (``autocue run --list``);
``--shard I/N`` splits cells, by recorded durations as pytest-split does."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autocue.runner import collect
from autocue.runner.matrix import Cell, cells_of, split
from autocue.runner.options import RunOptions

SCENARIO = ("name: {name}\nagent: mock\ninitialPrompt: hi\ntimeline:\n  - llmResponse:\n"
            "      - assistant: [[0, \"Hi.\"]]\n")


def scenarios(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / f"{n}.yaml").write_text(SCENARIO.format(name=n), encoding="utf-8")
    return folder


def autocue(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue", "run", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def test_a_matrix_file_lists_its_cells_with_stable_ids(tmp_path: Path) -> None:
    scenarios(tmp_path / "sc" / "chat", "hello", "bye")
    scenarios(tmp_path / "sc" / "slow", "long")
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "matrix.yaml").write_text(textwrap.dedent("""\
        matrix:
          scenarios: ["../sc/**/*.yaml"]
          agents: [claude, codex]
          apis: [openai, anthropic]
          exclude:
            - {agent: codex, api: anthropic}
            - {scenario: "sc/slow/*", agent: claude}
    """), encoding="utf-8")
    listed = autocue("--matrix", "ci/matrix.yaml", "--list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "sc/chat/bye.yaml::bye[agent=claude,api=openai]",
        "sc/chat/bye.yaml::bye[agent=claude,api=anthropic]",
        "sc/chat/bye.yaml::bye[agent=codex,api=openai]",
        "sc/chat/hello.yaml::hello[agent=claude,api=openai]",
        "sc/chat/hello.yaml::hello[agent=claude,api=anthropic]",
        "sc/chat/hello.yaml::hello[agent=codex,api=openai]",
        "sc/slow/long.yaml::long[agent=codex,api=openai]",
    ]
    as_json = json.loads(autocue("--matrix", "ci/matrix.yaml", "--list", "--json", cwd=tmp_path).stdout)
    assert as_json[0] == {"id": "sc/chat/bye.yaml::bye[agent=claude,api=openai]", "file": "sc/chat/bye.yaml",
                          "name": "bye", "agent": "claude", "api": "openai", "via": None}
    # from elsewhere, a file outside the current directory is named by its absolute path
    again = autocue("--matrix", "matrix.yaml", "--list", cwd=tmp_path / "ci")
    assert again.stdout.splitlines()[0] == f"{tmp_path.resolve()}/sc/chat/bye.yaml::bye[agent=claude,api=openai]"
    # shards of the cells, by count: disjoint, together the whole list
    shards = [autocue("--matrix", "ci/matrix.yaml", "--list", "--shard", f"{i}/3", cwd=tmp_path).stdout.split()
              for i in (1, 2, 3)]
    assert sorted(x for s in shards for x in s) == sorted(listed.stdout.split())
    assert [len(s) for s in shards] == [3, 2, 2]


def test_axis_flags_make_cells_and_run_them(tmp_path: Path) -> None:
    scenarios(tmp_path / "sc", "hello")
    listed = autocue("sc", "--agent", "mock,autocue", "--llm-api", "openai,anthropic", "--list", cwd=tmp_path)
    assert listed.stdout.split() == ["sc/hello.yaml::hello[agent=mock,api=openai]",
                                     "sc/hello.yaml::hello[agent=mock,api=anthropic]",
                                     "sc/hello.yaml::hello[agent=autocue,api=openai]",
                                     "sc/hello.yaml::hello[agent=autocue,api=anthropic]"]
    ran = autocue("sc", "--agent", "mock,autocue", "--llm-api", "openai,anthropic", "--json", "-j", "2", cwd=tmp_path)
    report = json.loads(ran.stdout)
    assert ran.returncode == 0, (ran.stderr, report)
    assert [s["cell"] for s in report["scenarios"]] == listed.stdout.split()
    assert {s["out_dir"].split("/autocue-runs/")[1].split("/")[0] for s in report["scenarios"]} == {"mock", "autocue"}


@pytest.mark.parametrize(("text", "error"), [
    ("matrix:\n  scenarios: [sc]\n  agent: [mock]\n",
     "m.yaml:3:3: matrix.agent: unknown key; expected one of scenarios, agents, apis, modes, exclude"),
    ("matrix:\n  agents: [mock]\n",
     "m.yaml:2:3: matrix: `scenarios:` is missing: give globs of scenario files, "
     "e.g. scenarios: [\"scenarios/**/*.yaml\"]"),
    ("matrix:\n  scenarios: [sc, \"nothing/*.yaml\"]\n",
     "m.yaml:2:19: matrix.scenarios: 'nothing/*.yaml' matches no scenario file or directory (relative to .)"),
    ("matrix:\n  scenarios: sc\n  exclude:\n    - {agnt: codex}\n",
     "m.yaml:4:8: matrix.exclude[0].agnt: unknown key; expected one of agent, api, mode, scenario, name"),
    ("matrix:\n  scenarios: sc\n  agents: [mock, 3]\n",
     "m.yaml:3:18: matrix.agents[1]: expected a non-empty string (or a list of them)"),
    ("matrix:\n  scenarios: [sc\n", "m.yaml:2:17: invalid YAML"),
    ("scenarios: [sc]\n", "m.yaml:1:1: a matrix file is a mapping with one key `matrix:`"),
])
def test_a_bad_matrix_file_is_one_line_at_its_position(tmp_path: Path, text: str, error: str) -> None:
    scenarios(tmp_path / "sc", "hello")
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    done = autocue("--matrix", "m.yaml", "--list", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith(f"autocue run: {error}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_modes_need_the_runners_via_option(tmp_path: Path) -> None:
    scenarios(tmp_path / "sc", "hello")
    (tmp_path / "m.yaml").write_text("matrix:\n  scenarios: sc\n  modes: [print, tui]\n", encoding="utf-8")
    done = autocue("--matrix", "m.yaml", "--list", cwd=tmp_path)
    if "via" in {f.name for f in dataclasses.fields(RunOptions)}:  # the --via mode option is there: an axis
        assert done.stdout.split() == ["sc/hello.yaml::hello[via=print]", "sc/hello.yaml::hello[via=tui]"]
    else:
        assert done.returncode == 2 and "modes (--via print,tui) need an autocue whose runner has --via" in done.stderr


class _Item:
    """A pytest item as pytest-split sees one: a node id, and its string."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid

    def __str__(self) -> str:
        return self.nodeid


def test_the_duration_split_is_pytest_splits_least_duration(tmp_path: Path) -> None:
    algorithms = pytest.importorskip("pytest_split.algorithms", reason="pytest-split (the dev extra) is the judge")
    names = [f"s{n:02d}" for n in range(13)]
    cells: list[Cell] = cells_of(collect([scenarios(tmp_path, *names)]), agents=["mock", "autocue"])
    durations = {c.id: float((7 * k) % 11 + (20 if k == 3 else 0)) for k, c in enumerate(cells) if k % 5}
    for n in (2, 3, 4):
        ours = [[c.id for c in g] for g in split(cells, n, durations)]
        order = {c.id: k for k, c in enumerate(cells)}
        theirs = [sorted((str(i) for i in g.selected), key=order.__getitem__)
                  for g in algorithms.Algorithms.least_duration.value(n, [_Item(c.id) for c in cells], durations)]
        assert ours == theirs
    # by count when no durations: a round-robin over the ids
    assert [len(g) for g in split(cells, 4)] == [7, 7, 6, 6]


def test_shard_by_recorded_durations_balances_a_previous_jobs_times(tmp_path: Path) -> None:
    scenarios(tmp_path / "sc", "a", "b", "c", "d")
    (tmp_path / "sc" / "slow.yaml").write_text(SCENARIO.format(name="slow").replace(
        "timeline:\n", "timeline:\n  - userCommand: {cmd: \"sleep 1\"}\n"), encoding="utf-8")
    first = autocue("sc", "--job", "prev", "-j", "2", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    by_count = [autocue("sc", "--list", "--shard", f"{i}/2", cwd=tmp_path).stdout.split() for i in (1, 2)]
    timed = [autocue("sc", "--list", "--shard", f"{i}/2", "--durations", "prev", cwd=tmp_path).stdout.split()
             for i in (1, 2)]
    assert sorted(by_count[0] + by_count[1]) == sorted(timed[0] + timed[1])
    assert ["sc/slow.yaml::slow"] in timed  # the slow cell alone on one machine, the four quick ones on the other
    bad = autocue("sc", "--list", "--shard", "1/2", "--durations", "missing.json", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.strip() == "autocue run: missing.json: no such report file"


def test_the_matrix_of_docs_scale_md_loads(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "scale.md").read_text(encoding="utf-8")
    block = page.split("## Matrices and shards", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    scenarios(tmp_path / "scenarios", "hello")
    scenarios(tmp_path / "scenarios" / "slow", "long")
    (tmp_path / "matrix.yaml").write_text(block, encoding="utf-8")
    from autocue.runner.errors import MatrixError
    from autocue.runner.matrix import load_matrix

    m = load_matrix(tmp_path / "matrix.yaml")
    assert (m.agents, m.apis, m.vias) == (["claude", "codex", "gemini"], ["openai", "anthropic"], ["print", "tui"])
    assert m.exclude == [{"agent": "gemini", "api": "anthropic"}, {"scenario": "scenarios/slow/*", "mode": "tui"}]
    cells = cells_of(collect(m.scenarios), agents=m.agents, apis=m.apis, vias=m.vias, exclude=m.exclude)
    assert len(cells) == 2 * 3 * 2 * 2 - 2 * 2 - 3 * 2 + 1 * 1  # less gemini×anthropic, less slow×tui (overlap)
    with pytest.raises(MatrixError, match="mode 'gui' is not one of print, tui, acp"):
        cells_of(collect(m.scenarios), agents=m.agents, vias=["print", "gui"])


def test_via_as_a_comma_list_is_an_axis_of_modes_and_a_bad_mode_is_one_line(tmp_path: Path) -> None:
    scenarios(tmp_path / "sc", "hello")
    listed = autocue("sc", "--agent", "claude,pi", "--via", "print,acp", "--list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == [f"sc/hello.yaml::hello[agent={a},via={v}]"
                                     for a in ("claude", "pi") for v in ("print", "acp")]
    bad = autocue("sc", "--agent", "claude", "--via", "print,gui", "--list", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "autocue run: --via print,gui: 'gui' is not a mode (choose from print, tui, acp)\n"

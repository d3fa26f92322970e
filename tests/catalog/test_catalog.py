"""The catalogue of agent CLIs: each entry is whole, the names resolve as before, and detection
gives what the hand-written if-chain it replaced gave, for any set of declared tool names."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from autocue.catalog import agent_clis, detect_profile, find_cli, get_profile
from autocue.catalog.cli import all_of, any_of, at_least
from autocue.runner.agents import BUILTIN


def old_detect(names: list[str]) -> str | None:
    """``scenario.profiles.detect_profile`` before the catalogue (its names only)."""
    n = set(names)
    if not n:
        return None
    if "exec_command" in n or "apply_patch" in n:
        return "codex"
    if "run_shell_command" in n or {"read_file", "list_directory"} <= n or "grep_search" in n:
        return "gemini-cli"
    if n & {"Bash", "Read", "Write", "Edit"}:
        old = n & {"Grep", "Glob", "Task", "BashOutput", "SlashCommand"}
        return "claude-code-2.0" if old else "claude-code"
    if n & {"todowrite", "webfetch", "glob"}:
        return "opencode"
    if len(n & {"read", "write", "edit", "bash"}) >= 2:
        return "autocue" if n & {"grep", "find", "ls"} else "pi"
    return None


TOOL_NAMES = sorted({t for cli in agent_clis() for p in cli.tools for t in p.agent_tool_names}
                    | {"apply_patch", "TaskCreate", "mcp__x", "Agent", "web_search"})


@given(st.lists(st.sampled_from(TOOL_NAMES), max_size=8))
def test_detection_gives_what_the_if_chain_gave(names: list[str]) -> None:
    found = detect_profile(names)
    assert (found.name if found else None) == old_detect(names)


def test_every_cli_is_launchable_and_named_once() -> None:
    assert list(BUILTIN) == ["claude", "codex", "opencode", "pi", "gemini", "aider", "autocue"]
    for cli in agent_clis():
        assert find_cli(cli.name) is cli and all(find_cli(a) is cli for a in cli.aliases)
        assert BUILTIN[cli.name] is cli.launch
        if cli.tools:
            assert get_profile(cli.name) is cli.tools[0] and cli.launch.tool_profile == cli.tools[0].name
    assert get_profile("claude") is get_profile("claude-code") and get_profile("gemini").name == "gemini-cli"
    assert find_cli("claude-code") is find_cli("claude") and find_cli("gemini-cli") is find_cli("gemini")


def test_signatures() -> None:
    gem = any_of("run_shell_command") | all_of("read_file", "list_directory")
    assert gem.matches({"run_shell_command"}) and gem.matches({"read_file", "list_directory", "x"})
    assert not gem.matches({"read_file"})
    pi_like = at_least(2, "read", "write", "edit", "bash") & any_of("grep", "ls")
    assert pi_like.matches({"read", "bash", "ls"}) and not pi_like.matches({"read", "ls"})
    assert not pi_like.matches({"read", "bash"})


def test_a_cli_is_launched_by_any_of_its_names(tmp_path: Path) -> None:
    from autocue.runner.launch import choose
    from autocue.runner.selection import load_path

    (tmp_path / "s.yaml").write_text("name: s\ntimeline: []\n")
    [sel] = load_path(tmp_path / "s.yaml")
    for name, canonical in (("claude-code", "claude"), ("gemini-cli", "gemini"), ("codex", "codex")):
        choice = choose(sel.scenario, sel.extras, cmd=None, agent=name)
        assert (choice.runner, choice.agent) == (canonical, BUILTIN[canonical])


def test_each_module_of_the_catalogue_is_one_cli_in_the_registry() -> None:
    """A CLI is its module plus its registry line: no module left out, none holding two CLIs."""
    import pkgutil

    import autocue.catalog.clis as registry

    modules = sorted(m.name for m in pkgutil.iter_modules(registry.__path__))
    assert sorted(cli.launch.name for cli in registry.CLIS) == modules
    assert all(vars(registry)[m].CLI.name == m for m in modules)

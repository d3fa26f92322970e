"""Settings: only known keys are normalised, values are checked strictly, errors name file and key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autocue.session import Settings, SettingsError


def test_extension_keys_are_kept_exactly_as_written(tmp_path: Path) -> None:
    ext = {"my_ext": {"api_key_name": "X", "nested_list": [{"snake_key": 1}]}, "plain": {"a_b": 2}}
    (tmp_path / "u").mkdir()
    (tmp_path / "u" / "settings.json").write_text(json.dumps({**ext, "retry": {"max_retries": 7}}))
    s = Settings.load(tmp_path / "p", tmp_path / "u")
    assert s.extra == ext
    assert s.retry.max_retries == 7, "known keys still accept snake_case"
    assert Settings.from_dict({"follow_up_mode": "all", "enable_skill_commands": False}).follow_up_mode == "all"


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ({"retry": {"enabled": "false"}}, "retry.enabled", 'must be true or false, got "false"'),
        ({"compaction": {"enabled": 0}}, "compaction.enabled", "must be true or false, got 0"),
        ({"enableSkillCommands": "no"}, "enableSkillCommands", "must be true or false"),
        ({"retry": {"maxRetries": "three"}}, "retry.maxRetries", 'must be a whole number >= 0, got "three"'),
        ({"retry": {"baseDelayMs": 1.5}}, "retry.baseDelayMs", "must be a whole number >= 0, got 1.5"),
        ({"compaction": {"reserveTokens": True}}, "compaction.reserveTokens", "must be a whole number"),
        ({"compaction": {"keep_recent_tokens": -1}}, "compaction.keepRecentTokens", "got -1"),
        ({"retry": "yes"}, "retry", "must be an object"),
        ({"extensions": "a.py"}, "extensions", "must be a list of strings"),
        ({"defaultThinkingLevel": "max"}, "defaultThinkingLevel", "must be one of off, minimal"),
    ],
)
def test_a_bad_value_names_the_file_and_the_key(tmp_path: Path, data: dict[str, Any], key: str, words: str) -> None:
    path = tmp_path / ".autocue" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(data))
    with pytest.raises(SettingsError) as ei:
        Settings.load(tmp_path, tmp_path / "no-user-dir")
    msg = str(ei.value)
    assert msg.startswith(f"{path}: {key} "), msg
    assert words in msg


def test_the_error_names_the_file_that_holds_the_bad_value(tmp_path: Path) -> None:
    user, project = tmp_path / "u", tmp_path / "p"
    user.mkdir()
    (project / ".autocue").mkdir(parents=True)
    (user / "settings.json").write_text('{"retry": {"enabled": "true"}}')
    (project / ".autocue" / "settings.json").write_text('{"retry": {"maxRetries": 1}}')
    with pytest.raises(SettingsError, match=rf"^{user / 'settings.json'}: retry\.enabled "):
        Settings.load(project, user)


def test_whole_floats_and_real_booleans_are_fine() -> None:
    s = Settings.from_dict({"retry": {"maxRetries": 4.0, "enabled": False}, "compaction": {"enabled": True}})
    assert s.retry.max_retries == 4 and type(s.retry.max_retries) is int and s.retry.enabled is False


def test_the_cli_reports_a_bad_setting_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text('{"retry": {"maxRetries": "lots"}}')
    playbook = tmp_path / "pb.json"
    playbook.write_text('[{"text": "hi"}]')
    env = {**os.environ, "AUTOCUE_DIR": str(home)}
    r = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "-p", "--model", "autocue/playbook", "--playbook", str(playbook),
         "--no-session", "--cwd", str(tmp_path), "hello"],
        capture_output=True, text=True, timeout=60, env=env,
    )
    assert r.returncode == 1
    assert r.stderr.strip() == (
        f'autocue: {home / "settings.json"}: retry.maxRetries must be a whole number >= 0, got "lots"'
    ), r.stderr


def test_an_agent_dir_that_is_a_file_is_a_settings_error(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(SettingsError, match=r"afile is a file, not a directory; point AUTOCUE_DIR at a directory"):
        Settings.load(tmp_path, agent_dir=afile)

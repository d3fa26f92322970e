"""The suite-wide recording scan (``tests/_support/recording_scan.py``) finds what it is for.

Its planted files live in ``tmp_path_factory`` folders, which the scan after each test does not read
(a ``tmp_path`` holding them would fail this very test at teardown)."""

from __future__ import annotations

from pathlib import Path

import pytest
import recording_scan
from recording_scan import LEARNED, leaks_in, recordings_under

from autocue.mockllm import serve
from autocue.record import RecordingServer

SCENARIO = """\
name: scan
timeline:
  - llmResponse:
      - assistant: [[0, "hello"]]
"""


@pytest.fixture
def plant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("planted")


@pytest.mark.parametrize("leak", [
    "sk-live-0123456789abcdefXYZ", "AKIAABCDEFGHIJKLMNOP", "Authorization: AWS4-HMAC-SHA256 Credential=x",
    "Signature=0123456789abcdef0123", "Bearer abc.def-0123456789", "cookie: sid=0123456789abcdef",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "AIzaSyA0123456789abcdefghijklmnopqrstu", "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
])
def test_a_credential_shape_in_a_recording_is_found(plant: Path, leak: str) -> None:
    rec = plant / "rec.yaml"
    rec.write_text(f"# recorded by autocue record\nname: x\ntimeline:\n  - userInputs: [[0, {leak!r}]]\n")
    found = leaks_in(rec, set())
    assert len(found) == 1 and f"{rec}:4:" in found[0], found


def test_ordinary_recorded_text_is_not_a_leak(plant: Path) -> None:
    rec = plant / "rec.yaml"
    rec.write_text("# recorded by autocue record\nname: bearer of news\ntimeline:\n"
                   "  - userInputs: [[0, \"the cookie jar; sk-short; a Signature= line\"]]\n"
                   "  - llmResponse:\n      - assistant: [[0, \"[REDACTED] stays redacted\"]]\n")
    assert leaks_in(rec, set()) == []


def test_a_learned_secret_of_any_shape_is_found_literally(plant: Path) -> None:
    rec = plant / "session-plainword.yaml"
    rec.write_text("# recorded by autocue record\nname: x\ninitialPrompt: my key is plainword\ntimeline: []\n")
    found = leaks_in(rec, {"plainword"})
    assert any(":3: a secret the redactor learned" in f for f in found)
    assert any("its file name holds a credential" in f for f in found)


def test_only_regular_files_with_the_header_are_recordings(plant: Path) -> None:
    (plant / "a.yaml").write_text("# recorded by autocue record\nname: a\n")
    (plant / "b.yaml").write_text("name: b  # recorded by autocue record\n")
    (plant / "sub").mkdir()
    (plant / "sub" / "c.yaml").write_text("# recorded by autocue\nname: c\n")
    (plant / "node_modules").mkdir()
    (plant / "node_modules" / "d.yaml").write_text("# recorded by autocue record\n")
    (plant / "link.yaml").symlink_to(plant / "a.yaml")
    assert sorted(p.relative_to(plant).as_posix() for p in recordings_under(plant)) == ["a.yaml", "sub/c.yaml"]


def test_the_scan_sees_what_a_real_proxy_learned_and_its_recording_is_clean(tmp_path: Path) -> None:
    key = "scan-test-key-0123456789"
    (tmp_path / "up.yaml").write_text(SCENARIO)
    with serve(tmp_path / "up.yaml") as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "recs") as proxy:
        import openai

        client = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=key, max_retries=0)
        text = client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"say {key}"}])
        assert text.choices[0].message.content == "hello"
        files = proxy.files
    assert key in LEARNED, "the redactor's add_secret is watched"
    recs = list(recordings_under(tmp_path))
    assert recs and set(recs) == set(files)
    assert "[REDACTED]" in recs[0].read_text()
    assert [line for r in recs for line in leaks_in(r, LEARNED)] == []
    assert recording_scan.Redactor.add_secret is recording_scan._spy

"""The MCP SDK is the optional extra ``autocue[mcp]``: without it ``autocue mcp`` says so in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autocue.errors import MissingExtraError, require_extra

HIDE_MCP = "import sys\nsys.modules['mcp'] = None  # as if the SDK were not installed\n"


def test_autocue_mcp_without_the_sdk_names_the_extra() -> None:
    code = HIDE_MCP + "from autocue.cli.main import main\nsys.exit(main(['mcp']))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.splitlines() == [
        "autocue mcp: the checks' MCP server (autocue mcp) needs the 'mcp' package, which is not installed: "
        "pip install 'autocue[mcp]'"
    ]


def test_the_rest_of_autocue_imports_without_the_sdk() -> None:
    code = HIDE_MCP + (
        "import autocue.checks, autocue.loop, autocue.testing, autocue.session, autocue.cli.main\n"
        "try:\n"
        "    import autocue.checks.mcp_server\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, e.name)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["MissingExtraError", "mcp"]


def test_a_broken_import_inside_an_installed_package_stays_an_error() -> None:
    inner = ModuleNotFoundError("No module named 'starlette'", name="starlette")
    with pytest.raises(ModuleNotFoundError) as info:
        require_extra(inner, "mcp", "mcp", "the MCP server")
    assert info.value is inner
    err = require_extra(ModuleNotFoundError("x", name="mcp.server"), "mcp", "mcp", "the MCP server")
    assert isinstance(err, MissingExtraError) and isinstance(err, ImportError) and err.extra == "mcp"

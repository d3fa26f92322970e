"""Module-level handlers for ``fake_mcp_server(transport="stdio")`` tests (the child imports them by name)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def echo(args: dict[str, Any]) -> str:
    return f"echo {args.get('text', '')} from pid {os.getpid()}"


def die_once(args: dict[str, Any]) -> str:
    """The first call (no marker file yet) ends the server process mid-call; later calls answer."""
    marker = Path(args["marker"])
    if not marker.exists():
        marker.write_text("died", encoding="utf-8")
        os._exit(3)
    return f"back, pid {os.getpid()}"


def slow(args: dict[str, Any]) -> str:
    time.sleep(float(args.get("seconds", 5)))
    return "slow done"

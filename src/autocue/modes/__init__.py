"""How the ``autocue`` agent CLI talks to its user, one module per mode.

- ``print_mode.run_print``: ``-p`` (final text on stdout, exit 1 on error/abort) and
  ``--mode json`` (session header, then every session event as one JSON line);
- ``rpc_mode.run_rpc``: ``--mode rpc``, the JSONL command protocol of pi's RPC mode,
  including the extension UI request/response exchange (``rpc_ui.RpcUI``);
- ``interactive.run_interactive``: a line-based terminal mode with streamed output, tool
  activity and slash commands.

Every mode drives an ``autocue.session.AgentSession`` built by ``autocue.cli.agent``.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded on first use (see __getattr__); mypy sees the real types
    from autocue.modes.interactive import TerminalUI, run_interactive
    from autocue.modes.print_mode import run_print
    from autocue.modes.rpc_mode import RpcCommandError, RpcServer, run_rpc
    from autocue.modes.rpc_ui import RpcUI

_LAZY = {
    "run_print": "autocue.modes.print_mode",
    "run_rpc": "autocue.modes.rpc_mode",
    "RpcServer": "autocue.modes.rpc_mode",
    "RpcCommandError": "autocue.modes.rpc_mode",
    "RpcUI": "autocue.modes.rpc_ui",
    "run_interactive": "autocue.modes.interactive",
    "TerminalUI": "autocue.modes.interactive",
}
"""Each mode is imported when it is used: the CLI loads only the one it runs."""

__all__ = ["RpcCommandError", "RpcServer", "RpcUI", "TerminalUI", "run_interactive", "run_print", "run_rpc"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'autocue.modes' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

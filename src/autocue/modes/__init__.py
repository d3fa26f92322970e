"""How the ``autocue`` agent CLI talks to its user, one module per mode.

- ``print_mode.run_print``: ``-p`` (final text on stdout, exit 1 on error/abort) and
  ``--mode json`` (session header, then every session event as one JSON line);
- ``rpc_mode.run_rpc``: ``--mode rpc``, the JSONL command protocol of pi's RPC mode,
  including the extension UI request/response exchange (``rpc_ui.RpcUI``);
- ``interactive.run_interactive``: a line-based terminal mode with streamed output, tool
  activity and slash commands.

Every mode drives an ``autocue.session.AgentSession`` built by ``autocue.cli.agent``.
"""

__all__ = ["common", "interactive", "print_mode", "rpc_mode", "rpc_ui"]
"""The modes are submodules, each imported when it is used: the CLI loads only the one it runs."""

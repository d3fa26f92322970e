"""What ``autocue serve``, ``record`` and ``simulate`` share: the ``--host`` / ``--port`` /
``--log-level`` options, binding with one error line, and serving until Ctrl-C.

Nothing of uvicorn or the servers is imported before serving starts, so a command can listen
before it loads its app.
"""

from __future__ import annotations

import argparse
import errno
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from autocue.cli.args import fail, one_line
from autocue.mockllm.sockets import bind_socket

if TYPE_CHECKING:
    from autocue.mockllm.asgi import ASGIApp

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def port_number(text: str) -> int:
    """``--port``: an integer 0-65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a port 0-65535 (0: any free port)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is out of range; give a port 0-65535 (0: any free port)")
    return port


def add_listen_options(p: argparse.ArgumentParser) -> None:
    """``--host``, ``--port`` and ``--log-level``."""
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=0, help="port 0-65535 (default 0: any free port)")
    p.add_argument("--log-level", default="warning", type=str.lower, choices=LOG_LEVELS,
                   help="uvicorn log level (default warning)")


def bind_problem(host: str, port: int, e: OSError) -> str:
    """One line for a socket that could not be bound."""
    where = f"{host}:{port}"
    if e.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: the port is in use; pick another --port, or --port 0 for any free one"
    if e.errno in (errno.EADDRNOTAVAIL, errno.EACCES):
        return f"cannot listen on {where}: {e.strerror}; check --host and --port"
    if isinstance(e, socket.gaierror):
        return f"cannot listen on {where}: unknown host {host!r} ({e.strerror}); check --host"
    return f"cannot listen on {where}: {e.strerror or e}"


def listen(prog: str, args: argparse.Namespace) -> socket.socket | None:
    """The socket listening on ``--host`` / ``--port``; None once it said why there is none."""
    try:
        return bind_socket(args.host, args.port)
    except OSError as e:
        fail(prog, bind_problem(args.host, args.port, e))
        return None


def serve_forever(prog: str, args: argparse.Namespace, sock: socket.socket, app: ASGIApp,
                  announce: Callable[[str, int], None]) -> int:
    """Serve ``app`` on ``sock`` until interrupted, after ``announce(url, port)``; 2 with one
    line when ``AUTOCUE_HTTP_PARSER`` names no parser."""
    import uvicorn

    from autocue.mockllm.server import uvicorn_config

    try:
        config = uvicorn_config(app, args.log_level)
    except ValueError as e:
        return fail(prog, one_line(str(e)))
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    announce(f"http://{host}:{port}", port)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


def base_url_lines(url: str) -> list[str]:
    """Where each client points at a server (the mock or the recording proxy) listening at ``url``."""
    ws = "ws" + url[4:] if url.startswith("http") else url
    return [f"  OpenAI base URL: {url}/v1 (Responses WebSocket: {ws}/v1/responses)",
            f"  Anthropic, Gemini, Ollama (host), Bedrock (endpoint_url) base URL: {url}"]

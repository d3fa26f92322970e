"""``SimulationServer``: the simulation API on loopback in a background thread (tests, benchmarks).

    with SimulationServer([scenario], speed=0) as server:
        httpx2.post(server.url + "/api/v1/sessions", json={"scenario": scenario.name})

``drop_clients()`` closes every open event stream (as a network cut would), so tests can
check that clients resume with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any, cast

import uvicorn

from autocue.mockllm.server import serve_in_thread, uvicorn_config
from autocue.mockllm.sockets import bind_socket
from autocue.scenario import Scenario
from autocue.simulate.app import SimState, create_app


class SimulationServer:
    def __init__(self, scenarios: list[Scenario], *, host: str = "127.0.0.1", port: int = 0, speed: float = 1.0,
                 loop: bool = False) -> None:
        self.state = SimState(scenarios, speed=speed, loop=loop)
        self.app = create_app(self.state)
        self.host = host
        self.port = port
        self._sock: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> SimulationServer:
        if self._thread is not None:
            raise RuntimeError("server already started")
        sock = self._sock = bind_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        server = self._server = uvicorn.Server(uvicorn_config(cast(Any, self.app)))

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            try:
                await server.serve(sockets=[sock])
            finally:
                self.state.stop()

        try:
            self._thread = serve_in_thread(server, lambda: asyncio.run(main()),
                                           name=f"autocue-simulate:{self.port}", what="simulation server")
        except RuntimeError:
            self.stop()
            raise
        return self

    def drop_clients(self) -> None:
        """End every open event stream now (clients reconnect and resume after their last event)."""
        if self._loop is not None:
            done = threading.Event()

            def drop() -> None:
                self.state.drop_clients()
                done.set()

            self._loop.call_soon_threadsafe(drop)
            done.wait(5)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._sock is not None:
            self._sock.close()
        self._thread = self._server = self._sock = self._loop = None

    def __enter__(self) -> SimulationServer:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["SimulationServer"]

"""``SimulationServer``: the simulation API on loopback in a background thread (tests, benchmarks).

    with SimulationServer([scenario], speed=0) as server:
        httpx2.post(server.url + "/api/v1/sessions", json={"scenario": scenario.name})

``max_body``, ``session_ttl`` and ``max_sessions`` bound requests and sessions as
``autocue simulate``'s options do (docs/simulate.md). ``drop_clients()`` closes every open
event stream (as a network cut would), so tests can check that clients resume with
``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import socket
import threading

import uvicorn

from autocue.mockllm.options import DEFAULT_MAX_BODY, MAX_SESSIONS, SESSION_TTL
from autocue.mockllm.server import LoopbackServer
from autocue.scenario import Scenario
from autocue.simulate.app import SimState, create_app


class SimulationServer(LoopbackServer):
    what = "simulation server"
    thread_name = "autocue-simulate"

    def __init__(self, scenarios: list[Scenario], *, host: str = "127.0.0.1", port: int = 0, speed: float = 1.0,
                 loop: bool = False, max_body: int = DEFAULT_MAX_BODY, session_ttl: float = SESSION_TTL,
                 max_sessions: int = MAX_SESSIONS) -> None:
        self.state = SimState(scenarios, speed=speed, loop=loop, max_body=max_body, session_ttl=session_ttl,
                              max_sessions=max_sessions)
        super().__init__(create_app(self.state), host, port)
        self._loop: asyncio.AbstractEventLoop | None = None

    url = LoopbackServer.base_url

    def _run(self, server: uvicorn.Server, sock: socket.socket) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            try:
                await server.serve(sockets=[sock])
            finally:
                self.state.stop()

        asyncio.run(main())

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
        super().stop()
        self._loop = None


__all__ = ["SimulationServer"]

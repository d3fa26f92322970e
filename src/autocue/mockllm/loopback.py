"""Who is talking to a loopback server: the ``Host`` and ``Origin`` tests that the mock
server's admin API (``admin.py``) and the simulation API (``autocue.simulate``) share.

A web page open in the user's browser can send requests to any loopback port. Two headers
tell its requests apart from a script's or an SDK's:

- ``Host`` names what the browser thinks it is talking to: a DNS-rebinding page sends its
  own name, so only loopback names (``localhost``, ``127.0.0.0/8``, ``::1``) and the bound
  address pass (``host_is_local``).
- ``Origin`` names the page: scripts and SDKs send none; a page on another site sends its
  own (``origin_is_local`` says whether it is loopback, on one port or any).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit


def host_name(host: str) -> str | None:
    """The host part of a ``Host`` header (``[::1]:80`` → ``::1``), or None when malformed."""
    try:
        split = urlsplit("//" + host)
        _ = split.port
    except ValueError:
        return None
    return split.hostname


def is_local(name: str | None, bound: str | None) -> bool:
    """``name`` is ``localhost``, a loopback address or ``bound`` (the address the connection came in on)."""
    if not name:
        return False
    name = name.rstrip(".")
    if name == "localhost" or (bound is not None and name == bound.lower()):
        return True
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def bound_address(scope: Any) -> tuple[str | None, Any]:
    """The address and port the connection came in on (ASGI ``scope["server"]``)."""
    server = scope.get("server") or (None, None)
    return (str(server[0]) if server[0] is not None else None), server[1]


def host_is_local(host: str | None, bound: str | None) -> bool:
    """A ``Host`` header (None: not sent) that names loopback or the bound address."""
    return host is None or is_local(host_name(host), bound)


def origin_is_local(origin: str, bound: str | None, port: Any = None) -> bool:
    """An ``Origin`` of an ``http(s)`` page on loopback or the bound address; on ``port`` when
    given (the server itself), else on any port."""
    try:
        o = urlsplit(origin)
        oport = o.port or {"http": 80, "https": 443}.get(o.scheme)
    except ValueError:
        return False
    return o.scheme in ("http", "https") and is_local(o.hostname, bound) and (port is None or oport == port)


__all__ = ["bound_address", "host_is_local", "host_name", "is_local", "origin_is_local"]

"""Sandbox providers for the program under test (``autocue run --sandbox NAME``).

``SandboxProvider.start(SandboxSpec)`` gives a ``Sandbox`` for one run: ``exec`` starts a program in
it (the ``Child`` of ``autocue.process.spawn``), ``copy_in`` / ``copy_out``, ``egress`` (what the program
tried to reach), ``close``. Built in: ``none``, ``bwrap``, ``docker``, ``podman``; more come as
``autocue.sandboxes`` entry points (``register`` is what they feed). See docs/scale.md.
"""

from autocue.isolation.base import Egress, Sandbox, SandboxProvider, SandboxSpec, Wrapped
from autocue.isolation.errors import IsolationError, SandboxUnavailableError, UnknownSandboxError
from autocue.isolation.registry import ENTRY_POINT_GROUP, find, providers, register, unregister

__all__ = ["ENTRY_POINT_GROUP", "Egress", "IsolationError", "Sandbox", "SandboxProvider", "SandboxSpec",
           "SandboxUnavailableError", "UnknownSandboxError", "Wrapped", "find", "providers", "register", "unregister"]

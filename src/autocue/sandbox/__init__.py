"""``autocue.sandbox``: prove an extension package installs and loads as a user gets it.

    from autocue.sandbox import verify_sandbox_install

    result = verify_sandbox_install("examples/planner", expect={"extensions": 1})

``verify_sandbox_install`` builds the package's wheel, installs it with the running autocue
into a fresh virtual environment and loads its extensions there (``autocue verify-install``
on the command line; ``autocue.testing`` re-exports ``verify_sandbox_install`` and
``SandboxResult``). The modules:

* ``check``: ``verify_sandbox_install``, its steps and its result (``SandboxResult``).
* ``child``: what runs inside the fresh interpreter (``python -I -m autocue.sandbox.child``).
* ``problems``: what the check can find wrong (``ProblemKind``, ``Problem``).
* ``smoke``: the smoke playbook as JSON, and its events coming back.
* ``wheels``: the package's wheel, the running autocue's, the local wheelhouse.
* ``index``: the package index the user configured (for a build that fetches its requirements).
* ``commands``: finding ``uv``, running a command in a clean environment, the cache directory.

The names load on first use, so the interpreter inside the sandbox imports only ``child``
and what it needs.
"""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.sandbox.check import (
        EXPECT_KEYS,
        Loaded,
        SandboxResult,
        SmokeResult,
        verify_sandbox_install,
    )
    from autocue.sandbox.errors import SandboxError, SandboxStepError, SandboxVerificationError, SmokeSpecError
    from autocue.sandbox.problems import Problem, ProblemKind
    from autocue.sandbox.smoke import load_smoke_file, smoke_to_wire

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.sandbox.check": ["EXPECT_KEYS", "Loaded", "SandboxResult", "SmokeResult", "verify_sandbox_install"],
    "autocue.sandbox.errors": ["SandboxError", "SandboxStepError", "SandboxVerificationError", "SmokeSpecError"],
    "autocue.sandbox.problems": ["Problem", "ProblemKind"],
    "autocue.sandbox.smoke": ["load_smoke_file", "smoke_to_wire"],
})

__all__ = [
    "EXPECT_KEYS", "Loaded", "Problem", "ProblemKind", "SandboxError", "SandboxResult", "SandboxStepError",
    "SandboxVerificationError", "SmokeResult", "SmokeSpecError", "load_smoke_file", "smoke_to_wire",
    "verify_sandbox_install",
]

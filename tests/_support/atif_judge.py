"""Harbor's own Pydantic models of ATIF as the judge of every trajectory the tests read or write.

The ``harbor`` package (PyPI) needs Python >= 3.12, so on 3.11 its models are loaded from the
verbatim copy under tests/fixtures/atif/harbor_models/ (harbor 0.26.0, Apache-2.0: see
tests/fixtures/atif/SOURCES.md); where ``harbor`` is installed, the installed models judge.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "atif"

try:
    from harbor.models.trajectories import Trajectory
except ImportError:  # Python 3.11: harbor does not install; its models (pydantic only) do load
    sys.path.insert(0, str(FIXTURES / "harbor_models"))
    from harbor.models.trajectories import Trajectory


def validate(trajectory: dict[str, Any] | str | Path) -> Any:
    """The trajectory as Harbor's ``Trajectory`` (raises pydantic's ``ValidationError`` when it is not one)."""
    data = trajectory if isinstance(trajectory, dict) else json.loads(Path(trajectory).read_text("utf-8"))
    return Trajectory.model_validate(data)

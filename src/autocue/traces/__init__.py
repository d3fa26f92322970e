"""Trace formats in and out: ATIF (the Agent Trajectory Interchange Format of Harbor).

- ``export_atif(path) -> dict``: a session file (pi v3 JSONL), a recording or scenario file, or a
  run folder of ``autocue run`` (its ``requests.json``) as one ATIF trajectory.
- ``import_atif(path, tools="autocue", root="/app") -> ImportedScenario``: an ATIF trajectory as
  a scenario whose replies and tool calls replay through ``autocue run``.

See docs/traces.md for the mapping.
"""

from __future__ import annotations

from autocue.traces.atif import ATIF_VERSION, build_trajectory
from autocue.traces.errors import TraceError
from autocue.traces.exporter import export_atif
from autocue.traces.importer import ImportedScenario, import_atif

__all__ = ["ATIF_VERSION", "ImportedScenario", "TraceError", "build_trajectory", "export_atif", "import_atif"]

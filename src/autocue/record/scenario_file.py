"""The scenario writer lives in ``autocue.scenario.writer`` (the in-process recorder of
``autocue.testing`` uses it too); this module keeps the old import path."""

from __future__ import annotations

from autocue.scenario.writer import Recording, flow, write_atomic

__all__ = ["Recording", "flow", "write_atomic"]

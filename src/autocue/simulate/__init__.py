"""``autocue.simulate``: scenarios streamed as sessions over REST + SSE (seed 004, testing mode 3).

Public surface: ``scenario_events(scenario)`` (the pure event mapping), ``event_json_schema()``,
``validate_event``, ``EVENT_SCHEMA_VERSION``, ``SimState`` / ``create_app`` (the ASGI app),
``SimulationServer`` (a started server in a thread, for tests). See docs/simulate.md.
"""

from __future__ import annotations

from autocue.simulate.app import SimState, create_app
from autocue.simulate.schema import (
    EVENT_SCHEMA_VERSION,
    EVENT_TYPES,
    EventSchemaError,
    event_json_schema,
    validate_event,
)
from autocue.simulate.server import SimulationServer
from autocue.simulate.timeline import scenario_events

__all__ = ["EVENT_SCHEMA_VERSION", "EVENT_TYPES", "EventSchemaError", "SimState", "SimulationServer",
           "create_app", "event_json_schema", "scenario_events", "validate_event"]

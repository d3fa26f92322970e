"""The prompt a hat gets for one activation.

Public surface: ``build_prompt(hat, events, task, scratchpad, promise, hats)``.

It holds the hat's role and instructions, the task, the triggering events (topic, source and
payload), where the scratchpad is, the events the hat may publish and how, and the
completion promise. It never grows with the run's history: fresh context every iteration.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from autocue.loop.config import HatConfig
from autocue.loop.events import Event


def _derived_instructions(hat: HatConfig) -> str:
    trig = ", ".join(hat.triggers) or "events targeted at you"
    pubs = ", ".join(hat.publishes) or "any topic"
    return f"You handle {trig}. Do the work these events ask for, then publish one of: {pubs}."


def build_prompt(
    hat: HatConfig,
    events: Sequence[Event],
    task: str,
    scratchpad: str,
    promise: str,
    hats: Iterable[HatConfig] = (),
) -> str:
    parts: list[str] = [f"# Hat: {hat.name or hat.id} ({hat.id})"]
    if hat.description:
        parts.append(hat.description)
    parts.append(f"## Task\n{task.strip()}")
    if events:
        lines = ["## Events"]
        for e in events:
            src = f" (from {e.source})" if e.source else ""
            lines.append(f"### {e.topic}{src}")
            lines.append(e.payload or "(no payload)")
        parts.append("\n".join(lines))
    else:
        parts.append("## Events\n(no pending events: decide the next step from the task and the scratchpad)")
    parts.append(f"## Instructions\n{(hat.instructions or _derived_instructions(hat)).strip()}")
    others = [h for h in hats if h.id != hat.id]
    if others:
        rows = "\n".join(f"| {h.id} | {', '.join(h.triggers)} | {', '.join(h.publishes)} |" for h in others)
        parts.append(f"## Other hats\n| hat | triggers | publishes |\n|---|---|---|\n{rows}")
    parts.append(
        f"## Scratchpad\nYour scratchpad is `{scratchpad}`. Read it first; record your plan and progress in it."
    )
    pubs = ", ".join(hat.publishes) if hat.publishes else "any topic"
    parts.append(
        "## Publishing events\n"
        f'Publish an event by writing <event topic="TOPIC">payload</event> (you may publish: {pubs}). '
        f"When the whole task is complete, end your output with a line containing only {promise}."
    )
    return "\n\n".join(parts) + "\n"


__all__ = ["build_prompt"]

"""planner: an autocue extension that adds a plan mode.

* ``plan_mode {enable}`` toggles plan mode (also the ``/plan`` command);
* ``plan_propose {title, steps}``, ``plan_list``, ``plan_get {id}``, ``plan_approve {id}``,
  ``plan_reject {id, reason}`` manage plans; approving asks the user (``ctx.ui.confirm``);
* while plan mode is on, a ``tool_call`` hook blocks ``write``, ``edit`` and ``bash``.

Plans live in the extension's closure (one set per session) and are recorded in the session
file with ``api.append_entry("plan", ...)``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

MUTATING_TOOLS = frozenset({"write", "edit", "bash"})


@dataclass
class Plan:
    id: str
    title: str
    steps: list[str]
    status: str = "proposed"
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"{self.id} [{self.status}] {self.title} ({len(self.steps)} steps)"


def extension(api: Any) -> None:
    plans: dict[str, Plan] = {}
    state = {"plan_mode": False}

    def find(plan_id: str) -> Plan:
        plan = plans.get(plan_id)
        if plan is None:
            known = ", ".join(plans) or "none"
            raise KeyError(f"no plan {plan_id!r} (known plans: {known})")
        return plan

    def set_mode(enable: bool, ctx: Any) -> str:
        state["plan_mode"] = enable
        ctx.ui.set_status("planner", "plan mode" if enable else None)
        return f"Plan mode {'on' if enable else 'off'}."

    def plan_mode(enable: bool, ctx: Any) -> str:
        """Turn plan mode on or off. In plan mode, write, edit and bash are blocked."""
        return set_mode(enable, ctx)

    def plan_propose(title: str, ctx: Any, steps: list[str] | None = None) -> str:
        """Propose a plan: a title and its steps. Returns the plan id."""
        plan_id = "PLAN-" + hashlib.sha1(f"{len(plans)}:{title}".encode()).hexdigest()[:8]
        plan = Plan(plan_id, title, list(steps or []))
        plans[plan_id] = plan
        api.append_entry("plan", {"id": plan_id, "title": title, "steps": plan.steps, "status": plan.status})
        return f"Created {plan_id}: {title}"

    def plan_list() -> str:
        """List every plan with its status."""
        return "\n".join(p.summary() for p in plans.values()) or "No plans."

    def plan_get(id: str) -> dict[str, Any]:
        """Show one plan."""
        p = find(id)
        return {"content": [{"type": "text", "text": p.summary() + "".join(f"\n- {s}" for s in p.steps)}],
                "details": {"id": p.id, "status": p.status, "steps": p.steps}}

    async def plan_approve(id: str, ctx: Any) -> str:
        """Approve a plan (asks the user to confirm)."""
        p = find(id)
        if p.status != "proposed":
            raise ValueError(f"{p.id} is {p.status}; only proposed plans can be approved")
        answer = await ctx.ui.confirm("Approve plan?", p.summary())
        if not answer:
            return f"{p.id} was not approved (the user declined)."
        p.status = "approved"
        api.append_entry("plan", {"id": p.id, "status": p.status})
        ctx.ui.notify(f"{p.id} approved", "info")
        return f"Approved {p.id}."

    def plan_reject(id: str, reason: str = "") -> str:
        """Reject a plan, with an optional reason."""
        p = find(id)
        p.status = "rejected"
        if reason:
            p.notes.append(reason)
        api.append_entry("plan", {"id": p.id, "status": p.status, "reason": reason})
        return f"Rejected {p.id}." + (f" Reason: {reason}" if reason else "")

    for fn in (plan_mode, plan_propose, plan_list, plan_get, plan_approve, plan_reject):
        api.register_tool(fn)

    def block_mutations(event: Any, ctx: Any) -> dict[str, Any] | None:
        if state["plan_mode"] and event.tool_name in MUTATING_TOOLS:
            return {"block": True, "reason": f"Plan mode: {event.tool_name} is blocked until plan mode is off"}
        return None

    api.on("tool_call", block_mutations)

    async def plan_command(args: str, ctx: Any) -> None:
        set_mode(args.strip() != "off", ctx)

    api.register_command("plan", plan_command, description="Toggle plan mode: /plan [on|off]")

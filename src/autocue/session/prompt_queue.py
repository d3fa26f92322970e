"""``PromptQueue``: how a message reaches an ``AgentSession``'s agent.

While the agent runs, a message is queued as a steer (after the current tool calls) or a
follow-up (once the agent would stop); ``next_turn`` messages wait for the next prompt. When
idle, a user message becomes a prompt and a custom message is appended (or, with
``trigger_turn``, prompts). Slash commands of extensions run at once and cannot be queued;
``/skill:name`` and ``/template`` expand first.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from autocue.agent.agent import Agent
from autocue.agent.events import MessageEndEvent, MessageStartEvent
from autocue.extensions.events import CustomMessageSpec
from autocue.extensions.runner import ExtensionRunner
from autocue.llm.types import ImageContent, TextContent, UserContent, UserMessage
from autocue.session.errors import SessionBusyError
from autocue.session.event_dispatch import EventDispatch
from autocue.session.messages import CustomMessage
from autocue.session.ports import RunGuard
from autocue.session.resources import Resources, expand_prompt_template, expand_skill_command
from autocue.session.settings import Settings

DeliverAs = Literal["steer", "follow_up", "next_turn"]


class Prompting(Protocol):
    """The session entries a message from an extension goes through (``AgentSession``'s)."""

    async def bind_extensions(self) -> None: ...

    async def prompt(
        self, text: str, *, images: Sequence[ImageContent] | None = None, expand_prompt_templates: bool = True,
        source: Literal["interactive", "rpc", "extension"] = "interactive",
    ) -> None: ...


def user_message(text: str, images: Sequence[ImageContent] | None) -> UserMessage:
    # pi always stores prompts as content blocks, never as a bare string.
    return UserMessage([TextContent(text), *(images or ())])


class PromptQueue:
    """The queued messages of one session (built with its agent, settings, resources, extension
    runner, events, ``RunGuard`` and, for a message that prompts, its ``Prompting`` entries)."""

    __slots__ = ("_agent", "_events", "_guard", "_next_turn", "_resources", "_runner", "_session", "_settings")

    def __init__(
        self, *, agent: Agent, settings: Settings, resources: Resources, runner: ExtensionRunner,
        events: EventDispatch, guard: RunGuard, session: Prompting,
    ) -> None:
        self._agent = agent
        self._settings = settings
        self._resources = resources
        self._runner = runner
        self._events = events
        self._guard = guard
        self._session: Prompting = weakref.proxy(session)  # the session owns this; no cycle to free
        self._next_turn: list[Any] = []

    def take_next_turn(self) -> list[Any]:
        out, self._next_turn = self._next_turn, []
        return out

    def clear_next_turn(self) -> None:
        self._next_turn = []

    def has_pending(self) -> bool:
        return self._agent.has_queued_messages() or bool(self._next_turn)

    def expand(self, text: str) -> str:
        if self._settings.enable_skill_commands and text.startswith("/skill:"):
            text = expand_skill_command(text, self._resources.skills)
        return expand_prompt_template(text, self._resources.prompts)

    async def try_command(self, text: str) -> bool:
        """Run ``/name args`` when ``name`` is a registered command; False when it is not one."""
        runner = self._runner
        name, _, args = text[1:].partition(" ")
        cmd = runner.command(name)
        if cmd is None:
            return False
        try:
            r = cmd.handler(args.strip(), runner.command_ctx)
            if r is not None and hasattr(r, "__await__"):
                await r
        except Exception as err:
            runner.report(cmd.extension, f"command:/{name}", err)
        return True

    def queue(self, text: str, images: Sequence[ImageContent] | None, how: Literal["steer", "follow_up"]) -> None:
        """``steer`` / ``follow_up`` of a typed message (expanded; commands refused)."""
        self._guard.check_alive()
        if text.startswith("/") and self._runner.command(text[1:].partition(" ")[0]) is not None:
            raise ValueError(
                f"Extension commands cannot be queued: {text.split()[0]!r} runs immediately; call prompt() with it "
                "once the agent is idle."
            )
        self.deliver(user_message(self.expand(text), images), how)

    def deliver(self, message: Any, how: DeliverAs) -> None:
        """Queue ``message`` as a steer, a follow-up or for the next prompt."""
        if how == "next_turn":
            self._next_turn.append(message)
        elif how == "follow_up":
            self._agent.follow_up(message)
        else:
            self._agent.steer(message)

    async def send_custom(
        self, message: CustomMessageSpec | CustomMessage | dict[str, Any], trigger_turn: bool, deliver_as: DeliverAs
    ) -> None:
        agent = self._agent
        self._guard.check_alive()
        if isinstance(message, CustomMessage):
            m = message
        else:
            spec = CustomMessageSpec.of(message, "a custom message")
            m = CustomMessage(spec.custom_type, spec.content, spec.display, spec.details)
        if deliver_as == "next_turn" or self._guard.busy:
            self.deliver(m, deliver_as)
            return
        if trigger_turn:
            await self._session.bind_extensions()
            await self._guard.run(lambda: agent.prompt(m))
            return
        agent.append_message(m)
        for ev in (MessageStartEvent(m), MessageEndEvent(m)):
            r = self._events.on_agent_event(ev)
            if r is not None:
                await r

    async def send_user(self, content: str | Sequence[UserContent], deliver_as: DeliverAs | None) -> None:
        if isinstance(content, str):
            text, images = content, None
        else:
            text = "\n".join(b.text for b in content if isinstance(b, TextContent))
            images = [b for b in content if isinstance(b, ImageContent)] or None
        if self._guard.busy:
            if deliver_as is None:
                raise SessionBusyError(
                    "send_user_message while the agent is running needs deliver_as='steer' or 'follow_up'"
                )
            self.deliver(user_message(text, images), deliver_as)
            return
        await self._session.prompt(text, images=images, expand_prompt_templates=False, source="extension")


__all__ = ["PromptQueue", "Prompting", "user_message"]

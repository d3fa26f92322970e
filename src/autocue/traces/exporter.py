"""``export_atif(path)``: a session file, a recording (any scenario file) or a run folder as ATIF.

- a session file (``*.jsonl``, pi v3): the conversation at its leaf, with times, models, usage
  and tool results;
- a scenario file (``*.yaml``, a recording of ``autocue record`` or a hand-written one): the
  initial prompt and user inputs, each reply with its text, thinking, tool calls, usage and
  model (``_meta``); a scenario holds no tool results, so its steps have no observation;
- a run folder of ``autocue run`` (or its ``report.json`` when it ran one scenario): the
  ``requests.json`` the runner writes there (the mock server's journal of the run's model
  requests, bodies included). The last request's history (the system prompt, the user prompts,
  each reply as the agent sent it back, each tool result as the agent's tools returned it) plus
  the reply it got (from the scenario) are the trajectory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autocue import __version__
from autocue.llm.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from autocue.traces.atif import Message, build_trajectory
from autocue.traces.errors import TraceError


def export_atif(path: str | Path) -> dict[str, Any]:
    """The ATIF trajectory (a JSON-ready dict) of the session file, scenario file or run folder ``path``."""
    p = Path(path)
    if p.is_dir() or p.name in ("report.json", "requests.json"):
        return _from_run(_requests_file(p))
    if not p.is_file():
        raise TraceError(f"{p}: no such file or folder")
    if p.suffix == ".jsonl":
        return _from_session(p)
    if p.suffix in (".yaml", ".yml"):
        return _from_scenario(p)
    raise TraceError(f"{p}: not a session file (.jsonl), a scenario file (.yaml) or a run folder of autocue run")


# ---------------------------------------------------------------------------- session files
def _from_session(p: Path) -> dict[str, Any]:
    from autocue.session.errors import SessionError
    from autocue.session.manager import SessionManager

    try:
        sm = SessionManager.open(p, read_only=True)  # the user's file: never migrated on disk
    except SessionError as e:
        raise TraceError(str(e)) from None
    ctx = sm.build_session_context()
    messages: list[Message] = [m for m in ctx.messages
                               if isinstance(m, UserMessage | AssistantMessage | ToolResultMessage)]
    model = ctx.model[1] if ctx.model else next((m.model for m in messages if isinstance(m, AssistantMessage)), None)
    return build_trajectory(messages, agent_name="autocue", agent_version=__version__, model=model or None,
                            session_id=sm.get_session_id(),
                            extra={"source": {"kind": "session", "file": str(p), "cwd": sm.get_header().cwd}})


# ---------------------------------------------------------------------------- scenario files
def _scenario_messages(p: Path) -> tuple[list[Message], str | None, str]:
    from autocue.scenario import LlmResponse, ScenarioError, UserInputs, load_scenario
    from autocue.script.model import ScriptedResponse, ScriptedToolCall

    try:
        sc = load_scenario(p)
    except ScenarioError as e:
        raise TraceError(str(e)) from None
    except OSError as e:
        raise TraceError(f"{p}: {e.strerror or e}") from None
    script = sc.compile()
    replies = [s for t in script.turns for s in t.steps if isinstance(s, ScriptedResponse)]
    metas = [e.meta or {} for e in sc.timeline if isinstance(e, LlmResponse)]
    messages: list[Message] = []
    if sc.initial_prompt:
        messages.append(UserMessage(sc.initial_prompt, timestamp=0))
    reply_at = 0
    model: str | None = None
    for ev in sc.timeline:
        if isinstance(ev, UserInputs):
            messages.append(UserMessage(ev.text, timestamp=0))
        elif isinstance(ev, LlmResponse) and reply_at < len(replies):
            r = replies[reply_at]
            meta = metas[reply_at] if reply_at < len(metas) else {}
            reply_at += 1
            if r.error is not None:
                messages.append(AssistantMessage([], model=str(meta.get("model") or ""), stop_reason="error",
                                                 error_message=r.error.error_text(), timestamp=0))
                continue
            content: list[TextContent | ThinkingContent | ToolCall] = []
            for i, b in enumerate(r.content):
                if isinstance(b, ScriptedToolCall):
                    args = b.arguments if isinstance(b.arguments, dict) else {}
                    content.append(ToolCall(b.id or f"call_{reply_at}_{i + 1}", b.name, dict(args)))
                else:
                    content.append(b)
            model = model or (str(meta["model"]) if meta.get("model") else None)
            messages.append(AssistantMessage(content, model=str(meta.get("model") or ""),
                                             usage=r.usage or Usage(), timestamp=0))
    return messages, model, sc.name


def _from_scenario(p: Path) -> dict[str, Any]:
    messages, model, name = _scenario_messages(p)
    return build_trajectory(messages, agent_name="autocue", agent_version=__version__, model=model,
                            session_id=name, extra={"source": {"kind": "scenario", "file": str(p)}})


# ---------------------------------------------------------------------------- run folders
def _requests_file(p: Path) -> Path:
    if p.name == "requests.json":
        return p
    if p.name == "report.json":
        try:
            report = json.loads(p.read_text("utf-8"))
        except (OSError, ValueError) as e:
            raise TraceError(f"{p}: not a report of autocue run ({e})") from None
        dirs = [s.get("out_dir") for s in report.get("scenarios") or [] if isinstance(s, dict) and s.get("out_dir")]
        if len(dirs) != 1:
            raise TraceError(f"{p}: the report holds {len(dirs)} scenario runs: pass the run folder of one "
                             "(its out_dir)")
        p = Path(str(dirs[0]))
    found = sorted(p.rglob("requests.json"))
    if not found:
        raise TraceError(f"{p}: no requests.json in this folder: pass a run folder of autocue run (a scenario's "
                         "out_dir), a session file (.jsonl) or a scenario file (.yaml)")
    if len(found) > 1:
        raise TraceError(f"{p}: {len(found)} runs in this folder: pass one of them, e.g. {found[0].parent}")
    return found[0]


def _parse_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            v = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {"input": raw}
        return v if isinstance(v, dict) else {"input": v}
    return {}


def _part_text(content: Any) -> str:
    """Text of a wire message's content: a string, or a list of parts with ``text`` (or nested ``content``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    out.append(part["text"])
                elif "content" in part:
                    out.append(_part_text(part["content"]))
        return "".join(out)
    if isinstance(content, dict):
        return json.dumps(content)
    return ""


class _History:
    """A request's history (any API) in autocue's message types."""

    def __init__(self) -> None:
        self.system: list[str] = []
        self.messages: list[Message] = []
        self.names: dict[str, str] = {}
        self.answered: set[str] = set()

    def assistant(self, content: list[TextContent | ThinkingContent | ToolCall]) -> None:
        for b in content:
            if isinstance(b, ToolCall):
                self.names[b.id] = b.name
        self.messages.append(AssistantMessage(content, timestamp=0))

    def result(self, call_id: str, text: str, is_error: bool = False) -> None:
        self.answered.add(call_id)
        self.messages.append(ToolResultMessage(call_id, self.names.get(call_id, ""), [TextContent(text)],
                                               is_error=is_error, timestamp=0))

    def chat(self, body: dict[str, Any]) -> None:
        for m in body.get("messages") or []:
            role = m.get("role")
            if role in ("system", "developer"):
                self.system.append(_part_text(m.get("content")))
            elif role == "user":
                self.messages.append(UserMessage(_part_text(m.get("content")), timestamp=0))
            elif role == "assistant":
                content: list[TextContent | ThinkingContent | ToolCall] = []
                if isinstance(m.get("reasoning_content"), str) and m["reasoning_content"]:
                    content.append(ThinkingContent(m["reasoning_content"]))
                text = _part_text(m.get("content"))
                if text:
                    content.append(TextContent(text))
                for c in m.get("tool_calls") or []:
                    f = c.get("function") or {}
                    content.append(ToolCall(str(c.get("id") or ""), str(f.get("name") or ""),
                                            _parse_args(f.get("arguments"))))
                self.assistant(content)
            elif role == "tool":
                self.result(str(m.get("tool_call_id") or ""), _part_text(m.get("content")))

    def anthropic(self, body: dict[str, Any]) -> None:
        if body.get("system"):
            self.system.append(_part_text(body["system"]))
        for m in body.get("messages") or []:
            blocks = m.get("content")
            if isinstance(blocks, str):
                blocks = [{"type": "text", "text": blocks}]
            if m.get("role") == "assistant":
                content: list[TextContent | ThinkingContent | ToolCall] = []
                for b in blocks or []:
                    if b.get("type") == "text" and b.get("text"):
                        content.append(TextContent(b["text"]))
                    elif b.get("type") == "thinking":
                        content.append(ThinkingContent(str(b.get("thinking") or "")))
                    elif b.get("type") == "tool_use":
                        content.append(ToolCall(str(b.get("id") or ""), str(b.get("name") or ""),
                                                _parse_args(b.get("input"))))
                self.assistant(content)
                continue
            texts = []
            for b in blocks or []:
                if b.get("type") == "tool_result":
                    self.result(str(b.get("tool_use_id") or ""), _part_text(b.get("content")), bool(b.get("is_error")))
                elif b.get("type") == "text":
                    texts.append(str(b.get("text") or ""))
            if texts:
                self.messages.append(UserMessage("".join(texts), timestamp=0))

    def responses(self, body: dict[str, Any]) -> None:
        if body.get("instructions"):
            self.system.append(str(body["instructions"]))
        items = body.get("input")
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        pending: list[TextContent | ThinkingContent | ToolCall] = []
        for it in items or []:
            kind = it.get("type") or "message"
            if kind == "function_call":
                pending.append(ToolCall(str(it.get("call_id") or ""), str(it.get("name") or ""),
                                        _parse_args(it.get("arguments"))))
                continue
            if kind == "message" and it.get("role") == "assistant":
                pending.append(TextContent(_part_text(it.get("content"))))
                continue
            if pending:
                self.assistant(pending)
                pending = []
            if kind == "function_call_output":
                self.result(str(it.get("call_id") or ""), _part_text(it.get("output")))
            elif kind == "message" and it.get("role") in ("system", "developer"):
                self.system.append(_part_text(it.get("content")))
            elif kind == "message":
                self.messages.append(UserMessage(_part_text(it.get("content")), timestamp=0))
        if pending:
            self.assistant(pending)

    def gemini(self, body: dict[str, Any]) -> None:
        sys_inst = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(sys_inst, dict):
            self.system.append(_part_text(sys_inst.get("parts")))
        n = 0
        for c in body.get("contents") or []:
            parts = c.get("parts") or []
            if c.get("role") == "model":
                content: list[TextContent | ThinkingContent | ToolCall] = []
                for part in parts:
                    if "functionCall" in part:
                        n += 1
                        fc = part["functionCall"]
                        content.append(ToolCall(str(fc.get("id") or f"call_{n}"), str(fc.get("name") or ""),
                                                _parse_args(fc.get("args"))))
                    elif isinstance(part.get("text"), str):
                        content.append(ThinkingContent(part["text"]) if part.get("thought")
                                       else TextContent(part["text"]))
                self.assistant(content)
                continue
            open_calls = list(self.names)
            texts = []
            for part in parts:
                if "functionResponse" in part:
                    fr = part["functionResponse"]
                    cid = str(fr.get("id") or next((i for i in open_calls if self.names[i] == fr.get("name")
                                                    and i not in self.answered), ""))
                    resp = fr.get("response")
                    if isinstance(resp, dict) and len(resp) == 1 and isinstance(next(iter(resp.values())), str):
                        resp = next(iter(resp.values()))  # {"output": TEXT}: what autocue's Gemini client sends
                    self.result(cid, _part_text(resp))
                elif isinstance(part.get("text"), str):
                    texts.append(part["text"])
            if texts:
                self.messages.append(UserMessage("".join(texts), timestamp=0))


def _from_run(requests_file: Path) -> dict[str, Any]:
    try:
        data = json.loads(requests_file.read_text("utf-8"))
    except (OSError, ValueError) as e:
        raise TraceError(f"{requests_file}: cannot read the run's requests ({e})") from None
    requests = [r for s in data.get("sessions") or [] for r in s.get("requests") or []
                if isinstance(r, dict) and r.get("outcome") == "reply"]
    requests.sort(key=lambda r: int(r.get("n") or 0))
    if not requests or not isinstance(requests[-1].get("body"), dict):
        raise TraceError(f"{requests_file}: the run made no model request that got a reply")
    last = requests[-1]
    h = _History()
    api = str(last.get("api") or "chat")
    reader = {"chat": h.chat, "anthropic": h.anthropic, "responses": h.responses, "gemini": h.gemini}.get(api)
    if reader is None:
        raise TraceError(f"{requests_file}: requests of the {api!r} API are not read into ATIF yet")
    reader(last["body"])
    final = _final_reply(data, requests_file, int(last.get("reply") or 0))
    if final is not None:
        h.messages.append(final)
    # the k-th reply answered the k-th request: its model, time and scripted usage
    scripted = _scenario_replies(data, requests_file)
    replies = [m for m in h.messages if isinstance(m, AssistantMessage)]
    # aligned from the end: the journal keeps the last requests only (``journal_size``)
    for msg, req in zip(reversed(replies), reversed(requests), strict=False):
        msg.model = str(req.get("model") or "")
        msg.timestamp = int(float(req.get("time") or 0) * 1000)
        idx = int(req.get("reply") or 0) - 1
        if not 0 <= idx < len(scripted):
            continue
        if scripted[idx].usage is not None:
            msg.usage = scripted[idx].usage
        thinking = [b for b in scripted[idx].content if isinstance(b, ThinkingContent)]
        if thinking and not any(isinstance(b, ThinkingContent) for b in msg.content):
            msg.content[:0] = thinking  # an API whose history drops the reasoning (Chat Completions)
    for m in h.messages:
        if isinstance(m, UserMessage | ToolResultMessage):
            m.timestamp = 0
    model = str(last.get("model") or "") or None
    return build_trajectory(h.messages, agent_name="autocue-run", agent_version=__version__, model=model,
                            system="\n".join(x for x in h.system if x) or None, session_id=str(data.get("name") or ""),
                            extra={"source": {"kind": "run", "folder": str(requests_file.parent),
                                              "scenario": data.get("scenario"), "api": api}})


def _scenario_replies(data: dict[str, Any], requests_file: Path) -> list[Any]:
    from autocue.scenario import ScenarioError, load_scenario
    from autocue.script.model import ScriptedResponse

    file = data.get("scenario")
    if not file:
        return []
    try:
        sc = load_scenario(file)
    except (ScenarioError, OSError) as e:
        raise TraceError(f"{requests_file}: the run's scenario {file} cannot be read ({one_line(str(e))})") from None
    return [s for t in sc.compile().turns for s in t.steps if isinstance(s, ScriptedResponse)]


def one_line(text: str) -> str:
    return " ".join(text.split())


def _final_reply(data: dict[str, Any], requests_file: Path, reply: int) -> AssistantMessage | None:
    """The scripted reply the last request got (no later request carries it back)."""
    from autocue.script.model import ScriptedToolCall

    replies = _scenario_replies(data, requests_file)
    if not 1 <= reply <= len(replies):
        return None
    r = replies[reply - 1]
    if r.error is not None:
        return AssistantMessage([], stop_reason="error", error_message=r.error.error_text(), timestamp=0)
    content: list[TextContent | ThinkingContent | ToolCall] = []
    for i, b in enumerate(r.content):
        if isinstance(b, ScriptedToolCall):
            content.append(ToolCall(b.id or f"call_final_{i + 1}", b.name,
                                    dict(b.arguments) if isinstance(b.arguments, dict) else {}))
        else:
            content.append(b)
    return AssistantMessage(content, usage=r.usage or Usage(), timestamp=0)


__all__ = ["export_atif"]

"""Which scenario a request that names none plays: by the key it was recorded under, else by content.

A recording made by ``autocue record`` carries what its session's first request looked like
(``recording_traits``, written as ``server.recording`` in the scenario): the API, the model,
a hash of the system text, the declared tools and a hash of the client key (the key itself is
never written). ``choose(playables, req)``:

1. **The client key.** A recording made under the request's session key (the bearer token or
   API-key header, or a ``/s/{name}/`` prefix) is chosen by it; else one made under
   ``fallback_key`` (``autocue serve --session-key``).
2. **The content.** The scenarios whose first prompt matches the request's first user message
   best (exactly, else contained, the longest first, else by similarity >= 0.6), narrowed in
   turn by API, model, system text and tools: at each step, when some candidates match the
   request and others do not, those that do stay (a scenario that records none of these
   matches each of them neither way).

More than one left is ``Ambiguous``: the server refuses rather than guess.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from autocue.mockllm.incoming import Incoming
from autocue.mockllm.session import Playable

TRAITS = {"api": "API", "model": "model", "system": "system text", "tools": "tools"}
"""What narrows the candidates of one first prompt, in order (keys of ``server.recording``), and their labels."""


def digest(text: str) -> str:
    """``sha256:<hex>`` of ``text``: how a recording keeps a client key and the system text."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def recording_traits(req: Incoming) -> dict[str, Any]:
    """What a recording keeps of its session's first request to be chosen by on replay."""
    system = req.system_text()
    return {"api": req.api, "model": req.model, "system": digest(system) if system else "",
            "tools": req.declared_tools(), "sessionKey": digest(req.session_key)}


def _trait(req: Incoming, name: str) -> Any:
    if name == "api":
        return req.api
    if name == "model":
        return req.model
    if name == "system":
        system = req.system_text()
        return digest(system) if system else ""
    return sorted(req.declared_tools())


def _recorded(p: Playable, name: str) -> Any:
    rec = p.recording
    if rec is None or name not in rec:
        return None
    v = rec[name]
    return sorted(str(t) for t in v) if name == "tools" and isinstance(v, list) else v


@dataclass(slots=True)
class Ambiguous:
    """Several scenarios match the request equally."""

    candidates: list[Playable]
    agree: list[str]
    """What they all match the request on (``first user message``, ``API``, ...)."""


def _by_prompt(items: Sequence[Playable], prompt: str) -> tuple[list[Playable], str]:
    """The scenarios whose first prompt matches ``prompt`` best, and how."""
    wants = [(p, " ".join(p.first_prompt.split())) for p in items if p.first_prompt]
    exact = [p for p, w in wants if w == prompt]
    if exact:
        return exact, "prompt (exact)"
    contained = [(len(w), p) for p, w in wants if w and w in prompt]
    if contained:
        longest = max(n for n, _ in contained)
        return [p for n, p in contained if n == longest], "prompt (contained)"
    scored = [(difflib.SequenceMatcher(None, w, prompt[:4000]).ratio(), p) for p, w in wants]
    best = max((s for s, _ in scored), default=0.0)
    if best < 0.6:
        return [], ""
    return [p for s, p in scored if s == best], f"prompt (similarity {best:.2f})"


def choose(items: Sequence[Playable], req: Incoming, fallback_key: str | None = None
           ) -> tuple[Playable, str] | Ambiguous | None:
    """The scenario ``req`` plays and how it was chosen; ``Ambiguous``; None when nothing matches."""
    mine: list[Playable] = []
    by = ""
    for key, label in ((req.session_key, "session key"), (fallback_key, "--session-key")):
        if key is not None:
            h = digest(key)
            mine = [p for p in items if p.recording is not None and p.recording.get("sessionKey") == h]
            if mine:
                by = label
                break
    if len(mine) == 1:
        return mine[0], by
    prompt = " ".join(req.first_user_text().split())
    found, how = _by_prompt(mine or items, prompt)
    if mine:
        how = f"{by}, " + (how or "no prompt match")
        found = found or mine
    if not found:
        return None
    agree = ["first user message"]
    narrowed: list[str] = []
    for name in TRAITS:
        if len(found) == 1:
            break
        want = _trait(req, name)
        same = [p for p in found if _recorded(p, name) == want]
        if same and len(same) < len(found):
            narrowed.append(name)
            found = same
        if len(same) == len(found):
            agree.append(TRAITS[name])
    if len(found) > 1:
        return Ambiguous(found, agree)
    return found[0], how + (f"; narrowed by {', '.join(narrowed)}" if narrowed else "")


def ambiguous_message(a: Ambiguous, limit: int = 5) -> str:
    """The one line a request that matches several scenarios equally gets: the files, and how to pick one."""
    shown = a.candidates[:limit]
    files = [_file(p) for p in shown]
    more = f" and {len(a.candidates) - limit} more" if len(a.candidates) > limit else ""
    what = "recordings" if all(p.recording is not None for p in a.candidates) else "scenarios"
    first = shown[0].source and files[0]
    by_key = ("send the client key it was recorded under (or start the server with --session-key KEY), "
              if what == "recordings" else "")
    return (f"autocue mock LLM: {len(a.candidates)} {what} match this request equally ({', '.join(a.agree)}): "
            f"{', '.join(files)}{more}. Pick one: {by_key}name it with the x-scenario-name header or a "
            "/scenario/NAME/ path prefix "
            f"({', '.join(p.name for p in shown)}), or serve one file instead of the folder"
            + (f" (autocue serve {first})." if first else "."))


def _file(p: Playable) -> str:
    """The file a scenario came from (its source without the ``:line``), else its name."""
    if not p.source:
        return f"<{p.name}>"
    head, _, line = p.source.rpartition(":")
    return head if head and line.isdigit() else p.source

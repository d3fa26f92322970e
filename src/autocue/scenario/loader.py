"""One loader for every accepted scenario form.

``ScenarioLoader(file).load(text)`` parses YAML with positions and normalizes:

- ``llmResponse`` groups, and legacy top-level ``think`` / ``assistant`` / ``agentToolUse`` /
  ``agentEdits`` / ``error`` events (one-part responses, ``grouped=False``);
- type-tagged events (``{type: advanceMs, ms: 50}``, ``{type: assistant, text: ...}``, ...);
- tool-named events (``runCmd: {cmd: ...}``, ``readFile``, ``writeFile``, ...), with the
  tool-name and argument spellings of ``vocab.TOOL_NAME_ALIASES`` / ``ARG_ALIASES`` rewritten;
- ``[ms, text]`` pairs and ``{relativeTime|timestamp, content|text}`` objects;
- ``advanceMs`` / ``baseTimeDelta``, ``userInputs`` / ``userEdits`` / ``userCommand``,
  ``agentActions`` / ``userActions`` lists (flattened), ``assert``, ``screenshot``,
  ``complete``, ``merge``, ``toolExecution``, ``error`` steps with status code and body.

Each timeline event kind (its keys, its reading, its bare and type-tagged forms) is an ``EventKind``
of ``events.py``; this module finds the kind an item names and reports what no kind reads. The
runner keys ``agent:`` and ``masks:`` are read here too (``Scenario.runner``).

Unknown keys and events become ``ScenarioWarning``s (``file:line:col``), except near-misses of
a known timeline event or top-level key (``llmRespons``, ``timline``): those are errors that say
"did you mean ...?". Anything autocue cannot use raises ``ScenarioError`` naming
``file:line:col`` and the path.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable
from typing import Any

from autocue.catalog.apis import either
from autocue.catalog.apis import styles as api_styles
from autocue.errors import nearest
from autocue.scenario.errors import Pos, ScenarioError
from autocue.scenario.eventread import EventReader
from autocue.scenario.events import EventKind, kind_of, timeline_keys
from autocue.scenario.model import (
    Artifact,
    AssertStep,
    CommandSpec,
    Compat,
    EmbeddingsSpec,
    Expect,
    LlmResponse,
    Mask,
    Repo,
    RepoFile,
    RunnerEvent,
    RunnerSpec,
    Scenario,
    ServerSpec,
    TimelineEvent,
)
from autocue.scenario.parts import PART_SET
from autocue.scenario.reader import near_miss
from autocue.scenario.vocab import ARTIFACT_TYPES, TOP_LEVEL_KEYS
from autocue.scenario.yamlsrc import Node, parse_documents, plain, type_name


class ScenarioLoader(EventReader):
    """Normalizes the documents of one file; collects warnings while it goes."""

    # ------------------------------------------------------------------ entry points
    def load(self, text: str) -> list[Scenario]:
        docs = parse_documents(text, self.file)
        docs = [d for d in docs if d.v is not None]
        if not docs:
            self.fail(Node(None, "", Pos(self.file, 1, 1)),
                      "the file has no scenario: write at least `name:` and `timeline:`")
        out: list[Scenario] = []
        for d in docs:
            self.warnings = []
            out.append(self.scenario(d))
        return out

    # ------------------------------------------------------------------ top level
    def scenario(self, root: Node) -> Scenario:
        if not root.is_map:
            self.fail(root, f"a scenario is a mapping with `name:` and `timeline:`, got {type_name(root.v)}")
        if "rules" in root and _looks_like_old_playbook(root.v["rules"]):
            self.fail(
                root.key("rules"),
                "this is an old playbook JSON (rules with if_contains), not a scenario: rewrite each rule as an "
                "`llmResponse` in a `timeline:`",
            )
        for k in root.key_names():
            if k not in TOP_LEVEL_KEYS:
                self.not_misspelt(root, k, TOP_LEVEL_KEYS, "top-level key")
        name_n = self.require(root, "name", what="every scenario needs a non-empty name")
        name = self.str_(name_n, "the scenario name (a string)")
        if not name.strip():
            self.fail(name_n, "the scenario name must not be empty")
        sc = Scenario(name=name, pos=root.pos)
        self.unknown_keys(root, TOP_LEVEL_KEYS, "the scenario")
        blocks: tuple[tuple[str, str, Callable[[Node], Any]], ...] = (
            ("description", "description", self.str_),
            ("tags", "tags", lambda n: self.str_list(n, "a list of tags (strings)")),
            ("terminalRef", "terminal_ref", lambda n: self.str_(n, "a path to a terminal configuration file")),
            ("compat", "compat", self.compat),
            ("initialPrompt", "initial_prompt", lambda n: self.str_(n, "the initial prompt (a string)")),
            ("repo", "repo", self.repo),
            ("ah", "ah", self.command),
            ("server", "server", self.server),
            ("expect", "expect", self.expect),
            ("acp", "acp", lambda n: plain(self.map_(n).v)),
        )
        for key, attr, read in blocks:  # a block written as null keeps its default
            if (n := root.get(key)) is not None and n.v is not None:
                setattr(sc, attr, read(n))
        if "rules" in root:
            self.warn(
                root.key_pos("rules"), "rules",
                "conditional `rules` blocks are not supported by autocue; the block is ignored "
                "(write the resolved values directly)",
            )
        timeline: list[TimelineEvent] = []
        tl = root.get("timeline")
        if tl is None and "events" in root:
            self.warn(root.key_pos("events"), "events", "legacy key `events` is read as `timeline`; rename it")
            tl = root.key("events")
        if tl is None or tl.v is None:
            self.warn(root.pos, "timeline", "the scenario has no timeline: it scripts no model replies")
        else:
            self.seq(tl, "a list of timeline events")
            for item in tl.items():
                self.event(item, timeline)
            if not any(isinstance(e, LlmResponse) for e in timeline):
                key = "timeline" if "timeline" in root else "events"
                self.warn(root.key_pos(key), key, "the timeline has no llmResponse (nor a think, assistant, tool or "
                          "error event): the scenario scripts 0 model replies")
        if "assertions" in root:
            self.warn(root.key_pos("assertions"), "assertions",
                      "legacy key `assertions` is read as `assert` steps at the end of the timeline; "
                      "move them into the timeline")
            an = root.key("assertions")
            for a in (an.items() if an.is_seq else [an]):
                timeline.append(AssertStep(self.assertion(a), a.pos))
        sc.timeline = timeline
        if "agent" in root or "masks" in root:
            sc.runner = self.runner(root)
        sc.warnings = self.warnings
        return sc

    def runner(self, root: Node) -> RunnerSpec:
        """``agent:`` and ``masks:``, the keys ``autocue run`` reads."""
        spec = RunnerSpec()
        if (n := root.get("agent")) is not None and n.v is not None:
            if not isinstance(n.v, str) or not n.v.strip():
                raise ScenarioError("agent: expected a launch profile name (mock, autocue)", n.pos, "agent")
            spec.agent = n.v.strip()
        if (n := root.get("masks")) is not None and n.v is not None:
            if not n.is_seq:
                raise ScenarioError("masks: expected a list of regexes or {pattern, replace} objects", n.pos, "masks")
            spec.masks = [_mask(item.v, item.pos, item.path) for item in n.items()]
        return spec

    def compat(self, n: Node) -> Compat:
        self.map_(n, "the compat block (a mapping)")
        c = Compat()
        if (x := n.get("allowInlineTerminal")) is not None:
            c.allow_inline_terminal = self.bool_(x)
        if (x := n.get("allowTypeSteps")) is not None:
            c.allow_type_steps = self.bool_(x)
        for k in n.key_names():
            if k not in ("allowInlineTerminal", "allowTypeSteps"):
                self.warn(n.key_pos(k), n.key_path(k), f"unknown compat flag {k!r} is kept but not used by autocue")
                c.extra[str(k)] = plain(n.v[k])
        return c

    def repo(self, n: Node) -> Repo:
        self.map_(n, "the repo block (a mapping)", ("init", "branch", "dir", "files"), "repo")
        r = Repo()
        if (x := n.get("init")) is not None:
            r.init = self.bool_(x)
        r.branch = self.opt_str(n, "branch")
        r.dir = self.opt_str(n, "dir")
        if (x := n.get("files")) is not None and x.v is not None:
            for f in self.seq(x, "a list of {path, contents} files").items():
                self.map_(f, "a file: {path, contents}", ("path", "contents"), "a repo file")
                path = self.str_(self.require(f, "path", what="the file's path in the repo"))
                c = self.require(f, "contents", what="the file's text, or {base64: ...}")
                contents: str | bytes
                if isinstance(c.v, str):
                    contents = str(c.v)
                elif c.is_map and "base64" in c:
                    b = c.key("base64")
                    try:
                        contents = base64.b64decode(self.str_(b), validate=True)
                    except (binascii.Error, ValueError):
                        self.fail(b, "invalid base64 data")
                else:
                    self.fail(c, f"expected the file's text or {{base64: ...}}, got {type_name(c.v)}")
                r.files.append(RepoFile(path, contents))
        return r

    def command(self, n: Node) -> CommandSpec:
        self.map_(n, "the command-under-test block (a mapping with cmd, flags, env)", ("cmd", "flags", "env"), "ah")
        c = CommandSpec(cmd=self.opt_str(n, "cmd"))
        if (x := n.get("flags")) is not None and x.v is not None:
            c.flags = self.str_list(x, "a list of CLI tokens (strings; quote numbers)")
        if (x := n.get("env")) is not None and x.v is not None:
            self.map_(x, "a mapping of environment variables")
            for k in x.key_names():
                v = x.key(k)
                if isinstance(v.v, (dict, list)):
                    self.fail(v, f"environment variable {k} must be a scalar, got {type_name(v.v)}")
                val = plain(v.v)
                c.env[str(k)] = "" if val is None else (str(val).lower() if isinstance(val, bool) else str(val))
        return c

    def server(self, n: Node) -> ServerSpec:
        self.map_(n, "the server block (a mapping)")
        s = ServerSpec()
        if (x := n.get("mode")) is not None:
            mode = self.str_(x)
            if mode not in ("none", "mock", "real"):
                self.fail(x, f"server.mode must be none, mock or real, got {mode!r}")
            s.mode = mode  # type: ignore[assignment]
        if (x := n.get("llmApiStyle")) is not None:
            style = self.str_(x)
            if style not in (known := api_styles()):
                self.fail(x, f"server.llmApiStyle must be {either(known)}, got {style!r}")
            s.llm_api_style = style
        if (x := n.get("coalesceThinkingWithToolUse")) is not None:
            s.coalesce_thinking_with_tool_use = self.bool_(x)
        if (x := n.get("toolsProfile", "profile")) is not None and x.v is not None:
            s.tools_profile = self.str_(x, "a tool profile name")
        if (x := n.get("embeddings")) is not None and x.v is not None:
            s.embeddings = self.embeddings(x)
        if (x := n.get("match")) is not None and x.v is not None:
            match = self.str_(x)
            if match not in ("strict", "loose", "off"):
                self.fail(x, f"server.match must be strict, loose or off, got {match!r}")
            s.match = match
        for k in n.key_names():
            if k not in ("mode", "llmApiStyle", "coalesceThinkingWithToolUse", "toolsProfile", "profile", "embeddings",
                         "match"):
                s.extra[str(k)] = plain(n.v[k])
        return s

    def embeddings(self, n: Node) -> EmbeddingsSpec:
        """``server.embeddings``: ``dimensions`` and ``vectors`` (text: a list of numbers, or ``{like: text}``)."""
        self.map_(n, "the embeddings block (a mapping with dimensions and vectors)", ("dimensions", "vectors"),
                  "server.embeddings")
        spec = EmbeddingsSpec()
        if (x := n.get("dimensions")) is not None:
            spec.dimensions = self.int_(x, "the vectors' dimensions (a positive integer)", minimum=1)
        likes: dict[str, tuple[str, Node]] = {}
        if (x := n.get("vectors")) is not None and x.v is not None:
            self.map_(x, "a mapping of input texts to vectors (lists of numbers) or {like: text}")
            for k in x.key_names():
                v = x.key(k)
                if v.is_map:
                    self.map_(v, "{like: text}", ("like",), "a vector")
                    likes[str(k)] = (self.str_(self.require(v, "like", what="the text whose vector this one is")), v)
                    continue
                nums = [item.v for item in self.seq(v, "a vector (a list of numbers) or {like: text}").items()]
                if not nums or not all(isinstance(y, (int, float)) and not isinstance(y, bool) and math.isfinite(y)
                                       for y in nums):
                    self.fail(v, "expected a vector: a non-empty list of finite numbers")
                if not any(nums):
                    self.fail(v, "a vector of zeros has no direction: give it a non-zero component")
                if spec.dimensions is None:
                    spec.dimensions = len(nums)
                if len(nums) != spec.dimensions:
                    self.fail(v, f"this vector has {len(nums)} dimensions, the others {spec.dimensions}: "
                                 "every scripted vector has the same length (server.embeddings.dimensions)")
                spec.vectors[str(k)] = [float(y) for y in nums]
        for text, (target, node) in likes.items():
            seen = [text]
            while target in likes:  # a like of a like: follow it to a vector or an unscripted text
                if target in seen:
                    self.fail(node, f"`like` goes round in a circle: {' -> '.join(repr(t) for t in [*seen, target])}")
                seen.append(target)
                target = likes[target][0]
            spec.vectors[text] = spec.vectors.get(target, target)
        return spec

    def expect(self, n: Node) -> Expect:
        self.map_(n, "the expect block (a mapping)")
        e = Expect(pos=n.pos)
        if (x := n.get("egress")) is not None and x.v is not None:
            if x.v != "none":
                self.fail(x, f"expect.egress: expected `none` (the run fails on any egress attempt), got {x.v!r}")
            e.egress = "none"
        if (x := n.get("exitCode")) is not None and x.v is not None:
            e.exit_code = self.int_(x, "an exit code", minimum=None)
        if (x := n.get("artifacts")) is not None and x.v is not None:
            for a in self.seq(x, "a list of {pattern, type} artifacts").items():
                self.map_(a, "an artifact: {pattern, type}", ("type", "pattern"), "an artifact")
                kind = "any"
                if (t := a.get("type")) is not None:
                    kind = self.str_(t, "an artifact type")
                    # another word is a label (seed 004's `taskFile`), checked as `any`; a near miss is a typo
                    if kind not in ARTIFACT_TYPES and (guess := nearest(kind, ARTIFACT_TYPES)) is not None:
                        self.fail(t, f"unknown artifact type {kind!r}: did you mean `{guess}`? (checked: "
                                     f"{', '.join(ARTIFACT_TYPES)}; any other word is a label, checked as any)")
                e.artifacts.append(Artifact(kind, self.str_(self.require(a, "pattern", what="a path or glob"))))
        if (x := n.get("acp")) is not None and x.v is not None:
            self.map_(x, "the ACP checks of an `--via acp` run (toolCalls, permissions, plan, stopReasons, text, ...)")
            e.acp = plain(x.v)
        for k in n.key_names():
            if k not in ("exitCode", "artifacts", "egress", "acp"):
                self.warn(n.key_pos(k), n.key_path(k),
                          f"unknown key {k!r} in expect is kept but not checked by autocue")
                e.extra[str(k)] = plain(n.v[k])
        return e

    # ------------------------------------------------------------------ timeline (kinds: events.py)
    def event(self, item: Node, out: list[TimelineEvent]) -> None:
        if isinstance(item.v, str):
            word = str(item.v)
            ek = kind_of(word)
            if ek is not None and ek.bare is not None and word in ek.bare_keys:
                out.append(ek.bare(word, item.pos))
                return
            if ek is not None:
                self.fail(item, f"`{word}` needs a value: write `- {word}: ...`")
            self.fail(item, f"a timeline event must be a mapping like `- llmResponse: [...]`, got the string {word!r}")
        if not item.is_map:
            self.fail(item, f"a timeline event must be a mapping like `- llmResponse: [...]`, got {type_name(item.v)}")
        if not item.v:
            self.fail(item, "empty timeline event: write one event per list item, e.g. `- advanceMs: 50`")
        if "type" in item:
            self.tagged_event(item, out)
            return
        kinds = [k for k in item.key_names() if kind_of(k) is not None]
        if len(kinds) > 1:
            self.fail(item, "one event per list item: found " + " and ".join(kinds) + "; put each in its own `- ` item")
        if not kinds:
            for k in item.key_names():
                self.not_misspelt(item, k, timeline_keys(), "timeline event")
            first = item.key_names()[0]
            self.warn(item.key_pos(first), item.key_path(str(first)),
                      f"unknown timeline event {str(first)!r} is ignored (known events: llmResponse, userInputs, "
                      "assert, advanceMs, screenshot, runCmd, ...)")
            out.append(RunnerEvent(str(first), plain(item.v), item.pos))
            return
        kind = kinds[0]
        allowed = {kind, "_meta", *self.kind(kind).siblings}
        if kind in PART_SET:
            allowed.add("chaos")
        for k in item.key_names():
            if k not in allowed:
                self.warn(item.key_pos(k), item.key_path(k), f"unknown key {k!r} next to {kind} is ignored")
        self.dispatch(kind, item.key(kind), item, out)

    @staticmethod
    def kind(key: str) -> EventKind:
        ek = kind_of(key)
        assert ek is not None, key
        return ek

    def dispatch(self, kind: str, v: Node, item: Node, out: list[TimelineEvent]) -> None:
        """``- kind: v`` (events are placed where their ``- kind:`` item starts)."""
        out.extend(self.kind(kind).load(self, kind, v, item))

    def tagged_event(self, item: Node, out: list[TimelineEvent]) -> None:
        tn = item.key("type")
        kind = self.str_(tn, "an event type name")
        ek = kind_of(kind)
        if ek is None:
            if (guess := near_miss(kind, timeline_keys())) is not None:
                self.fail(tn, f"unknown event type {kind!r}: did you mean `{guess}`?")
            self.warn(tn.pos, tn.path, f"unknown event type {kind!r} is ignored")
            out.append(RunnerEvent(kind, plain(item.v), item.pos))
            return
        if kind in item:  # {type: think, think: [...]}
            self.dispatch(kind, item.key(kind), item, out)
        elif ek.tagged is not None:
            out.extend(ek.tagged(self, kind, item))
        else:  # mapping-valued events read their fields from the event itself
            self.dispatch(kind, item.without("type"), item, out)


def _mask(v: Any, pos: Pos, path: str) -> Mask:
    if isinstance(v, str):
        pattern, repl = v, "***"
    elif isinstance(v, dict) and isinstance(v.get("pattern"), str):
        pattern, repl = v["pattern"], v.get("replace", "***")
        if not isinstance(repl, str):
            raise ScenarioError("replace: expected a string", pos, path)
    else:
        raise ScenarioError("a mask is a regex string or {pattern: REGEX, replace: TEXT}", pos, path)
    try:
        return Mask(re.compile(pattern), repl, pos)
    except re.error as e:
        raise ScenarioError(f"mask {pattern!r} is not a valid regex: {e}", pos, path) from None


def _looks_like_old_playbook(rules: Any) -> bool:
    return isinstance(rules, list) and any(isinstance(r, dict) and "if_contains" in r for r in rules)

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

Unknown keys and events become ``ScenarioWarning``s (``file:line:col``), except near-misses of
a known timeline event or top-level key (``llmRespons``, ``timline``): those are errors that say
"did you mean ...?". Anything autocue cannot use raises ``ScenarioError`` naming
``file:line:col`` and the path.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from autocue.catalog.apis import either
from autocue.catalog.apis import styles as api_styles
from autocue.errors import nearest
from autocue.scenario.errors import Pos, ScenarioError
from autocue.scenario.expect import EXPECT_KEYS, LAST_MESSAGE_KEYS, ROLES, RequestExpectation
from autocue.scenario.model import (
    AdvanceMs,
    Artifact,
    AssertStep,
    CommandSpec,
    Compat,
    Complete,
    ErrorStep,
    Expect,
    ExpectRequestStep,
    LlmResponse,
    Merge,
    Repo,
    RepoFile,
    RunnerEvent,
    Scenario,
    Screenshot,
    ServerSpec,
    TimelineEvent,
    UserCommand,
    UserEdits,
    UserInput,
    UserInputs,
)
from autocue.scenario.parts import PART_SET, PartReader
from autocue.scenario.reader import near_miss
from autocue.scenario.vocab import ARTIFACT_TYPES, TIMELINE_EVENTS, TOP_LEVEL_KEYS
from autocue.scenario.yamlsrc import Node, parse_documents, plain, type_name

if TYPE_CHECKING:  # imported by the first scenario with an assert step or a chaos key
    from autocue.scenario.assertions import AssertSpec
    from autocue.script.chaos import ChaosSpec

_TIMELINE_SET = frozenset(TIMELINE_EVENTS)
_BARE_EVENTS = frozenset({"complete", "merge", "sessionStart", "userCancelSession"})
_FLAGS: dict[str, type[Complete | Merge]] = {"complete": Complete, "merge": Merge}


class ScenarioLoader(PartReader):
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
        sc.warnings = self.warnings
        return sc

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
        for k in n.key_names():
            if k not in ("mode", "llmApiStyle", "coalesceThinkingWithToolUse", "toolsProfile", "profile"):
                s.extra[str(k)] = plain(n.v[k])
        return s

    def expect(self, n: Node) -> Expect:
        self.map_(n, "the expect block (a mapping)")
        e = Expect()
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
        for k in n.key_names():
            if k not in ("exitCode", "artifacts"):
                self.warn(n.key_pos(k), n.key_path(k),
                          f"unknown key {k!r} in expect is kept but not checked by autocue")
                e.extra[str(k)] = plain(n.v[k])
        return e

    # ------------------------------------------------------------------ timeline
    def event(self, item: Node, out: list[TimelineEvent]) -> None:
        if isinstance(item.v, str):
            word = str(item.v)
            if word in _FLAGS:
                out.append(_FLAGS[word](True, item.pos))
                return
            if word in _BARE_EVENTS:
                out.append(RunnerEvent(word, None, item.pos))
                return
            if word in _TIMELINE_SET:
                self.fail(item, f"`{word}` needs a value: write `- {word}: ...`")
            self.fail(item, f"a timeline event must be a mapping like `- llmResponse: [...]`, got the string {word!r}")
        if not item.is_map:
            self.fail(item, f"a timeline event must be a mapping like `- llmResponse: [...]`, got {type_name(item.v)}")
        if not item.v:
            self.fail(item, "empty timeline event: write one event per list item, e.g. `- advanceMs: 50`")
        if "type" in item:
            self.tagged_event(item, out)
            return
        kinds = [k for k in item.key_names() if k in _TIMELINE_SET]
        if len(kinds) > 1:
            self.fail(item, "one event per list item: found " + " and ".join(kinds) + "; put each in its own `- ` item")
        if not kinds:
            for k in item.key_names():
                self.not_misspelt(item, k, TIMELINE_EVENTS, "timeline event")
            first = item.key_names()[0]
            self.warn(item.key_pos(first), item.key_path(str(first)),
                      f"unknown timeline event {str(first)!r} is ignored (known events: llmResponse, userInputs, "
                      "assert, advanceMs, screenshot, runCmd, ...)")
            out.append(RunnerEvent(str(first), plain(item.v), item.pos))
            return
        kind = kinds[0]
        allowed = {kind, "_meta"}
        if kind == "userInputs":
            allowed.add("target")
        if kind == "llmResponse" or kind in PART_SET:
            allowed.add("chaos")
        for k in item.key_names():
            if k not in allowed:
                self.warn(item.key_pos(k), item.key_path(k), f"unknown key {k!r} next to {kind} is ignored")
        self.dispatch(kind, item.key(kind), item, out)

    def chaos(self, item: Node) -> ChaosSpec | None:
        """A reply's ``chaos:`` key (a chaos spec string, see ``autocue.script.chaos``)."""
        if "chaos" not in item:
            return None
        from autocue.script.chaos import ChaosSpecError, parse_chaos

        n = item.key("chaos")
        if not isinstance(n.v, str):
            self.fail(n, f"`chaos` must be a chaos spec string such as \"error=429*1\", got {type_name(n.v)}")
        try:
            return parse_chaos(str(n.v))
        except ChaosSpecError as e:
            self.fail(n, str(e))

    def dispatch(self, kind: str, v: Node, item: Node, out: list[TimelineEvent]) -> None:
        meta = plain(item.v["_meta"]) if "_meta" in item else None
        at = item.pos  # events are placed where their `- kind:` item starts
        if kind == "llmResponse":
            elements = self.seq(v, "a list of response elements (think, assistant, agentToolUse, ...)")
            parts = [self.part(el) for el in elements.items()]
            if not parts:
                self.warn(v.pos, v.path, "empty llmResponse: it plays as an empty reply")
            errs = [p for p in parts if isinstance(p, ErrorStep)]
            if errs and len(parts) > 1:
                self.warn(errs[0].pos, v.path, "an llmResponse with an `error` element plays as that failed call; "
                          "its other elements are not sent (put them in the next llmResponse)")
            out.append(LlmResponse(parts, at, grouped=True, meta=meta, chaos=self.chaos(item)))
        elif kind in ("agentActions", "userActions"):
            for sub in self.seq(v, f"a list of events in {kind}").items():
                self.event(sub, out)
        elif kind in PART_SET and kind != "agentPlan":
            out.append(LlmResponse([self.part_value(kind, v)], at, grouped=False, meta=meta, chaos=self.chaos(item)))
        elif kind == "userInputs":
            target = self.opt_str(item, "target")
            ui = self.user_inputs(v, target)
            ui.pos = at
            out.append(ui)
        elif kind == "userEdits":
            if isinstance(v.v, str):
                out.append(UserEdits(str(v.v), at))
            else:
                self.map_(v, "{patch: path/to/file.patch}", ("patch",), "userEdits")
                out.append(UserEdits(self.str_(self.require(v, "patch", what="the patch file")), at))
        elif kind == "userCommand":
            if isinstance(v.v, str):
                out.append(UserCommand(str(v.v), at))
            else:
                self.map_(v, "{cmd, cwd}", ("cmd", "cwd"), "userCommand")
                out.append(UserCommand(self.str_(self.require(v, "cmd", what="the command to run")), at,
                                       self.opt_str(v, "cwd")))
        elif kind in ("advanceMs", "baseTimeDelta"):
            out.append(AdvanceMs(self.int_(v, "milliseconds (an integer)"), at))
        elif kind == "screenshot":
            if v.is_map:
                out.append(Screenshot(self.str_(self.require(v, "name", "label", what="the screenshot label")), at))
            else:
                out.append(Screenshot(self.str_(v, "a screenshot label (a string)"), at))
        elif kind == "assert":
            spec = self.assertion(v)
            spec.pos = at
            out.append(AssertStep(spec, at))
        elif kind == "expectRequest":
            out.append(ExpectRequestStep(self.expect_request(v, at), at))
        elif kind in _FLAGS:
            out.append(_FLAGS[kind](self.bool_(v), at))
        elif kind in ("status", "log"):
            out.append(RunnerEvent(kind, self.str_(v), at))
        else:  # agentPlan at top level and the other runner events
            out.append(RunnerEvent(kind, plain(v.v), at))

    def tagged_event(self, item: Node, out: list[TimelineEvent]) -> None:
        tn = item.key("type")
        kind = self.str_(tn, "an event type name")
        if kind not in _TIMELINE_SET:
            if (guess := near_miss(kind, TIMELINE_EVENTS)) is not None:
                self.fail(tn, f"unknown event type {kind!r}: did you mean `{guess}`?")
            self.warn(tn.pos, tn.path, f"unknown event type {kind!r} is ignored")
            out.append(RunnerEvent(kind, plain(item.v), item.pos))
            return
        if kind in item:  # {type: think, think: [...]}
            self.dispatch(kind, item.key(kind), item, out)
            return
        if kind in PART_SET and kind != "agentPlan":
            out.append(LlmResponse([self.tagged_part(kind, item)], item.pos, grouped=False))
        elif kind in ("advanceMs", "baseTimeDelta"):
            self.unknown_keys(item, ("type", "ms", "value"), f"a {kind} event")
            out.append(AdvanceMs(self.int_(self.require(item, "ms", "value", what="milliseconds"), "milliseconds"),
                                 item.pos))
        elif kind == "screenshot":
            self.unknown_keys(item, ("type", "name", "label"), "a screenshot event")
            out.append(Screenshot(self.str_(self.require(item, "name", "label", what="the screenshot label")),
                                  item.pos))
        elif kind == "userInputs":
            self.unknown_keys(item, ("type", "inputs", "target"), "a userInputs event")
            out.append(self.user_inputs(self.require(item, "inputs", what="[[ms, text], ...]"),
                                        self.opt_str(item, "target")))
        elif kind in _FLAGS:
            x = item.get("value")
            out.append(_FLAGS[kind](True if x is None else self.bool_(x), item.pos))
        elif kind in ("status", "log"):
            out.append(RunnerEvent(kind, self.str_(self.require(item, "text", "message", what="the text")), item.pos))
        elif kind in ("agentActions", "userActions", "llmResponse"):
            self.fail(item, f"a type-tagged {kind} needs its list under `{kind}:`")
        else:
            # Mapping-valued events read their fields from the event itself.
            rest = item.without("type")
            self.dispatch(kind, rest, item, out)

    # ------------------------------------------------------------------ user inputs
    def user_inputs(self, v: Node, target: str | None) -> UserInputs:
        self.seq(v, "a list of [ms, text] pairs or {relativeTime, input} objects")
        inputs: list[UserInput] = []
        for s in v.items():
            if s.is_seq:
                if len(s.v) != 2:
                    self.fail(s, f"a user input is [ms, text] (2 items), got {len(s.v)} item(s)")
                ms_n, t_n = list(s.items())
                inputs.append(UserInput(self.int_(ms_n, "milliseconds"), self.str_(t_n, "the input text"), s.pos,
                                        target))
            elif s.is_map:
                self.unknown_keys(s, ("relativeTime", "timestamp", "ms", "input", "text", "content", "target",
                                      "_meta", "expectedResponse"), "a user input")
                t = s.get("relativeTime", "timestamp", "ms")
                body = self.require(s, "input", "text", "content", what="the text the user types")
                rich: list[Any] | None = None
                if isinstance(body.v, str):
                    text = str(body.v)
                elif body.is_seq:
                    rich = plain(body.v)
                    text = "\n".join(b.get("text", "") for b in rich if isinstance(b, dict) and b.get("type") == "text")
                else:
                    self.fail(body, f"expected the input text or a list of content blocks, got {type_name(body.v)}")
                er = s.get("expectedResponse")
                inputs.append(UserInput(
                    self.int_(t, "milliseconds") if t is not None else 0, text, s.pos,
                    self.opt_str(s, "target") or target, rich,
                    plain(self.map_(er).v) if er is not None and er.v is not None else None,
                ))
            else:
                self.fail(s, f"a user input is [ms, text] or {{relativeTime, input}}, got {type_name(s.v)}")
        if not inputs:
            self.warn(v.pos, v.path, "empty userInputs")
        return UserInputs(inputs, v.pos, target)

    # ------------------------------------------------------------------ assertions
    def assertion(self, v: Node) -> AssertSpec:
        from autocue.scenario.assertions import AssertSpec, GitCommitCheck, JsonFileCheck

        self.map_(v, "an assertion mapping (fs, text, json, git)")
        spec = AssertSpec(pos=v.pos)
        for k in v.key_names():
            if k == "type":
                continue
            sub = v.key(k)
            if k == "fs":
                self.map_(sub, "{exists: [...], notExists: [...]}", ("exists", "notExists"), "assert.fs")
                if (x := sub.get("exists")) is not None:
                    spec.fs_exists = self.str_list(x, "a list of paths", single_ok=True)
                if (x := sub.get("notExists")) is not None:
                    spec.fs_not_exists = self.str_list(x, "a list of paths", single_ok=True)
            elif k == "text":
                self.map_(sub, "{contains: [...]}", ("contains",), "assert.text")
                if (x := sub.get("contains")) is not None:
                    spec.text_contains = self.str_list(x, "a list of strings", single_ok=True)
            elif k == "json":
                self.map_(sub, "{file: {path, pointer, equals}}", ("file",), "assert.json")
                if (x := sub.get("file")) is not None:
                    for f in (x.items() if x.is_seq else [x]):
                        self.map_(f, "{path, pointer, equals}", ("path", "pointer", "equals"), "assert.json.file")
                        pointer = self.opt_str(f, "pointer") or ""
                        if pointer and not pointer.startswith("/"):
                            self.fail(f.key("pointer"), f"a JSON pointer starts with '/', got {pointer!r}")
                        spec.json_file.append(JsonFileCheck(
                            self.str_(self.require(f, "path", what="the JSON file")), pointer,
                            plain(f.v.get("equals")),
                        ))
            elif k == "git":
                self.map_(sub, "{commit: {messageContains}}", ("commit",), "assert.git")
                if (x := sub.get("commit")) is not None:
                    for c in (x.items() if x.is_seq else [x]):
                        self.map_(c, "{messageContains: ...}", ("messageContains",), "assert.git.commit")
                        spec.git_commit.append(GitCommitCheck(
                            self.str_(self.require(c, "messageContains", what="text the last commit message contains"))
                        ))
            else:
                self.warn(v.key_pos(k), v.key_path(k),
                          f"assertion {k!r} is not checked by autocue (known: fs, text, json, git); "
                          "it is kept in extra")
                spec.extra[str(k)] = plain(sub.v)
        if spec.count == 0 and not spec.extra:
            self.warn(v.pos, v.path, "this assert has no checks")
        return spec


    # ------------------------------------------------------------------ expectRequest
    def _expect_keys(self, v: Node, known: tuple[str, ...], what: str) -> None:
        for k in v.key_names():
            if k == "type" and what == "expectRequest":
                continue
            if str(k) not in known:
                self.not_misspelt(v, str(k), known, f"key in {what}")
                raise ScenarioError(f"unknown key {str(k)!r} in {what} (known: {', '.join(known)})",
                                    v.key_pos(k), v.key_path(str(k)))

    def expect_request(self, v: Node, at: Pos) -> RequestExpectation:
        self.map_(v, "an expectRequest mapping (" + ", ".join(EXPECT_KEYS) + ")")
        self._expect_keys(v, EXPECT_KEYS, "expectRequest")
        spec = RequestExpectation(pos=at)
        if (x := v.get("model")) is not None:
            spec.model = self.str_(x, "a model name")
        if (x := v.get("tools")) is not None:
            spec.tools = self.str_list(x, "a tool name or a list of tool names", single_ok=True)
        if (x := v.get("systemContains")) is not None:
            spec.system_contains = self.str_list(x, "a string or a list of strings", single_ok=True)
        if (x := v.get("lastMessage")) is not None:
            self.map_(x, "{role, contains, toolResultContains}")
            self._expect_keys(x, LAST_MESSAGE_KEYS, "expectRequest.lastMessage")
            if (r := x.get("role")) is not None:
                role = self.str_(r, "a role (" + ", ".join(ROLES) + ")")
                if role not in ROLES:
                    guess = near_miss(role, ROLES)
                    self.fail(r, f"unknown role {role!r}" + (f": did you mean `{guess}`?" if guess else
                                                             f" (known: {', '.join(ROLES)})"))
                spec.last_role = role
            if (c := x.get("contains")) is not None:
                spec.last_contains = self.str_list(c, "a string or a list of strings", single_ok=True)
            if (c := x.get("toolResultContains")) is not None:
                spec.tool_result_contains = self.str_list(c, "a string or a list of strings", single_ok=True)
        if (x := v.get("pointer")) is not None:
            self.map_(x, "a mapping of JSON pointers to values ({/model: gpt-4o, /tools/0/type: function})")
            for k in x.key_names():
                pointer = str(k)
                if not pointer.startswith("/"):
                    raise ScenarioError(f"a JSON pointer starts with '/', got {pointer!r}", x.key_pos(k),
                                        x.key_path(pointer))
                spec.pointers.append((pointer, plain(x.v[k])))
        if spec.count == 0:
            self.warn(v.pos, v.path, "this expectRequest checks nothing")
        return spec


def _looks_like_old_playbook(rules: Any) -> bool:
    return isinstance(rules, list) and any(isinstance(r, dict) and "if_contains" in r for r in rules)

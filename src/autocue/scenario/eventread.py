"""Readers of timeline event values the event kinds share (``events.py``): user inputs, ``assert``
checks, ``expectRequest`` specs and a reply's ``chaos:`` key; ``ScenarioLoader`` is an ``EventReader``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autocue.scenario.errors import Pos, ScenarioError
from autocue.scenario.expect import EXPECT_KEYS, LAST_MESSAGE_KEYS, ROLES, RequestExpectation
from autocue.scenario.parts import PartReader
from autocue.scenario.reader import near_miss
from autocue.scenario.timeline import TimelineEvent, UserInput, UserInputs
from autocue.scenario.yamlsrc import Node, plain, type_name

if TYPE_CHECKING:  # imported by the first scenario with an assert step or a chaos key
    from autocue.scenario.assertions import AssertSpec
    from autocue.script.chaos import ChaosSpec


class EventReader(PartReader):
    """Reads the values of timeline events; ``event`` (one timeline item) is the loader's."""

    def event(self, item: Node, out: list[TimelineEvent]) -> None:
        """Read one timeline item into ``out`` (``agentActions`` lists hold items)."""
        raise NotImplementedError

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
                self.map_(sub, "{exists: [...], notExists: [...], contents: {path: text}, sha256: {path: hex}}",
                          ("exists", "notExists", "contents", "sha256"), "assert.fs")
                if (x := sub.get("exists")) is not None:
                    spec.fs_exists = self.str_list(x, "a list of paths", single_ok=True)
                if (x := sub.get("notExists")) is not None:
                    spec.fs_not_exists = self.str_list(x, "a list of paths", single_ok=True)
                for key, into in (("contents", spec.fs_contents), ("sha256", spec.fs_sha256)):
                    if (x := sub.get(key)) is not None:
                        self.map_(x, f"{{path: {'text' if key == 'contents' else 'hex digest'}}}")
                        for name in x.key_names():
                            into[str(name)] = self.str_(x.key(name))
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

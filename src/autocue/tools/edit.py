"""The ``edit`` tool: replace text that occurs exactly once in a file.

pi 0.58's arguments ``{path, oldText, newText}`` are what the model is told. The multi-edit
form of later pi versions, ``{path, edits: [{oldText, newText}, ...]}``, is accepted too (so
sessions written by newer pi replay): every ``oldText`` must occur exactly once in the
original file and edits must not overlap.

Matching is exact, after line endings are normalized to ``\\n`` (CRLF files keep CRLF) and a
UTF-8 BOM is set aside (and kept). A missing text, several occurrences (the count is given)
or a replacement that changes nothing is an error. The result is ``Successfully replaced
text in PATH.`` (multi-edit: ``Successfully replaced N block(s) in PATH.``) with details
``{diff, firstChangedLine}``.

Public: ``create_edit_tool(cwd)``.
"""

from __future__ import annotations

import itertools
from typing import Any

from autocue.agent.tool import AgentTool, OnUpdate, ToolArgumentsError, ToolResult
from autocue.agent.validation import compile_validator
from autocue.llm.abort import AbortSignal
from autocue.tools.common import ToolError, check_aborted
from autocue.tools.diff import generate_diff
from autocue.tools.paths import StrPath, resolve_to_cwd

EDIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
        "oldText": {"type": "string", "description": "Exact text to find and replace (must match exactly)"},
        "newText": {"type": "string", "description": "New text to replace the old text with"},
    },
    "required": ["path", "oldText", "newText"],
}

EDIT_DESCRIPTION = (
    "Edit a file by replacing exact text. The oldText must match exactly (including whitespace). "
    "Use this for precise, surgical edits."
)

_ACCEPTED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "oldText": {"type": "string"},
        "newText": {"type": "string"},
        "edits": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"],
            },
        },
    },
    "required": ["path"],
}
_check_accepted = compile_validator(_ACCEPTED)


def _validate(args: dict[str, Any]) -> dict[str, Any]:
    errors = _check_accepted(args)
    if not errors:
        single = "oldText" in args or "newText" in args
        if "edits" in args and single:
            errors.append("arguments: give either oldText/newText or edits, not both")
        elif "edits" not in args:
            errors.extend(
                f"arguments: missing required property '{k}'" for k in ("oldText", "newText") if k not in args
            )
    if errors:
        raise ToolArgumentsError("\n".join(f"  - {e}" for e in errors))
    return args


def _normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _apply(content: str, edits: list[tuple[str, str]], path: str) -> str:
    """Replace each unique ``old`` of the original ``content``; raise ToolError naming the edit."""
    many = len(edits) > 1
    spans: list[tuple[int, int, str, int]] = []
    for i, (old, new) in enumerate(edits):
        where = f"edits[{i}]: " if many else ""
        if not old:
            raise ToolError(f"{where}oldText must not be empty. Give the exact text to replace in {path}.")
        count = content.count(old)
        if count == 0:
            raise ToolError(
                f"{where}Could not find the exact text in {path}. "
                "The old text must match exactly including all whitespace and newlines."
            )
        if count > 1:
            raise ToolError(
                f"{where}Found {count} occurrences of the text in {path}. "
                "The text must be unique. Please provide more context to make it unique."
            )
        start = content.index(old)
        spans.append((start, start + len(old), new, i))
    spans.sort()
    for (_, e1, _, i1), (s2, _, _, i2) in itertools.pairwise(spans):
        if s2 < e1:
            raise ToolError(f"edits[{i1}] and edits[{i2}] overlap in {path}. Merge them into one edit.")
    out: list[str] = []
    pos = 0
    for start, end, new, _ in spans:
        out.append(content[pos:start])
        out.append(new)
        pos = end
    out.append(content[pos:])
    return "".join(out)


def create_edit_tool(cwd: StrPath) -> AgentTool:
    """The ``edit`` tool working relative to ``cwd``."""

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        check_aborted(signal)
        path: str = params["path"]
        if "edits" in params:
            edits = [(_normalize(e["oldText"]), _normalize(e["newText"])) for e in params["edits"]]
        else:
            edits = [(_normalize(params["oldText"]), _normalize(params["newText"]))]
        abs_path = resolve_to_cwd(path, cwd)
        try:
            raw = abs_path.read_bytes().decode("utf-8", "replace")
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"File not found: {path}") from None
        except IsADirectoryError:
            raise ToolError(f"Cannot edit {path}: it is a directory, not a file.") from None
        except PermissionError:
            raise ToolError(f"EACCES: permission denied, open '{abs_path}'") from None
        bom = "\ufeff" if raw.startswith("\ufeff") else ""
        text = raw[len(bom) :]
        crlf = _uses_crlf(text)
        base = _normalize(text)
        new_content = _apply(base, edits, path)
        if new_content == base:
            raise ToolError(
                f"No changes made to {path}. The replacement produced identical content. "
                "Check that newText differs from oldText."
            )
        check_aborted(signal)
        final = new_content.replace("\n", "\r\n") if crlf else new_content
        try:
            abs_path.write_bytes((bom + final).encode("utf-8", "surrogatepass"))
        except PermissionError:
            raise ToolError(f"EACCES: permission denied, open '{abs_path}'") from None
        diff, first = generate_diff(base, new_content)
        msg = (
            f"Successfully replaced {len(edits)} block(s) in {path}."
            if "edits" in params
            else f"Successfully replaced text in {path}."
        )
        details: dict[str, Any] = {"diff": diff}
        if first is not None:
            details["firstChangedLine"] = first
        return ToolResult.text(msg, details)

    return AgentTool("edit", EDIT_DESCRIPTION, EDIT_PARAMETERS, execute, label="edit", validate=_validate)


def _uses_crlf(text: str) -> bool:
    lf = text.find("\n")
    return lf > 0 and text[lf - 1] == "\r"
